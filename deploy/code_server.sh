#!/usr/bin/env bash
# The code server: loads ml_assets.definitions and launches each run as its subprocess.
# `dagster code-server start` keeps serving the last good definitions while a reload fails.
source "$(dirname "$0")/common.sh"
require DAGSTER_CODE_SERVER_HOST DAGSTER_CODE_SERVER_PORT
exec "${BIN}dagster" code-server start -m "${DAGSTER_CODE_MODULE:-ml_assets.definitions}" \
  --location-name "${DAGSTER_CODE_LOCATION:-txn_ml}" \
  -h "$DAGSTER_CODE_SERVER_HOST" -p "$DAGSTER_CODE_SERVER_PORT" "$@"
