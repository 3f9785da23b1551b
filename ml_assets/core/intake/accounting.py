"""Where every row of a read ended: the kept rows, the quarantine (with source file, line,
reason and field) and the count of dropped duplicates, checked to add up."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import polars as pl

# where a kept row came from, and whether its id was derived (scan_transactions with_origin)
ORIGIN: dict[str, pl.DataType] = {
    "_source": pl.Utf8(),
    "_line": pl.Int64(),
    "_derived": pl.Boolean(),
}
QUARANTINE_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.Utf8(),
    "line": pl.Int64(),
    "reason": pl.Utf8(),
    "field": pl.Utf8(),
    "detail": pl.Utf8(),
    "raw": pl.Utf8(),  # the first RAW_PREVIEW_CHARS of the row, decoded with replacement
    "raw_bytes": pl.Int64(),
}


@dataclass
class IngestResult:
    """Rows in = kept + quarantined + duplicates, by construction and checked."""

    kept: pl.DataFrame
    quarantined: pl.DataFrame  # QUARANTINE_SCHEMA
    duplicates: int  # exact repeats of a kept row (same id, same content), dropped
    rows_in: int
    reasons: Counter = field(default_factory=Counter)
    duplicate_dates: Counter = field(default_factory=Counter)  # posted_date of each dropped repeat
    duplicates_across_files: int = 0  # of ``duplicates``: repeats of a row kept from another file

    def __post_init__(self) -> None:
        accounted = self.kept.height + self.quarantined.height + self.duplicates
        if accounted != self.rows_in:  # a bug here would silently lose data: never tolerate it
            raise AssertionError(f"ingest lost rows: {self.rows_in} in, {accounted} accounted for")

    @property
    def quarantined_share(self) -> float:
        return self.quarantined.height / self.rows_in if self.rows_in else 0.0

    def summary(self, examples: int = 3) -> str:
        return quarantine_summary(self.quarantined, examples)


def quarantine_summary(quarantined: pl.DataFrame, examples: int = 3) -> str:
    """Top reasons with example lines, for the error that stops a too-dirty load."""
    parts = []
    for reason, count in Counter(quarantined["reason"].to_list()).most_common(5):
        rows = quarantined.filter(pl.col("reason") == reason).head(examples)
        others = [f"{r['source']}:{r['line']}" for r in rows.iter_rows(named=True)][1:]
        also = f" (also {', '.join(others)})" if others else ""
        parts.append(f"{reason} x{count}: {rows['detail'][0]}{also}")
    return "; ".join(parts)
