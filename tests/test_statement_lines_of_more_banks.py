"""Lines among the rows that are no transaction, and rows whose parts stand where another
bank would not put them: Stanbic's header over three lines, whose text stands one column left
of its name, with opening, closing and totals lines; a TMB card payment whose second line is a
date and a terminal's number; Swedbank Estonia's opening balance, turnover and closing balance
lines; OTP's unbooked item (FÜGGŐ TÉTEL), pending, and its booking date read over its
transaction date; Fintro's execution date read over its value date. Each file is written
here in the bank's layout, with made-up rows."""

from __future__ import annotations

from tests.test_issuer_csv_layouts import loaded


def test_stanbic_text_beside_its_merged_name_and_its_balance_lines(tmp_path, capsys):
    export = tmp_path / "stanbic.csv"
    export.write_text(
        "Transaction,,,,,,\n"
        ",Value date,,Transaction description,Debits,Credits,Balance\n"
        "date,,,,,,\n"
        ',02/04/2026,Opening balance,,,,"5 000,00"\n'
        '03/04/2026,03/04/2026,AT26093ZM0001 INTERNAL TRANSFER Rent April,,"1 200,00",,'
        '"3 800,00"\n'
        ',04/04/2026,AT26094ZM0002 CLIENT ONE DEPOSIT,,,"400,00","4 200,00"\n'
        ',04/04/2026,Closing balance,,,,"4 200,00"\n'
        'Debits,"1 200,00",,,,,\n'
        'Credits,"400,00",,,,,\n'
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["column 3"] == "description"
    assert result.quarantined.height == 0 and counted == 5
    assert result.kept["amount"].to_list() == [-1200.0, 400.0]
    assert result.kept["description"][1] == "AT26094ZM0002 CLIENT ONE DEPOSIT"
    notes = result.notes[0]
    assert (notes.opening().amount, notes.closing().amount) == (5000.0, 4200.0)
    assert not notes.warnings
    assert "total line 8, total line 9" in out


def test_tmb_second_line_of_digits_goes_on_the_text(tmp_path, capsys):
    export = tmp_path / "231231.csv"
    export.write_text(
        "Reference Number,Description,Transaction Date,Value Date,CREDIT,DEBIT,Balance\n"
        "0100000000000011,TRX 333333 Sales Draft,06 Apr 2026,06 Apr 2026,,15.00USD,85.00USD\n"
        ",04 04 2026 87654321,,,,,\n"
        "0100000000000012,PAYROLL SAMPLE SARL,01 Apr 2026,01 Apr 2026,100.00USD,,100.00USD\n"
    )
    _, _, result, counted = loaded(export, capsys)
    assert result.quarantined.height == 0 and counted == 1
    assert result.kept["description"][0] == "TRX 333333 Sales Draft 04 04 2026 87654321"


def test_swedbank_estonia_balance_and_turnover_lines_are_no_rows(tmp_path, capsys):
    export = tmp_path / "swedbank.csv"
    export.write_text(
        '"Kliendi konto";"Reatüüp";"Kuupäev";"Saaja/Maksja";"Selgitus";"Summa";"Valuuta";'
        '"Deebet/Kreedit";"Arhiveerimistunnus";"Tehingu tüüp";"Viitenumber";"Dokumendi number";\n'
        '"EE001234567890000001";"10";"01.04.2024";"";"Algsaldo";"50,00";"EUR";"K";"";"AS";"";"";\n'
        '"EE001234567890000001";"20";"02.04.2024";"PAGAR OÜ";"leib";"3,10";"EUR";"D";'
        '"2024040201000001";"MK";"";"";\n'
        '"EE001234567890000001";"20";"03.04.2024";"Jaan Kask";"võlg";"20,00";"EUR";"K";'
        '"2024040301000002";"MK";"";"";\n'
        '"EE001234567890000001";"82";"03.04.2024";"";"Käive";"3,10";"EUR";"D";"";"K2";"";"";\n'
        '"EE001234567890000001";"82";"03.04.2024";"";"Käive";"20,00";"EUR";"K";"";"K2";"";"";\n'
        '"EE001234567890000001";"86";"03.04.2024";"";"lõppsaldo";"66,90";"EUR";"K";"";"LS";"";"";\n',
        encoding="utf-8",
    )
    _, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Saaja/Maksja"] == "description"
    assert result.kept["amount"].to_list() == [-3.1, 20.0] and counted == 4
    assert result.kept["merchant"].to_list() == ["PAGAR OÜ", "Jaan Kask"]
    notes = result.notes[0]
    assert (notes.opening().amount, notes.closing().amount) == (50.0, 66.9)
    assert not notes.warnings  # 50.00 - 3.10 + 20.00 = 66.90


def test_otp_unbooked_item_is_pending_and_the_booking_date_is_read(tmp_path, capsys):
    from openpyxl import Workbook

    export = tmp_path / "otp.xlsx"
    book = Workbook()
    sheet = book.active
    sheet.title = "Tranzakciók"
    sheet.append(
        ["Tranzakció dátuma", "Könyvelés dátuma", "Megnevezés", "Be/Ki", "Partner neve",
         "Partner számlaszáma", "Kategória", "Közlemény", "Számla neve", "Számlaszám",
         "Összeg", "Pénznem"]
    )  # fmt: skip
    sheet.append(["2024-04-01 21:15:00", "2024-04-02", "VÁSÁRLÁS KÁRTYÁVAL", "K", "PÉK BT",
                  None, "Élelmiszer", "kifli", "Számla", "00000000-1", -890, "HUF"])  # fmt: skip
    sheet.append(["2024-04-05 08:00:00", "2024-04-05", "ÁTUTALÁS", "J", "Cég Kft.", "1-2",
                  "Fizetés", "bér", "Számla", "00000000-1", 300000, "HUF"])  # fmt: skip
    sheet.append(["2024-04-06 18:40:00", None, "FÜGGŐ TÉTEL", "K", "KÖNYVBOLT", None, None,
                  "Nem könyvelt tétel", "Számla", "00000000-1", -2500, "HUF"])  # fmt: skip
    book.save(export)
    _, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Könyvelés dátuma"] == "posted_date"
    assert result.quarantined.height == 0 and counted == 1
    assert result.kept["posted_date"].to_list() == ["2024-04-02", "2024-04-05"]
    assert result.notes[0].statement_lines == [(4, "pending transaction")]


def test_fintro_execution_date_over_value_date(tmp_path, capsys):
    export = tmp_path / "fintro.csv"
    export.write_text(
        "Volgnummer;Uitvoeringsdatum;Valutadatum;Bedrag;Valuta rekening;Details;Rekeningnummer\n"
        "2024-0002;04/03/2024;01/03/2024;-18,40;EUR;MET KAART 1234 BAKKERIJ ZON;BE00 0000 0000 0001\n"
        "2024-0001;29/02/2024;29/02/2024;900,00;EUR;VAN WERKGEVER NV LOON;BE00 0000 0000 0001\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Uitvoeringsdatum"] == "posted_date"
    assert result.kept["posted_date"].to_list() == ["2024-03-04", "2024-02-29"]
