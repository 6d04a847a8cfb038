#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs jrnl 4.6 (from PyPI, in a virtual environment of its own under .build-tools/jrnl)
# for the tests that run the same invocations through jrnl and jv (Tests/jvTests/JrnlTableTests).
# Quick when it is already there; needs python3 with venv (python3-venv on Debian, installed
# with apt-get when running as root).
set -euo pipefail
version=4.6
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build-tools/jrnl"
jrnl="$venv/bin/jrnl"
if [ -x "$jrnl" ] && [ "$("$jrnl" --version 2>/dev/null | head -n 1)" = "jrnl v$version" ]; then
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    "$root/scripts/ensure-packages.sh" python3 python3-venv
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    # Debian's python3 leaves venv's pip out, in python3-venv.
    "$root/scripts/ensure-packages.sh" python3-venv
fi
echo "Installing jrnl $version into $venv ..." >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "jrnl==$version"
"$jrnl" --version >/dev/null
