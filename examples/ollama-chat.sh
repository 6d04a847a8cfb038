#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A chat command for `jv chat ask QUESTION --command examples/ollama-chat.sh` (README "Asking a
# local model") that asks a model served on this machine through Ollama's HTTP API (Ollama, or
# any server that speaks its /api/chat): OLLAMA_HOST (default http://127.0.0.1:11434), the model
# `jv chat ask --model` names, else OLLAMA_MODEL (default llama3.2). Needs curl and jq. The
# thread and the entries sent go to that server: keep it on this machine.
set -euo pipefail
host=${OLLAMA_HOST:-http://127.0.0.1:11434}
# Ollama's own OLLAMA_HOST may be host:port alone.
case $host in http://* | https://*) ;; *) host=http://$host ;; esac
# jv's request ({"model", "messages", "entries"} on standard input) becomes Ollama's: the entries
# (--with-entries) go first, as a system message the model reads before the thread.
if ! reply=$(jq -c --arg model "${OLLAMA_MODEL:-llama3.2}" '
    {model: (.model // $model), stream: false,
     messages: ((if (.entries | length) > 0 then
                   [{role: "system", content: ("Journal entries the user asks about:\n\n"
                       + (.entries | map("Entry of " + .local_day + ":\n" + .content) | join("\n\n")))}]
                 else [] end) + .messages)}' |
    curl --silent --show-error --fail-with-body --max-time 600 -H 'Content-Type: application/json' \
        --data-binary @- "$host/api/chat"); then
    # The server's own reason, if it gave one (curl has said why otherwise).
    reason=$(printf '%s' "$reply" | jq -r '.error? // empty' 2>/dev/null || true)
    echo "ollama-chat: $host/api/chat failed${reason:+: $reason}" >&2
    exit 1
fi
# The answer jv stores, with the model that wrote it.
printf '%s' "$reply" | jq '{content: .message.content, model: .model}'
