"""Apps whose API writes amounts in a convention of its own: YNAB's milliunits (and its deleted
transactions), Lunch Money's positive amounts for money out, monobank's kopiykas, Unix times
and holds. Each file is written here in the layout the app's API documents (invented payees
and amounts); ``inspect`` writes the settings, the load reads the file with them, and every
record is a row or counted. monobank's layout rests on its API documentation (no saved
statement was at hand)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_issuer_csv_layouts import loaded


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False))
    return path


def _rows(result) -> list[tuple]:
    return result.kept.select("posted_date", "amount", "currency", "description").rows()


def _ynab(ref: str, day: str, milliunits: int, payee: str, memo: str | None, deleted: bool):
    return {
        "id": ref, "date": day, "amount": milliunits, "memo": memo, "cleared": "cleared",
        "approved": True, "flag_color": None, "account_id": "acc-1",
        "account_name": "Everyday Checking", "payee_id": f"p-{ref}", "payee_name": payee,
        "category_id": None, "category_name": None, "transfer_account_id": None,
        "import_id": None, "deleted": deleted, "subtransactions": [],
    }  # fmt: skip


def test_ynab_milliunits_are_read_as_amounts_and_deleted_transactions_counted(tmp_path, capsys):
    document = {
        "data": {
            "transactions": [
                _ynab("y-1", "2024-06-03", -42750, "Leafy Grocer", "weekly shop", False),
                _ynab("y-2", "2024-06-05", 2150000, "Northwind Studio Payroll", None, False),
                _ynab("y-3", "2024-06-06", -8990, "Aurora Cinema", None, True),
            ],
            "server_knowledge": 1287,
        }
    }
    out, section, result, _ = loaded(_write(tmp_path / "ynab.json", document), capsys)
    assert _rows(result) == [
        ("2024-06-03", -42.75, "USD", "Leafy Grocer weekly shop"),
        ("2024-06-05", 2150.0, "USD", "Northwind Studio Payroll"),
    ]
    assert "1: deleted transaction" in out
    assert "amount_unit" not in section  # (already read: milliunits are no minor unit)
    assert "currency:" in out and "every row is read as USD" in out


def test_a_ynab_array_of_transactions_is_read_in_milliunits_too(tmp_path, capsys):
    records = [
        _ynab("y-1", "2026-07-01", 50000, "Employer", "Paycheck", False),
        _ynab("y-2", "2026-07-02", -20000, "Grocery Store", None, False),
    ]
    _, _, result, _ = loaded(_write(tmp_path / "ynab-array.json", records), capsys)
    assert result.kept["amount"].to_list() == [50.0, -20.0]


def _lunch_money(ref: int, day: str, payee: str, amount: str, income: bool, notes=None):
    return {
        "id": ref, "date": day, "payee": payee, "amount": amount, "currency": "cad",
        "to_base": float(amount), "notes": notes, "category_id": 11,
        "category_name": "Salary" if income else "Groceries", "is_income": income,
        "exclude_from_budget": False, "exclude_from_totals": False, "status": "cleared",
        "is_pending": False, "original_name": payee.upper(), "is_group": False,
        "group_id": None, "parent_id": None, "asset_id": 501, "plaid_account_id": None,
    }  # fmt: skip


def test_lunch_money_expenses_listed_positive_are_money_out(tmp_path, capsys):
    """Lunch Money's /v1/transactions lists an expense positive and income negative (unless
    asked for debit_as_negative): its income rows show which, and the file is flipped."""
    document = {
        "transactions": [
            _lunch_money(1, "2024-03-02", "Corner Market", "23.4000", False),
            _lunch_money(2, "2024-03-04", "Maple Works Payroll", "-2500.0000", True, "March"),
            _lunch_money(3, "2024-03-05", "Refund Corner Market", "-5.0000", False),
        ],
        "has_more": False,
    }
    out, section, result, _ = loaded(_write(tmp_path / "lunchmoney.json", document), capsys)
    assert section["spending"] == "positive"
    assert _rows(result) == [
        ("2024-03-02", -23.4, "CAD", "Corner Market"),
        ("2024-03-04", 2500.0, "CAD", "Maple Works Payroll March"),
        ("2024-03-05", 5.0, "CAD", "Refund Corner Market"),  # a refund: money in
    ]


def test_lunch_money_asked_for_debits_as_negative_is_read_as_it_is(tmp_path, capsys):
    document = {
        "transactions": [
            _lunch_money(1, "2024-03-02", "Corner Market", "-23.4000", False),
            _lunch_money(2, "2024-03-04", "Maple Works Payroll", "2500.0000", True),
        ]
    }
    _, section, result, _ = loaded(_write(tmp_path / "lunchmoney.json", document), capsys)
    assert "spending" not in section
    assert result.kept["amount"].to_list() == [-23.4, 2500.0]


def _monobank(ref: str, time: int, text: str, kopiykas: int, hold: bool, code=980, **more):
    return {
        "id": ref, "time": time, "description": text, "mcc": 5814, "originalMcc": 5814,
        "hold": hold, "amount": kopiykas, "operationAmount": kopiykas, "currencyCode": code,
        "commissionRate": 0, "cashbackAmount": 0, "balance": 1241500, **more,
    }  # fmt: skip


def test_monobank_statement_is_dated_by_its_time_in_hryvnias_not_kopiykas(tmp_path, capsys):
    """``time`` is Unix seconds (UTC), amounts are kopiykas of the account's currency, a hold
    is pending; ``currencyCode`` is each operation's (a purchase abroad in dollars is booked
    in hryvnias), so the account's currency is set from most rows, to be confirmed."""
    records = [
        _monobank("m-1", 1709640000, "Кав'ярня Світанок", -8500, True),
        _monobank("m-2", 1709726400, "Від: Олена К.", 150000, False, comment="за квитки"),
        _monobank("m-3", 1709812800, "Сільпо", -41250, False),
        _monobank("m-4", 1709899200, "STEAM", -44830, False, code=840,
                  operationAmount=-1000),
    ]  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "monobank.json", records), capsys)
    assert section["column_map"]["time"] == "posted_date"
    assert section["amount_unit"] == "minor" and section["currency"] == "UAH"
    assert "confirm it" in out and "1: pending transaction" in out
    assert _rows(result) == [
        ("2024-03-06", 1500.0, "UAH", "Від: Олена К. за квитки"),
        ("2024-03-07", -412.5, "UAH", "Сільпо"),
        ("2024-03-08", -448.3, "UAH", "STEAM"),
    ]


def test_a_ynab_file_a_tool_already_converted_keeps_one_scale(tmp_path, capsys):
    """A tool that converted YNAB's milliunits writes whole amounts as whole numbers (-42,
    2500) beside decimals (-42.75): the decimals show the file is converted, and no amount of
    it is divided (a salary of 2500 is not 2.5)."""
    records = [
        {**_ynab("c-1", "2024-01-05", 0, "Corner Bakery", None, False), "amount": -42.75},
        _ynab("c-2", "2024-01-06", -42, "City Parking", None, False),
        _ynab("c-3", "2024-01-07", 2500, "Acme Payroll", None, False),
    ]
    _, _, result, _ = loaded(_write(tmp_path / "converted.json", records), capsys)
    assert result.kept["amount"].to_list() == [-42.75, -42.0, 2500.0]


def test_ynab_records_as_json_lines_are_read_in_milliunits(tmp_path, capsys):
    lines = [
        _ynab("l-1", "2024-02-01", -12500, "Harbor Books", None, False),
        _ynab("l-2", "2024-02-03", 300000, "Acme Payroll", None, False),
    ]
    path = tmp_path / "ynab.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _, _, result, _ = loaded(path, capsys)
    assert result.kept["amount"].to_list() == [-12.5, 300.0]
