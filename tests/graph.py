"""The tiny profile's days and the whole tiny graph, materialized once per test session.

Whole-graph test runs cover the days in one run (a single-run backfill of the daily partitions
plus every unpartitioned asset). Computing that graph takes most of a minute and a half on two
cores, so the session computes it once (`tiny_graph` in conftest) and modules that need a store
of their own start from a copy of it: a copied store is a valid store (pointers are relative),
and a run on it is a memo hit for every asset, which is itself what those tests check first.
"""

import shutil
from pathlib import Path
from typing import NamedTuple

import dagster as dg

from ml_assets.core.intake.raw_days import synthetic_days
from ml_assets.core.params import load_params
from ml_assets.wiring.daily import range_tags

TINY_DAYS = synthetic_days(load_params(profile="tiny").raw_transactions)
TINY_RANGE = range_tags(TINY_DAYS[0], TINY_DAYS[-1])


PLAIN = (bool, int, float, str, type(None))


class RecordedRun:
    """The run that computed the tiny graph, read from its instance's event log: the parts of
    ``ExecuteInProcessResult`` the tests use, available to every xdist worker (the instance is
    a persistent one in a folder all workers share)."""

    def __init__(self, instance: dg.DagsterInstance, run_id: str):
        self.instance, self.run_id = instance, run_id
        self.all_events = [
            entry.dagster_event
            for entry in instance.all_logs(run_id)
            if entry.dagster_event is not None
        ]

    @property
    def success(self) -> bool:
        return self.instance.get_run_by_id(self.run_id).status == dg.DagsterRunStatus.SUCCESS

    def get_asset_materialization_events(self) -> list:
        return [event for event in self.all_events if event.is_step_materialization]

    def get_asset_check_evaluations(self) -> list:
        return [
            event.event_specific_data
            for event in self.all_events
            if event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION
        ]

    def asset_materializations_for_node(self, node_name: str) -> list:
        return [
            event.event_specific_data.materialization
            for event in self.get_asset_materialization_events()
            if event.node_name == node_name
        ]


class TinyGraph(NamedTuple):
    result: RecordedRun  # the run that computed every asset
    instance: dg.DagsterInstance
    root: Path  # its artifact store: read it, never write it (copy_store for your own)

    @property
    def computed(self) -> dict[str, dict]:
        """Per asset, the metadata of the run that computed it, as plain values."""
        return {
            asset: {k: v for k, v in metadata.items() if isinstance(v, PLAIN)}
            for asset, metadata in materialization_metadata(self.result).items()
        }


def compute_tiny_graph(folder: Path) -> tuple[str, Path, Path]:
    """The tiny graph computed into ``folder`` (store ``artifacts/``, a persistent instance in
    ``home/``) unless an earlier call of this session did: ``run_id`` written last says so.
    Returns the run id, the instance folder and the store."""
    root, home, record = folder / "artifacts", folder / "home", folder / "run_id"
    if not record.exists():
        shutil.rmtree(folder, ignore_errors=True)  # a worker that died part-way
        home.mkdir(parents=True)
        with local_instance(home) as instance:
            result = materialize_tiny_graph(root, instance)
            assert result.success
        record.write_text(result.run_id)
    return record.read_text(), home, root


def local_instance(home: Path) -> dg.DagsterInstance:
    """A persistent instance in ``home``, on SQLite files as the local one is."""
    return dg.DagsterInstance.local_temp(tempdir=str(home))


def materialize_tiny_graph(root: Path, instance: dg.DagsterInstance, resources=None):
    from ml_assets.definitions import CHECKS, build_resources, versioned_assets

    return dg.materialize(  # the assets as the code location serves them: with code versions
        [*versioned_assets(profile="tiny"), *CHECKS],
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
