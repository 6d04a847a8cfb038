#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Counts with callgrind the instructions of the benchmark rows that docs/performance.md compares
# between versions: a count does not move with the machine's load, as timings on a shared machine
# do. Each row runs as `jv` processes on the 10,000-entry vault `jv-bench --keep` leaves behind
# (made by the same build, so an older build gets a vault of its own schema):
#
#   unlock        `Vault.open(at:access:)` + `unlock(recoveryKey:)` inside `jv edit ID` (the
#                 bench's "unlock excl. Argon2id": the recovery key, so no Argon2id)
#   sync-send     the library's `sync(…)` inside `jv sync`, one entry changed by `jv edit`
#   sync-receive  the same on the clone, receiving that one change
#   list-on-day   the whole `jv list --on DAY` process in a session (the busiest day, 24 entries)
#   list-tag      the whole `jv list --tag garden` process in a session (3,907 entries)
#   list-10       the whole `jv list -n 10` process in a session
#   list-all      the whole `jv list` process in a session (every entry, to /dev/null)
#   search-walk   the whole `jv search walk` process without a session, unlocked with the
#                 recovery key (no Argon2id): the scan of every entry, 90 % of them printed
#
# The first three count only inside the named functions (`--toggle-collect`), on the thread that
# calls them; the others count the whole process, every thread.
#
#   scripts/count-instructions.sh [BUILD] [ROW…]
#
# BUILD is the folder holding release `jv` and `jv-bench` (default .build-static/release, as
# `make bench` builds them; `swift build -c release --product jv-bench --scratch-path
# .build-static -Xswiftc -static-stdlib` and the same for `--product jv`). RUNS (default 3) runs
# of each row; the median is printed, in instructions. KEEP=FOLDER reuses a folder an earlier
# run printed (it skips the minute or two `jv-bench` takes to make it). Needs valgrind and
# sqlite3; copies of the binaries are stripped of their DWARF 5 (valgrind 3.19 cannot read it).
set -euo pipefail

build=${1:-.build-static/release}
shift || true
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(unlock sync-send sync-receive list-on-day list-tag list-10 list-all search-walk)
runs=${RUNS:-3}
for tool in valgrind sqlite3 strip; do
    command -v "$tool" >/dev/null || { echo "count-instructions: $tool is needed" >&2; exit 1; }
