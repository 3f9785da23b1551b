"""The tiny profile's days: whole-graph test runs cover them in one run (a single-run
backfill of the daily partitions plus every unpartitioned asset)."""

from ml_assets.core.params import load_params
from ml_assets.core.raw_days import synthetic_days
from ml_assets.daily import range_tags

TINY_DAYS = synthetic_days(load_params(profile="tiny").raw_transactions)
TINY_RANGE = range_tags(TINY_DAYS[0], TINY_DAYS[-1])
