#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An analyser for `jv analyze --command examples/ollama-analyser.sh` (README "Analyser protocol")
# that asks a model served on this machine through Ollama's HTTP API (Ollama, or any server that
# speaks its /api/generate): OLLAMA_HOST (default http://127.0.0.1:11434) and OLLAMA_MODEL
# (default llama3.2). Needs curl and jq. The entry goes to that server: keep it on this machine.
set -euo pipefail
host=${OLLAMA_HOST:-http://127.0.0.1:11434}
# Ollama's own OLLAMA_HOST may be host:port alone.
case $host in http://* | https://*) ;; *) host=http://$host ;; esac
model=${OLLAMA_MODEL:-llama3.2}
instructions='Read this journal entry and answer with one JSON object and nothing else:
{"sentiment": one word for its mood, "themes": [up to five short topics],
 "entities": {"people": [names], "places": [names]},
 "nodes": [{"type": "person" or "place" or "topic", "name": a name}]}'
# The entry (jv's JSON object on standard input) becomes the prompt; "format": "json" asks the
# server to make the answer valid JSON, and jv reads it even inside a code fence or prose.
if ! reply=$(jq -c --arg model "$model" --arg instructions "$instructions" \
    '{model: $model, stream: false, format: "json", options: {temperature: 0},
      prompt: ($instructions + "\n\nEntry of " + .local_day + ":\n" + .content)}' |
    curl --silent --show-error --fail-with-body --max-time 600 -H 'Content-Type: application/json' \
        --data-binary @- "$host/api/generate"); then
    # The server's own reason, if it gave one (curl has said why otherwise).
    reason=$(printf '%s' "$reply" | jq -r '.error? // empty' 2>/dev/null || true)
    echo "ollama-analyser: $host/api/generate failed${reason:+: $reason}" >&2
    exit 1
fi
# The model's answer as it is, with the model's name added when it is a JSON object (jv stores it).
printf '%s' "$reply" | jq -r --arg model "$model" '.response | (fromjson? | objects | .model //= $model | tojson) // .'
