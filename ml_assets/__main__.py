"""Command line: ``python -m ml_assets days`` prints the range of days the configured source
covers (``first...last``, for ``dg launch --partition-range``);
``python -m ml_assets plan`` explains what a run would recompute and why;
``python -m ml_assets materialize-stale`` materializes only stale or missing assets;
``python -m ml_assets dvc-yaml [--check]`` regenerates (or checks) dvc.yaml from the graph;
``python -m ml_assets params-yaml [--check]`` regenerates (or checks) params.yaml from the
params schema;
``python -m ml_assets comparison`` prints the last evaluation's side-by-side table (markdown)
and the promotion verdict on it;
``python -m ml_assets gc [--keep N] [--dry-run]`` removes what no pointer, champion or resume
needs (see resources/store_gc.py) and reports sizes;
``python -m ml_assets inspect PATH`` reads a bank export (or a folder of them) and prints what it
found and the ``raw_transactions:`` params that read it."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

# code versions leave this module out: the CLI
AFFECTS_OUTPUTS = False

if TYPE_CHECKING:
    from resources.artifact_store import ArtifactStore

# The asset graph, torch and dagster load only for the commands that need them: `--help`,
# `days`, `dvc-yaml` and `params-yaml` stay quick.


def build_parser() -> argparse.ArgumentParser:
    """The command line (the documentation's CLI reference is its ``--help``)."""
    parser = argparse.ArgumentParser(prog="python -m ml_assets", description=__doc__)
    parser.add_argument(
        "command",
        choices=[
            "days",
            "plan",
            "materialize-stale",
            "dvc-yaml",
            "params-yaml",
            "comparison",
            "gc",
            "inspect",
        ],
    )
    parser.add_argument(
        "path", nargs="?", help="inspect: an export file, or a folder of them, to read"
    )
    parser.add_argument("--params", help="params.yaml (default: the repo's, or $TXN_PARAMS)")
    parser.add_argument("--profile", help="params profile (default: $TXN_PARAMS_PROFILE)")
    parser.add_argument(
        "--artifacts",
        help="artifact store root (default: $TXN_ARTIFACTS_DIR or the repository's artifacts/)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="dvc-yaml, params-yaml: write nothing; exit 1 with a diff if the file drifted "
        "from the graph (dvc.yaml) or the params schema (params.yaml)",
    )
    parser.add_argument(
        "--keep",
        type=int,
        default=1,
        help="gc: entries kept per asset besides the current ones (default 1)",
    )
    parser.add_argument("--dry-run", action="store_true", help="gc: report only")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "dvc-yaml":
        return dvc_yaml_command(check=args.check)
    if args.command == "params-yaml":
        return params_yaml_command(check=args.check)
    if args.command == "days":
        return days_command(args.params, args.profile, args.artifacts)
    if args.command == "inspect":
        return inspect_command(args.path)
    from ml_assets.definitions import ASSETS, PARTITIONED
    from ml_assets.wiring.plan import build_plan, format_plan
    from resources.artifact_store import ArtifactStore

    store = ArtifactStore(root=args.artifacts) if args.artifacts else ArtifactStore()
    if args.command == "comparison":
        return comparison_command(store)
    if args.command == "gc":
        return gc_command(store, args.keep, args.dry_run)
    plans = build_plan(store, ASSETS, args.params, args.profile)
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
    if args.profile:
        env["TXN_PARAMS_PROFILE"] = args.profile
    cmd = [str(Path(sys.executable).with_name("dg")), "launch", "--assets", ",".join(stale)]
    stale_days = sorted(
        day
        for plan in plans
        if plan.status != "fresh" and plan.asset in PARTITIONED
        for day in store.partition_refs(plan.asset)
    )
    if stale_days:  # recorded days again; the fresh ones among them cost a lookup
        cmd += ["--partition-range", f"{stale_days[0]}...{stale_days[-1]}"]
    # dg reads the project (pyproject.toml's [tool.dg]) from the repository root
    return subprocess.call(cmd, env=env, cwd=Path(__file__).resolve().parents[1])


def _why_none_kept(files: dict, settings) -> str:
    """The quarantine's top reasons over the exports (each with a detail naming its line and
    the setting to change), for the error that says no row was kept."""
    import polars as pl

    from ml_assets.core.intake.accounting import quarantine_summary
    from ml_assets.core.intake.raw_days import scan_exports
    from ml_assets.core.intake.records import SchemaError

    try:
        quarantined = [scan_exports(path, settings).quarantined for path in files.values()]
    except SchemaError:  # (the error already printed says the file holds no row)
        return ""
    quarantined = [q for q in quarantined if q.height]
    return f": {quarantine_summary(pl.concat(quarantined), 1)}" if quarantined else ""


def days_command(params_path: str | None, profile: str | None, artifacts: str | None) -> int:
    """Print first...last of the days the source feeds, clipped to the partitions that exist."""
    import datetime as dt

    from ml_assets.core.intake.ingest import SchemaError
    from ml_assets.core.intake.raw_days import (
        export_days,
        export_homes,
        local_files,
        synthetic_days,
    )
    from ml_assets.core.params import ParamsError, load_params
    from resources.raw_sources import fetch_exports, is_remote

    files = {}
    try:
        params = load_params(params_path, profile)
        settings = params.raw_transactions
        if settings.source == "synthetic":
            days = synthetic_days(settings)
        elif is_remote(settings.path):
            from resources.artifact_store import ArtifactStore

            store = ArtifactStore(root=artifacts) if artifacts else ArtifactStore()
            cache = store.root_path / "_downloads"
            files, _ = fetch_exports(settings.path, settings.format, cache, log=lambda _: None)
            # objects are judged by their names, as the run judges them
            days = export_days(files, settings, export_homes(settings, dict.fromkeys(files), None))
        else:
            files = local_files(Path(settings.path), settings.format)
            days = export_days(files, settings)
    except (FileNotFoundError, SchemaError, ParamsError) as err:
        # one line that names the problem; a traceback would bury it
        print(f"error: {err}", file=sys.stderr)
        return 2
    first_partition = params.partitions.start_date.isoformat()
    yesterday = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    kept = [d for d in days if first_partition <= d <= yesterday]
    if len(kept) < len(days):
        print(
            f"{len(days) - len(kept)} day(s) fall outside the partitions "
            f"{first_partition}..{yesterday} (params partitions.start_date; today is not "
            "complete yet) and are not ingested",
            file=sys.stderr,
        )
    if not days:
        print(
            f"error: {settings.path} holds no valid transaction (empty, a header only, or "
            "every row quarantined); check the file and raw_transactions.column_map/csv_preset"
            f"{_why_none_kept(files, settings)}",
            file=sys.stderr,
        )
        return 1
    if not kept:
        print("the source feeds no day that is a partition", file=sys.stderr)
        return 1
    print(f"{kept[0]}...{kept[-1]}")
    return 0


def inspect_command(path: str | None) -> int:
    """Print what an export (or each export of a folder) is and the params that read it."""
    from ml_assets.core.intake.inspect_export import inspect_path, report
    from ml_assets.core.intake.records import SchemaError

    if path is None:
        print("error: inspect needs a PATH: an export file or a folder of them", file=sys.stderr)
        return 2
    try:
        inspections = inspect_path(Path(path))
    except (FileNotFoundError, SchemaError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(report(Path(path), inspections), end="")
    return 1 if any(found.error for found in inspections) else 0


def comparison_command(store: ArtifactStore) -> int:
    """The side-by-side accuracy table of the evaluation model_evaluation last materialized."""
    from ml_assets.assets.model_evaluation import STAGE as EVALUATION
    from ml_assets.assets.registered_model import RECORD_FILE
    from ml_assets.assets.registered_model import STAGE as REGISTRY
    from ml_assets.core.infra.io import read_json
    from ml_assets.core.infra.layouts import EVALUATION_FILE
    from ml_assets.core.quality.comparison import comparison_table

    current = store.current_ref(EVALUATION.key)
    if current is None:
        print(
            f"no {EVALUATION.key} in {store.root_path}; materialize the graph first",
            file=sys.stderr,
        )
        return 1
    evaluation = read_json(current.verified().dir / EVALUATION_FILE)
    heads = list(evaluation["report"])
    print(comparison_table(evaluation["comparison"], heads))
    registered = store.current_ref(REGISTRY.key)
    if registered is not None:  # the promotion decision on that evaluation, when there is one
        record = read_json(registered.verified().dir / RECORD_FILE)
        promotion = record["promotion"]
        if record["model_evaluation_digest"] == current.digest:
            # a record kept by an older version has no verdict line: its status and reasons
            verdict = promotion.get("verdict") or (
                "promoted"
                if promotion["promoted"]
                else "rejected: " + "; ".join(promotion["reasons"])
            )
            print(f"\n{record['model_id']}: {verdict}")
    return 0


def gc_command(store: ArtifactStore, keep: int, dry_run: bool) -> int:
    from ml_assets.assets.onnx_model import STAGE as EXPORT
    from resources.model_registry import ModelRegistry
    from resources.store_gc import collect_garbage

    if keep < 0:
        print("error: --keep must be 0 or more", file=sys.stderr)
        return 2
    champion = ModelRegistry().champion(store.root_path)
    protected = {EXPORT.key: {champion["onnx_model_key"]}} if champion else {}
    report = collect_garbage(store.root_path, keep, dry_run, protected)
    print("\n".join(report.lines(dry_run)))
    return 0


def dvc_yaml_command(check: bool) -> int:
    from ml_assets.wiring.dvc_stages import DVC_YAML, render_dvc_yaml
    from ml_assets.wiring.generated_files import check_or_write

    return check_or_write(DVC_YAML, render_dvc_yaml(), "the asset graph", "dvc-yaml", check)


def params_yaml_command(check: bool) -> int:
    from ml_assets.wiring.generated_files import check_or_write
    from ml_assets.wiring.params_yaml import PARAMS_YAML, render_params_yaml

    source = "the params schema (ml_assets/core/params.py, ml_assets/core/profiles.py)"
    return check_or_write(PARAMS_YAML, render_params_yaml(), source, "params-yaml", check)


if __name__ == "__main__":
    raise SystemExit(main())
