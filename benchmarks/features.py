"""Raw transactions (JSONL) -> features Parquet: this project's polars path vs the same
transformation written with pandas, measured in the same run on the same file.

    python benchmarks/features.py [--rows 1000000]

Prints rows/s for both, the speedup, and the Parquet/JSONL size ratio (goals: polars >= 5x
pandas; Parquet <= 20 % of the JSONL bytes). Both outputs are compared row by row on the
derived columns, so the two sides provably do the same work.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

from ml_assets.core.intake.ingest import read_validated_jsonl
from ml_assets.core.params import TransactionFeaturesParams
from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.core.text.normalize import _PREFIXES
from ml_assets.core.training_data.features import build_features

P = TransactionFeaturesParams()
SPLIT_ARGS = dict(
    heldout_test_pct=P.heldout_test_merchant_pct,
    heldout_valid_pct=P.heldout_valid_merchant_pct,
    seen_test_pct=P.seen_test_row_pct,
    seen_valid_pct=P.seen_valid_row_pct,
    salt=P.split_salt,
)


def polars_path(jsonl: Path, out: Path) -> pl.DataFrame:
    features = build_features(
        read_validated_jsonl(jsonl), max_description_chars=P.max_description_chars, **SPLIT_ARGS
    )
    features.write_parquet(out, compression="zstd")
    return features


def _bucket(keys: pd.Series, salt: str) -> pd.Series:
    unique = keys.unique()
    table = {
        k: int.from_bytes(hashlib.sha256(f"{salt}|{k}".encode()).digest()[:8], "big") % 10000
        for k in unique
    }
    return keys.map(table)


def _normalize(text: pd.Series) -> pd.Series:
    return (
        text.str.normalize("NFKC")
        .str.lower()
        .str.replace(r"\d", "0", regex=True)
        .str.replace(r"\s+", " ", regex=True)
        .str.strip()
    )


def pandas_path(jsonl: Path, out: Path) -> pd.DataFrame:
    """The same columns with pandas idioms a data scientist would write."""
    frame = pd.read_json(jsonl, lines=True, dtype={"transaction_id": str, "account_id": str})
    frame["text"] = _normalize(frame["description"])
    frame["posted_date"] = pd.to_datetime(frame["posted_date"], format="%Y-%m-%d")
    words = (
        frame["text"]
        .str.replace(rf"^(?:{_PREFIXES})\s*", "", regex=True)
        .str.replace(r"\s\S*[0-9#*].*$", "", regex=True)
        .str.replace(r"[^\w&' ]+|[\d_]+", " ", regex=True)
        .str.replace(r"\s+", " ", regex=True)
        .str.strip()
        .str.split(" ")
        .str[:2]
        .str.join(" ")
    )
    derived = words.where(words.str.len() > 0, "<none>")
    supplied = _normalize(frame["merchant"].fillna(""))
    frame["merchant_key"] = supplied.where(supplied.str.len() > 0, derived)
    frame["amount_sign"] = np.sign(frame["amount"]).astype("int8")
    frame["amount_log_bucket"] = np.floor(np.log2(frame["amount"].abs() + 1)).astype("int8")
    frame["weekday"] = (frame["posted_date"].dt.weekday + 1).astype("int8")
    frame["day_of_month"] = frame["posted_date"].dt.day.astype("int8")
    frame["description_chars"] = frame["description"].str.len().astype("int32")
    frame["labeled"] = frame["category"].notna() | frame["transaction_type"].notna()
    merchant = _bucket(frame["merchant_key"], P.split_salt + "|merchant")
    row = _bucket(frame["transaction_id"], P.split_salt + "|row")
    test_cut = P.heldout_test_merchant_pct * 100
    valid_cut = test_cut + P.heldout_valid_merchant_pct * 100
    seen_test = P.seen_test_row_pct * 100
    seen_valid = seen_test + P.seen_valid_row_pct * 100
    frame["split"] = np.select(
        [merchant < test_cut, merchant < valid_cut, row < seen_test, row < seen_valid],
        ["test", "valid", "test", "valid"],
        "train",
    )
    frame["heldout_merchant"] = merchant < valid_cut
    frame.to_parquet(out, compression="zstd")
    return frame


def timed(fn, *args):
    started = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "transactions.jsonl"
        generate_transactions(rows, seed=11, labeled_fraction=0.25, days=365).write_ndjson(jsonl)
        jsonl_bytes = jsonl.stat().st_size
        pandas_frame, pandas_s = timed(pandas_path, jsonl, Path(tmp) / "pandas.parquet")
        polars_frame, polars_s = timed(polars_path, jsonl, Path(tmp) / "polars.parquet")
        parquet_bytes = (Path(tmp) / "polars.parquet").stat().st_size
        same = {
            column: bool(
                (
                    polars_frame[column].to_pandas().astype(str).values
                    == pandas_frame[column].astype(str).values
                ).all()
            )
            for column in ("text", "amount_log_bucket", "weekday", "day_of_month", "split")
        }
        merchant_agreement = float(
            (
                polars_frame["merchant_key"].to_numpy() == pandas_frame["merchant_key"].to_numpy()
            ).mean()
        )
    print(f"rows: {rows:,}   cores: {os.cpu_count()}   JSONL: {jsonl_bytes / 1e6:.1f} MB")
    print(f"pandas  {pandas_s:7.2f} s  {rows / pandas_s:12,.0f} rows/s")
    print(f"polars  {polars_s:7.2f} s  {rows / polars_s:12,.0f} rows/s")
    print(f"speedup polars/pandas: {pandas_s / polars_s:.2f}x   (goal >= 5x)")
    print(
        f"Parquet/JSONL bytes: {parquet_bytes / 1e6:.1f} / {jsonl_bytes / 1e6:.1f} MB = "
        f"{parquet_bytes / jsonl_bytes:.1%}   (goal <= 20 %)"
    )
    print(f"outputs identical per column: {same}; merchant_key agreement {merchant_agreement:.4f}")


if __name__ == "__main__":
    main()
