#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes a new virtual environment VENV (replacing what is there) and installs REQUIREMENT into
# it from PyPI, installing python3 and its venv module with apt-get first when they are missing
# (as root); the tools the tests and examples use from PyPI are each installed this way:
#   scripts/make-venv.sh VENV REQUIREMENT
set -euo pipefail
venv="$1"
requirement="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v python3 >/dev/null 2>&1; then
    "$root/scripts/ensure-packages.sh" python3 python3-venv
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    # Debian's python3 leaves venv's pip out, in python3-venv.
    "$root/scripts/ensure-packages.sh" python3-venv
fi
echo "Installing $requirement into $venv ..." >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement"
