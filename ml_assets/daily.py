"""The daily partitions shared by raw_transactions and transaction_features."""

import warnings

import dagster as dg

from ml_assets.core.params import load_params

# Days from params `partitions.start_date` up to yesterday (UTC). A range of days can run as
# one process (one read of the exports, one torch-free step per asset): single-run backfills.
DAILY_PARTITIONS = dg.DailyPartitionsDefinition(
    start_date=load_params().partitions.start_date.isoformat(), timezone="UTC"
)
SINGLE_RUN = dg.BackfillPolicy.single_run()
# `backfill_policy` is "beta" in Dagster 1.13; said once here instead of once per asset
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)

RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def range_tags(first: str, last: str) -> dict[str, str]:
    """Run tags that make one run cover days first..last (what `--partition-range` sets)."""
    return {RANGE_START: first, RANGE_END: last}
