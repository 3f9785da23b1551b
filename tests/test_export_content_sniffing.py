"""What a file's bytes say over its name and its values' shape: a CSV saved as .xls or .txt,
an HTML page saved as .xls, lakh-grouped amounts, a long transaction number that is no date,
Czech text in Windows-1250, old currency codes, and files of one line without a header."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.amount_text import normalize_amount
from ml_assets.core.intake.export_formats import format_of, list_input_files
from ml_assets.core.intake.records import SchemaError, coerce_record
from ml_assets.core.intake.sniffing import sniff_date_format
from ml_assets.core.intake.text_encoding import detect_encoding
from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded

_SWEDBANK_ROWS = (
    '"Account No","","Date","Beneficiary","Details","Amount","Currency","D/K","Record ID",\n'
    '"LT357300000000000000","20","2014-10-01","SHOP ONE","PIRKINYS SHOP ONE VILNIUS",'
    '"15.31","EUR","D","1234",\n'
    '"LT357300000000000000","20","2014-10-02","SHOP TWO","PIRKINYS SHOP TWO KAUNAS",'
    '"9.40","EUR","D","1235",\n'
    '"LT357300000000000000","20","2014-10-03","EMPLOYER","SALARY OCTOBER",'
    '"1200.00","EUR","K","1236",\n'
)


def test_an_xls_download_that_is_csv_text_is_read_as_csv(tmp_path, capsys):
    """Swedbank's ".xls" statement is quoted CSV text: read as CSV, and inspect says so."""
    export = tmp_path / "statement.xls"
    export.write_text(_SWEDBANK_ROWS)
    out, _, result, _ = loaded(export, capsys)
    assert (
        "csv (by its content: lines of delimited values under a header, though named .xls)" in out
    )
    assert result.kept["amount"].to_list() == [-15.31, -9.40, 1200.00]


def test_a_delimited_txt_is_read_but_a_readme_in_the_folder_is_not(tmp_path):
    """HDFC's "delimited .txt" download is a table of transactions; a README.txt beside it
    is not, and stays unread."""
    (tmp_path / "statement.txt").write_text(
        "Date,Description,Debit Amount,Credit Amount,Closing Balance\n"
        "03/05/23,UPI GROCER,110.00,0.00,30192.98\n"
        "04/05/23,UPI PHARMACY,200.00,0.00,29992.98\n"
        "05/05/23,NEFT REFUND,0.00,237.00,30229.98\n"
    )
    (tmp_path / "README.txt").write_text(
        "Exports from the bank go here.\nEach has a date, an amount and a description, 12.50.\n"
    )
    assert [p.name for p in list_input_files(tmp_path, "auto")] == ["statement.txt"]
    assert format_of(tmp_path / "statement.txt", "auto") == "csv"
    mt940 = tmp_path / "940.txt"  # (told by its content first, as before any table)
    mt940.write_text(
        ":20:STARTUMS\n:25:12345678/0123456789\n:28C:1\n:60F:C260301EUR1000,00\n"
        ":61:2603020302D12,50NMSCNONREF\n:86:GROCER\n:62F:C260302EUR987,50\n"
    )
    assert format_of(mt940, "auto") == "mt940"


def test_an_html_xls_and_a_damaged_xls_say_what_they_are(tmp_path, capsys):
    page = tmp_path / "export.xls"
    page.write_text("<html><body><table><tr><td>Date</td><td>Amount</td></tr></table></body>")
    old = tmp_path / "old.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    _, out, _ = inspect(page, capsys)
    assert "format:          xlsx: an HTML page's table (by the extension .xls)" in out
    assert "hold words alone (['Date Amount']), no date or amount" in out
    _, out, _ = inspect(old, capsys)
    assert "format:          xlsx: the old Excel format (BIFF)" in out
    assert "not a readable spreadsheet (not an Excel workbook xlrd can read" in out


