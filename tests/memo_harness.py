"""Materialize the graph (tiny profile; optionally only some assets, the others read from the
store) from whatever source tree is on sys.path, and print {asset: memoized} as JSON, then the
plan for the whole graph afterwards ({asset: status}). Run as a subprocess from a copied repo by
test_code_versions, so edited source is really imported, as a user's next run would."""

import json
import sys

import dagster as dg

from ml_assets.definitions import ASSETS, CHECKS, build_resources
from ml_assets.wiring.plan import build_plan
from tests.graph import TINY_RANGE


def main(artifacts: str, selection: list[str] | None = None) -> None:
    resources = build_resources(artifacts, profile="tiny")
    # memoization lives in the store: an in-memory instance records a memo-hit run in half the
    # time SQLite takes (benchmarks/run_records.py)
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            resources=resources,
            instance=instance,
            tags=TINY_RANGE,
            selection=selection,
        )
    assert result.success
    out = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        out.setdefault(mat.asset_key.to_user_string(), mat.metadata["memoized"].value)
    print("RESULT " + json.dumps(out, sort_keys=True))
    plan = build_plan(resources["artifact_store"], ASSETS, profile="tiny")
    print("PLAN " + json.dumps({p.asset: p.status for p in plan}, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(",") if len(sys.argv) > 2 else None)
