#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source file names its licence in its first line (after a hashbang or Swift's
# tools-version line, which must stay first):
#   scripts/spdx.sh          adds the line where it is missing (idempotent)
#   scripts/spdx.sh --check  lists the files without it and fails (`make test` runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
identifier='SPDX-License-Identifier: Apache-2.0'

sources() {
    find Package.swift Sources Tests migrations scripts examples -type f \
        \( -name '*.swift' -o -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \) | LC_ALL=C sort
}
comment_of() {
    case "$1" in
        *.sh | *.py) echo "# $identifier" ;;
        *) echo "// $identifier" ;;
    esac
}
# The line the identifier belongs on: 2 when the first must stay first, else 1.
line_of() {
    case "$(head -n 1 "$1")" in
        '#!'* | '// swift-tools-version'*) echo 2 ;;
        *) echo 1 ;;
    esac
}

# Read whole before it runs (the last line runs main, then exits): the pass edits this file too.
main() {
    missing=()
    while read -r file; do
        comment=$(comment_of "$file")
        line=$(line_of "$file")
        [ "$(sed -n "${line}p" "$file")" = "$comment" ] && continue
        if [ "${1:-}" = --check ]; then
            missing+=("$file")
        elif [ "$line" = 1 ]; then
            { echo "$comment"; cat "$file"; } > "$file.spdx" && cat "$file.spdx" > "$file" && rm "$file.spdx"
        else
            { head -n 1 "$file"; echo "$comment"; tail -n +2 "$file"; } > "$file.spdx" && cat "$file.spdx" > "$file" && rm "$file.spdx"
        fi
    done < <(sources)

    if [ ${#missing[@]} -gt 0 ]; then
        echo "These files do not start with '$identifier' (scripts/spdx.sh adds it):" >&2
        printf '  %s\n' "${missing[@]}" >&2
        exit 1
    fi
}
main "$@"; exit
