"""When a load has too many bad rows: the quarantined share judged over the run, per export
file, and per day once a day has enough rows for a share to mean something; and a file cut off
mid-download, whose missing rows no share can count, always.

A share of a handful of rows is noise: at ~17 rows a day, one statement's six bad rows landing
on one day is 35 % of that day and 0.1 % of the file. So days are judged only from
``min_day_rows`` rows on; the run and each file always are. The verdict is reached on the whole
run's rows before any day is written, so a failed load leaves no day behind.
"""

from __future__ import annotations

import polars as pl

from ml_assets.core.intake.accounting import QUARANTINE_SCHEMA, quarantine_summary
from ml_assets.core.intake.partitions import DaySplit


def quarantine_verdict(split: DaySplit, max_share: float, min_day_rows: int) -> str | None:
    """None when the load may go on; else the message that stops it: which scope is over the
    limit, the counts, the top reasons with example file:line, and what to do."""
    problems: list[tuple[str, int, int, pl.DataFrame]] = []
    for name, rows_in in sorted(split.per_file.items()):
        rejects = split.per_file_rejects.get(name, pl.DataFrame(schema=QUARANTINE_SCHEMA))
        cut = rejects.filter(pl.col("reason") == "truncated_file")
        if cut.height:  # rows are missing for certain, however few the file's share says
            return (
                f"raw_transactions: export {name} is cut off: {cut['detail'][0]} (its other "
                f"{rows_in - 1} rows read). A load never keeps part of a statement."
            )
        if rows_in and rejects.height / rows_in > max_share:
            problems.append((f"export {name}", rejects.height, rows_in, rejects))
    in_run = [r for r in split.days.values() if r.rows_in]
    rows_in = sum(r.rows_in for r in in_run)
    rejects = pl.concat(
        [pl.DataFrame(schema=QUARANTINE_SCHEMA), *(r.quarantined for r in in_run)],
        how="vertical_relaxed",
    )
    if rows_in and rejects.height / rows_in > max_share:
        problems.append(("the run", rejects.height, rows_in, rejects))
    for day, result in sorted(split.days.items()):
        if result.rows_in >= min_day_rows and result.quarantined_share > max_share:
            problems.append(
                (f"day {day}", result.quarantined.height, result.rows_in, result.quarantined)
            )
    if not problems:
        return None
    scope, bad, total, frame = problems[0]
    more = f" (and {len(problems) - 1} more over the limit)" if len(problems) > 1 else ""
    return (
        f"raw_transactions: {scope}: {bad} of {total} rows ({bad / total:.1%}) failed "
        f"validation, above raw_transactions.max_quarantine_share={max_share}{more}: "
        f"{quarantine_summary(frame)}. {quarantine_advice(frame)} (the run, each file, and days of at "
        f"least raw_transactions.quarantine_min_day_rows={min_day_rows} rows are judged)."
    )


_FILE_REASONS = {"unreadable_file", "truncated_file"}  # the file itself is broken
_STATEMENT_REASONS = {"bad_mt940", "bad_ofx_field"}  # a statement format: no reading keys


def quarantine_advice(frame: pl.DataFrame) -> str:
    """What to do about these quarantined rows: a broken file is downloaded again; reading
    keys only help an export that has them."""
    reasons = set(frame["reason"].to_list())
    if reasons <= _FILE_REASONS:
        return "Re-download the named files from the bank, or move them out of the folder"
    if reasons <= _FILE_REASONS | _STATEMENT_REASONS:
        return "Re-download the named statements; their lines are quoted above"
    return "Fix the export or its column_map/date_format/csv_preset"
