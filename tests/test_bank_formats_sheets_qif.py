"""Spreadsheet (XLSX) and Quicken (QIF) exports as banks and Quicken write them: a title in
merged cells above the header, a header cell merged over two columns, real date cells, a
totals row; QIF with an account list, M/D'YY dates, splits and transfers. Planted: a date that
does not exist in each, an unreadable spreadsheet; errors name the file, the row or line and
what to set."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ml_assets.core.intake.ingest import SchemaError, scan_transactions

BANKS = Path(__file__).parent / "fixtures" / "banks"
QIF = BANKS / "quicken_checking.qif"
SHEET_ROWS = [  # (date cell, description, amount); the balance runs from 1,000.00
    (dt.datetime(2026, 1, 2), "ACME CORP PAYROLL", 2474.74),
    (dt.datetime(2026, 1, 3), "STARBUCKS STORE 00412", -4.85),
    ("31/02/2026", "SHELL OIL 57444", -42.10),  # typed by hand into a date column
    (dt.datetime(2026, 1, 9), "TRADER JOE'S #552", -67.32),
    (dt.datetime(2026, 1, 12), "NETFLIX.COM", -15.49),
]


def write_activity_xlsx(path: Path) -> Path:
    """An XLSX as a bank's "download to Excel" writes it: a summary sheet first, then the
    transactions under a merged title, a header with "Description" merged over two columns,
    date cells, numbers, a running balance and a totals row (the total of every row)."""
    from openpyxl import Workbook

    book = Workbook()
    summary = book.active
    summary.title = "Summary"
    summary.append(["Everyday Checking ****1234"])
    summary.append(["Period", "01/01/2026 - 01/31/2026"])
    sheet = book.create_sheet("Transactions")
    sheet["A1"] = "Account activity: Everyday Checking ****1234"
    sheet.merge_cells("A1:E1")
    sheet["A2"] = "Statement period 01/01/2026 to 01/31/2026"
    sheet.merge_cells("A2:E2")
    for column, name in zip("ABDE", ("Date", "Description", "Amount", "Balance"), strict=True):
        sheet[f"{column}4"] = name
    sheet.merge_cells("B4:C4")
    balance = 1000.0
    for row, (date, text, amount) in enumerate(SHEET_ROWS, start=5):
        balance = round(balance + amount, 2)
        sheet[f"A{row}"], sheet[f"B{row}"], sheet[f"D{row}"], sheet[f"E{row}"] = (
            date, text, amount, balance
        )  # fmt: skip
        if isinstance(date, dt.datetime):
            sheet[f"A{row}"].number_format = "mm/dd/yyyy"
    total = len(SHEET_ROWS) + 5
    sheet[f"A{total}"] = "Total"
    sheet[f"D{total}"] = round(sum(a for *_, a in SHEET_ROWS), 2)
    book.save(path)
    return path


@pytest.fixture(scope="module")
def activity_xlsx(tmp_path_factory) -> Path:
    return write_activity_xlsx(tmp_path_factory.mktemp("xlsx") / "Activity_Checking.xlsx")


def test_a_spreadsheet_is_read_below_its_merged_title_with_its_rows_named(activity_xlsx):
    mapping = {"Date": "posted_date", "Description": "description", "Amount": "amount"}
    result = scan_transactions(activity_xlsx, column_map=mapping)
    (notes,) = result.notes
    assert notes.settings["sheet"] == "Transactions"  # the first sheet whose header fits
    assert (notes.header_line, notes.preamble_lines, notes.balance_column) == (4, 3, "Balance")
    assert result.rows_in == 5 and result.kept["amount"].to_list() == [
        2474.74,
        -4.85,
        -67.32,
        -15.49,
    ]
    assert result.kept["posted_date"].to_list() == [
        "2026-01-02",
        "2026-01-03",
        "2026-01-09",
        "2026-01-12",
    ]
    (detail,) = result.quarantined["detail"].to_list()
    assert detail.startswith(f"{activity_xlsx} sheet 'Transactions' row 7: field 'posted_date'")
    assert result.quarantined["line"].to_list() == [7]
    assert notes.statement_lines == [(10, "total")]  # the totals row is not a transaction
    assert notes.breaks == []  # the quarantined row still moved the balance
    (warning,) = notes.warnings
    assert "sheet 'Transactions' row 10: the totals row says 2,344.98" in warning
    assert "rows add up to 2,387.08" in warning and "among the 1 quarantined rows" in warning


def test_sheet_setting_and_an_unreadable_spreadsheet(activity_xlsx, tmp_path):
    mapping = {"Date": "posted_date", "Description": "description", "Amount": "amount"}
    with pytest.raises(SchemaError, match=r"no sheet 'Umsätze'; the sheets are \['Summary'"):
        scan_transactions(activity_xlsx, column_map=mapping, sheet="Umsätze")
    with pytest.raises(SchemaError, match=r"sheet 'Summary' row 1: .*not in the header"):
        scan_transactions(activity_xlsx, column_map=mapping, sheet="Summary")
    broken = tmp_path / "download.xlsx"
    broken.write_bytes(b"<html><body>Session expired</body></html>")  # what some banks send
    result = scan_transactions(broken, column_map=mapping)
    assert dict(result.reasons) == {"unreadable_file": 1}
    assert f"{broken}:1: not a readable spreadsheet" in result.quarantined["detail"][0]


def test_a_quicken_qif_file():
    """Planted: a date that does not exist (D13/45'26, line 45). Two identical coffees stay
    two (no running balance in QIF); a transfer has no category; a split keeps its total."""
    result = scan_transactions(QIF, encoding="cp1252")
    assert result.rows_in == 8 == result.kept.height + result.quarantined.height
    assert dict(zip(result.quarantined["line"], result.quarantined["reason"], strict=True)) == {
        45: "bad_date"
    }
    assert 'quicken_checking.qif:45: QIF date D"13/45\'26"' in result.quarantined["detail"][0]
    assert "raw_transactions.date_format" in result.quarantined["detail"][0]
    kept = result.kept
    assert kept["posted_date"].to_list()[:3] == ["2026-01-02", "2026-01-03", "2026-01-03"]
    assert kept["amount"].to_list() == [2474.74, -4.85, -4.85, -1012.96, -250.0, -86.4, -18.4]
    assert kept["category"].to_list() == [
        "Salary", "Dining:Coffee", "Dining:Coffee", "Shopping", None, None, "Dining"
    ]  # fmt: skip
    assert set(kept["account_id"]) == {"Everyday Checking"}
    assert kept["description"][1] == "STARBUCKS STORE 00412 SEATTLE WA"  # payee + memo
    assert kept["description"][-1] == "CAFÉ DE FLORE" and kept["transaction_id"].n_unique() == 7


def test_qif_dates_day_first_and_a_date_format(tmp_path):
    european = tmp_path / "export.qif"
    european.write_text(
        "!Type:Bank\nD15.01.2026\nT-1.234,56\nPMIETE\n^\nD02.01.2026\nT-4,85\nPBAECKEREI\n^\n"
    )
    result = scan_transactions(european)
    assert result.kept["posted_date"].to_list() == ["2026-01-15", "2026-01-02"]
    assert result.kept["amount"].to_list() == [-1234.56, -4.85]
    forced = scan_transactions(european, date_format="%m.%d.%Y")
    assert dict(forced.reasons) == {"bad_date": 1}


def test_a_qif_account_block_without_its_caret_names_the_account_and_loses_no_record(
    tmp_path,
):
    """Some programs end an !Account block by the next header alone: its N and T lines are the
    account's, not the first transaction's (whose amount would be "Bank")."""
    export = tmp_path / "export.qif"
    export.write_text(
        "!Account\nNJoint Checking\nTBank\n!Type:Bank\nD01/05/2026\nT-4.85\nPSTARBUCKS\n^\n"
        "D01/06/2026\nT-12.00\nPCHIPOTLE\n!Type:CCard\nD01/07/2026\nT-9.99\nPNETFLIX\n^\n"
    )
    result = scan_transactions(export)
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["amount"].to_list() == [-4.85, -12.0, -9.99]
    assert result.kept["description"].to_list() == ["STARBUCKS", "CHIPOTLE", "NETFLIX"]
    assert set(result.kept["account_id"]) == {"Joint Checking"}


def test_qif_in_utf8_by_default_names_the_encoding_to_set():
    result = scan_transactions(QIF)  # Quicken for Windows writes cp1252
    assert dict(result.reasons) == {"bad_date": 1, "invalid_utf8": 1}
    (detail,) = result.quarantined.filter(result.quarantined["reason"] == "invalid_utf8")["detail"]
    assert "quicken_checking.qif:68: not valid UTF-8" in detail and "cp1252" in detail
