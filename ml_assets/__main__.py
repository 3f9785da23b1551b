"""Command line: ``python -m ml_assets plan`` explains what a run would recompute and why;
``python -m ml_assets materialize-stale`` materializes only stale or missing assets."""

import argparse
import os
import subprocess
import sys

from ml_assets.plan import build_plan, format_plan
from resources.artifact_store import ArtifactStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ml_assets", description=__doc__)
    parser.add_argument("command", choices=["plan", "materialize-stale"])
    parser.add_argument("--params", help="params.yaml (default: the repo's, or $TXN_PARAMS)")
    parser.add_argument("--profile", help="params profile (default: $TXN_PARAMS_PROFILE)")
    parser.add_argument(
        "--artifacts", help="artifact store root (default: $TXN_ARTIFACTS_DIR or ./artifacts)"
    )
    args = parser.parse_args(argv)
    if args.profile:
        os.environ["TXN_PARAMS_PROFILE"] = args.profile  # asset modules read it at import
    store = ArtifactStore(root=args.artifacts) if args.artifacts else ArtifactStore()
    plans = build_plan(store, args.params, args.profile)
    print(format_plan(plans))
    if args.command == "plan":
        return 0
    stale = [p.asset for p in plans if p.status != "fresh"]
    if not stale:
        print("nothing to materialize")
        return 0
    env = dict(os.environ, TXN_ARTIFACTS_DIR=str(store.root_path))
    if args.params:
        env["TXN_PARAMS"] = args.params
    cmd = [
        sys.executable,
        "-m",
        "dagster",
        "asset",
        "materialize",
        "-m",
        "ml_assets.definitions",
        "--select",
        ",".join(stale),
    ]
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
