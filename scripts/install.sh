#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its dev extras.
# torch is pinned to the CPU build explicitly: a bare torch requirement pulls a multi-GB CUDA build.
# Installs only what is missing: a stamp of pyproject.toml's hash skips pip when nothing changed
# (a second call, as `scripts/test.sh` after `.ci/run`'s setup makes, costs well under a second).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${1:-python3}"
TORCH="torch==2.13.0"
STAMP=.venv/.installed
WANT="$(sha256sum pyproject.toml | cut -d' ' -f1) $TORCH"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && .venv/bin/python -c "import ml_assets" 2>/dev/null; then
  exit 0
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# TXN_PIP_NO_COMPILE=1 (CI): skip byte-compiling every installed file (~90 s on 2 cores, most of
# it modules never imported); Python then compiles what is imported, once, on first use (where
# PYTHONDONTWRITEBYTECODE is unset)
source scripts/venv_install.sh
venv_install .venv "$TORCH" -e ".[dev]"
echo "$WANT" > "$STAMP"
