"""Record exports and QIF as apps and banks really write them: amounts as text with a decimal
comma, pending flags written as strings, a currency ISO 4217 lacks, one API's two forms of a
remittance text in one file, UK balance lines brought and carried forward, and QIF downloads
whose every date reads both ways. Rows in = kept + quarantined, and every value is checked."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_path, report


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False))
    return path


def test_text_amounts_with_a_decimal_comma_are_read_as_written(tmp_path):
    records = [
        {"id": "a", "date": "2026-01-03", "amount": "-12,50", "text": "Bäckerei"},
        {"id": "b", "date": "2026-01-04", "amount": "-1.234,56", "text": "IKEA"},
        {"id": "c", "date": "2026-01-05", "amount": "2.500,00", "text": "Gehalt"},
    ]
    path = write_json(tmp_path / "finanzapp.json", records)
    columns = {"id": "transaction_id", "date": "posted_date", "text": "description"}
    result = scan_transactions(path, column_map=columns)
    assert result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [-12.5, -1234.56, 2500.0]
    pointed = scan_transactions(path, column_map=columns, decimal=".")  # told otherwise
    assert pointed.kept.height == 0 and set(pointed.quarantined["reason"]) == {"bad_amount"}


def test_pending_flags_written_as_strings_are_not_rows(tmp_path):
    lines = [
        {"txn_id": "1", "booked_at": "2026-01-05", "amount": -12.5, "memo": "UBER EATS"},
        {"txn_id": "2", "booked_at": "2026-01-06", "amount": -8.4, "memo": "BVG", "pending": "true"},
        {"txn_id": "3", "booked_at": "2026-01-06", "amount": -5.0, "memo": "KIOSK", "is_pending": True},
    ]  # fmt: skip
    path = tmp_path / "feed.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    columns = {"txn_id": "transaction_id", "booked_at": "posted_date", "memo": "description"}
    result = scan_transactions(path, column_map=columns)
    assert result.kept["description"].to_list() == ["UBER EATS"]
    assert result.notes[0].metadata()["not_transactions"] == {"pending transaction": 2}


def test_a_plaid_currency_without_an_iso_code_is_its_own(tmp_path):
    record = {
        "transaction_id": "c1", "account_id": "acc", "date": "2026-01-05", "amount": 0.0125,
        "name": "BTC purchase", "iso_currency_code": None, "unofficial_currency_code": "BTC",
        "payment_channel": "online",
    }  # fmt: skip
    path = write_json(tmp_path / "plaid.json", {"accounts": [], "transactions": [record]})
    inspections = inspect_path(path)
    settings = inspections[0].settings
    keys = {k: settings[k] for k in ("column_map", "spending") if k in settings}
    result = scan_transactions(path, **keys)
    assert result.kept["currency"].to_list() == ["BTC"]
    assert result.kept["amount"].to_list() == [-0.0125]


def test_both_forms_of_a_gocardless_remittance_text_are_read(tmp_path):
    booked = [
        {"transactionId": "1", "bookingDate": "2026-01-02",
         "transactionAmount": {"amount": "-54.23", "currency": "EUR"},
         "creditorName": "REWE Markt GmbH", "remittanceInformationUnstructured": "REWE SAGT DANKE"},
        {"transactionId": "2", "bookingDate": "2026-01-06",
         "transactionAmount": {"amount": "-19.99", "currency": "EUR"}, "creditorName": "Spotify AB",
         "remittanceInformationUnstructuredArray": ["Spotify P2C4D5E6", "Premium Family"]},
    ]  # fmt: skip
    path = write_json(tmp_path / "gc.json", {"transactions": {"booked": booked, "pending": []}})
    (found,) = inspect_path(path)
    result = scan_transactions(path, column_map=found.settings["column_map"])
    assert result.kept["description"].to_list() == [
        "REWE Markt GmbH REWE SAGT DANKE",
        "Spotify AB Spotify P2C4D5E6 Premium Family",
    ]


def test_uk_balance_lines_brought_and_carried_forward_are_balances_not_rows(tmp_path):
    path = tmp_path / "statement.csv"
    path.write_text(
        "Date,Description,Paid out,Paid in,Balance\n"
        ",BALANCE BROUGHT FORWARD,,,1000.00\n"
        "05/01/2026,TESCO STORES,25.10,,974.90\n"
        "06/01/2026,SALARY,,500.00,1474.90\n"
        ",BALANCE CARRIED FORWARD,,,1474.90\n"
    )
    columns = {"Date": "posted_date", "Description": "description", "Paid out": "debit",
               "Paid in": "credit", "Balance": "balance"}  # fmt: skip
    result = scan_transactions(path, column_map=columns, date_format="%d/%m/%Y")
    assert result.rows_in == 2 and result.quarantined.height == 0
    notes = result.notes[0].metadata()
    assert (notes["opening_balance"], notes["closing_balance"]) == (1000.0, 1474.9)
    assert notes["not_transactions"] == {"balance": 2} and result.notes[0].warnings == []


def qif(dates: list[str]) -> str:
    records = [f"D{d}\nT-{n + 1}.00\nPSHOP {n}\n^" for n, d in enumerate(dates)]
    return "!Type:Bank\n" + "\n".join(records) + "\n"


def test_a_qif_whose_dates_read_both_ways_follows_its_folder_or_is_warned(tmp_path):
    """February's days 1-10 read both ways; January's 13th shows the bank writes the day first.
    Alone, February is read month-first, as Quicken (US) writes, with a warning."""
    folder = tmp_path / "qif"
    folder.mkdir()
    (folder / "Statement_Jan.qif").write_text(qif(["05/01/2026", "13/01/2026"]))
    (folder / "Statement_Feb.qif").write_text(qif(["03/02/2026", "10/02/2026"]))
    alone = scan_transactions(folder / "Statement_Feb.qif")
    assert alone.kept["posted_date"].to_list() == ["2026-03-02", "2026-10-02"]
    (warning,) = alone.notes[0].warnings
    assert "reads both day-first and month-first" in warning and "date_format" in warning
    inspections = {found.file.name: found for found in inspect_path(folder)}
    february = inspections["Statement_Feb.qif"]
    assert february.settings["date_format"] == "%d/%m/%Y"
    assert "day first, as Statement_Jan.qif shows" in report(folder, list(inspections.values()))
    read = scan_transactions(folder / "Statement_Feb.qif", date_format="%d/%m/%Y")
    assert read.kept["posted_date"].to_list() == ["2026-02-03", "2026-02-10"]
    assert read.notes[0].warnings == []


def test_a_qif_record_without_an_amount_says_to_fix_the_file_not_the_settings(tmp_path):
    path = tmp_path / "bad.qif"
    path.write_text("!Type:Bank\nD01/05/2026\nPSHOP\n^\n")
    result = scan_transactions(path)
    (detail,) = result.quarantined["detail"].to_list()
    assert "'amount'" in detail and "fix or remove the record in the file" in detail
    assert "column_map" not in detail


def test_a_plaid_sync_page_that_modifies_a_transaction_replaces_its_earlier_version(tmp_path):
    def record(transaction_id: str, amount: float, name: str) -> dict:
        return {"transaction_id": transaction_id, "account_id": "acc", "date": "2026-01-03",
                "amount": amount, "name": name, "iso_currency_code": "USD",
                "payment_channel": "in store"}  # fmt: skip

    folder = tmp_path / "sync"
    folder.mkdir()
    first = {"added": [record("s01", 4.5, "BLUE BOTTLE"), record("s02", 45.0, "CHEZ PANISSE")]}
    write_json(folder / "sync_page1.json", {**first, "modified": [], "removed": []})
    second = {"added": [], "modified": [record("s02", 54.0, "CHEZ PANISSE")], "removed": []}
    write_json(folder / "sync_page2.json", second)
    (found, _) = inspect_path(folder)
    keys = {k: found.settings[k] for k in ("column_map", "spending") if k in found.settings}
    result = scan_transactions(folder, **keys)
    assert result.rows_in == 3 and result.duplicates == 1 and result.quarantined.height == 0
    assert dict(zip(result.kept["transaction_id"], result.kept["amount"], strict=True)) == {
        "s01": -4.5,
        "s02": -54.0,
    }


def test_a_spreadsheet_currency_in_its_number_format_and_a_date_typed_as_a_number(tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Transactions"
    sheet.append(["Date", "Description", "Amount"])
    sheet.append([dt.date(2026, 1, 5), "TESCO STORES", -25.10])
    sheet.append([46028, "SALARY", 500.00])  # a date typed into a General cell: 2026-01-06
    for row in sheet.iter_rows(min_row=2, min_col=3, max_col=3):
        row[0].number_format = "£#,##0.00"
    path = tmp_path / "statement.xlsx"
    book.save(path)
    (found,) = inspect_path(path)
    assert found.settings["currency"] == "GBP"
    assert "the amount cells' number format, e.g. '£#,##0.00'" in report(path, [found])
    result = found.result
    assert result.quarantined.height == 0
    assert result.kept["posted_date"].to_list() == ["2026-01-05", "2026-01-06"]
    assert set(result.kept["currency"]) == {"GBP"}


def test_amounts_in_minor_units_are_read_in_the_currency_s_major_unit(tmp_path):
    records = [
        {"id": "1", "created": "2026-01-05T23:45:12Z", "amount": -1250, "currency": "GBP",
         "description": "TESCO STORES"},
        {"id": "2", "created": "2026-01-06T10:00:00Z", "amount": -1200, "currency": "JPY",
         "description": "FAMILYMART"},
        {"id": "3", "created": "2026-01-07T10:00:00Z", "amount": "-2500", "currency": "KWD",
         "description": "ALSHAYA"},
        {"id": "4", "created": "2026-01-08T10:00:00Z", "amount": -3.99, "currency": "GBP",
         "description": "PRET"},
    ]  # fmt: skip
    path = write_json(tmp_path / "monzo.json", {"transactions": records})
    columns = {"id": "transaction_id", "created": "posted_date"}
    result = scan_transactions(path, column_map=columns, amount_unit="minor")
    assert result.kept["amount"].to_list() == [-12.5, -1200.0, -2.5]
    (detail,) = result.quarantined["detail"].to_list()
    assert "'amount' -3.99 is not a whole number of minor units" in detail
    assert scan_transactions(path, column_map=columns).kept["amount"][0] == -1250.0


def test_a_row_whose_text_columns_are_blank_is_quarantined_naming_them(tmp_path):
    """A budget app's row without a note (Monefy writes the category and the amount only) has no
    text to categorize: it is quarantined, naming the blank column. Its category is a label, so
    it never stands in for the text the model reads."""
    path = tmp_path / "monefy.csv"
    path.write_text(
        "date,account,category,amount,currency,description\n"
        "06/12/2021,Cash,Clothes,-25,USD,\n"
        "06/12/2021,Cash,Food,-12,USD,Lunch at Joe's\n"
    )
    columns = {"date": "posted_date", "account": "account_id", "description": "description"}
    result = scan_transactions(path, column_map=columns, date_format="%d/%m/%Y")
    assert result.kept["description"].to_list() == ["Lunch at Joe's"]
    (detail,) = result.quarantined["detail"]
    assert detail == (
        f"{path}:2: required field 'description' is empty ('description' blank on this line): "
        "a row without text has nothing to categorize"
    )
