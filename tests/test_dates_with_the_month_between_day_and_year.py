"""Dates written day, month's name and year with nothing between them (HSBC India's
"24Jan2025", also "24Jan25") read; a four-digit year is never read as two, nor two as four.
The workbook is written here in the bank's layout, with invented rows."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.records import parse_date_text
from ml_assets.core.intake.sniffing import sniff_date_format
from tests.test_issuer_csv_layouts import loaded


def test_an_hsbc_india_workbook_with_run_together_dates_reads(tmp_path, capsys):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["ACCOUNT- SAVINGS ACCOUNT - RES ACCOUNT- 000999888777"])
    sheet.append(["", "Date", "Transaction Details", "Deposits", "Withdrawals", "\n\nBalance"])
    sheet.append(
        ["", "27Feb2025", "SALARY\nTRANSFER FROM\nINVENTED WORKS LTD", 52000.0, None, 61000.0]
    )
    sheet.append(["", "14Feb2025", "TRANSFER\nINVENTED LANDLORD\nRENT FEB", None, 25000.0, 9000.0])
    sheet.append(["", "03Feb2025", "INTEREST\nCREDIT", 300.5, None, 34000.0])
    export = tmp_path / "hsbc.xlsx"
    book.save(export)
    _, section, result, _ = loaded(export, capsys)
    assert section["date_format"] == "%d%b%Y"
    assert result.quarantined.height == 0
    assert result.kept["posted_date"].to_list() == ["2025-02-27", "2025-02-14", "2025-02-03"]
    assert result.kept["amount"].to_list() == [52000.0, -25000.0, 300.5]


@pytest.mark.parametrize(
    ("dates", "expected", "first"),
    [
        (["24Jan2025", "13Jan2025", "1Jan2025"], "%d%b%Y", "2025-01-24"),
        (["24Jan25", "13Jan25"], "%d%b%y", "2025-01-24"),
        (["24JAN2025", "03FEB2025"], "%d%b%Y", "2025-01-24"),
    ],
)
def test_run_together_dates_have_one_format(dates, expected, first):
    fmt, ties, _ = sniff_date_format(dates)
    assert (fmt, ties) == (expected, [])
    assert parse_date_text(dates[0], fmt).date().isoformat() == first
