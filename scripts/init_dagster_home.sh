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
YAML
