#!/usr/bin/env bash
# The code server: loads ml_assets.definitions and launches each run as its subprocess.
# `dagster code-server start` keeps serving the last good definitions while a reload fails.
source "$(dirname "$0")/common.sh"
require DAGSTER_CODE_SERVER_HOST DAGSTER_CODE_SERVER_PORT
location="${DAGSTER_CODE_LOCATION:-txn_ml}"
# Runs this location launched before (its subprocesses, on this host) that died with a previous
# code server (lost host or container) would hold their gpu slots until max_runtime_seconds:
# fail them and free their slots first. Runs still alive are left alone. Not fatal: the code
# server starts even when the database cannot be reached yet.
"${BIN}python" -m resources.dead_runs --location "$location" \
  || echo "deploy: could not check for dead runs of $location (see above)" >&2
exec "${BIN}dagster" code-server start -m "${DAGSTER_CODE_MODULE:-ml_assets.definitions}" \
  --location-name "$location" \
  -h "$DAGSTER_CODE_SERVER_HOST" -p "$DAGSTER_CODE_SERVER_PORT" "$@"
