#!/usr/bin/env bash
# README command 2: install (if needed) and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh "${PYTHON:-python3}"
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
