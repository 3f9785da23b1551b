#!/usr/bin/env bash
# A persistent DAGSTER_HOME so CLI runs show up in `dg dev`; telemetry and the welcome
# dialog off; safe against dead runs (below). A dagster.yaml this script wrote in an earlier
# version is brought up to date; one edited by hand is left alone.
set -euo pipefail
mkdir -p "$1"
home="$(cd -- "$1" >/dev/null && pwd)"  # absolute: the event log's folder is named in the file
# sha256 of the dagster.yaml each earlier version of this script wrote, with this home's path
# masked (tests/fixtures/dagster_yaml/ holds them)
previous="3fae54066104e59d7b5f5d39db83e4c046072c5abecc88e66ad8d54325461c93
a5836503c9054415f5ee1b9cc8631e026b6a5133bd65b1ff89cc523338f7adbe
5f9b2b822b46e35cc30e83878441d2cc0536675ef110ec3378f496394985eb88"
if [ -f "$home/dagster.yaml" ]; then
  content="$(cat "$home/dagster.yaml")"
  written="$(printf '%s\n' "${content//"$home"/DAGSTER_HOME}" | sha256sum | cut -d' ' -f1)"
  if ! grep -qx "$written" <<<"$previous"; then
    grep -q '^instance_class:' "$home/dagster.yaml" || echo "note: $home/dagster.yaml has" \
      "no instance_class: a run killed with kill -9 keeps its gpu slot (see README)" >&2
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
# Before it creates a run, this instance fails the runs whose processes are all gone (kill -9,
# OOM) and frees their pool slots, so a rerun never waits on a dead run's `gpu` slot; no daemon
# needed (resources/dead_runs.py; `python -m resources.dead_runs` does it on demand).
instance_class:
  module: resources.dead_runs
  class: DeadRunSafeInstance
# Under `dagster dev` (which runs the daemon) a run that ended while still holding a slot gives
# it back within seconds, also for runs already queued behind it.
run_monitoring:
  enabled: true
  poll_interval_seconds: 10
  free_slots_after_run_end_seconds: 5
# Dagster's SQLite event log, keeping its connections between events (resources/sqlite_event_log.py):
# a memo-hit run of the whole graph writes ~800 events, each opening and closing the database
event_log_storage:
  module: resources.sqlite_event_log
  class: PooledSqliteEventLogStorage
  config:
YAML
# quoted for YAML (a '#' or ': ' in the path); a moved home needs this file written anew
echo "    base_dir: '${home//\'/\'\'}/history/runs'" >> "$home/dagster.yaml"
