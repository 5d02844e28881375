#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (docs/GRADESCOPE.md).
# It installs the kit from this zip's own wheel (numpy, pytest and PyYAML come from PyPI) into a
# virtualenv beside source/, then makes the secrets readable by root only: learner code runs as
# `nobody` and must not read the hidden cases, the reference solutions or the kit's mistake catalogue.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/venv"

if ! python3 -c "import ensurepip, venv" 2>/dev/null || ! command -v bwrap >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3 python3-venv bubblewrap  # bwrap: the sandbox's barrier
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "$SOURCE"/attnkit-*.whl

chmod -R go-rwx "$SOURCE" "$VENV"/lib/python3*/site-packages/attnkit
