"""Daily partitions of the raw data: which export files feed a day, which day each row
belongs to, and the window of days that training reads.

By default a row belongs to the day it was posted. An export whose name carries a day
(``2026-01-05.jsonl``, ``date=2026-01-05/part-0.parquet``, ``export_20260105.csv.gz``,
``2026/01/05/x.jsonl``) belongs to that day as a whole only when its rows fit it (posted on that
day or up to ``LATE_POSTING_DAYS`` before: a daily export with late postings) or when
``day_from: path`` says so; an activity download named by its download date is split by posted
date, with a warning that counts its days. A day whose exports are all its own never changes
when later exports arrive. Each day is deduplicated on its own; rows belong to the day they were
posted, so a transaction in two overlapping downloads meets its copy on that day.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ml_assets.core.intake.accounting import ORIGIN, QUARANTINE_SCHEMA, IngestResult
from ml_assets.core.intake.records import RAW_SCHEMA

_DATE_PATTERNS = (
    re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)"),  # 2026-01-05, date=2026-01-05
    re.compile(r"(?<!\d)(\d{4})/(\d{2})/(\d{2})(?!\d)"),  # 2026/01/05/
    re.compile(r"(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)"),  # 20260105
)


def date_in_key(key: str) -> str | None:
    """The export day named in an object key or file path, or None. The last (deepest) valid
    date wins: ``bank/2025-12-31-backfill/2026-01-05.jsonl`` is 2026-01-05."""
    found: list[tuple[int, str]] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(key):
            try:
                day = dt.date(*(int(g) for g in match.groups()))
            except ValueError:
                continue
            found.append((match.end(), day.isoformat()))
    return max(found)[1] if found else None


def days_between(first: str, last: str) -> list[str]:
    start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    return [(start + dt.timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]


def files_for_days(keys: list[str], days: set[str]) -> list[str]:
    """The exports a run over ``days`` must read: those named for one of the days, and every
    undated one (its rows are split by posted date)."""
    return [k for k in keys if (day := date_in_key(k)) is None or day in days]


LATE_POSTING_DAYS = 3  # a daily export may carry rows posted this many days before its day


def fits_named_day(named: str, posted: list[str]) -> bool:
    """Whether an export named for ``named`` is that day's export: every valid row posted on
    that day or up to LATE_POSTING_DAYS before (a file without valid rows fits)."""
    if not posted:
        return True
    first = (dt.date.fromisoformat(named) - dt.timedelta(days=LATE_POSTING_DAYS)).isoformat()
    return first <= min(posted) and max(posted) <= named


@dataclass
class DaySplit:
    """One run's rows, by day. ``rows_for_other_days`` are rows posted on days outside the
    run; they are ingested when those days are materialized. ``warnings``: dated exports
    whose rows span other days, with counts."""

    days: dict[str, IngestResult]
    rows_read: int
    rows_for_other_days: int = 0
    per_file: dict[str, int] = field(default_factory=dict)
    per_file_rejects: dict[str, pl.DataFrame] = field(default_factory=dict)  # as scanned
    warnings: list[str] = field(default_factory=list)


def span_warning(source: str, named: str, posted: list[str], home: str | None) -> str | None:
    """The warning for a dated export whose rows do not fit its day, or None."""
    if fits_named_day(named, posted):
        return None
    spread = f"{len(posted)} rows posted on {len(set(posted))} days ({min(posted)}..{max(posted)})"
    if home is None:
        return (
            f"{source} is named for {named} but holds {spread}; each row goes to the day it was "
            f"posted (set raw_transactions.day_from: path to keep them all on {named})"
        )
    return f"{source}: {spread} all go to {named} (raw_transactions.day_from: path)"


def split_by_day(
    per_file: dict[str, IngestResult],
    days: list[str],
    homes: dict[str, str | None] | None = None,
) -> DaySplit:
    """Assign every row of every scanned file to a day of the run (or count it as another
    day's), then deduplicate each day across files. ``homes``: export name -> the day all its
    rows belong to, or None for by posted date (default: the day in its name, see
    raw_days.export_homes). ``per_file`` results must have been scanned with
    ``with_origin=True``."""
    wanted = set(days)
    kept: dict[str, list[pl.DataFrame]] = {d: [] for d in days}
    quarantined: dict[str, list[pl.DataFrame]] = {d: [] for d in days}
    duplicates: Counter = Counter()
    other_days = rows_read = 0
    warnings = []
    for source, result in per_file.items():
        rows_read += result.rows_in
        named = homes[source] if homes is not None else date_in_key(source)
        if (in_name := date_in_key(source)) is not None and result.kept.height:
            posted = result.kept["posted_date"].to_list()
            if (warning := span_warning(source, in_name, posted, named)) is not None:
                warnings.append(warning)
        if named is not None:
            if named not in wanted:
                raise ValueError(f"{source} is named for {named}, outside this run's days")
            kept[named].append(result.kept)
            quarantined[named].append(result.quarantined)
            duplicates[named] += result.duplicates
            continue
        # undated: rows go by posted date; rows without a usable date to the file's last day
        home = result.kept["posted_date"].max() if result.kept.height else days[-1]
        for (day,), rows in result.kept.partition_by("posted_date", as_dict=True).items():
            if day in wanted:
                kept[day].append(rows)
            else:
                other_days += rows.height
        for day, count in result.duplicate_dates.items():
            if day in wanted:
                duplicates[day] += count
            else:
                other_days += count
        if home in wanted:
            quarantined[home].append(result.quarantined)
        else:
            other_days += result.quarantined.height
    split = {d: _dedupe_day(kept[d], quarantined[d], duplicates[d]) for d in days}
    accounted = sum(r.rows_in for r in split.values()) + other_days
    if accounted != rows_read:  # a bug here would silently lose data: never tolerate it
        raise AssertionError(f"day split lost rows: {rows_read} read, {accounted} accounted for")
    return DaySplit(
        split,
        rows_read,
        other_days,
        {k: r.rows_in for k, r in per_file.items()},
        {k: r.quarantined for k, r in per_file.items()},
        warnings,
    )


def _dedupe_day(
    kept_parts: list[pl.DataFrame], quarantine_parts: list[pl.DataFrame], duplicates: int
) -> IngestResult:
    """Within one day and across files (overlapping downloads): exact repeats are dropped
    (counted, and counted again as ``duplicates_across_files`` when the kept copy came from
    another file); a derived id seen again is the same transaction (its id *is* its content;
    a re-download may carry another category), dropped too; a bank's id seen again with
    different content is quarantined naming both places."""
    kept = pl.concat(
        [pl.DataFrame(schema={**RAW_SCHEMA, **ORIGIN}), *kept_parts], how="vertical_relaxed"
    )
    quarantined = pl.concat(
        [pl.DataFrame(schema=QUARANTINE_SCHEMA), *quarantine_parts], how="vertical_relaxed"
    )
    content = pl.struct(list(RAW_SCHEMA))
    repeat = ~content.is_first_distinct() | (
        pl.col("_derived") & ~pl.col("transaction_id").is_first_distinct()
    )
    repeats = kept.filter(repeat)
    kept = kept.filter(~repeat)
    first_seen = kept.filter(pl.col("transaction_id").is_first_distinct())
    conflicts = kept.filter(~pl.col("transaction_id").is_first_distinct())
    first_at = {
        row["transaction_id"]: (row["_source"], row["_line"])
        for row in first_seen.iter_rows(named=True)
    }
    across = sum(
        first_at[row["transaction_id"]][0] != row["_source"]
        for row in repeats.select("transaction_id", "_source").iter_rows(named=True)
    )
    reasons = Counter(quarantined["reason"].to_list())
    if conflicts.height:
        rows = [
            {
                "source": row["_source"],
                "line": row["_line"],
                "reason": "conflicting_duplicate_id",
                "field": "transaction_id",
                "detail": (
                    f"{row['_source']}:{row['_line']}: duplicate transaction_id "
                    f"{row['transaction_id']!r} with different content "
                    "(first at {}:{})".format(*first_at[row["transaction_id"]])
                ),
                "raw": str({k: row[k] for k in RAW_SCHEMA}),
                "raw_bytes": None,
            }
            for row in conflicts.iter_rows(named=True)
        ]
        quarantined = pl.concat(
            [quarantined, pl.DataFrame(rows, schema=QUARANTINE_SCHEMA, orient="row")]
        )
        reasons["conflicting_duplicate_id"] += conflicts.height
    kept = first_seen.drop(list(ORIGIN)).sort("posted_date", "transaction_id")
    dropped = duplicates + repeats.height
    return IngestResult(
        kept=kept,
        quarantined=quarantined,
        duplicates=dropped,
        rows_in=kept.height + quarantined.height + dropped,
        reasons=reasons,
        duplicates_across_files=across,
    )


def window_days(available: list[str], window: int | None, end: str | None) -> list[str]:
    """The materialized days training reads: the last ``window`` calendar days up to ``end``
    (default: the newest available day), or all of them when ``window`` is None."""
    if not available:
        return []
    last = end or max(available)
    if window is None:
        return sorted(d for d in available if d <= last)
    first = (dt.date.fromisoformat(last) - dt.timedelta(days=window - 1)).isoformat()
    return sorted(d for d in available if first <= d <= last)


def scan_window(dataset: Path, first: str, last: str) -> pl.LazyFrame:
    """The rows of days ``first``..``last`` of a hive-partitioned dataset (``date=YYYY-MM-DD/``),
    lazily: the date predicate prunes whole partitions, so files outside the window are never
    opened. The ``date`` partition column is dropped (rows carry posted_date)."""
    # the schema comes from a file inside the window; polars would otherwise open the first
    # file of the glob, which may be a day the window excludes
    schema = pl.read_parquet_schema(dataset / f"date={last}" / "part-0.parquet")
    frame = pl.scan_parquet(
        dataset / "**" / "*.parquet",
        schema=schema,
        hive_partitioning=True,
        hive_schema={"date": pl.Date()},
    )
    window = pl.col("date").is_between(dt.date.fromisoformat(first), dt.date.fromisoformat(last))
    return frame.filter(window).drop("date")
