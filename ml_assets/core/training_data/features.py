"""Feature building with polars: normalized text, numeric/calendar features, merchant split.

Split contract: merchants are hashed (sha256, stable across machines and library versions)
into held-out-test, held-out-valid and seen groups. Rows of seen merchants are split again by
transaction id, so ``test`` = seen-merchant rows + every row of held-out-test merchants, and the
``heldout_merchant`` column marks the slice whose merchants never occur in ``train``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl

from ml_assets.core.infra.layouts import LABEL_COLUMNS, SPLITS
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.text.normalize import merchant_key_expr, normalize_expr


def stable_bucket(keys: pl.Series, salt: str) -> pl.Series:
    """Map each key to 0..9999 by sha256 (polars' own hash is not stable across versions).

    Each distinct key is hashed once; the first 8 digest bytes are read as one big-endian
    uint64 array, so only the sha256 calls themselves run in Python."""
    unique = keys.unique(maintain_order=True)
    prefix = f"{salt}|".encode()
    digests = b"".join(
        [hashlib.sha256(prefix + key.encode()).digest()[:8] for key in unique.to_list()]
    )
    buckets = (np.frombuffer(digests, dtype=">u8") % 10000).astype(np.int32)
    table = pl.DataFrame({"key": unique, "bucket": buckets})
    joined = keys.to_frame("key").join(table, on="key", how="left", maintain_order="left")
    return joined["bucket"]


def assign_splits(
    frame: pl.DataFrame,
    *,
    heldout_test_pct: float,
    heldout_valid_pct: float,
    seen_test_pct: float,
    seen_valid_pct: float,
    salt: str,
) -> pl.DataFrame:
    merchant = stable_bucket(frame["merchant_key"], salt + "|merchant")
    row = stable_bucket(frame["transaction_id"], salt + "|row")
    test_cut = heldout_test_pct * 100
    valid_cut = test_cut + heldout_valid_pct * 100
    seen_test_cut = seen_test_pct * 100
    seen_valid_cut = seen_test_cut + seen_valid_pct * 100
    heldout_test = merchant < test_cut
    heldout_valid = (merchant >= test_cut) & (merchant < valid_cut)
    split = (
        pl.when(heldout_test)
        .then(pl.lit("test"))
        .when(heldout_valid)
        .then(pl.lit("valid"))
        .when(row < seen_test_cut)
        .then(pl.lit("test"))
        .when(row < seen_valid_cut)
        .then(pl.lit("valid"))
        .otherwise(pl.lit("train"))
    )
    return frame.with_columns(
        split=pl.select(split).to_series(),
        heldout_merchant=(heldout_test | heldout_valid),
    )


def build_features(
    raw: pl.DataFrame,
    *,
    max_description_chars: int,
    heldout_test_pct: float,
    heldout_valid_pct: float,
    seen_test_pct: float,
    seen_valid_pct: float,
    salt: str,
) -> pl.DataFrame:
    """Raw canonical transactions -> one feature row per transaction (no row is dropped)."""
    too_long = raw.filter(pl.col("description").str.len_chars() > max_description_chars)
    if too_long.height:
        first = too_long.row(0, named=True)
        raise SchemaError(
            f"{too_long.height} descriptions exceed {max_description_chars} characters "
            f"(first: transaction_id {first['transaction_id']!r}); raise "
            "transaction_features.max_description_chars or clean the source"
        )
    frame = raw.with_columns(
        text=normalize_expr(pl.col("description")),
        posted_date=pl.col("posted_date").str.to_date("%Y-%m-%d"),
    )
    empty = frame.filter(pl.col("text").str.len_chars() == 0)
    if empty.height:
        raise SchemaError(
            f"{empty.height} descriptions are blank after normalization "
            f"(first: transaction_id {empty['transaction_id'][0]!r})"
        )
    frame = frame.with_columns(
        merchant_key=merchant_key_expr(pl.col("text"), pl.col("merchant")),
        amount_sign=pl.col("amount").sign().cast(pl.Int8),
        # log2 buckets of the absolute amount: 0 for < $1, 1 for $1-2, ..., 12 for ~$4k+
        amount_log_bucket=(pl.col("amount").abs() + 1).log(2).floor().cast(pl.Int8),
        weekday=pl.col("posted_date").dt.weekday().cast(pl.Int8),
        day_of_month=pl.col("posted_date").dt.day().cast(pl.Int8),
        description_chars=pl.col("description").str.len_chars().cast(pl.Int32),
        labeled=pl.any_horizontal(pl.col(c).is_not_null() for c in LABEL_COLUMNS),
    )
    frame = assign_splits(
        frame,
        heldout_test_pct=heldout_test_pct,
        heldout_valid_pct=heldout_valid_pct,
        seen_test_pct=seen_test_pct,
        seen_valid_pct=seen_valid_pct,
        salt=salt,
    )
    if frame.height != raw.height:
        raise AssertionError(f"feature rows {frame.height} != raw rows {raw.height}")
    return frame.select(
        "transaction_id",
        "account_id",
        "posted_date",
        "amount",
        "currency",
        "description",
        "merchant",
        "text",
        "merchant_key",
        "amount_sign",
        "amount_log_bucket",
        "weekday",
        "day_of_month",
        "description_chars",
        "split",
        "heldout_merchant",
        "labeled",
        *LABEL_COLUMNS,
    )


def split_summary(features: pl.DataFrame) -> dict[str, dict[str, int]]:
    """Rows, labeled rows and merchants per split (for metadata and checks)."""
    summary = {}
    for split in SPLITS:
        part = features.filter(pl.col("split") == split)
        summary[split] = {
            "rows": part.height,
            "labeled": int(part["labeled"].sum()),
            "merchants": part["merchant_key"].n_unique(),
            "heldout_merchant_rows": int(part["heldout_merchant"].sum()),
        }
    return summary
