#!/usr/bin/env bash
# README command 2: install (if needed) and run the test suite, one pytest-xdist worker per core
# (TEST_WORKERS=0 runs it in one process). Tests of one file stay on one worker, so a module's
# fixtures are built once; the whole tiny graph is built once for all workers (tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh "${PYTHON:-python3}"
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
exec .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile "$@"
