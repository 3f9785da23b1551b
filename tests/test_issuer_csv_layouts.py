"""Issuer CSV layouts as other tools' sample exports show them (bank2ynab's test data, MIT;
Mint's and other exports as beancount importers read them), each read the documented way:
``inspect`` writes the settings, the load reads the file with them, and every row is
accounted for. The files are written here in each layout, not copied."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.raw_days import scan_exports
from ml_assets.core.params import RawTransactionsParams
from tests.test_inspect_export import inspect


def loaded(path: Path, capsys):
    code, out, params = inspect(path, capsys)
    assert code == 0, out
    result = scan_exports(path, RawTransactionsParams(**params["raw_transactions"]))
    counted = sum(len(notes.statement_lines) for notes in result.notes)
    assert result.kept.height + result.quarantined.height + result.duplicates == result.rows_in
    return out, params["raw_transactions"], result, counted


def test_mint_unsigned_amounts_are_signed_by_the_transaction_type_column(tmp_path, capsys):
    """Mint writes every amount unsigned and says debit or credit in "Transaction Type": a
    card payment received is money in, not a purchase."""
    export = tmp_path / "transactions.csv"
    export.write_text(
        '"Date","Description","Original Description","Amount","Transaction Type","Category",'
        '"Account Name","Labels","Notes"\n'
        '"8/10/2026","Starbucks","STARBUCKS STORE 12345","2.45","debit","Coffee Shops",'
        '"My Credit Card","",""\n'
        '"8/11/2026","Transfer from My Checking","CR CARD PAYMENT","66.88","credit",'
        '"Credit Card Payment","My Credit Card","",""\n'
        '"8/12/2026","Whole Foods","WHOLEFDS MKT 10234","54.10","debit","Groceries",'
        '"My Credit Card","",""\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Transaction Type"] == "direction"
    assert "csv_preset" not in section and "Transaction Type -> direction by its values" in out
    assert result.kept["amount"].to_list() == [-2.45, 66.88, -54.1]


def test_a_column_of_cleared_marks_is_no_direction(tmp_path, capsys):
    """A one-letter column ("C" for cleared) is not read as "credit" on every row."""
    export = tmp_path / "card.csv"
    export.write_text(
        "Date,Description,Amount,Status\n"
        "2026-08-10,STARBUCKS,2.45,C\n2026-08-11,WHOLE FOODS,54.10,C\n2026-08-12,SHELL,40.00,C\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert "direction" not in section.get("column_map", {}).values()
    assert result.kept["amount"].to_list() == [-2.45, -54.1, -40.0]  # purchases positive


def test_kbc_a_column_named_credit_beside_the_mapped_amount_is_a_plain_column(tmp_path, capsys):
    """KBC's export has "Bedrag" (the signed amount), "Munt" (the currency) and, further
    right, "credit" and "debet" columns that are often blank: the mapped amount is read."""
    export = tmp_path / "export_BE11123456789012_20260304_1422.csv"
    export.write_text(
        "Rekeningnummer;Rubrieknaam;Naam;Munt;Afschriftnummer;Datum;Omschrijving;Valuta;"
        "Bedrag;Saldo;credit;debet;Naam tegenpartij\n"
        "BE11123456789012;;SMITH JOHN;EUR;  02026038;28/02/2026;BIJDRAGE 01-02-2026 KBC-PLUS;"
        "28/02/2026;-3,40;219,95;;-3,40;\n"
        "BE11123456789012;;SMITH JOHN;EUR;  02026039;01/03/2026;DELHAIZE BRUSSEL;"
        "01/03/2026;-25,10;194,85;;-25,10;DELHAIZE\n"
        "BE11123456789012;;SMITH JOHN;EUR;  02026040;02/03/2026;LOON MAART;"
        "02/03/2026;2.100,00;2.294,85;2.100,00;;WERKGEVER NV\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Munt"] == "currency"
    assert result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [-3.4, -25.1, 2100.0]
    assert set(result.kept["currency"]) == {"EUR"}


def test_a_header_of_unknown_names_keeps_the_columns_its_names_do_give(tmp_path, capsys):
    """A "Wording" column is no description any name list knows, so the date, amount and text
    come from the values; "Currency" still gives each row's currency (not the default USD)."""
    export = tmp_path / "statement.csv"
    export.write_text(
        '"Date","Wording","Currency","Amount","Amount Currency","Partner Name","Bank Account"\n'
        '"12/15/2026","Your best supplier on 12/15/2026","USD","-33.50","0.0","John Doe",'
        '"123456789"\n'
        '"12/15/2026","Your payment on 12/15/2026","EUR","1,525.00","1,000.00","Azure Interior",'
        '""\n'
        '"12/16/2026","Office rent December","EUR","-900.00","0.0","Bureau SA",""\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Currency"] == "currency"
    assert "Date, Currency, Amount by name" in out
    assert result.kept["currency"].to_list() == ["USD", "EUR", "EUR"]
    assert result.kept["amount"].to_list() == [-33.5, 1525.0, -900.0]


def test_a_czech_export_in_cp1250_is_read_in_cp1250(tmp_path, capsys):
    """Česká spořitelna's download: cp1250, a header with a digit in one name ("Variabilní
    symbol 1"), Czech names no list knows. Its text also reads as Windows-1252, wrongly for
    č, ř, ě, ů: where the detector names a Central European language and cp1250 gives its
    letters, inspect reads the file in cp1250 and writes the setting."""
    export = tmp_path / "TH_20260101-20260523_strana_1.csv"
    export.write_bytes(
        '"Položka";"Datum zaúčtování";"Částka CZK";"Název protiúčtu";"Variabilní symbol 1";'
        '"Zpráva pro příjemce"\n'
        '"Platba kartou";"2026/05/02";"-245,00";"ALBERT ŘEPY PRAHA";"1111";"nákup potravin"\n'
        '"Platba kartou";"2026/05/03";"-89,90";"LÉKÁRNA U ČESKÉHO LVA";"2222";"léky"\n'
        '"Příchozí platba";"2026/05/04";"32000,00";"ZAMĚSTNAVATEL S.R.O.";"3333";"mzda květen"\n'
        '"Platba kartou";"2026/05/05";"-120,00";"KAVÁRNA MĚSTSKÁ KNIHOVNA";"4444";"káva"\n'.encode(
            "cp1250"
        )
    )
    out, section, result, _ = loaded(export, capsys)
    assert "header:          line 1: Položka | Datum zaúčtování | Částka CZK" in out
    assert section["encoding"] == "cp1250"
    assert result.rows_in == 4 == result.kept.height
    assert result.kept["amount"].to_list() == [-245.0, -89.9, 32000.0, -120.0]
    assert "ALBERT ŘEPY PRAHA" in result.kept["description"][0]


def test_no_layout_found_names_the_field_no_header_name_gives(tmp_path, capsys):
    """A download with no text column (a booking type, an amount, an account): with one row
    the values cannot tell either. The error says which fields the header's names gave and
    which is missing."""
    export = tmp_path / "Umsaetze_KtoNr538917600_EUR_02-03-2026_1503.CSV"
    export.write_text(
        "Buchungstag;Wertstellung;Umsatzart;Betrag;Währung;Auftraggeberkonto\n"
        "02.03.2026;02.03.2026;Lastschrift;-17,22;EUR;538917600\n"
    )
    code, out, _ = inspect(export, capsys)
    assert code == 1 and "error:" in out
    assert (
        "(line 1 names Buchungstag -> posted_date, Betrag -> amount; no name there gives "
        "description)" in out
    )


def test_unsigned_pairs_by_name_beside_a_column_that_only_mentions_amount(tmp_path, capsys):
    """ZKB: "Amount details" (blank) beside "Debit CHF" and "Credit CHF"; SpareBank 1: "Inn"
    and "Ut" under a Norwegian "Dato". Both are unsigned pairs, and the column names' currency
    is the rows'."""
    zkb = tmp_path / "ZKB.csv"
    zkb.write_text(
        '"Date";"Booking text";"Curr";"Amount details";"ZKB reference";"Debit CHF";"Credit CHF";'
        '"Balance CHF";"Details"\n'
        '"01.01.2026";"Credit salary: Test Employer";"";"";"Z001";"";"5000.00";"5000.00";""\n'
        '"05.01.2026";"Debit TWINT: Test Merchant";"";"";"L001";"25.50";"";"4974.50";""\n'
        '"10.01.2026";"Debit eBill: Test Utility";"";"";"L002";"150.00";"";"4824.50";""\n'
    )
    out, section, result, _ = loaded(zkb, capsys)
    assert {section["column_map"][c] for c in ("Debit CHF", "Credit CHF")} == {"debit", "credit"}
    assert section["column_map"]["Booking text"] == "description"
    assert result.kept["amount"].to_list() == [5000.0, -25.5, -150.0]
    assert set(result.kept["currency"]) == {"CHF"}
    sb1 = tmp_path / "sb1.csv"
    sb1.write_text(
        "Dato;Beskrivelse;Rentedato;Inn;Ut;Til konto;Fra konto;\n"
        '"28.02.2026";"KIWI MAJORSTUEN";;;"-348,56";"12345678901";"98765432109";\n'
        '"25.02.2026";"Lønn";;"28750,34";;"98765432109";"11112222333";\n'
        '"20.02.2026";"MENY BOGSTADVEIEN";;;"-523,78";"12345678901";"98765432109";\n'
    )
    out, section, result, _ = loaded(sb1, capsys)
    assert section["column_map"]["Inn"] == "credit" and section["column_map"]["Ut"] == "debit"
    assert result.kept["amount"].to_list() == [-348.56, 28750.34, -523.78]
    assert "none in the file: USD unless raw_transactions.currency says" in out


def test_names_a_header_gives_are_kept_where_values_fill_the_rest(tmp_path, capsys):
    """Sberbank's card export names its date and description ("Описание") but not its amount
    in a way a name list knows: the amount comes from the values, the description stays the
    named column (not the authorisation code, the text column with the most values)."""
    export = tmp_path / "sberbank.csv"
    export.write_text(
        "Тип карты;Номер карты;Дата совершения операции;Код авторизации;Город;Описание;"
        "Сумма в валюте счета\n"
        "Основная;*6833;31.10.2026;204840;MOSCOW;SBOL перевод 4276 И. ИВАН;-4320,4\n"
        "Основная;*6833;21.10.2026;279185;MOSKVA;ATM 762019;-3100\n"
        "Основная;*6833;20.10.2026;279186;MOSKVA;ATM 762019;-1000\n"
        "Основная;*6833;19.10.2026;111185;MOSCOW;PYATEROCHKA 123;-512,3\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Описание"] == "description"
    assert result.kept["description"].to_list()[1] == "ATM 762019"
    assert result.kept["amount"].to_list() == [-4320.4, -3100.0, -1000.0, -512.3]


def test_a_headerless_file_whose_first_number_runs_as_a_balance(tmp_path, capsys):
    """ASN Bank's headerless CSV: the balance before each booking (column 9) comes before the
    amount (column 11), and the currency is a column of ISO codes: the amount is the column
    the other one moves by, and the codes are the rows' currency. A fee's row has no payee."""
    export = tmp_path / "transactie-historie_NL00ASNB9999999999_20260701.csv"
    rows = [
        ("17-06-2026", "NL99ASNB0000000000", "JANSEN Z", "130.44", "223.77"),
        (
            "17-06-2026",
            "NL11ABNA0000000000",
            "International Card Services B V",
            "354.21",
            "-200.00",
        ),
        ("25-06-2026", "", "", "154.21", "-2.20"),
        ("27-06-2026", "NL22RABO0000000000", "Optimal BV", "152.01", "503.15"),
        ("28-06-2026", "NL33INGB0000000000", "DE VOLKSKRANT B V", "655.16", "-22.95"),
    ]
    export.write_text(
        "".join(
            f"{day},NL00ASNB9999999999,{iban},{name},,,,EUR,{before},EUR,{amount},{day},{day},"
            f"2754,NGM,5139297{n},,'{'Kosten gebruik betaalrekening' if not name else 'Betaling'}',26\n"
            for n, (day, iban, name, before, amount) in enumerate(rows)
        )
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["11"] == "amount" and section["column_map"]["8"] == "currency"
    # the fee has no payee: its purpose text (column 18) joins the description
    assert section["column_map"]["18"] == "description" and result.rows_in == 5
    assert result.kept.height == 5
    assert result.kept["description"][2] == "'Kosten gebruik betaalrekening'"
    assert result.kept["amount"].to_list()[:2] == [223.77, -200.0]
    assert result.kept["description"][1].startswith("International Card Services B V")
    assert set(result.kept["currency"]) == {"EUR"}


def test_baltic_text_in_cp1257_is_read_in_cp1257(tmp_path, capsys):
    """Danske Bank Lithuania's export: cp1257, whose ų, ž and ė read as Windows-1252's ø, þ
    and ë. Where the detector names a Baltic language and cp1257 gives its letters, inspect
    reads the file in cp1257 and writes the setting."""
    export = tmp_path / "danske.csv"
    rows = [
        ("2026-03-01", "Paslaugų ir komisinių pajamos už pervedimus", "-20,00"),
        ("2026-03-02", "Mokestis už lėšų įskaitymo administravimą", "-1,50"),
        ("2026-03-03", "Mokėjimo nurodymas, siuntėjas ACME LLC, mokėjimo paskirtis", "1500,00"),
        ("2026-03-04", "Kortelės operacija MAXIMA Vilnius, pirkinys už prekes", "-35,20"),
    ]
    text = "Data;Aprašymas;Suma\n" + "".join(";".join(row) + "\n" for row in rows)
    export.write_bytes(text.encode("cp1257"))
    out, section, result, _ = loaded(export, capsys)
    assert section["encoding"] == "cp1257" and "Windows-1257, Lithuanian text" in out
    assert result.kept["description"][2].startswith("Mokėjimo nurodymas")


def test_a_text_column_joins_where_the_named_parties_and_purpose_are_blank(tmp_path, capsys):
    """Oberbank: the other party's name and the purpose are often blank, the bank's "Text"
    says what the payment was; the party's IBAN column is no name."""
    export = tmp_path / "oberbank.csv"
    export.write_text(
        "Buchungsdatum;Wertstellung;Betrag;Währung;Auftraggebername;Auftraggeber IBAN/Kto.Nr.;"
        "Empfängername;Empfänger IBAN/Kto.Nr.;Text;Verwendungszweck\n"
        "15.03.2026;15.03.2026;-11,00;EUR;;;;;Kartenzahlung BILLA DANKT 1234;\n"
        "16.03.2026;16.03.2026;-60,00;EUR;;;Wiener Netze;AT000000000000000001;"
        "Lastschrift;Strom März\n"
        "17.03.2026;17.03.2026;2100,00;EUR;ACME GmbH;AT000000000000000002;;;Gutschrift;Gehalt\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert "Empfänger IBAN/Kto.Nr." not in section["column_map"]
    assert section["column_map"]["Text"] == "description"
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["description"][0] == "Kartenzahlung BILLA DANKT 1234"


def test_signed_decimal_comma_amounts_keep_a_debit_credit_column_from_signing_them(
    tmp_path, capsys
):
    """A file whose amounts are signed ("-12,50") already: a column of Soll/Haben marks beside
    them is not mapped to direction, however its amounts' decimal mark is written."""
    export = tmp_path / "umsaetze.csv"
    export.write_text(
        "Buchungstag;Verwendungszweck;Betrag;Kennung\n"
        "01.03.2026;REWE MARKT;-12,50;soll\n02.03.2026;LOHN MAERZ;2100,00;haben\n"
        "03.03.2026;STADTWERKE;-84,00;soll\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert "direction" not in section["column_map"].values()
    assert result.kept["amount"].to_list() == [-12.5, 2100.0, -84.0]


def test_a_card_statements_cr_marked_amounts_are_money_in(tmp_path, capsys):
    """A UK card statement lists purchases unsigned and a payment or refund as "100.00 CR":
    the purchases are flipped to negative, the marked rows stay money in."""
    export = tmp_path / "card.csv"
    export.write_text(
        "Date,Description,Amount\n"
        "02/12/2026,TESCO STORES,12.50\n03/12/2026,AMAZON UK,40.00\n"
        "04/12/2026,PAYMENT RECEIVED - THANK YOU,100.00 CR\n05/12/2026,SAINSBURYS,8.20\n"
        "06/12/2026,REFUND ASOS,15.00CR\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive" and "2 marked CR" in out
    assert result.kept["amount"].to_list() == [-12.5, -40.0, 100.0, -8.2, 15.0]


def test_dr_marked_amounts_beside_unmarked_ones_are_the_money_out(tmp_path, capsys):
    """The other way round: "40.00 DR" is a purchase and the unmarked amounts are money in,
    whatever share of rows each is."""
    export = tmp_path / "statement.csv"
    export.write_text(
        "Date,Description,Amount\n"
        "02/12/2026,SALARY ACME LTD,2000.00\n03/12/2026,INTEREST,1.20\n"
        "04/12/2026,TESCO STORES,40.00 DR\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert "spending" not in section and "1 marked DR" in out
    assert result.kept["amount"].to_list() == [2000.0, 1.2, -40.0]


def test_pending_holds_of_the_other_sign_do_not_decide_the_sign(tmp_path, capsys):
    """PayPal's activity CSV lists each payment (-6.99, Completed) beside a pending hold of the
    opposite sign (6.99, Pending). The holds are counted as pending, not rows, and do not
    outvote the payments: the file's signs are kept, payments out and the gift in."""
    export = tmp_path / "Download.CSV"
    export.write_text(
        '"Date","Name","Type","Status","Currency","Gross","Balance"\n'
        '"10/01/2026","Calm Radio","Subscription Payment","Completed","USD","-6.99","-6.99"\n'
        '"10/01/2026","","General Authorization","Pending","USD","6.99","0.00"\n'
        '"10/02/2026","Patreon","PreApproved Payment","Completed","USD","-7.00","-7.00"\n'
        '"10/02/2026","","General Authorization","Pending","USD","7.00","0.00"\n'
        '"10/19/2026","Wikimedia Foundation","Subscription Payment","Completed","USD","-2.00","-2.00"\n'
        '"10/19/2026","","General Authorization","Pending","USD","2.00","0.00"\n'
        '"10/22/2026","Noble Benefactor","Gift Received","Completed","USD","10.00","9.41"\n'
    )
    out, section, result, counted = loaded(export, capsys)
    assert "spending" not in section and "3 of 4 amounts are negative" in out
    assert result.kept["amount"].to_list() == [-6.99, -7.0, -2.0, 10.0] and counted == 3


def test_the_currency_a_column_name_writes_as_a_symbol_is_the_rows_currency(tmp_path, capsys):
    """DKB heads its amounts "Betrag (€)" and Rakuten Bank "入出金(円)": euros and yen, not the
    dollars a file that names no currency is read in."""
    dkb = tmp_path / "dkb.csv"
    dkb.write_text(
        '"Buchungsdatum";"Wertstellung";"Status";"Verwendungszweck";"Betrag (€)"\n'
        '"08.12.26";"08.12.26";"Gebucht";"Nebenkosten";"200"\n'
        '"05.12.26";"05.12.26";"Gebucht";"K.MICHEL GMBH";"-62,3"\n',
        encoding="utf-8",
    )
    rakuten = tmp_path / "rakuten.csv"
    rakuten.write_text(
        "取引日,入出金(円),取引後残高(円),入出金内容\n"
        "20260407,3146,10000,振込 ヤマダ\n20260427,-3086,6914,ラクテンカ-ドサ-ビス\n",
        encoding="utf-8",
    )
    for export, currency in ((dkb, "EUR"), (rakuten, "JPY")):
        out, section, result, _ = loaded(export, capsys)
        assert section["currency"] == currency and "the column name" in out
        assert set(result.kept["currency"]) == {currency}


def test_two_amount_columns_filled_on_alternate_rows_are_debit_and_credit(tmp_path, capsys):
    """Targobank's headerless export puts a debit in one column and a credit in the next,
    each blank where the other is filled; Sumishin's header names 出金 and 入金 (out, in).
    The credit is money in, not a row quarantined for a blank amount."""
    targobank = tmp_path / "targobank.csv"
    targobank.write_text(
        "03.11.2026;Lastschrift   BANK AG   Visa BestCard ABRECHNUNG;-24,00;;;;'DE35\n"
        "05.11.2026;Lastschrift   STADTWERKE   Abschlag Strom;-61,00;;;;'DE35\n"
        "10.11.2026;Gutschrift   TEAG   RF Strom 1;;83,16;;;'DE67\n"
        "12.11.2026;Kartenzahlung   REWE MARKT   Koeln;-18,45;;;;'DE35\n",
        encoding="utf-8",
    )
    sumishin = tmp_path / "sumishin.csv"
    sumishin.write_text(
        '"日付","内容","出金金額(円)","入金金額(円)","残高(円)","メモ"\n'
        '"2026/01/11","ＡＴＭ　イーネット","35,000",,"965,000","-"\n'
        '"2026/01/25","給与　カブシキガイシャ",,"40,000","1,005,000","-"\n'
        '"2026/01/27","カード　ラクテン","12,000",,"993,000","-"\n',
        encoding="utf-8",
    )
    for export, amounts in (
        (targobank, [-24.0, -61.0, 83.16, -18.45]),
        (sumishin, [-35000.0, 40000.0, -12000.0]),
    ):
        out, section, result, _ = loaded(export, capsys)
        assert {"debit", "credit"} <= set(section["column_map"].values()), out
        assert result.kept["amount"].to_list() == amounts and result.quarantined.height == 0


def test_a_sheets_merged_titles_and_a_balance_in_the_debit_column_are_no_rows(tmp_path, capsys):
    """Targobank's workbook: a title merged across the row ("Liste Ihrer Konten", read into
    every cell it spans) below the bookings, and "Saldo zum 10.11.2026:" written in the debit
    column beside the balance. The title is counted as one, the balance line is the closing
    balance; neither is a quarantined row."""
    import datetime as dt

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Finanzstatus PLUS-KONTO (EUR) bis 10.12.2026"])
    sheet.merge_cells("A1:F1")
    sheet.append([None, None, None, "Ursprünglicher Saldo", None, -100.0, "EUR"])
    sheet.append(["Datum", "Wert", "Label", "Soll", "Haben", "Saldo", "Währung"])
    day = dt.datetime(2026, 11, 3)
    sheet.append([day, day, "Lastschrift ; SCORE-SB-STATION", -53.0, None, -153.0, "EUR"])
    sheet.append([day, day, "Gutschrift ; TEAG Strom", None, 83.16, -69.84, "EUR"])
    sheet.append([day, day, "Kartenzahlung ; REWE MARKT", -20.0, None, -89.84, "EUR"])
    sheet.append(["Liste Ihrer Konten"])
    sheet.merge_cells("A7:G7")
    sheet.append([None, None, None, "Saldo zum 10.11.2026:", None, -89.84, "EUR"])
    export = tmp_path / "umsaetze.xlsx"
    book.save(export)
    out, _, result, counted = loaded(export, capsys)
    assert result.kept["amount"].to_list() == [-53.0, 83.16, -20.0]
    assert result.quarantined.height == 0 and counted == 2
    assert "opening -100.00 (line 2), closing -89.84 (line 8)" in out, out


def test_a_balance_column_that_does_not_run_is_not_checked_row_by_row(tmp_path, capsys):
    """A Norma 43 (csb43) CSV repeats the statement's initial balance on every row: no
    running balance, so no "row missing" warnings, and two identical purchases stay two."""
    export = tmp_path / "csb43.csv"
    export.write_text(
        "account_number,currency,initial_balance,item1,transaction_date,amount\n"
        "1234567890,EUR,000.00,MY_INCOME_LINE,2026-11-02,1500.00\n"
        "1234567890,EUR,000.00,CAFE CENTRAL,2026-11-10,-3.50\n"
        "1234567890,EUR,000.00,CAFE CENTRAL,2026-11-10,-3.50\n"
        "1234567890,EUR,000.00,MERCADONA,2026-11-12,-42.10\n"
    )
    out, _, result, _ = loaded(export, capsys)
    assert result.kept.height == 4 and result.duplicates == 0
    assert "does not follow from the amounts" in out and "warning" not in out
    assert result.notes[0].breaks == [] and not result.notes[0].balance_runs


def test_inspect_says_dotted_qif_dates_are_read_day_first(tmp_path, capsys):
    """Targobank's QIF writes D03.11.25: every date reads both ways, and the reader takes a
    dotted date day first, as a European bank writes it; inspect says so, not "month first"."""
    export = tmp_path / "umsaetze.qif"
    export.write_text(
        "!Type:Bank\nD03.11.25\nT-5.00\nPEchtzeitueberweisung MUSTERMANN\n^\n"
        "D04.11.25\nT-24.00\nPLastschrift BANK AG\n^\n"
    )
    out, _, result, _ = loaded(export, capsys)
    assert "day first, as dotted dates are" in out and "month first" not in out
    assert result.kept["posted_date"].to_list() == ["2025-11-03", "2025-11-04"]


def test_rows_narrower_than_the_header_and_dated_balance_lines(tmp_path, capsys):
    """Swedbank (Lithuania) names 16 columns and leaves each row's empty trailing cells off,
    so every row is narrower than the header; its opening and closing balances ("Likutis
    pradžiai", "Likutis pabaigai") and turnovers ("Apyvarta") are dated rows with an amount.
    The rows are read, the balance lines read as balances and every such line counted."""
    rows = [
        ("10", "2026-01-01", "", "Likutis pradžiai", "2123.82", "K", ""),
        ("20", "2026-01-02", "McDonald's", "PIRKINYS 2025.12.30 McDonald's Vilnius", "14.34", "D",
         "2026010200041787"),
        ("20", "2026-01-02", "KRISTIANA", "PIRKINYS 2025.12.31 KRISTIANA Vilnius", "215.00", "D",
         "2026010200228849"),
        ("20", "2026-01-10", "Company", "Salary", "1600.00", "K", "2026011000000001"),
        ("82", "2026-01-31", "", "Apyvarta", "229.34", "D", ""),
        ("82", "2026-01-31", "", "Apyvarta", "1600.00", "K", ""),
        ("86", "2026-01-31", "", "Likutis pabaigai", "3494.48", "K", ""),
    ]  # fmt: skip
    export = swedbank_export(tmp_path / "swedbank.csv", rows)
    out, _, result, counted = loaded(export, capsys)
    assert result.kept.height == 3 and result.quarantined.height == 0 and counted == 4
    assert "opening 2,123.82 (line 2), closing 3,494.48 (line 8)" in out
    # the payee (Gavėjas) leads the explanation (Paaiškinimai); Valiuta is the currency
    assert result.kept["description"][0].startswith("McDonald's PIRKINYS")
    assert set(result.kept["currency"]) == {"EUR"}
    assert "warning" not in out


def test_a_last_column_whose_text_the_bank_spreads_over_more_cells_is_joined(tmp_path, capsys):
    """Livebank's export names ten columns and writes its "Umsatztext" as one quoted cell per
    line of the text, so every row is wider than the header: those cells are the text."""
    export = tmp_path / "livebank.csv"
    export.write_text(
        "Kontonummer;Auszugsnummer;Buchungsdatum;Valutadatum;Umsatzzeit;Zahlungsreferenz;"
        "Waehrung;Betrag;Buchungstext;Umsatztext\n"
        '12345678;1;2026-07-03;2026-07-03;2026-07-03-08.21.36.47192;"";EUR;-150,00;'
        '"Datenträger-Umsatz";A name;"Miete Juli";"REF: XXXX"\n'
        '12345678;1;2026-06-10;2026-06-10;2026-06-10-10.09.26.114844;"";EUR;-100,00;'
        '"Internetauftrag";"Stadtwerke";"Abschlag Strom"\n'
        '12345678;1;2026-06-05;2026-06-05;2026-06-05-10.09.26.114844;"";EUR;-20,00;'
        '"Kartenzahlung";"BILLA DANKT";"Wien";"1010"\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Umsatztext"] == "description" and result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "A name Miete Juli REF: XXXX", "Stadtwerke Abschlag Strom", "BILLA DANKT Wien 1010"
    ]  # fmt: skip


def test_a_signed_file_with_more_money_in_than_out_is_not_flipped(tmp_path, capsys):
    """A Sparkasse account whose booked rows hold more credits than debits (its pending
    debits, named, count for the sign too), and a savings account of two deposits and a
    withdrawal: a fair share of negative amounts says the file signs them; neither is flipped."""
    sparkasse = tmp_path / "sparkasse.csv"
    sparkasse.write_text(
        '"Auftragskonto";"Buchungstag";"Buchungstext";"Verwendungszweck";'
        '"Beguenstigter/Zahlungspflichtiger";"Betrag";"Waehrung";"Info"\n'
        '"DE1";"05.12.26";"KARTENZAHLUNG";"REWE";"REWE Markt";"-12,85";"EUR";"Umsatz vorgemerkt"\n'
        '"DE1";"05.12.26";"LASTSCHRIFT";"Strom";"Stadtwerke";"-29,99";"EUR";"Umsatz vorgemerkt"\n'
        '"DE1";"04.12.26";"ENTGELTABSCHLUSS";"Kontofuehrung";"Sparkasse";"-5,95";"EUR";"Umsatz gebucht"\n'
        '"DE1";"03.12.26";"GUTSCHR. UEBERWEISUNG";"Miete";"Max Muster";"67,50";"EUR";"Umsatz gebucht"\n'
        '"DE1";"02.12.26";"GUTSCHR. UEBERWEISUNG";"Rechnung 7";"Firma A";"119,00";"EUR";"Umsatz gebucht"\n'
        '"DE1";"01.12.26";"GUTSCHR. UEBERWEISUNG";"Rechnung 8";"Firma B";"158,90";"EUR";"Umsatz gebucht"\n',
        encoding="utf-8",
    )
    savings = tmp_path / "savings.csv"
    savings.write_text(
        "Date,Description,Amount\n2026-07-03,TRANSFER FROM CHECKING,150.00\n"
        "2026-06-10,ONLINE TRANSFER TO CHECKING,-100.00\n2026-06-05,TRANSFER FROM CHECKING,500.00\n"
    )
    for export, amounts in (
        (sparkasse, [-5.95, 67.5, 119.0, 158.9]),
        (savings, [150.0, -100.0, 500.0]),
    ):
        out, section, result, _ = loaded(export, capsys)
        assert "spending" not in section and "are negative (signed" in out, out
        assert result.kept["amount"].to_list() == amounts


def test_shops_named_like_a_balance_or_a_total_are_purchases(tmp_path, capsys):
    """ "New Balance" sells shoes and "Total" fuel: dated rows with those texts are purchases,
    not balance or totals lines."""
    export = tmp_path / "account-statement.csv"
    export.write_text(
        "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\n"
        "CARD_PAYMENT,Current,2026-01-02 10:00:00,2026-01-03 10:00:00,Lidl,-12.50,0.00,EUR,"
        "COMPLETED,987.50\n"
        "CARD_PAYMENT,Current,2026-01-03 10:00:00,2026-01-04 10:00:00,Total,-60.00,0.00,EUR,"
        "COMPLETED,927.50\n"
        "CARD_PAYMENT,Current,2026-01-04 10:00:00,2026-01-05 10:00:00,New Balance,-89.99,0.00,"
        "EUR,COMPLETED,837.51\n"
    )
    out, _, result, counted = loaded(export, capsys)
    assert result.kept["description"].to_list() == ["Lidl", "Total", "New Balance"]
    assert counted == 0 and "warning" not in out


def test_a_small_card_statement_with_one_payment_keeps_its_purchases_as_spending(tmp_path, capsys):
    """Discover's download: three purchases positive and the payment, "INTERNET PAYMENT -
    THANK YOU", negative. A quarter of the amounts are negative, but the payment says it is
    money in: the purchases are flipped."""
    export = tmp_path / "Discover-Statement-20260105.csv"
    export.write_text(
        "Trans. Date,Post Date,Description,Amount,Category\n"
        "01/02/2026,01/02/2026,STARBUCKS STORE 123,4.50,Restaurants\n"
        "01/03/2026,01/03/2026,INTERNET PAYMENT - THANK YOU,-250.00,Payments and Credits\n"
        "01/04/2026,01/04/2026,SHELL OIL 5551,40.00,Gasoline\n"
        "01/05/2026,01/05/2026,AMAZON MKTPLACE,12.00,Merchandise\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive"
    assert result.kept["amount"].to_list() == [-4.5, 250.0, -40.0, -12.0]


def test_a_headerless_credit_column_before_the_debit_one_is_told_by_its_income_rows(
    tmp_path, capsys
):
    """Two complementary unsigned amount columns, the credits first: the rows that fill the
    first say they are income ("Gehalt", "Gutschrift"), so it is the credit column."""
    export = tmp_path / "umsaetze.csv"
    export.write_text(
        "03.11.2026;Gehalt ACME GmbH;2500,00;;3500,00\n"
        "05.11.2026;Lastschrift STADTWERKE Strom;;61,00;3439,00\n"
        "07.11.2026;Kartenzahlung REWE MARKT Koeln;;18,45;3420,55\n"
        "09.11.2026;Gutschrift TEAG Erstattung;83,16;;3503,71\n"
        "12.11.2026;Kartenzahlung ALDI SUED;;22,10;3481,61\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["3"] == "credit" and "say they are income" in out
    assert result.kept["amount"].to_list() == [2500.0, -61.0, -18.45, 83.16, -22.1]


def swedbank_export(path: Path, rows: list[tuple]) -> Path:
    """A Swedbank (Lithuania) CSV of ``rows`` (kind, day, payee, text, amount, D/K, entry):
    16 names in the header, each row without its trailing empty cells."""
    names = ["Sąskaitos Nr.", "", "Data", "Gavėjas", "Paaiškinimai", "Suma", "Valiuta", "D/K",
             "Įrašo Nr.", "Kodas", "Įmokos kodas", "Dok. Nr.", "Kliento kodas mokėtojo IS",
             "Kliento kodas", "Pradinis mokėtojas", "Galutinis gavėjas"]  # fmt: skip
    lines = [",".join(f'"{n}"' for n in names) + ","]
    for kind, day, payee, text, amount, mark, entry in rows:
        cells = ["LT797300010000000000", kind, day, payee, text, amount, "EUR", mark, entry, "K"]
        lines.append(",".join(f'"{c}"' for c in cells + ["", ""]) + ",")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_statement_of_a_file_is_framed_by_its_own_balances(tmp_path, capsys):
    """Two statements in one Swedbank file, each with its opening and closing balance: the
    first adds up, the second's closing is 10.00 off its rows, and only that one is said."""
    rows = [
        ("10", "2026-01-01", "", "Likutis pradžiai", "100.00", "K", ""),
        ("20", "2026-01-02", "Company", "Salary", "50.00", "K", "1"),
        ("86", "2026-01-31", "", "Likutis pabaigai", "150.00", "K", ""),
        ("10", "2026-02-01", "", "Likutis pradžiai", "500.00", "K", ""),
        ("20", "2026-02-03", "Maxima", "PIRKINYS Maxima Vilnius", "20.00", "D", "2"),
        ("86", "2026-02-28", "", "Likutis pabaigai", "470.00", "K", ""),
    ]
    out, _, result, _ = loaded(swedbank_export(tmp_path / "swedbank.csv", rows), capsys)
    assert result.kept["amount"].to_list() == [50.0, -20.0]
    (warning,) = result.notes[0].warnings
    assert "opening balance 500.00 (line 5) + the rows' amounts (-20.00) = 480.00" in warning
    assert "closing balance is 470.00 (line 7): -10.00 unaccounted" in warning
