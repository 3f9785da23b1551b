# Sourced by deploy/{code_server,daemon,webserver}.sh: checks the environment, installs
# deploy/dagster.yaml into $DAGSTER_HOME when it has none, and finds the dagster executables.
set -euo pipefail
DEPLOY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$DEPLOY_DIR")"
require() {  # require VAR...: stop with a message naming every unset one
  local missing=() var
  for var in "$@"; do [ -n "${!var:-}" ] || missing+=("$var"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "deploy: set ${missing[*]} (see deploy/env.example)" >&2
    exit 2
  fi
}
require DAGSTER_HOME DAGSTER_PG_HOST DAGSTER_PG_PORT DAGSTER_PG_USER DAGSTER_PG_PASSWORD DAGSTER_PG_DB
# deploy/workspace.yaml finds the code server through these; another workspace need not
if [ -z "${DAGSTER_WORKSPACE:-}" ]; then
  require DAGSTER_CODE_SERVER_HOST DAGSTER_CODE_SERVER_PORT
  DAGSTER_WORKSPACE="$DEPLOY_DIR/workspace.yaml"
fi
mkdir -p "$DAGSTER_HOME"
# an existing dagster.yaml is kept: a host may tune it (tests shorten the polling intervals)
[ -f "$DAGSTER_HOME/dagster.yaml" ] || cp "$DEPLOY_DIR/dagster.yaml" "$DAGSTER_HOME/dagster.yaml"
# the project's venv when there is one (a checkout), else whatever is on PATH (an image)
if [ -x "$REPO_DIR/.venv/bin/dagster" ]; then BIN="$REPO_DIR/.venv/bin/"; else BIN=""; fi
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
cd "$REPO_DIR"
