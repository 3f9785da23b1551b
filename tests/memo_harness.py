"""Materialize the whole graph (tiny profile) from whatever source tree is on sys.path and
print {asset: memoized} as JSON. Run as a subprocess from a copied repo by test_code_versions,
so edited source is really imported, as a user's next run would."""

import json
import sys

import dagster as dg

from ml_assets.definitions import ASSETS, CHECKS, build_resources
from tests.graph import TINY_RANGE


def main(artifacts: str) -> None:
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            resources=build_resources(artifacts, profile="tiny"),
            instance=instance,
            tags=TINY_RANGE,
        )
    assert result.success
    out = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        out.setdefault(mat.asset_key.to_user_string(), mat.metadata["memoized"].value)
    print("RESULT " + json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