def test_indian_lakh_grouping_is_read_and_points_to_rupees(tmp_path, capsys):
    export = tmp_path / "sbi.csv"
    export.write_text(
        "Txn Date,Description,Debit,Credit,Balance\n"
        '01/04/2024,NEFT SALARY ACME,,"1,25,000.00","2,40,512.50"\n'
        '03/04/2024,RENT TRANSFER,"25,000.00",,"2,15,512.50"\n'
        '05/04/2024,UPI GROCER,512.50,,"2,15,000.00"\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [125000.00, -25000.00, -512.50]
    assert section["currency"] == "INR"
    assert "currency: INR  # from the Indian digit grouping of '1,25,000.00'" in out
    assert normalize_amount("12,50,00,000.00", ".", "x") == "125000000.00"


def test_a_long_transaction_number_is_no_date():
    """Alipay's 交易号 "2024010100000001" starts with digits that read as 2024-01-01: the
    whole value must be the date. OFX-style date-times keep reading."""
    assert sniff_date_format(["2024010100000001", "2024010300000002"])[0] is None
    assert not sniff_date_format(["2024010100000001", "2024010300000002"])[2].startswith("ISO")
    record = {"transaction_id": "1", "amount": "1", "description": "x"}
    with pytest.raises(SchemaError, match="not a date"):
        coerce_record({**record, "posted_date": "2024010100000001"}, "f:2", None)
    dated = coerce_record({**record, "posted_date": "20091224120000[0:GMT]"}, "f:2", None)
    assert dated["posted_date"] == "2009-12-24"


def test_czech_text_in_windows_1250_is_read_in_it_and_western_text_is_not():
    czech = (
        "Datum provedení;Datum zaúčtování;Číslo účtu;Název účtu;Kategorie transakce;"
        "Název protiúčtu;Typ transakce;Zpráva;Zaúčtovaná částka;Měna účtu;Původní částka\n"
        "27.05.2018;27.05.2018;123/1234;Jméno Příjmení;Platba;Potraviny Řeřicha;"
        "Jednorázová platba;Nákup;-1,00;CZK;\n"
    ).encode("cp1250")
    encoding, why = detect_encoding(czech)
    assert encoding == "cp1250" and "Czech" in why
    french = (
        "Date;Libellé;Débit;Crédit\n01/02/2024;Prélèvement EDF;-45,00;\n"
        "02/02/2024;Intérêts créditeurs;;1,20\n03/02/2024;Chèque à payer;-30,00;\n"
    ).encode("cp1252")
    assert detect_encoding(french)[0] == "cp1252"


def test_old_currency_codes_are_read_as_their_iso_codes(tmp_path, capsys):
    export = tmp_path / "cmb.csv"
    export.write_text(
        "Date,Description,Amount,Currency\n"
        "2024-01-15,STARBUCKS SHANGHAI,-38.00,RMB\n"
        "2024-01-16,SALARY,8000.00,RMB\n"
    )
    out, _, result, _ = loaded(export, capsys)
    assert set(result.kept["currency"]) == {"CNY"}
    assert "column 'Currency': RMB is read as CNY, its ISO 4217 code" in out


def test_a_file_of_one_headerless_line_says_which_columns_to_map(tmp_path, capsys):
    export = tmp_path / "dbs.csv"
    export.write_text("27 Feb 2018,UMC-, 7.80, ,MCDONALD'S (TAM KIOSK) SI NG 22FEB,,,\n")
    code, out, _ = inspect(export, capsys)
    assert code == 1
    assert "the file holds one line, without a header" in out
    assert "column_map: {'1': posted_date, '3': amount, '5': description}" in out
    assert "header_line: 0" in out and "date_format: '%d %b %Y'" in out


def test_dates_no_format_reads_are_named_with_their_column(tmp_path, capsys):
    export = tmp_path / "harder.csv"
    export.write_text(
        "10-Nov-9,-123.12,,,TRANSFER DEBIT INTERNET TRANSFER,MORTGAGE,0.00,\n"
        "09-Nov-10,123.12,,,SALARY SALARY,FOO BAR,432.12,\n"
        "04-Nov-11,-1234.00,,,TRANSFER DEBIT INTERNET TRANSFER,SAV TO MECU,0.00,\n"
        "04-Nov-9,1234.00,,,TRANSFER CREDIT INTERNET TRANSFER,TRANSFER,1234.00,\n"
    )
    _, out, _ = inspect(export, capsys)
    assert "column 1 holds dates no date format reads, e.g. '10-Nov-9'" in out


def test_a_text_table_saved_as_xls_in_a_folder_is_listed_as_an_export(tmp_path):
    (tmp_path / "statement.xls").write_text(_SWEDBANK_ROWS)
    (tmp_path / "notes.txt").write_text("nothing to read\n")
    assert [p.name for p in list_input_files(tmp_path, "auto")] == ["statement.xls"]
