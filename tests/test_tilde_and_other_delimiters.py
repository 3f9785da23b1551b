"""A CSV file split by "~" (HDFC's credit-card statement) is read with that separator, sniffed
or set; a "~" inside the texts of a comma-split file never takes its place; and a file no
layout fits under the sniffed separator, but one would under another, is refused with the
advice to set that one. The files are written here in each layout, with invented rows."""

from __future__ import annotations

from ml_assets.core.intake.raw_days import scan_exports
from ml_assets.core.intake.sniffing import sniff_delimiter
from ml_assets.core.params import RawTransactionsParams
from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded

HDFC_CARD = (
    "Name~A N OTHER               \n"
    "Statement Date~13/03/2025 \n"
    "Total Amount Due~1,013.40 \n"
    "\n"
    "Transaction type~Primary / Addon Customer Name~DATE~Description~Base NeuCoins~AMT"
    "~Debit / Credit \n"
    "Domestic~A N OTHER~04/03/2025 19:09:21~INVENTED RETAIL PUNE~~413.40~ \n"
    "Domestic~A N OTHER~06/03/2025 20:12:55~UPI-Invented Foods~~600.00~ \n"
    "Domestic~A N OTHER~21/03/2025 10:58:50~UPI-Invented Stationers~~75.00~ \n"
    "\n"
)


def test_an_hdfc_card_statement_split_by_tildes_reads(tmp_path, capsys):
    export = tmp_path / "hdfc-card.csv"
    export.write_text(HDFC_CARD)
    out, section, result, _ = loaded(export, capsys)
    assert section["delimiter"] == "~"
    assert section["date_format"] == "%d/%m/%Y %H:%M:%S"
    assert result.quarantined.height == 0
    assert result.kept["posted_date"].to_list() == ["2025-03-04", "2025-03-06", "2025-03-21"]
    assert result.kept["description"].to_list() == [
        "INVENTED RETAIL PUNE",
        "UPI-Invented Foods",
        "UPI-Invented Stationers",
    ]


def test_the_tilde_set_as_the_delimiter_reads(tmp_path):
    export = tmp_path / "hdfc-card.txt"
    export.write_text(HDFC_CARD)
    settings = RawTransactionsParams(
        format="csv",
        delimiter="~",
        date_format="%d/%m/%Y %H:%M:%S",
        column_map={"DATE": "posted_date", "Description": "description", "AMT": "amount"},
        spending="positive",
    )
    result = scan_exports(export, settings)
    assert result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [-413.4, -600.0, -75.0]


def test_tildes_in_a_comma_files_texts_leave_it_comma_split():
    lines = ["Date,Description,Amount\n"] + [
        f"2026-03-0{day},PAYPAL ~ SHOP {day} ~ REF {day},-{day}.50\n" for day in range(1, 8)
    ]
    assert sniff_delimiter(lines) == ","
    semicolons = [line.replace(",", ";") for line in lines]
    assert sniff_delimiter(semicolons) == ";"


def test_a_file_refused_under_the_sniffed_separator_names_the_one_that_fits(tmp_path, capsys):
    """A table split by "|" below a preamble of comma-split lines, which outvote it."""
    preamble = [f"Field {i},Invented value {i},More {i}" for i in range(8)]
    table = [
        "Date|Description|Amount|Balance",
        "03/02/2026|Corner Bakery|-4.50|95.50",
        "03/04/2026|Fuel Stop 12|-40.00|55.50",
        "03/09/2026|Payroll Invented Co|1200.00|1255.50",
    ]
    export = tmp_path / "card.csv"
    export.write_text("\n".join(preamble + table) + "\n")
    code, out, _ = inspect(export, capsys)
    assert code != 0
    assert "split by '|' instead, line 9 names Date -> posted_date" in out
    assert "set raw_transactions.delimiter: '|'" in out
