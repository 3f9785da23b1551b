#!/usr/bin/env bash
# Build the documentation site strictly: the reference pages are generated from the code
# (docs/gen_reference.py, with the project's venv: it imports the project), then MkDocs builds
# with --strict, so a broken link, a missing page or a stale anchor fails.
#   scripts/docs.sh              # site/ (open site/index.html)
#   scripts/docs.sh serve        # live preview on http://127.0.0.1:8000
#   scripts/docs.sh install      # only the docs venv (.ci/run installs it beside the project)
# MkDocs lives in its own venv (.venv-docs/), pinned; a rerun only checks the pins.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
DOCS_PINS=("mkdocs==1.6.1" "mkdocs-material==9.8.2")
[ -x .venv-docs/bin/python ] || "$PYTHON" -m venv .venv-docs
if ! .venv-docs/bin/python - "${DOCS_PINS[@]}" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version

for pin in sys.argv[1:]:
    name, _, wanted = pin.partition("==")
    try:
        if version(name) != wanted:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
then
    source scripts/venv_install.sh
    venv_install .venv-docs "${DOCS_PINS[@]}"
fi
[ "${1:-build}" = install ] && exit 0
[ -x .venv/bin/python ] || scripts/install.sh "$PYTHON"
.venv/bin/python docs/gen_reference.py docs/reference
if [ "${1:-build}" = serve ]; then
    NO_MKDOCS_2_WARNING=1 exec .venv-docs/bin/mkdocs serve
fi
NO_MKDOCS_2_WARNING=1 .venv-docs/bin/mkdocs build --strict
echo "docs: site/index.html"
