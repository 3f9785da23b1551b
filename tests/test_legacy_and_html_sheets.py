"""A bank's "Excel" download in the two shapes that are not an .xlsx: the old binary format
(.xls, written here with xlwt as Excel 97-2003 writes it) and a web page holding the
statement as a table, saved as .xls. Both are read as spreadsheets, told by their bytes
whatever their name says. Planted: a date that does not exist in each; a damaged .xls and a
page with no table in it are one unreadable_file row each. Rows in = kept + quarantined."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ml_assets.core.intake.export_formats import format_of, list_input_files
from ml_assets.core.intake.ingest import scan_transactions
from tests.test_bank_formats_sheets_qif import write_activity_xlsx
from tests.test_inspect_export import inspect

BOOKINGS = [  # (booking date cell, text, amount); an account in euros
    (dt.date(2026, 3, 2), "REWE Markt GmbH Berlin", -23.45),
    (dt.date(2026, 3, 3), "Gehalt Maerz ACME GmbH", 2480.0),
    ("31.02.2026", "Aral Tankstelle 0815", -61.2),  # typed by hand into the date column
    (dt.date(2026, 3, 5), "Netflix International", -12.99),
]


def write_legacy_xls(path: Path) -> Path:
    """An .xls as a bank's Excel 97-2003 download writes it: a title merged over the columns,
    an account line, the header, date cells, amounts with the euro in their number format,
    a card's last four digits as a number."""
    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    sheet = book.add_sheet("Umsätze")
    sheet.write_merge(0, 0, 0, 4, "Kontoumsätze Girokonto")
    sheet.write(1, 0, "IBAN DE02120300000000202051")
    for column, name in enumerate(["Buchungstag", "Verwendungszweck", "Karte", "Betrag"]):
        sheet.write(3, column, name)
    date_style = xlwt.easyxf(num_format_str="DD.MM.YYYY")
    euro_style = xlwt.easyxf(num_format_str="#,##0.00 [$€-407]")
    for row, (date, text, amount) in enumerate(BOOKINGS, start=4):
        sheet.write(
            row, 0, date, date_style if isinstance(date, dt.date) else xlwt.Style.default_style
        )
        sheet.write(row, 1, text)
        sheet.write(row, 2, 4417)
        sheet.write(row, 3, amount, euro_style)
    book.save(str(path))
    return path


MAPPING = {"Buchungstag": "posted_date", "Verwendungszweck": "description", "Betrag": "amount"}


def test_an_old_excel_file_is_read_with_its_date_cells_and_rows_named(tmp_path):
    export = write_legacy_xls(tmp_path / "Umsaetze_Girokonto.xls")
    assert format_of(export, "auto") == "xlsx"
    result = scan_transactions(export, column_map=MAPPING, date_format="%d.%m.%Y")
    assert result.rows_in == 4 == result.kept.height + result.quarantined.height
    assert result.kept["posted_date"].to_list() == ["2026-03-02", "2026-03-03", "2026-03-05"]
    assert result.kept["amount"].to_list() == [-23.45, 2480.0, -12.99]
    assert dict(result.reasons) == {"bad_date": 1}
    assert f"{export} sheet 'Umsätze' row 7: field 'posted_date'" in result.quarantined["detail"][0]


def test_inspect_reads_an_old_excel_file_and_its_currency_format(tmp_path, capsys):
    export = write_legacy_xls(tmp_path / "Umsaetze_Girokonto.xls")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "xlsx: the old Excel format (BIFF) (by the extension .xls)" in out
    assert "row 4: Buchungstag | Verwendungszweck | Karte | Betrag" in out
    assert "currency:        EUR" in out
    assert "4 in: 3 kept, 1 quarantined" in out
    settings = params["raw_transactions"]
    assert settings["sheet"] == "Umsätze" and settings["currency"] == "EUR"
    # a card's last four digits are a whole number, never "4417.0"
    assert "4417.0" not in out


def test_a_workbook_is_read_by_its_bytes_whatever_its_name(tmp_path):
    """Banks name an .xlsx ".xls" and the other way round: the bytes choose the reader."""
    named_old = write_activity_xlsx(tmp_path / "activity.xls")
    mapping = {"Date": "posted_date", "Description": "description", "Amount": "amount"}
    result = scan_transactions(named_old, column_map=mapping)
    assert result.rows_in == 5 and result.kept.height == 4
    named_new = tmp_path / "umsaetze.xlsx"
    named_new.write_bytes(write_legacy_xls(tmp_path / "u.xls").read_bytes())
    result = scan_transactions(named_new, column_map=MAPPING, date_format="%d.%m.%Y")
    assert result.rows_in == 4 and result.kept.height == 3


