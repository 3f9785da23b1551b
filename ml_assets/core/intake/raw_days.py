"""The rows of a run's days, from the synthetic generator or from export files, with what
each export said beyond its rows."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ml_assets.core.infra.io import sha256_file
from ml_assets.core.intake.export_formats import list_input_files
from ml_assets.core.intake.ingest import (
    QUARANTINE_SCHEMA,
    IngestResult,
    ScanResult,
    scan_transactions,
)
from ml_assets.core.intake.partitions import (
    DaySplit,
    date_in_key,
    days_between,
    fits_named_day,
    split_by_day,
)
from ml_assets.core.intake.statements import ExportNotes
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.synthetic.demo import generate_transactions


def local_files(path: Path, fmt: str) -> dict[str, Path]:
    """{name below the configured path: file}; a single file is named by its file name."""
    root = path.parent if path.is_file() else path
    return {f.relative_to(root).as_posix(): f for f in list_input_files(path, fmt)}


def local_listing(path: Path, fmt: str) -> dict[str, str]:
    """{name: sha256}: an export whose bytes change changes the fingerprint of its days."""
    return {name: sha256_file(f) for name, f in local_files(path, fmt).items()}


def feeding(listing: dict[str, str], homes: dict[str, str | None], day: str) -> dict[str, str]:
    """The exports a day is made of: those whose rows all belong to it (export_homes) and
    every one split by posted date."""
    return {name: v for name, v in listing.items() if homes.get(name) in (day, None)}


def export_homes(
    settings: RawTransactionsParams, listing: dict[str, str], files: dict[str, Path] | None
) -> dict[str, str | None]:
    """name -> the day all of an export's rows belong to, or None when its rows go by their
    posted dates (see partitions). ``day_from: auto`` reads a dated local export once per
    content (cached by its sha256) to see whether its rows fit its day; objects under an
    S3/GCS prefix (``files`` None) are judged by their names, as with ``day_from: path``."""
    reading = settings.model_dump_json()
    homes: dict[str, str | None] = {}
    for name, identity in sorted(listing.items()):
        named = date_in_key(name)
        if settings.day_from == "posted_date" or named is None:
            homes[name] = None
        elif settings.day_from == "path" or files is None:
            homes[name] = named
        else:
            posted = _posted_dates(str(files[name]), identity, reading)
            homes[name] = named if fits_named_day(named, list(posted)) else None
    return homes


@functools.lru_cache(maxsize=4096)
def _posted_dates(path: str, identity: str, reading: str) -> tuple[str, ...]:
    """The distinct posted dates of an export's valid rows (``identity`` keys the cache)."""
    settings = RawTransactionsParams.model_validate_json(reading)
    return tuple(scan_exports(Path(path), settings).kept["posted_date"].unique().sort().to_list())


def synthetic_start(settings: RawTransactionsParams, today: dt.date | None = None) -> dt.date:
    """The first day of the generator's window: ``start_date``, or, with ``synthetic_window:
    live``, the day that makes the window end yesterday (UTC), like a feed that delivers each
    complete day. The rows are a function of seed and window, so a given end date reproduces."""
    if settings.synthetic_window == "fixed":
        return settings.start_date
    today = today or dt.datetime.now(dt.UTC).date()
    return today - dt.timedelta(days=settings.days)


def source_end(settings: RawTransactionsParams) -> dt.date | None:
    """The day after the last one the source can ever have: the end of the generator's fixed
    window; None for a live window and for exports (new days keep arriving)."""
    if settings.source == "synthetic" and settings.synthetic_window == "fixed":
        return settings.start_date + dt.timedelta(days=settings.days)
    return None


