"""Spreadsheets as banks lay them out beyond one plain table: a date cell merged down over a
day's bookings (xlsx, XML Spreadsheet 2003), a header on two rows (a group name merged over
"Cargos | Abonos"), and a workbook whose other sheets hold transactions too (a sheet per
month or per card), named rather than dropped unseen."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file

D = dt.datetime


def _kept(result) -> list[tuple]:
    kept = result.kept.sort("amount")
    return list(zip(kept["posted_date"], kept["amount"], kept["description"], strict=True))


def test_a_date_merged_down_over_a_days_bookings_dates_each_of_them(tmp_path: Path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Date", "Description", "Debit", "Credit", "Balance"])
    sheet.append([D(2024, 4, 1), "BAKERY NORD", 3.2, None, 996.8])
    sheet.append([None, "KIOSK TEN", 1.5, None, 995.3])
    sheet.append([None, "REFUND HALL", None, 10.0, 1005.3])
    sheet.append([D(2024, 4, 2), "GYM WEST", 30.0, None, 975.3])
    sheet.merge_cells("A2:A4")
    book.save(tmp_path / "merged.xlsx")
    mapping = {"Date": "posted_date", "Description": "description", "Debit": "debit"}
    mapping |= {"Credit": "credit", "Balance": "balance"}
    result = scan_transactions(tmp_path / "merged.xlsx", column_map=mapping)
    assert result.quarantined.height == 0
    assert _kept(result) == [
        ("2024-04-02", -30.0, "GYM WEST"),
        ("2024-04-01", -3.2, "BAKERY NORD"),
        ("2024-04-01", -1.5, "KIOSK TEN"),
        ("2024-04-01", 10.0, "REFUND HALL"),
    ]


_XML = """<?xml version="1.0"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"
 xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
<Worksheet ss:Name="Vypis"><Table>
<Row><Cell><Data ss:Type="String">Datum</Data></Cell><Cell><Data ss:Type="String">Popis</Data>
</Cell><Cell><Data ss:Type="String">Castka</Data></Cell></Row>
<Row><Cell ss:MergeDown="1"><Data ss:Type="DateTime">2024-03-05T00:00:00.000</Data></Cell>
<Cell><Data ss:Type="String">LEKARNA SEVER</Data></Cell><Cell><Data ss:Type="Number">-120</Data>
</Cell></Row>
<Row><Cell ss:Index="2"><Data ss:Type="String">KNIHY JIH</Data></Cell>
<Cell><Data ss:Type="Number">-250</Data></Cell></Row>
</Table></Worksheet></Workbook>
"""


def test_an_xml_2003_cell_merged_down_is_read_in_the_row_below(tmp_path: Path):
    (tmp_path / "vypis.xls").write_text(_XML)
    mapping = {"Datum": "posted_date", "Popis": "description", "Castka": "amount"}
    result = scan_transactions(tmp_path / "vypis.xls", column_map=mapping)
    assert _kept(result) == [
        ("2024-03-05", -250.0, "KNIHY JIH"),
        ("2024-03-05", -120.0, "LEKARNA SEVER"),
    ]


def test_a_header_on_two_rows_reads_the_split_columns_names(tmp_path: Path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Fecha", "Descripción", "Monto", None, "Saldo"])
    sheet.append([None, None, "Cargos", "Abonos", None])
    for merged in ("C1:D1", "A1:A2", "B1:B2", "E1:E2"):
        sheet.merge_cells(merged)
    sheet.append([D(2024, 5, 2), "COMPRA ALMACEN SUR", 25990, None, 474010])
    sheet.append([D(2024, 5, 3), "TRASPASO DE: ANA ROJAS", None, 100000, 574010])
    book.save(tmp_path / "cartola.xlsx")
    found = inspect_file(tmp_path / "cartola.xlsx")
    assert found.settings["column_map"] == {
        "Fecha": "posted_date",
        "Descripción": "description",
        "Cargos": "debit",
        "Abonos": "credit",
        "Saldo": "balance",
    }
    assert found.result.quarantined.height == 0
    assert _kept(found.result) == [
        ("2024-05-02", -25990.0, "COMPRA ALMACEN SUR"),
        ("2024-05-03", 100000.0, "TRASPASO DE: ANA ROJAS"),
    ]


def _two_card_sheets(path: Path) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    first = book.active
    first.title = "Regular"
    for sheet, rows in (
        (first, [(D(2024, 3, 2), "GROCER A", -55.0), (D(2024, 3, 4), "FUEL B", -20.0)]),
        (book.create_sheet("Foreign"), [(D(2024, 3, 6), "HOTEL C", -310.0)]),
    ):
        sheet.append(["Card 9999"])
        sheet.append(["Date", "Merchant", "Amount"])
        for row in rows:
            sheet.append(list(row))
    book.save(path)
    return path


def test_another_sheet_whose_header_fits_is_named_by_the_load_and_inspect(tmp_path: Path):
    path = _two_card_sheets(tmp_path / "cards.xlsx")
    mapping = {"Date": "posted_date", "Merchant": "description", "Amount": "amount"}
    result = scan_transactions(path, column_map=mapping)
    assert result.kept.height == 2
    (warning,) = [w for w in result.notes[0].warnings if "'Foreign'" in w]
    assert "header that fits (row 2), 1 row(s) below it (row 3): NOT read" in warning
    facts = [text for label, text in inspect_file(path).facts if label == "sheet"]
    assert facts[0] == "'Regular'"
    assert "sheet 'Foreign' also has a header that fits" in facts[1]


def test_a_sheet_that_is_set_is_read_alone_without_a_warning(tmp_path: Path):
    path = _two_card_sheets(tmp_path / "cards.xlsx")
    mapping = {"Date": "posted_date", "Merchant": "description", "Amount": "amount"}
    result = scan_transactions(path, column_map=mapping, sheet="Foreign")
    assert _kept(result) == [("2024-03-06", -310.0, "HOTEL C")]
    assert not [w for w in result.notes[0].warnings if "NOT read" in w]