def test_a_damaged_old_excel_file_is_one_unreadable_row(tmp_path, capsys):
    export = tmp_path / "Extras_de_cont_12345678_20260101_20260131.xls"
    export.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504)  # a header, no body
    result = scan_transactions(export, column_map=MAPPING)
    assert dict(result.reasons) == {"unreadable_file": 1} and result.rows_in == 1
    detail = result.quarantined["detail"][0]
    assert f"{export}:1: not a readable spreadsheet (not an Excel workbook xlrd can read" in detail
    assert "re-download it" in detail
    code, out, _ = inspect(export, capsys)
    assert code != 0 and "not a readable spreadsheet" in out


# a page as a bank's "export to Excel" writes it: Windows-1252 declared in a <meta>, the
# statement in a table nested in the page's layout table, a title cell spanning the columns,
# &nbsp; and <br> in cells; the amounts are text in the bank's own decimal comma
PAGE = """<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">
<style>td {{ mso-number-format: "\\@"; }}</style></head><body>
<table><tr><td><img src="logo.gif"> Banco Ejemplo</td></tr><tr><td>
<table border="1">
<tr><td colspan="4"><b>Movimientos de la cuenta ES91 2100 0418 4502 0005 1332</b></td></tr>
<tr><th>Fecha</th><th>Concepto</th><th>Importe</th><th>Saldo</th></tr>
{rows}
</table></td></tr></table></body></html>"""
PAGE_ROWS = [
    ("02/03/2026", "COMPRA TARJ. MERCADONA&nbsp;VALENCIA", "-45,30", "1.954,70"),
    ("03/03/2026", "NOMINA<br>ACME IBERIA S.L.", "2.100,00", "4.054,70"),
    ("31/02/2026", "CAFETERÍA EL PATIO", "-3,80", "4.050,90"),
    ("05/03/2026", "RECIBO ENDESA ENERGÍA", "-78,15", "3.972,75"),
]


def write_page(path: Path) -> Path:
    rows = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in PAGE_ROWS)
    path.write_bytes(PAGE.format(rows=rows).encode("cp1252"))
    return path


def test_a_web_page_saved_as_xls_is_read_as_its_table(tmp_path, capsys):
    export = write_page(tmp_path / "movimientos.xls")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "xlsx: an HTML page's table (by the extension .xls)" in out
    assert "sheet:           'table 2'" in out
    assert "row 2: Fecha | Concepto | Importe | Saldo" in out
    assert "decimal comma" in out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export,
        column_map=settings["column_map"],
        sheet=settings["sheet"],
        date_format=settings.get("date_format"),
        decimal=settings.get("decimal", "auto"),
    )
    assert result.rows_in == 4 == result.kept.height + result.quarantined.height
    assert result.kept["description"].to_list() == [
        "COMPRA TARJ. MERCADONA VALENCIA", "NOMINA ACME IBERIA S.L.", "RECIBO ENDESA ENERGÍA"
    ]  # fmt: skip
    assert result.kept["amount"].to_list() == [-45.3, 2100.0, -78.15]
    assert dict(result.reasons) == {"bad_date": 1}
    assert f"{export} sheet 'table 2' row 5:" in result.quarantined["detail"][0]


def test_a_page_with_no_table_is_one_unreadable_row_and_folders_list_both_kinds(tmp_path):
    page = tmp_path / "export.xls"
    page.write_text("<!DOCTYPE html><html><body>Your session has expired</body></html>")
    result = scan_transactions(page, column_map=MAPPING)
    assert dict(result.reasons) == {"unreadable_file": 1}
    assert "an HTML page with no table in it" in result.quarantined["detail"][0]
    write_legacy_xls(tmp_path / "old.xls")
    (tmp_path / "notes.md").write_text("not an export")
    assert [p.name for p in list_input_files(tmp_path, "auto")] == ["export.xls", "old.xls"]


@pytest.mark.parametrize("span", ['"x"', '"0"', '"9999"'])
def test_a_cell_span_that_is_no_number_or_huge_reads_as_one_or_a_few_cells(tmp_path, span):
    from ml_assets.core.intake.html_tables import HtmlBook

    page = tmp_path / "p.xls"
    page.write_text(f"<table><tr><td colspan={span}>a</td><td>b</td></tr></table>")
    book = HtmlBook(page)
    (row,) = list(book.values("table 1"))
    assert row[0] == "a" and row[-1] == "b" and 2 <= len(row) <= 65


