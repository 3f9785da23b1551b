"""Exports as banks make them: no ids (derived ids, overlapping downloads deduplicated across
files), the formats banks export (OFX/QFX, CAMT.053, MT940, issuer CSV layouts), and errors
that name the file, the line or the field and what to do. Every test reads real files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ml_assets.core.ingest import scan_transactions
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.partitions import days_between
from ml_assets.core.raw_days import files_split

CARD_HEADER = "Transaction Date,Post Date,Description,Category,Type,Amount,Memo"
CARD_COLUMNS = {
    "Post Date": "posted_date",
    "Description": "description",
    "Category": "category",
    "Type": "transaction_type",
    "Amount": "amount",
}
FIRST = dt.date(2026, 3, 1)


def card_rows(first_day: int, last_day: int) -> list[str]:
    """Card activity, three purchases a day; day 0 has two identical coffees (genuine)."""
    rows = []
    for n in range(first_day, last_day + 1):
        day = (FIRST + dt.timedelta(days=n)).strftime("%m/%d/%Y")
        rows += [
            f"{day},{day},STARBUCKS STORE 0{n % 7},Food & Drink,Sale,-4.85,",
            f"{day},{day},SHELL OIL 57444,Gas,Sale,-{30 + n}.10,",
            f'{day},{day},"AMAZON MKTPL*2K4, SEATTLE",Shopping,Sale,-{12 + n}.99,',
        ]
        if n == 0:
            rows.append(rows[-3])  # a second identical coffee the same day
    return rows


def write_card_csv(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join([CARD_HEADER, *rows]) + "\n")
    return path


def card_settings(path: Path, **extra) -> RawTransactionsParams:
    return RawTransactionsParams(
        source="files",
        path=str(path),
        column_map=CARD_COLUMNS,
        date_format="%m/%d/%Y",
        **extra,
    )


def test_identical_genuine_purchases_stay_two_and_a_redownload_adds_nothing(tmp_path):
    path = write_card_csv(tmp_path / "activity.csv", card_rows(0, 0))
    result = scan_transactions(path, column_map=CARD_COLUMNS, date_format="%m/%d/%Y")
    assert result.rows_in == 4 and result.kept.height == 4 and result.duplicates == 0
    coffees = result.kept.filter(result.kept["description"].str.starts_with("STARBUCKS"))
    assert coffees.height == 2 and coffees["transaction_id"].n_unique() == 2
    again = scan_transactions(path, column_map=CARD_COLUMNS, date_format="%m/%d/%Y")
    assert again.kept["transaction_id"].to_list() == result.kept["transaction_id"].to_list()
    assert all(i.startswith("d-") for i in result.kept["transaction_id"])


def test_overlapping_downloads_keep_each_transaction_once(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    write_card_csv(exports / "activity-a.csv", card_rows(0, 9))  # days 0-9
    write_card_csv(exports / "activity-b.csv", card_rows(5, 14))  # days 5-14 (overlap 5-9)
    files = {p.name: p for p in sorted(exports.iterdir())}
    days = days_between(FIRST.isoformat(), (FIRST + dt.timedelta(days=14)).isoformat())
    split = files_split(files, card_settings(exports), days)
    kept = sum(r.kept.height for r in split.days.values())
    quarantined = sum(r.quarantined.height for r in split.days.values())
    duplicates = sum(r.duplicates for r in split.days.values())
    across = sum(r.duplicates_across_files for r in split.days.values())
    assert split.rows_read == 31 + 30  # day 0 has four rows
    assert (kept, quarantined, duplicates, across) == (46, 0, 15, 15)
    assert split.rows_read == kept + quarantined + duplicates
    day0 = split.days[FIRST.isoformat()]
    assert day0.kept["description"].to_list().count("STARBUCKS STORE 00") == 2


def test_a_bank_id_reused_with_other_content_is_still_a_conflict(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("id,date,amount,memo\nx1,2026-03-01,-4.85,COFFEE\n")
    b.write_text("id,date,amount,memo\nx1,2026-03-01,-9.99,COFFEE\n")
    settings = RawTransactionsParams(
        source="files",
        path=str(tmp_path),
        column_map={"id": "transaction_id", "date": "posted_date", "memo": "description"},
    )
    split = files_split({"a.csv": a, "b.csv": b}, settings, ["2026-03-01"])
    day = split.days["2026-03-01"]
    assert day.kept.height == 1 and dict(day.reasons) == {"conflicting_duplicate_id": 1}
