"""Dates with dashes and a two-digit year, as HomeBank's CSV export writes them in its user's
order ("04-03-25"): read, with the day-or-month doubt said and left to confirm as for slashed
dates, and a year-first file told from a day-first one by its span of days."""

from __future__ import annotations

from ml_assets.core.intake.sniffing import sniff_date_format
from tests.test_issuer_csv_layouts import loaded


def test_homebanks_day_first_dates_are_read_and_the_order_left_to_confirm(tmp_path, capsys):
    export = tmp_path / "homebank.csv"
    export.write_text(
        "date;payment;info;payee;memo;amount;category;tags\n"
        "07-04-25;6;;Fennel Grocers;weekly shop;-31,80;Food:Groceries;\n"
        "08-04-25;5;;;to savings;-150,00;;\n"
        "10-04-25;4;;Orbit Works;salary;1900,00;Income:Salary;work\n",
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["date_format"] == "%d-%m-%y"
    assert "AMBIGUOUS" in out and "set it to '%m-%d-%y'" in out
    assert result.kept["posted_date"].cast(str).to_list() == [
        "2025-04-07",
        "2025-04-08",
        "2025-04-10",
    ]
    assert result.kept["amount"].to_list() == [-31.8, -150.0, 1900.0]


def test_year_first_two_digit_dates_are_told_by_their_span():
    fmt, _, _ = sniff_date_format(["25-04-07", "25-04-08", "25-04-21"])
    assert fmt == "%y-%m-%d"
    fmt, _, _ = sniff_date_format(["07-04-25", "08-04-25", "21-04-25"])
    assert fmt == "%d-%m-%y"
    fmt, _, _ = sniff_date_format(["04-07-25", "04-08-25", "04-21-25"])
    assert fmt == "%m-%d-%y"
