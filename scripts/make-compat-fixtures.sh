#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes a vault, a backup, a sync location and the vault's JSON export with the jv of an
# earlier commit, for the tests that read files written by the previous release
# (Tests/JournalVaultTests/Fixtures/previous, PreviousFilesTests).
#
#   scripts/make-compat-fixtures.sh COMMIT OUT      builds jv at COMMIT in a worktree first
#   JV_PREVIOUS_JV=path/to/jv scripts/make-compat-fixtures.sh COMMIT OUT
#                                                   uses that binary, built at COMMIT
set -eu
commit=${1:?usage: make-compat-fixtures.sh COMMIT OUT}
out=${2:?usage: make-compat-fixtures.sh COMMIT OUT}
repository=$(cd "$(dirname "$0")/.." && pwd)

jv=${JV_PREVIOUS_JV:-}
if [ -z "$jv" ]; then
    tree=$(mktemp -d)
    git -C "$repository" worktree add --detach "$tree/src" "$commit" >/dev/null
    swift build --package-path "$tree/src" --scratch-path "$tree/build" --product jv >&2
    jv=$tree/build/debug/jv
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/prev.vault" "$out/prev.jvbak" "$out/sync" "$out/prev.export.json"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
printf 'previous release fixture passphrase\n' > "$home/passphrase"
export HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_STATE_HOME="$home/state" \
    XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/run" JV_VAULT="$out/prev.vault" \
    JV_PASSPHRASE_FILE="$home/passphrase" TZ=Europe/Berlin LC_ALL=C.UTF-8
mkdir -m 700 "$home/run"
jv() { "$jv" --no-agent "$@"; }

jv init --kdf interactive > /dev/null
first=$(jv add --at 2026-03-01T08:30 "A spring morning with @mira. #garden #walk")
jv add --at 2026-03-02T21:10 "*Evening: long call with Sam about the move. #family" > /dev/null
jv add --at 2026-07-15T12:00 "Zürich in summer — naïve café, 😀 and a tab	inside." > /dev/null
jv add --at 2026-10-31T23:59 "Late note.

Second paragraph with @mira again. #garden" > /dev/null
jv add --at 2026-11-01T00:01 "A quiet Sunday." > /dev/null
jv analyze --command "$repository/examples/analyser.py" --from 2026-01-01 > /dev/null
jv chat new > /dev/null
jv chat add --role user "What did I write about the garden?" > /dev/null
jv chat add --role assistant --model toy "Two entries mention #garden." > /dev/null
jv backup "$out/prev.jvbak" > /dev/null
jv sync init "$out/sync" > /dev/null
printf 'A spring morning with @mira, edited. #garden #walk' | jv edit "$first" > /dev/null
jv sync > /dev/null
jv sync --compact > /dev/null
jv add --at 2026-11-20T18:45 "After the snapshot: a pack of its own. #garden" > /dev/null
jv sync > /dev/null
jv export --format json > "$out/prev.export.json"
printf '%s\n' "$("$jv" --version) at $commit" > "$out/VERSION"