def test_a_chinese_debit_cards_xls_reads_its_withdrawals_and_counterparties(tmp_path):
    """SPDB's debit card download (.xls, every cell text): deposits 存入金额 and withdrawals
    取出金额 in columns of their own, the counterparty's name 交易对手名称 beside the booking
    type; a running balance 余额 the rows follow."""
    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    sheet = book.add_sheet("sheet")
    for column, text in enumerate(["账号", "6200000000001230", "日期范围", "20251201-20251231"]):
        sheet.write(0, column, text)
    header = ["顺序号", "交易日期", "交易类型", "存入金额", "取出金额", "余额", "交易对手名称"]
    rows = [
        ["1", "2025/12/03  14:06:51", "网上支付-支付宝", "", "3.88", "1981.33", "盒马鲜生"],
        ["2", "2025/12/05  07:22:32", "汇入", "10.00", "", "1991.33", "张三"],
        ["3", "2025/12/05  19:03:07", "网上支付-财付通", "", "25.50", "1965.83", "美团外卖"],
    ]
    for row, cells in enumerate([header, *rows], start=1):
        for column, text in enumerate(cells):
            sheet.write(row, column, text)
    export = tmp_path / "spdb_debit.xls"
    book.save(str(export))
    result = scan_transactions(
        export,
        column_map={
            "交易日期": "posted_date",
            "存入金额": "credit",
            "取出金额": "debit",
            "余额": "balance",
            "交易对手名称": "description",
        },
        date_format="%Y/%m/%d %H:%M:%S",
        currency="CNY",
    )
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["amount"].to_list() == [-3.88, 10.0, -25.5]
    from ml_assets.core.intake.inspect_export import inspect_path

    (found,) = inspect_path(export)
    assert found.settings["column_map"]["取出金额"] == "debit"
    assert found.settings["column_map"]["交易对手名称"] == "description"


@pytest.mark.parametrize(
    "encoding, prolog",
    [
        ("utf-16", ""),  # Excel's "Save as Web Page" in UTF-16 with its byte-order mark
        ("utf-8", '<?xml version="1.0" encoding="utf-8"?>\n<!-- exported -->\n'),  # XHTML
    ],
)
def test_a_page_in_utf16_or_behind_an_xml_declaration_is_still_a_page(tmp_path, encoding, prolog):
    rows = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in PAGE_ROWS)
    page = PAGE.format(rows=rows).replace(' charset=windows-1252"', '"')
    export = tmp_path / "movimientos.xls"
    export.write_bytes((prolog + page).encode(encoding))
    result = scan_transactions(
        export,
        column_map={"Fecha": "posted_date", "Concepto": "description", "Importe": "amount"},
        date_format="%d/%m/%Y",
    )
    assert result.rows_in == 4 and result.kept.height == 3
    assert "NOMINA ACME IBERIA S.L." in result.kept["description"].to_list()


# Excel's XML Spreadsheet 2003 as a bank writes it with Apache POI (T-Bank's "Excel"
# download): styles with number formats, a sheet of typed cells, a title merged across,
# a row and a cell placed by ss:Index, an operation's amount in the card's currency beside it
SPREADSHEET_XML = """<?xml version="1.0"?>
<?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"
 xmlns:o="urn:schemas-microsoft-com:office:office"
 xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"
 xmlns:html="http://www.w3.org/TR/REC-html40">
 <Styles>
  <Style ss:ID="Default" ss:Name="Normal"/>
  <Style ss:ID="s62"><NumberFormat ss:Format="dd\\.mm\\.yyyy"/></Style>
  <Style ss:ID="s63"><NumberFormat ss:Format="#,##0.00\\ [$₽-419]"/></Style>
 </Styles>
 <Worksheet ss:Name="Sheet0">
  <Table>
   <Row><Cell ss:MergeAcross="3"><Data ss:Type="String">Операции по карте *1234</Data></Cell></Row>
   <Row ss:Index="3">
    <Cell><Data ss:Type="String">Дата операции</Data></Cell>
    <Cell><Data ss:Type="String">Описание</Data></Cell>
    <Cell><Data ss:Type="String">Сумма операции</Data></Cell>
    <Cell><Data ss:Type="String">Категория</Data></Cell>
   </Row>
{rows}
  </Table>
 </Worksheet>
</Workbook>
"""
XML_ROWS = [
    ("2026-03-02T00:00:00.000", "Пятёрочка", -512.4, "Супермаркеты"),
    ("2026-03-03T00:00:00.000", "Зарплата", 85000.0, "Пополнения"),
    ("2026-03-05T00:00:00.000", "Яндекс Такси", -389.0, None),  # no category: its cell skipped
]


