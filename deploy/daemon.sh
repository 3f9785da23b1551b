#!/usr/bin/env bash
# The daemon: run queue, schedules, sensors, run monitoring, run retries, tick retention.
# One per deployment (a second one would launch queued runs twice).
source "$(dirname "$0")/common.sh"
exec "${BIN}dagster-daemon" run -w "$DAGSTER_WORKSPACE" "$@"