done
binaries=(jv)
[ -n "${KEEP:-}" ] || binaries+=(jv-bench)
for binary in "${binaries[@]}"; do
    [ -x "$build/$binary" ] || { echo "count-instructions: no $build/$binary (build it in release first)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for binary in "${binaries[@]}"; do
    cp "$build/$binary" "$work/$binary"
    strip --strip-debug "$work/$binary"
done

folder=${KEEP:-}
if [ -z "$folder" ]; then
    # Every row is built and the sync rows run (the vault then syncs and has a clone); the folder stays.
    "$work/jv-bench" --entries 10000 --only "sync: send 1 changed" --keep >/dev/null 2>"$work/bench.err" \
        || { cat "$work/bench.err" >&2; exit 1; }
    folder=$(sed -n 's/^kept \(.*\) (passphrase.*/\1/p' "$work/bench.err")
    echo "vault folder: $folder (KEEP=$folder to reuse it; remove it when done)" >&2
fi
vault=$folder/bench.vault
clone=$folder/sync-clone.vault
runtime=$folder/count-runtime
mkdir -p -m 0700 "$runtime"
vars=(PATH=/usr/bin:/bin TZ=UTC HOME="$folder" XDG_RUNTIME_DIR="$runtime" XDG_CONFIG_HOME="$folder/config")
withKey=("${vars[@]}" JV_RECOVERY_KEY_FILE="$folder/recovery-key")
day=$(sqlite3 "$folder/plain.sqlite" "SELECT local_day FROM entry GROUP BY local_day ORDER BY count(*) DESC, local_day LIMIT 1")
entry=$(sqlite3 "$folder/plain.sqlite" "SELECT substr(id, 1, 8) FROM entry ORDER BY seq LIMIT 1")

# The one symbol of `jv` that ends in $2 and contains $1 (a Swift mangled name).
symbol() {
    local found
    found=$(nm "$work/jv" | awk '{print $NF}' | grep -E "$1" | grep -E "$2\$" || true)
    [ "$(printf '%s\n' "$found" | grep -c .)" = 1 ] || { echo "count-instructions: no single symbol for $1…$2: $found" >&2; exit 1; }
    printf '%s' "$found"
}
open=$(symbol '12JournalVault0B0[CV]4open2at6access' 'KFZ')
unlock=$(symbol '12JournalVault0B0[CV]6unlock11recoveryKey' 'KF')
# Before the house-plan change sync was a method of UnlockedVault; after it, of SyncEngine.
sync=$(symbol '12JournalVault(10SyncEngineV|08UnlockedB0C)4sync6dryRun7compact' 'KF')

# Instructions of one callgrind run of `jv`: count ENV-ARRAY INPUT [CALLGRIND-OPTION…] -- [JV-ARGUMENT…]
count() {
    local -n environment=$1
    local input=$2 out=$work/callgrind.out options=()
    shift 2
    while [ "$1" != -- ]; do options+=("$1"); shift; done
    shift
    rm -f "$out"
    env -i "${environment[@]}" valgrind --tool=callgrind --callgrind-out-file="$out" "${options[@]}" "$work/jv" "$@" \
        <"$input" >/dev/null 2>"$work/valgrind.err" || { cat "$work/valgrind.err" >&2; exit 1; }
    sed -n 's/^\(totals\|summary\): *\([0-9]*\).*/\2/p' "$out" | head -n 1
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
report() { printf '%-14s %12s  (%s)\n' "$1" "$(median <"$work/$1")" "$(tr '\n' ' ' <"$work/$1")"; }
wanted() { printf '%s\n' "${rows[@]}" | grep -qx "$1"; }

if wanted unlock || wanted sync-send || wanted sync-receive; then
    : >"$work/unlock"; : >"$work/sync-send"; : >"$work/sync-receive"
    for run in $(seq "$runs"); do
        printf 'Edited for counting instructions (%s, %s).' "$run" "$$" >"$work/text"
        if wanted unlock; then
            count withKey "$work/text" --collect-atstart=no --toggle-collect="$open" --toggle-collect="$unlock" -- \
                edit "$entry" --vault "$vault" --no-agent >>"$work/unlock"
        else
            env -i "${withKey[@]}" "$work/jv" edit "$entry" --vault "$vault" --no-agent <"$work/text" >/dev/null
        fi
        if wanted sync-send || wanted sync-receive; then
            count withKey /dev/null --collect-atstart=no --toggle-collect="$sync" -- sync --vault "$vault" --no-agent >>"$work/sync-send"
            count withKey /dev/null --collect-atstart=no --toggle-collect="$sync" -- sync --vault "$clone" --no-agent >>"$work/sync-receive"
        fi
    done
    for row in unlock sync-send sync-receive; do if wanted "$row"; then report "$row"; fi; done
fi

if wanted search-walk; then
    : >"$work/search-walk"
    for _ in $(seq "$runs"); do count withKey /dev/null -- search walk --vault "$vault" --no-agent >>"$work/search-walk"; done
    report search-walk
fi

if wanted list-on-day || wanted list-tag || wanted list-10 || wanted list-all; then
    env -i "${vars[@]}" JV_PASSPHRASE_FILE="$folder/passphrase" "$work/jv" unlock --vault "$vault" --for 30m >/dev/null
    trap 'env -i "${vars[@]}" "$work/jv" lock --all >/dev/null; rm -rf "$work"' EXIT
    for row in list-on-day list-tag list-10 list-all; do
        wanted "$row" || continue
        case $row in
            list-on-day) arguments=(list --on "$day") ;;
            list-tag) arguments=(list --tag garden) ;;
            list-10) arguments=(list -n 10) ;;
            list-all) arguments=(list) ;;
        esac
        : >"$work/$row"
        for _ in $(seq "$runs"); do count vars /dev/null -- "${arguments[@]}" --vault "$vault" >>"$work/$row"; done
        report "$row"
    done
fi
