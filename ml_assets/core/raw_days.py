"""The rows of a run's days, from the synthetic generator or from export files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

from ml_assets.core.ingest import (
    QUARANTINE_SCHEMA,
    IngestResult,
    list_input_files,
    scan_transactions,
)
from ml_assets.core.io import sha256_file
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.partitions import DaySplit, date_in_key, days_between, split_by_day
from ml_assets.core.synthetic import generate_transactions


def local_files(path: Path, fmt: str) -> dict[str, Path]:
    """{name below the configured path: file}; a single file is named by its file name."""
    root = path.parent if path.is_file() else path
    return {f.relative_to(root).as_posix(): f for f in list_input_files(path, fmt)}


def local_listing(path: Path, fmt: str) -> dict[str, str]:
    """{name: sha256}: an export whose bytes change changes the fingerprint of its days."""
    return {name: sha256_file(f) for name, f in local_files(path, fmt).items()}


def feeding(listing: dict[str, str], day: str) -> dict[str, str]:
    """The exports a day is made of: those named for it and every undated one."""
    return {name: v for name, v in listing.items() if date_in_key(name) in (day, None)}


def synthetic_split(settings: RawTransactionsParams, days: list[str]) -> DaySplit:
    """The seeded generator's rows by posted date; days outside its span are empty."""
    frame = generate_transactions(
        settings.n_rows,
        seed=settings.seed,
        labeled_fraction=settings.labeled_fraction,
        start_date=settings.start_date,
        days=settings.days,
    )
    empty = pl.DataFrame(schema=QUARANTINE_SCHEMA)
    by_day = {
        day: frame.filter(pl.col("posted_date") == day).sort("posted_date", "transaction_id")
        for day in days
    }
    split = {day: IngestResult(rows, empty, 0, rows.height) for day, rows in by_day.items()}
    in_run = sum(r.rows_in for r in split.values())
    return DaySplit(split, frame.height, frame.height - in_run)


def scan_file(
    path: Path, settings: RawTransactionsParams, with_origin: bool = False
) -> IngestResult:
    """One export validated exactly as raw_transactions validates it (batch_predictions too)."""
    return scan_transactions(
        path,
        settings.format,
        settings.column_map,
        settings.date_format,
        settings.max_description_chars,
        files=[path],
        with_origin=with_origin,
        transaction_ids=settings.transaction_ids,
        csv_preset=settings.csv_preset,
        encoding=settings.encoding,
    )


def files_split(
    files: dict[str, Path], settings: RawTransactionsParams, days: list[str]
) -> DaySplit:
    """Validate every row of every export once, then assign rows to days (see partitions)."""
    per_file = {
        name: scan_file(path, settings, with_origin=True) for name, path in sorted(files.items())
    }
    return split_by_day(per_file, days)


def synthetic_days(settings: RawTransactionsParams) -> list[str]:
    first = settings.start_date.isoformat()
    last = (settings.start_date + dt.timedelta(days=settings.days - 1)).isoformat()
    return days_between(first, last)


def export_days(files: dict[str, Path], settings: RawTransactionsParams) -> list[str]:
    """The days a set of exports feeds: the days they are named for, and the posted dates of
    the valid rows of undated ones."""
    days = {d for name in files if (d := date_in_key(name)) is not None}
    undated = {n: p for n, p in files.items() if date_in_key(n) is None}
    for path in undated.values():
        result = scan_file(path, settings)
        days.update(result.kept["posted_date"].unique().to_list())
    return sorted(days)
