#!/usr/bin/env bash
# The UI and GraphQL API. Bound to 127.0.0.1 unless DAGSTER_WEBSERVER_HOST says otherwise: it
# has no authentication of its own, so expose it only through an authenticating proxy.
source "$(dirname "$0")/common.sh"
exec "${BIN}dagster-webserver" -w "$DAGSTER_WORKSPACE" \
  -h "${DAGSTER_WEBSERVER_HOST:-127.0.0.1}" -p "${DAGSTER_WEBSERVER_PORT:-3000}" "$@"
