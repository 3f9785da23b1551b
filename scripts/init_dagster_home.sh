#!/usr/bin/env bash
# A persistent DAGSTER_HOME so CLI runs show up in `dg dev`; telemetry and the welcome
# dialog off. A dagster.yaml this script wrote in an earlier version is brought up to date; one
# edited by hand is left alone.
set -euo pipefail
mkdir -p "$1"
home="$(cd -- "$1" >/dev/null && pwd)"
# sha256 of the dagster.yaml each earlier version of this script wrote, with this home's path
# masked (tests/fixtures/dagster_yaml/ holds them)
previous="3fae54066104e59d7b5f5d39db83e4c046072c5abecc88e66ad8d54325461c93
a5836503c9054415f5ee1b9cc8631e026b6a5133bd65b1ff89cc523338f7adbe
5f9b2b822b46e35cc30e83878441d2cc0536675ef110ec3378f496394985eb88
818825f4defe5381e17d4dbe96cac7c930efc8128dafb963809f334f952bab2b"
if [ -f "$home/dagster.yaml" ]; then
  content="$(cat "$home/dagster.yaml")"
  written="$(printf '%s\n' "${content//"$home"/DAGSTER_HOME}" | sha256sum | cut -d' ' -f1)"
  if ! grep -qx "$written" <<<"$previous"; then
    if grep -qE '^ *module: *resources\.(dead_runs|sqlite_event_log)' "$home/dagster.yaml"; then
      echo "error: $home/dagster.yaml names a class the project no longer ships" \
        "(resources.dead_runs or resources.sqlite_event_log): delete its instance_class and" \
        "event_log_storage blocks, or the file, and run this again" >&2
      exit 1
    fi
    exit 0
  fi
fi
cat > "$home/dagster.yaml" <<'YAML'
telemetry:
  enabled: false
nux:
  enabled: false
concurrency:
  pools:
    # GPU steps (pool "gpu"): one at a time across all runs by default; raise it with
    # `dagster instance concurrency set gpu N` or in the UI (Deployment > Concurrency)
    default_limit: 1
# Under `dg dev` (which runs the daemon) a run that ended while still holding a slot gives it
# back within seconds, also for runs already queued behind it. A run killed outright (kill -9,
# OOM) is failed, and its slots freed, when the next run of the pipeline starts
# (resources/dead_runs.py; `python -m resources.dead_runs` does it on demand).
run_monitoring:
  enabled: true
  poll_interval_seconds: 10
  free_slots_after_run_end_seconds: 5
YAML