def write_spreadsheet_xml(path: Path) -> Path:
    rows = []
    for date, text, amount, category in XML_ROWS:
        cells = [
            f'<Cell ss:StyleID="s62"><Data ss:Type="DateTime">{date}</Data></Cell>',
            f'<Cell><Data ss:Type="String">{text}</Data></Cell>',
            f'<Cell ss:StyleID="s63"><Data ss:Type="Number">{amount}</Data></Cell>',
        ]
        if category:
            cells.append(f'<Cell ss:Index="4"><Data ss:Type="String">{category}</Data></Cell>')
        rows.append("   <Row>" + "".join(cells) + "</Row>")
    path.write_text(SPREADSHEET_XML.format(rows="\n".join(rows)), encoding="utf-8")
    return path


def test_excels_xml_spreadsheet_2003_is_read_with_its_typed_cells(tmp_path, capsys):
    export = write_spreadsheet_xml(tmp_path / "operations.xls")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "xlsx: Excel's XML Spreadsheet 2003 (by the extension .xls)" in out
    assert "row 3: Дата операции | Описание | Сумма операции | Категория" in out
    assert "currency:        RUB" in out
    result = scan_transactions(export, column_map=params["raw_transactions"]["column_map"])
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["posted_date"].to_list() == ["2026-03-02", "2026-03-03", "2026-03-05"]
    assert result.kept["amount"].to_list() == [-512.4, 85000.0, -389.0]
    assert result.kept["category"].to_list() == ["Супермаркеты", "Пополнения", None]
    named_xml = tmp_path / "operations.xml"  # (.xml is CAMT's extension: the content decides)
    named_xml.write_bytes(export.read_bytes())
    assert format_of(named_xml, "auto") == "xlsx"
    broken = tmp_path / "broken.xls"
    broken.write_text(export.read_text()[:900])
    result = scan_transactions(broken, column_map=params["raw_transactions"]["column_map"])
    assert dict(result.reasons) == {"unreadable_file": 1}
    assert "XML Spreadsheet 2003 that does not parse" in result.quarantined["detail"][0]


def _xls(path: Path, rows: list[list]) -> Path:
    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    sheet = book.add_sheet("Sheet 1")
    for row, cells in enumerate(rows):
        for column, value in enumerate(cells):
            sheet.write(row, column, value)
    book.save(str(path))
    return path


def test_hdfcs_ruled_statement_reads_its_withdrawals_deposits_and_currency(tmp_path, capsys):
    """HDFC's .xls: "Currency :INR" beside the account's details, rows of asterisks above
    and below the header and the table, "Withdrawal Amt." and "Deposit Amt." columns."""
    rule = ["*" * 8, "*" * 30, "*" * 12, "*" * 8, "*" * 18, "*" * 18, "*" * 18]
    header = ["Date", "Narration", "Chq./Ref.No.", "Value Dt", "Withdrawal Amt.",
              "Deposit Amt.", "Closing Balance"]  # fmt: skip
    bookings = [
        ["01/04/26", "UPI-SWIGGY-SWIGGY8@YBL", "0000412345", "01/04/26", 450.0, "", 49550.0],
        ["02/04/26", "NEFT CR-ACME PAYROLL", "0000412346", "02/04/26", "", 85000.0, 134550.0],
        ["03/04/26", "POS 4591XXXX BIGBASKET", "0000412347", "03/04/26", 1230.5, "", 133319.5],
        ["05/04/26", "ATW-4591XXXX-MUMBAI", "0000412348", "05/04/26", 2000.0, "", 131319.5],
    ]
    export = _xls(
        tmp_path / "Acct_Statement_XX1234.xls",
        [["HDFC BANK Ltd.   Statement of accounts"], ["JOINT HOLDERS :", "Currency :INR"],
         ["*" * 60], header, rule, *bookings, rule, ["STATEMENT SUMMARY  :-"]],
    )  # fmt: skip
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "Withdrawal Amt. -> debit, Deposit Amt. -> credit" in out
    assert "currency:        INR" in out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export, column_map=settings["column_map"], date_format=settings["date_format"]
    )
    assert result.kept["amount"].to_list() == [-450.0, 85000.0, -1230.5, -2000.0]
    # the rules are no rows (nor is the summary's title, a line of words alone)
    assert result.rows_in == 4 == result.kept.height


