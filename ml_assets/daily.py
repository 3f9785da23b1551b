"""The daily partitions shared by raw_transactions and transaction_features."""

import datetime as dt
import warnings

import dagster as dg

from ml_assets.core.params import PartitionsParams


def daily_partitions(start_date: dt.date) -> dg.DailyPartitionsDefinition:
    """Days from ``start_date`` (params ``partitions.start_date``) up to yesterday (UTC)."""
    return dg.DailyPartitionsDefinition(start_date=start_date.isoformat(), timezone="UTC")


# What the daily assets are declared with: the schema's start date (nothing is read at
# import); the definitions factory swaps in params.yaml's. A range of days can run as one
# process (one read of the exports, one torch-free step per asset): single-run backfills.
DAILY_PARTITIONS = daily_partitions(PartitionsParams().start_date)
SINGLE_RUN = dg.BackfillPolicy.single_run()
# `backfill_policy` is "beta" in Dagster 1.13; said once here instead of once per asset
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)

RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def range_tags(first: str, last: str) -> dict[str, str]:
    """Run tags that make one run cover days first..last (what `--partition-range` sets)."""
    return {RANGE_START: first, RANGE_END: last}
