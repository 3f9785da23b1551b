#!/usr/bin/env bash
# Create .dvc-venv/ (if missing) with DVC and its S3 remote support, apart from the project venv.
#
# Why a separate venv: dvc-s3 pulls hydra-core/omegaconf (antlr4-python3-runtime==4.9.*) and
# aiobotocore (an older botocore); pip then downgrades the project's antlr4 4.13 -> 4.9, which
# breaks Dagster's asset-selection parser (`--select`, UI selection strings), and leaves boto3
# and botocore inconsistent.
#
# Usage: run .dvc-venv/bin/dvc with the PROJECT's python first on PATH; every stage command in
# dvc.yaml is `dg launch ...` (and `python -m ml_assets days`), resolved from PATH:
#   source .venv/bin/activate && .dvc-venv/bin/dvc repro
#   PATH="$PWD/.venv/bin:$PATH" .dvc-venv/bin/dvc repro      # the same, without activating
# Idempotent: a rerun only checks the pins (well under a second, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${1:-python3}"
# Verified together: dvc 3.67.1 + dvc-s3 3.3.0 (repro, push and pull against an S3 endpoint).
DVC_PINS=("dvc==3.67.*" "dvc-s3==3.3.*")
[ -x .dvc-venv/bin/python ] || "$PYTHON" -m venv .dvc-venv
pins_met() {
    .dvc-venv/bin/python - "${DVC_PINS[@]}" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version

for pin in sys.argv[1:]:  # "name==X.Y.*"
    name, _, prefix = pin.partition("==")
    try:
        installed = version(name)
    except PackageNotFoundError:
        sys.exit(1)
    if not installed.startswith(prefix.rstrip("*")):
        sys.exit(1)
PY
}
if ! pins_met; then
    source scripts/venv_install.sh
    venv_install .dvc-venv "${DVC_PINS[@]}"
fi
.dvc-venv/bin/dvc --version
