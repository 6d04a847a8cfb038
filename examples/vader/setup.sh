#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs VADER (vaderSentiment from PyPI, a lexicon and rules: no model to download) into a
# virtual environment for examples/vader/analyser.py, by default .build-tools/vader in this
# checkout (git ignores it), else the folder given:
#   examples/vader/setup.sh [VENV]
# then: jv analyze --from 2026-11-01 --command "VENV/bin/python examples/vader/analyser.py"
# Quick when it is already there (scripts/make-venv.sh makes it otherwise). `make test-deps`
# runs it for the end-to-end test.
set -euo pipefail
version=3.3.2
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$root/.build-tools/vader}"
python="$venv/bin/python"
installed() {
    [ -x "$python" ] && [ "$("$python" -c 'import importlib.metadata as m; print(m.version("vaderSentiment"))' 2>/dev/null)" = "$version" ]
}
if ! installed; then
    "$root/scripts/make-venv.sh" "$venv" "vaderSentiment==$version"
    installed
fi
# The command line for `jv analyze --command`, quoted for the shell.
printf '%q %q\n' "$python" "$here/analyser.py"
