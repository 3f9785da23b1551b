"""Command line: ``python -m ml_assets plan`` explains what a run would recompute and why;
``python -m ml_assets materialize-stale`` materializes only stale or missing assets;
``python -m ml_assets dvc-yaml [--check]`` regenerates (or checks) dvc.yaml from the graph."""

import argparse
import os
import subprocess
import sys

from ml_assets.plan import build_plan, format_plan
from resources.artifact_store import ArtifactStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ml_assets", description=__doc__)
    parser.add_argument("command", choices=["plan", "materialize-stale", "dvc-yaml"])
    parser.add_argument("--params", help="params.yaml (default: the repo's, or $TXN_PARAMS)")
    parser.add_argument("--profile", help="params profile (default: $TXN_PARAMS_PROFILE)")
    parser.add_argument(
        "--artifacts", help="artifact store root (default: $TXN_ARTIFACTS_DIR or ./artifacts)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="dvc-yaml: write nothing; exit 1 with a diff if dvc.yaml drifted from the graph",
    )
    args = parser.parse_args(argv)
    if args.command == "dvc-yaml":
        return dvc_yaml_command(check=args.check)
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


def dvc_yaml_command(check: bool) -> int:
    from ml_assets.dvc_stages import DVC_YAML, dvc_yaml_drift, write_dvc_yaml

    drift = dvc_yaml_drift(DVC_YAML)
    if not drift:
        print(f"{DVC_YAML} is up to date")
        return 0
    if check:
        print(drift, end="")
        print(f"{DVC_YAML} drifted from the asset graph; run `python -m ml_assets dvc-yaml`")
        return 1
    print(f"wrote {write_dvc_yaml(DVC_YAML)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
