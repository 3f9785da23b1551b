#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its dev extras.
# torch is pinned to the CPU build explicitly: a bare torch requirement pulls a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${1:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==2.13.0" -e ".[dev]"
