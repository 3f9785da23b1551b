#!/usr/bin/env bash
# A persistent DAGSTER_HOME so CLI runs show up in `dagster dev`; telemetry and the welcome
# dialog off.
set -euo pipefail
home="$1"
mkdir -p "$home"
[ -f "$home/dagster.yaml" ] || cat > "$home/dagster.yaml" <<'YAML'
telemetry:
  enabled: false
nux:
  enabled: false
concurrency:
  pools:
    # GPU steps (pool "gpu"): one at a time across all runs by default; raise it with
    # `dagster instance concurrency set gpu N` or in the UI (Deployment > Concurrency)
    default_limit: 1
YAML