def synthetic_split(settings: RawTransactionsParams, days: list[str]) -> IntakeSplit:
    """The seeded generator's rows by posted date; days outside its span are empty."""
    frame = generate_transactions(
        settings.n_rows,
        seed=settings.seed,
        labeled_fraction=settings.labeled_fraction,
        start_date=synthetic_start(settings),
        days=settings.days,
    )
    empty = pl.DataFrame(schema=QUARANTINE_SCHEMA)
    by_day = {
        day: frame.filter(pl.col("posted_date") == day).sort("posted_date", "transaction_id")
        for day in days
    }
    split = {day: IngestResult(rows, empty, 0, rows.height) for day, rows in by_day.items()}
    in_run = sum(r.rows_in for r in split.values())
    return IntakeSplit(split, frame.height, frame.height - in_run)


def scan_exports(
    path: Path, settings: RawTransactionsParams, with_origin: bool = False
) -> ScanResult:
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
        delimiter=settings.delimiter,
        decimal=settings.decimal,
        header_line=settings.header_line,
        spending=settings.spending,
        sheet=settings.sheet,
        currency=settings.currency,
        amount_unit=settings.amount_unit,
        exports={k: v.model_dump(exclude_none=True) for k, v in settings.exports.items()},
    )


@dataclass
class IntakeSplit(DaySplit):
    """A run's rows by day, with what each export said beyond its rows (its preamble,
    balances, running-balance breaks; core.statements), by export name, and the day each
    export belongs to as a whole (None: its rows go by posted date)."""

    notes: dict[str, ExportNotes] = field(default_factory=dict)
    homes: dict[str, str | None] = field(default_factory=dict)

    def day_notes(self, day: str) -> dict[str, int | list[str]]:
        """The day's share of the notes: repeats dropped for their running balance, and the
        running-balance breaks of rows that went to it (with their file and line)."""
        breaks, repeats = [], 0
        for name, notes in sorted(self.notes.items()):
            home = self.homes.get(name)
            breaks += [
                b.describe(notes.where(b.line), notes.unit)
                for b in notes.breaks
                if (home or b.posted_date) == day
            ]
            by_day = notes.duplicates_same_balance
            if home is None:
                repeats += by_day.get(day, 0)
            elif home == day:
                repeats += sum(by_day.values())
        return {
            "duplicates_same_balance": repeats,
            "balance_breaks": len(breaks),
            "balance_break_lines": breaks[:20],
        }


def files_split(
    files: dict[str, Path],
    settings: RawTransactionsParams,
    days: list[str],
    homes: dict[str, str | None] | None = None,
) -> IntakeSplit:
    """Validate every row of every export once, then assign rows to days (see partitions;
    ``homes`` from export_homes, by default computed here for local files)."""
    if homes is None:
        homes = export_homes(settings, local_identities(files), files)
    per_file = {
        name: scan_exports(path, settings, with_origin=True) for name, path in sorted(files.items())
    }
    split = split_by_day(per_file, days, homes)
    notes = {name: result.notes[0] for name, result in per_file.items() if result.notes}
    warnings = [*split.warnings, *(w for n in notes.values() for w in n.warnings)]
    return IntakeSplit(**{**vars(split), "warnings": warnings}, notes=notes, homes=homes)


def local_identities(files: dict[str, Path]) -> dict[str, str]:
    return {name: sha256_file(path) for name, path in files.items()}


def synthetic_days(settings: RawTransactionsParams, today: dt.date | None = None) -> list[str]:
    start = synthetic_start(settings, today)
    return days_between(
        start.isoformat(), (start + dt.timedelta(days=settings.days - 1)).isoformat()
    )


def export_days(
    files: dict[str, Path],
    settings: RawTransactionsParams,
    homes: dict[str, str | None] | None = None,
) -> list[str]:
    """The days a set of exports feeds: the days of those that belong to one day, and the
    posted dates of the valid rows of the others."""
    if homes is None:
        homes = export_homes(settings, local_identities(files), files)
    days = {d for name in files if (d := homes.get(name)) is not None}
    for name, path in files.items():
        if homes.get(name) is None:
            days.update(scan_exports(path, settings).kept["posted_date"].unique().to_list())
    return sorted(days)