def test_a_chilean_account_and_a_labelled_currency_in_other_words(tmp_path, capsys):
    """Banco de Chile's cartola: "Descripción", "Cargos (CLP)" and "Abonos (CLP)";
    Raiffeisen Romania's "Valuta:" | "LEI" is the leu (RON)."""
    export = _xls(
        tmp_path / "cartola.xls",
        [["", "Movimientos", "", "al 31/01/2026"],
         ["", "Fecha", "", "Descripción", "Canal o Sucursal", "Cargos (CLP)", "Abonos (CLP)",
          "Saldo (CLP)"],
         ["", "15/01/2026", "", "TRASPASO A:Maria Gonzalez", "Internet", 500000, "", 4500000],
         ["", "20/01/2026", "", "DEPOSITO EN EFECTIVO", "Oficina", "", 300000, 4800000],
         ["", "25/01/2026", "", "COMPRA JUMBO SAN BERNARDO", "Compras", 85000, "", 4715000]],
    )  # fmt: skip
    code, out, _ = inspect(export, capsys)
    assert code == 0, out
    assert "Cargos (CLP) -> debit, Abonos (CLP) -> credit" in out
    assert "Descripción -> description" in out and "currency:        CLP" in out
    assert "3 in: 3 kept, 0 quarantined" in out
    romanian = _xls(
        tmp_path / "Extras_de_cont.xls",
        [["Cod IBAN:", "RO00XXXX", "Tip cont:", "curent", "Valuta:", "LEI"], [],
         ["Data inregistrare", "Descrierea tranzactiei", "Suma debit", "Suma credit"],
         ["22/01/2018", "Cumparare POS KAUFLAND", "100.00", ""],
         ["23/01/2018", "Incasare salariu", "", "2500.00"]],
    )  # fmt: skip
    code, out, _ = inspect(romanian, capsys)
    assert code == 0, out
    assert "currency:        RON, as 'Valuta: LEI' above the table shows" in out


def test_the_statement_table_of_a_page_is_found_by_its_values(tmp_path, capsys):
    """Cal's card page (Israel): a title table first, then the statement under Hebrew
    names no list here knows; its dates and amounts choose it. The page is UTF-8 although
    its <meta> says ISO-8859-1 (a page re-saved as UTF-8): the bytes win."""
    rows = [
        ("01/12/25", "ניו פארם", "19.71"), ("01/12/25", "אפרודיטה", "50.00"),
        ("02/12/25", "צומת ספרים", "125.00"), ("03/12/25", "חומוס אליהו", "17.00"),
    ]  # fmt: skip
    body = "".join(f"<tr><td>{d}</td><td>{t}</td><td>{a}</td></tr>" for d, t, a in rows)
    page = (
        '<html><head><meta charset="iso-8859-1"></head><body>'
        "<table><tr><td>פירוט עסקאות לכרטיס 1234</td></tr></table>"
        "<table><tr><th>תאריך העסקה</th><th>שם בית העסק</th><th>סכום העסקה</th></tr>"
        f"{body}</table></body></html>"
    )
    export = tmp_path / "cal.xls"
    export.write_bytes(page.encode("utf-8"))
    code, out, _ = inspect(export, capsys)
    assert code == 0, out
    assert "sheet:           'table 2'" in out
    assert "row 1: תאריך העסקה | שם בית העסק | סכום העסקה" in out
    assert "4 in: 4 kept, 0 quarantined" in out and "צומת ספרים" in out


ODS_CONTENT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document-content
 xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">
<office:body><office:spreadsheet>
<table:table table:name="Info"><table:table-row><table:table-cell office:value-type="string">
<text:p>Konto osobiste</text:p></table:table-cell></table:table-row></table:table>
<table:table table:name="Historia">
<table:table-column table:number-columns-repeated="4"/>
<table:table-row>
 <table:table-cell office:value-type="string" table:number-columns-spanned="4">
  <text:p>Historia rachunku</text:p></table:table-cell>
 <table:covered-table-cell table:number-columns-repeated="3"/>
