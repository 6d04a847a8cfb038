#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A scripted session on a throw-away vault: every step a user would take, shown as it runs.
set -euo pipefail
jv_binary=${1:?usage: demo.sh PATH-TO-jv}
jv() { "$jv_binary" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export JV_VAULT="$work/journal.vault"
printf 'correct horse battery staple\n' > "$work/passphrase"
export JV_PASSPHRASE_FILE="$work/passphrase"
export TZ=UTC

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step jv init --kdf interactive
step jv add --at "2026-11-02 08:15" "Morning run by the river with Sam; cold and clear. #running"
step jv add --at "2026-11-10 21:40" --star "Finished the first draft. #work It felt good to let it go."
echo "Rain all day. Read by the window; tea, a café au lait later. #reading" | { printf '\n\033[1m$ echo … | jv add --at 2026-11-11\033[0m\n'; jv add --at 2026-11-11; }
step jv add --at "2026-12-01T07:00+09:00" --tag travel "Landed in Tokyo. Everything is new."
step jv list --from 2026-11-01 --to 2026-11-30
step jv chat add --role user "What did I do in November?"
step jv chat add --role assistant --model toy "You ran, finished a draft and read a lot."
step jv chat list
step jv analyze --from 2026-11-01 --to 2026-11-30 --command "$(dirname "$0")/../examples/analyser.py" --model toy
step jv analysis list
step jv graph show sam
step jv list --tag work --json
step jv search CAFE
step jv calendar 2026-11
step jv calendar 2026
step jv info
step jv check
printf '\nThe vault file holds no readable text:\n'
if cat "$JV_VAULT"* | grep -q -a -E 'river|Tokyo|running|draft'; then echo "plaintext found!" >&2; exit 1; else echo "  (grep found nothing)"; fi
printf '\nDemo finished: a throw-away vault was created, written, queried and verified.\n'
