"""A day's data version and metadata are the same whether it ran alone or inside a range run,
so staleness after any mix of range and one-day runs is right (read through Dagster's own
stale-status resolver, the one behind the UI's staleStatus)."""

from __future__ import annotations

import dagster as dg
from dagster._core.definitions.data_version import DATA_VERSION_TAG, CachingStaleStatusResolver
from dagster._core.loader import LoadingContextForTest

from ml_assets.definitions import build_definitions, build_resources, versioned_assets
from tests.graph import TINY_DAYS, TINY_RANGE, copy_store

DAILY = ["raw_transactions", "transaction_features"]


def stale_status(instance, asset: str, day: str) -> str:
    resolver = CachingStaleStatusResolver(
        instance,
        build_definitions(profile="tiny").resolve_asset_graph(),
        LoadingContextForTest(instance),
    )
    return resolver.get_status(dg.AssetKey(asset), day).value


def latest(instance, asset: str, day: str):
    record = instance.get_latest_data_version_record(dg.AssetKey(asset), partition_key=day)
    return record.asset_event


def test_a_range_run_records_each_days_own_version_and_numbers(tiny_graph, tmp_path):
    root = copy_store(tiny_graph.root, tmp_path / "store")
    resources = build_resources(str(root), profile="tiny")
    day = TINY_DAYS[2]
    assets = versioned_assets(profile="tiny")
    with dg.instance_for_test() as instance:
        assert dg.materialize(
            assets, selection=DAILY, resources=resources, instance=instance, tags=TINY_RANGE
        ).success
        ranged = latest(instance, "raw_transactions", day)
        assert stale_status(instance, "transaction_features", day) == "FRESH"
        # a one-day rerun of the same bytes (a memo hit) changes nothing downstream
        assert dg.materialize(
            assets,
            selection=["raw_transactions"],
            resources=resources,
            instance=instance,
            partition_key=day,
        ).success
        alone = latest(instance, "raw_transactions", day)
        assert alone.tags[DATA_VERSION_TAG] == ranged.tags[DATA_VERSION_TAG]
        assert stale_status(instance, "transaction_features", day) == "FRESH"
        for key in ("rows_in", "rows_kept", "artifact_digest"):  # the day's own, not the run's
            assert alone.metadata[key] == ranged.metadata[key], key
        features = latest(instance, "transaction_features", day)
        assert features.metadata["partition"].value == day


def test_the_data_version_tags_are_dagsters_own():
    """ml_assets/wiring/artifacts.py names the tags without importing Dagster's private module."""
    from dagster._core.definitions import data_version

    from ml_assets.wiring import artifacts

    assert artifacts.DATA_VERSION_TAG == data_version.DATA_VERSION_TAG
    assert (
        artifacts.DATA_VERSION_IS_USER_PROVIDED_TAG
        == data_version.DATA_VERSION_IS_USER_PROVIDED_TAG
    )
    key = dg.AssetKey("training_features")
    assert (
        data_version.get_input_data_version_tag(key)
    ) == artifacts.INPUT_DATA_VERSION_TAG_PREFIX + "training_features"