</table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell/></table:table-row>
<table:table-header-rows><table:table-row>
 <table:table-cell office:value-type="string"><text:p>Data operacji</text:p></table:table-cell>
 <table:table-cell office:value-type="string"><text:p>Opis operacji</text:p></table:table-cell>
 <table:table-cell office:value-type="string"><text:p>Kwota</text:p></table:table-cell>
 <table:table-cell office:value-type="string"><text:p>Saldo po operacji</text:p></table:table-cell>
 <table:table-cell table:number-columns-repeated="16380"/>
</table:table-row></table:table-header-rows>
{rows}
<table:table-row table:number-rows-repeated="1048570">
 <table:table-cell table:number-columns-repeated="16384"/></table:table-row>
</table:table>
</office:spreadsheet></office:body></office:document-content>
"""
ODS_ROWS = [  # (date value or text, description paragraphs, amount, balance)
    ("2026-03-02", ["BIEDRONKA 3412", "WARSZAWA"], -45.9, 954.1),
    ("2026-03-03", ["WYNAGRODZENIE ACME SP. Z O.O."], 6200.0, 7154.1),
    ("2026-02-31", ["ORLEN STACJA 112"], -210.0, 6944.1),  # a date typed as text
]


def write_ods(path: Path) -> Path:
    """An .ods as LibreOffice Calc writes it: the mimetype first and stored, content.xml
    with a merged title (covered cells), header rows, date and currency cells, paragraphs,
    blank rows and columns repeated to the sheet's end."""
    import zipfile

    rows = []
    for date, paragraphs, amount, balance in ODS_ROWS:
        if date.endswith("31"):
            first = f'<table:table-cell office:value-type="string"><text:p>{date}</text:p>'
        else:
            first = f'<table:table-cell office:value-type="date" office:date-value="{date}">'
        text = "".join(f"<text:p>{p}</text:p>" for p in paragraphs)
        rows.append(
            f"<table:table-row>{first}</table:table-cell>"
            f'<table:table-cell office:value-type="string">{text}</table:table-cell>'
            f'<table:table-cell office:value-type="currency" office:currency="PLN" '
            f'office:value="{amount}"/>'
            f'<table:table-cell office:value-type="float" office:value="{balance}"/>'
            "</table:table-row>"
        )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet"
        )  # (ZipInfo: stored, uncompressed, first)
        archive.writestr("content.xml", ODS_CONTENT.format(rows="\n".join(rows)))
        archive.writestr("META-INF/manifest.xml", "<manifest:manifest/>")
    return path


def test_an_opendocument_spreadsheet_is_read_with_its_typed_cells(tmp_path, capsys):
    export = write_ods(tmp_path / "historia.ods")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "xlsx: an OpenDocument spreadsheet (by the extension .ods)" in out
    assert "sheet:           'Historia'" in out
    assert "row 4: Data operacji | Opis operacji | Kwota | Saldo po operacji" in out
    assert "currency:        PLN" in out
    settings = params["raw_transactions"]
    result = scan_transactions(export, column_map=settings["column_map"], sheet="Historia")
    assert result.rows_in == 3 == result.kept.height + result.quarantined.height
    assert result.kept["description"].to_list() == [
        "BIEDRONKA 3412 WARSZAWA", "WYNAGRODZENIE ACME SP. Z O.O."
    ]  # fmt: skip
    assert result.kept["amount"].to_list() == [-45.9, 6200.0]
    assert (
        f"{export} sheet 'Historia' row 7: field 'posted_date'" in result.quarantined["detail"][0]
    )
    broken = tmp_path / "broken.ods"
    broken.write_bytes(export.read_bytes()[:300])
    result = scan_transactions(broken, column_map=settings["column_map"])
    assert dict(result.reasons) == {"unreadable_file": 1}


def test_a_total_in_a_column_of_no_field_is_a_total_not_a_row(tmp_path, capsys):
    """Fineco's card sheet: two blank rows above the header, and below the rows the total's
    words in a column no field of ours reads ("Tipo rimborso"), its figure under Importo."""
    header = ["", "Numero carta", "Data operazione", "Descrizione", "Tipo rimborso", "Importo"]
    export = _xls(
        tmp_path / "movimenti.xls",
        [[""], [""], header,
         ["", "0000 **** 0000", "30/12/2024", "ESSELUNGA MILANO", "a saldo", -50.0],
         ["", "0000 **** 0000", "31/12/2024", "TRENITALIA", "a saldo", -50.0],
         [""], ["", "", "", "", "Totale movimenti", -100.0]],
    )  # fmt: skip
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "preamble:        2 blank rows above the header" in out
    assert "not transactions: 1: total row 7" in out and "2 in: 2 kept, 0 quarantined" in out
