"""The daily partitions shared by raw_transactions and transaction_features, and the
single-run decorator every asset is declared with."""

import datetime as dt
import warnings
from collections.abc import Callable
from typing import Any

import dagster as dg

from ml_assets.core.params import PartitionsParams

# code versions leave this module out: which days exist, how a range runs (a day's key is in
# its params)
AFFECTS_OUTPUTS = False


def daily_partitions(
    start_date: dt.date, end_date: dt.date | None = None
) -> dg.DailyPartitionsDefinition:
    """Days from ``start_date`` (params ``partitions.start_date``) up to yesterday (UTC), or up
    to the day before ``end_date`` when the source can have no later day (the generator's fixed
    window): the UI then shows no day as missing that could never hold data."""
    end = end_date.isoformat() if end_date and end_date > start_date else None
    return dg.DailyPartitionsDefinition(
        start_date=start_date.isoformat(), end_date=end, timezone="UTC"
    )


# What the daily assets are declared with: the schema's start date (nothing is read at
# import); the definitions factory swaps in params.yaml's. A range of days can run as one
# process (one read of the exports, one torch-free step per asset): single-run backfills.
DAILY_PARTITIONS = daily_partitions(PartitionsParams().start_date)
SINGLE_RUN = dg.BackfillPolicy.single_run()


def single_run_asset(**asset_args: Any) -> Callable[..., dg.AssetsDefinition]:
    """``dg.asset(**asset_args)`` whose backfills run as one run: a range of days in one process
    (one read of the exports, one torch import per training step), as `--partition-range` does.

    Dagster 1.13 marks ``backfill_policy`` beta and warns at every use; the warning is muted for
    this call only (no process-wide filter)."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning
        )
        return dg.asset(backfill_policy=SINGLE_RUN, **asset_args)


RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def range_tags(first: str, last: str) -> dict[str, str]:
    """Run tags that make one run cover days first..last (what `--partition-range` sets)."""
    return {RANGE_START: first, RANGE_END: last}
