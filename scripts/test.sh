#!/usr/bin/env bash
# README command 2: install (if needed) and run the test suite, one pytest-xdist worker per core
# (TEST_WORKERS=0 runs it in one process). Tests of one file stay on one worker, so a module's
# fixtures are built once; the longest files start first and the whole tiny graph is built once
# for all workers (tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh "${PYTHON:-python3}"
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
# Test stores and Dagster instances go to tmpfs where there is one with room (the suite writes
# ~3 GB): it commits thousands of SQLite transactions and artifact files, each an fsync on a
# disk, ~30 % of a memoized run of the graph. TMPDIR set by the caller is kept.
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR==2 {print $4}')" -gt 6000000 ]; then
  TMPDIR="$(mktemp -d /dev/shm/txn-tests.XXXXXX)"
  chmod 755 "$TMPDIR"  # traversable like /tmp: the test Postgres runs as its own account
  export TMPDIR
  trap 'rm -rf "$TMPDIR"' EXIT
fi
.venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile --no-loadscope-reorder "$@"
