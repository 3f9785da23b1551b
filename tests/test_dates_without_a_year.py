"""Dates that write no year ("03/02"): read with the year of the statement's month where a
title above the table names it as "YYYY年MM月" (China Merchants Bank's card statement), a
month after the statement's being of the year before; refused where nothing in the file
gives a year (Mobile Suica's history), saying so and not sending the user to a date_format,
which cannot hold a year. The files are written here in the banks' layouts, with invented
rows."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.yearless_dates import month_day
from tests.test_issuer_csv_layouts import loaded

CMB_CARD = (
    "招商银行信用卡对账单（个人消费卡账户 2026年01月）\n"
    "交易日,记账日,交易摘要,人民币金额,卡号末四位,交易地金额\n"
    ",12/30,掌上生活还款,-800.00,4321,-800.00\n"
    "12/29,12/31,示例书店,58.00,4321,58.00\n"
    '01/03,01/04,测试超市,"1,208.50",4321,"1,208.50(CN)"\n'
    "01/06,01/07,示例咖啡店,36.00,4321,36.00\n"
    "01/08,01/09,示例影院,120.00,4321,120.00\n"
)


def test_a_card_statement_dates_its_rows_by_the_month_its_title_names(tmp_path, capsys):
    """January's statement holds December's rows of the year before; the posting day, filled
    on every row (the repayment has no transaction day), is the row's date."""
    export = tmp_path / "cmb_credit.csv"
    export.write_text(CMB_CARD, encoding="utf-8")
    out, section, result, _ = loaded(export, capsys)
    assert (
        "2026, from the title '招商银行信用卡对账单（个人消费卡账户 2026年01月）' (line 1)" in out
    )
    assert "a date of a month after January is of 2025" in out
    assert section["column_map"]["记账日"] == "posted_date"
    assert "date_format" not in section and result.quarantined.height == 0
    kept = result.kept
    assert kept["posted_date"].to_list() == [
        "2025-12-30",
        "2025-12-31",
        "2026-01-04",
        "2026-01-07",
        "2026-01-09",
    ]
    assert kept["amount"].to_list() == [800.0, -58.0, -1208.5, -36.0, -120.0]
    assert kept["description"].to_list()[0] == "掌上生活还款"


def test_a_history_that_writes_no_year_anywhere_is_refused_saying_so(tmp_path):
    """Mobile Suica's history: month and day alone, no title. No date_format can hold a year,
    so none is advised."""
    export = tmp_path / "mobile_suica.csv"
    export.write_text(
        "月日,種別,利用場所,種別,利用場所,残高,入金・利用額\n"
        '03/09,物販,,,,"\\1,350",-150\n'
        '03/08,入,中野,出,新宿,"\\1,500",-178\n'
        '03/08,ｵｰﾄ,中野,,,"\\1,678","+1,000"\n',
        encoding="utf-8",
    )
    found = inspect_file(export)
    assert found.result is None
    assert "column '月日' holds dates without a year (line 2: '03/09')" in found.error
    assert "no date_format can give a year" in found.error
    assert "YYYY年MM月" in found.error and "write the year into each date" in found.error
    assert "set raw_transactions.date_format" not in found.error


def test_without_its_title_a_card_statement_is_refused_saying_its_dates_write_no_year(
    tmp_path,
):
    export = tmp_path / "cmb_credit.csv"
    export.write_text(CMB_CARD.split("\n", 1)[1], encoding="utf-8")
    found = inspect_file(export)
    assert "holds dates without a year" in found.error
    assert "set raw_transactions.date_format" not in found.error


def test_a_date_format_without_a_year_quarantines_each_row_saying_why(tmp_path):
    """Set by hand, '%m/%d' would date every row in 1900: each row is quarantined instead,
    with the reason."""
    export = tmp_path / "history.csv"
    export.write_text("Date,Text,Amount\n03/09,Kiosk,-150\n03/08,Fare,-178\n")
    result = scan_transactions(
        export,
        column_map={"Date": "posted_date", "Text": "description", "Amount": "amount"},
        date_format="%m/%d",
    )
    assert result.kept.height == 0 and result.quarantined.height == 2
    assert "date_format '%m/%d' reads no year" in result.quarantined["detail"][0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("03/02", (3, 2)), ("3月2日", (3, 2)), ("12-31", (12, 31)), ("3.20", None),
     ("13/02", None), ("2026/03/02", None), ("1234", None)],
)  # fmt: skip
def test_a_month_and_day_alone(text, expected):
    """Month first, as the statements that name their month "YYYY年MM月" write it; never a
    decimal amount ("3.20")."""
    assert month_day(text) == expected
