"""The tiny profile's days and the whole tiny graph, materialized once per test session.

Whole-graph test runs cover the days in one run (a single-run backfill of the daily partitions
plus every unpartitioned asset). Computing that graph takes most of a minute and a half on two
cores, so the session computes it once (`tiny_graph` in conftest) and modules that need a store
of their own start from a copy of it: a copied store is a valid store (pointers are relative),
and a run on it is a memo hit for every asset, which is itself what those tests check first.
"""

import json
import shutil
from pathlib import Path
from typing import NamedTuple

import dagster as dg

from ml_assets.core.params import load_params
from ml_assets.core.raw_days import synthetic_days
from ml_assets.daily import range_tags

TINY_DAYS = synthetic_days(load_params(profile="tiny").raw_transactions)
TINY_RANGE = range_tags(TINY_DAYS[0], TINY_DAYS[-1])


PLAIN = (bool, int, float, str, type(None))


class TinyGraph(NamedTuple):
    root: Path  # its artifact store: read it, never write it (copy_store for your own)
    computed: dict[str, dict]  # per asset, the plain metadata of the run that computed it


def compute_tiny_graph(folder: Path) -> tuple[Path, dict[str, dict]]:
    """The tiny graph's store in ``folder/artifacts``, computed unless an earlier call of this
    session did (``computed.json``, written last, says it did)."""
    root, record = folder / "artifacts", folder / "computed.json"
    if not record.exists():
        shutil.rmtree(folder, ignore_errors=True)  # a worker that died part-way
        with dg.instance_for_test() as instance:
            result = materialize_tiny_graph(root, instance)
            assert result.success
            computed = {  # the plain values: what fits JSON, read back by every worker
                asset: {k: v for k, v in metadata.items() if isinstance(v, PLAIN)}
                for asset, metadata in materialization_metadata(result).items()
            }
        record.write_text(json.dumps(computed))
    return root, json.loads(record.read_text())


def materialize_tiny_graph(root: Path, instance: dg.DagsterInstance, resources=None):
    from ml_assets.definitions import ASSETS, CHECKS, build_resources

    return dg.materialize(
        [*ASSETS, *CHECKS],
        resources=resources or build_resources(str(root), profile="tiny"),
        instance=instance,
        tags=TINY_RANGE,
    )


def copy_store(source: Path, destination: Path) -> Path:
    """A private copy of a store (real copies: tests corrupt files in theirs)."""
    shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)
    return destination


def materialization_metadata(result) -> dict[str, dict]:
    """Per asset, the metadata of the run's output (a range run's first event: the run's totals;
    the per-day events that follow it carry each day's own numbers)."""
    out = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        out.setdefault(
            mat.asset_key.to_user_string(), {k: v.value for k, v in mat.metadata.items()}
        )
    return out
