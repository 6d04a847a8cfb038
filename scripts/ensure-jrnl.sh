#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs jrnl 4.6 (from PyPI, in a virtual environment of its own under .build-tools/jrnl)
# for the tests that run the same invocations through jrnl and jv (Tests/jvTests/JrnlTableTests).
# Quick when it is already there (scripts/make-venv.sh makes it otherwise).
set -euo pipefail
version=4.6
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build-tools/jrnl"
jrnl="$venv/bin/jrnl"
if [ -x "$jrnl" ] && [ "$("$jrnl" --version 2>/dev/null | head -n 1)" = "jrnl v$version" ]; then
    exit 0
fi
"$root/scripts/make-venv.sh" "$venv" "jrnl==$version"
"$jrnl" --version >/dev/null
