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


def test_a_card_of_positive_amounts_with_pending_rows(tmp_path, capsys):
    """M&S Bank's card export: every amount positive with its pound sign, the payment received
    among them, and rows not booked yet dated "Pending": the purchases are positive (a
    payment shown positive says nothing where no amount is negative), the pending rows are
    counted, not quarantined. The payment received is marked by a "CR" in a column the header
    leaves unnamed: that row is quarantined, naming it."""
    export = tmp_path / "MS_JANE_SMITH_01-12-2026_14-12-2026.csv"
    export.write_text(
        "\ufeffDate Processed,Description,Amount,\n"
        "Pending,L'OLILO                 LONDON       GBR,£67.40,\n"
        "Pending,NOWTV.COM/BILLINGHELP    SKY          GBR,£8.99,\n"
        '12-Dec-2026,ROYAL LONDON INSURANCE        01222 61234  GBR,"£1,183.23",\n'
        "12-Dec-2026,DELIVEROO.CO.UK        LONDON        LND,£18.89,\n"
        "03-Dec-2026,TFL TRAVEL CH          TFL.GOV.UK/CP GBR,£1.50,\n"
        '02-Dec-2026,PAYMENT RECEIVED - THANK YOU,"+ £1,100.00",CR\n',
        encoding="utf-8",
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["spending"] == "positive" and "purchases positive" in out
    assert counted == 2 and "pending transaction line 2" in out
    assert result.kept["amount"].to_list() == [-1183.23, -18.89, -1.5]
    # the payment's "CR" sits in a column the header does not name: quarantined, named
    assert result.rows_in == 4 and dict(result.reasons) == {"malformed_csv": 1}
    assert (
        "expected 3 columns (Date Processed, Description, Amount), found 4"
        in (result.quarantined["detail"][0])
    )


def test_section_titles_among_the_rows_are_counted_not_quarantined(tmp_path, capsys):
    """Schwab's checking download: a title line above the header, then two lines of one cell
    ("Pending Transactions are not reflected ...", "Posted Transactions") before the rows."""
    export = tmp_path / "EAC_Checking_Transactions_20261223-160009.CSV"
    export.write_text(
        "Transactions  for Checking account EAC as of 12/23/2026 16:00:10 ET\n"
        '"Date","Type","Check #","Description","Withdrawal (-)","Deposit (+)","RunningBalance"\n'
        '"Pending Transactions are not reflected within this sort criterion."\n'
        '"Posted Transactions"\n'
        '"12/20/2026","ATMREBATE","","ATM Fee Rebate","","$3.00","$20,053.01"\n'
        '"12/18/2026","WIRE","","Incoming Wire Transfer","","$20,000.00","$20,050.01"\n'
        '"12/13/2026","TRANSFER","","Funds Transfer to Brokerage","$10,500.00","","$50.01"\n'
    )
    out, _, result, counted = loaded(export, capsys)
    assert counted == 2 and "section title line 3, section title line 4" in out
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["amount"].to_list() == [3.0, 20000.0, -10500.0]


def test_a_czech_export_in_cp1250_gets_its_header_and_a_hint_for_its_letters(tmp_path, capsys):
    """Česká spořitelna's download: cp1250, a header with a digit in one name ("Variabilní
    symbol 1"), Czech names no list knows. Its text also reads as Windows-1252 (wrongly for
    č, ř, ě, ů), which inspect keeps, saying which setting reads it right."""
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
    assert "header:          line 1: Položka | Datum zaúètování | Èástka CZK" in out
    assert "set encoding: cp1250" in out
    assert result.rows_in == 4 == result.kept.height
    assert result.kept["amount"].to_list() == [-245.0, -89.9, 32000.0, -120.0]
    section["encoding"] = "cp1250"  # as the hint says, the names as they read in it
    section["column_map"] = {
        name.encode("cp1252").decode("cp1250"): ours for name, ours in section["column_map"].items()
    }
    fixed = scan_exports(export, RawTransactionsParams(**section))
    assert "ALBERT ŘEPY PRAHA" in fixed.kept["description"][0]


def test_no_layout_found_names_the_field_no_header_name_gives(tmp_path, capsys):
    """Commerzbank's download: "Buchungstext" is the text there, but another German bank's
    booking type elsewhere; with one row the values cannot tell either. The error says which
    fields the header's names gave and which is missing."""
    export = tmp_path / "Umsaetze_KtoNr538917600_EUR_02-03-2026_1503.CSV"
    export.write_text(
        "Buchungstag;Wertstellung;Umsatzart;Buchungstext;Betrag;Währung;Auftraggeberkonto\n"
        '02.03.2026;02.03.2026;Lastschrift;"Kartenzahlung REWE SAGT DANKE 41400673";-17,22;EUR;'
        "538917600\n"
    )
    code, out, _ = inspect(export, capsys)
    assert code == 1 and "error:" in out
    assert (
        "(line 1 names Buchungstag -> posted_date, Betrag -> amount; no name there gives "
        "description)" in out
    )


def test_a_blank_named_date_column_gives_way_and_a_footer_is_counted(tmp_path, capsys):
    """Fidelity's account history: blank lines above the header, a "Settlement Date" left
    blank on cash rows beside the "Run Date", and a disclaimer below the rows, its text in the
    first cell of otherwise empty lines."""
    export = tmp_path / "History_for_Account_X8YYYYYYY.csv"
    export.write_text(
        ",,,,,\n,,,,,\n"
        "Run Date,Action,Security Description,Quantity,Amount ($),Settlement Date\n"
        "01/27/2026, DIRECT DEBIT TREASURY DIRECT (Cash), No Description,,-10000,\n"
        "01/23/2026, DIRECT DEBIT CHASE CREDIT AUTOPAY (Cash), No Description,,-135.6,\n"
        "01/19/2026, DIRECT DEPOSIT HOOGLE INC. PAYROLL (Cash), No Description,,1001.1,\n"
        ",,,,,\n"
        "The data and information in this spreadsheet is provided to you solely for your use,,,,,\n"
        '"informational purposes only, and is not intended to provide advice.",,,,,\n'
        "Brokerage services are provided by Fidelity Brokerage Services LLC 900 Salem Street,,,,,\n"
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Run Date"] == "posted_date"
    assert counted == 3 and result.rows_in == 3 == result.kept.height
    assert result.kept["posted_date"].to_list()[0] == "2026-01-27"


def test_a_date_alone_in_the_first_cell_is_quarantined_not_counted_away(tmp_path):
    """A line with only a date (or a number) in its first cell may be a row whose other cells
    were lost: quarantined, named, never counted as a title."""
    export = tmp_path / "export.csv"
    export.write_text(
        "Date,Description,Amount\n2026-01-05,COFFEE,-3.50\n2026-01-06,,\n12 Jan 2026,,\n"
    )
    result = scan_exports(
        export,
        RawTransactionsParams(
            column_map={"Date": "posted_date", "Description": "description", "Amount": "amount"}
        ),
    )
    assert result.rows_in == 3 and result.kept.height == 1 and result.quarantined.height == 2
    assert not result.notes[0].statement_lines


def test_continuation_lines_join_the_row_above(tmp_path, capsys):
    """OCBC's history: each row's payee on a line of its own below it, in the description's
    column alone, and withdrawals and deposits in columns named with the currency."""
    export = tmp_path / "TransactionHistory_20260418043121.csv"
    export.write_text(
        "Account details for:,FRANK Account 666-666666-666\n"
        'Available Balance,"6,666.66"\n\nTransaction History\n'
        "Transaction date,Value date,Description,Withdrawals (SGD),Deposits (SGD)\n"
        "18/04/2026,18/04/2026,DEBIT PURCHASE,6.66,\n"
        ",,15/04/26  66-6666 UBER EATS AN2GO HELP.UBER\n"
        "17/04/2026,17/04/2026,CASH WITHDRAWAL  ATM,66.66,\n"
        ",,66-6666 OCBC-666 BRANCH          S\n"
        "16/04/2026,16/04/2026,SALARY,,3000.00\n"
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Withdrawals (SGD)"] == "debit"
    assert counted == 2 and "continuation line line 7, continuation line line 9" in out
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["description"].to_list() == [
        "DEBIT PURCHASE 15/04/26  66-6666 UBER EATS AN2GO HELP.UBER",
        "CASH WITHDRAWAL  ATM 66-6666 OCBC-666 BRANCH          S",
        "SALARY",
    ]
    assert result.kept["amount"].to_list() == [-6.66, -66.66, 3000.0]


def test_pending_rows_by_their_status_column(tmp_path, capsys):
    """Revolut's statement lists card payments not yet completed with State PENDING and no
    completed date: counted as pending, not kept as booked."""
    export = tmp_path / "account-statement_2026-01-01_2026-01-31.csv"
    export.write_text(
        "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\n"
        "TRANSFER,Current,2026-01-02 12:16:54,2026-01-02 12:16:55,To Guybrush,-250.00,0.00,EUR,"
        "COMPLETED,442.67\n"
        "CARD_PAYMENT,Current,2026-01-13 11:21:43,,store,-44.57,0.00,EUR,PENDING,\n"
        "CARD_PAYMENT,Current,2026-01-14 08:40:02,2026-01-15 10:28:09,Cafe,-3.20,0.00,EUR,"
        "COMPLETED,439.47\n"
    )
    out, _, result, counted = loaded(export, capsys)
    assert counted == 1 and "pending transaction line 3" in out
    assert result.kept["description"].to_list() == ["To Guybrush", "Cafe"]
    assert set(result.kept["currency"]) == {"EUR"}


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


def test_baltic_text_in_cp1257_gets_a_hint_for_its_letters(tmp_path, capsys):
    """Danske Bank Lithuania's export: cp1257, whose ų, ž and ė read as Windows-1252's ø, þ
    and ë. inspect keeps Windows-1252 (the detector says Slovak of some Spanish text too) and
    says which setting reads the letters right."""
    export = tmp_path / "danske.csv"
    rows = [
        ("2026-03-01", "Paslaugų ir komisinių pajamos už pervedimus", "-20,00"),
        ("2026-03-02", "Mokestis už lėšų įskaitymo administravimą", "-1,50"),
        ("2026-03-03", "Mokėjimo nurodymas, siuntėjas ACME LLC, mokėjimo paskirtis", "1500,00"),
        ("2026-03-04", "Kortelės operacija MAXIMA Vilnius, pirkinys už prekes", "-35,20"),
    ]
    text = "Data;Aprašymas;Suma\n" + "".join(";".join(row) + "\n" for row in rows)
    export.write_bytes(text.encode("cp1257"))
    out, section, _, _ = loaded(export, capsys)
    assert section["encoding"] == "cp1252" and "set encoding: cp1257" in out
    assert "reads it as Lithuanian in cp1257" in out


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


def test_inspect_counts_a_too_long_description_as_the_load_does(tmp_path, capsys):
    """Sparkasse's quarterly closing notice: one row of 0,00 whose text runs to 960
    characters. inspect says it is quarantined, as the load will, instead of "0 quarantined"."""
    export = tmp_path / "umsatz.csv"
    notice = "ABSCHLUSS " + "Entgelte und Zinsen fuer den Abrechnungszeitraum " * 20
    export.write_text(
        "Buchungstag;Verwendungszweck;Betrag\n"
        "30.03.2026;KARTENZAHLUNG REWE;-12,40\n"
        f"31.03.2026;{notice};0,00\n"
        "01.04.2026;LOHN APRIL;2100,00\n"
    )
    out, _, result, _ = loaded(export, capsys)
    assert "rows:            3 in: 2 kept, 1 quarantined" in out
    assert dict(result.reasons) == {"description_too_long": 1}


def test_a_label_column_and_balances_stated_at_the_start_and_end_of_the_period(tmp_path, capsys):
    """A French bank's English export: the text under "Label", the closing balance stated
    above the header and the opening one below the rows, its figure in the credit column."""
    export = tmp_path / "statement.csv"
    export.write_text(
        "Bank code : 1001010101,Agency Code : 10000,Download start date : 01/04/2026,,,\n"
        ",,,,,\n"
        'Balance at end of period,,,,"+31070,11",\n'
        "Date,Operation Number,Label,Debit,Credit,Detail\n"
        '01/04/26,OP 1,CARTE MONOPRIX PARIS,"-50,00",,DETAILS 1\n'
        '02/04/26,OP 2,VIR SALAIRE ACME,,"1300,00",DETAILS 2\n'
        'Balance at start of period,,,,"+29820,11",\n'
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Label"] == "description"
    assert counted == 1 and "balance line 7" in out
    assert result.rows_in == 2 == result.kept.height
    assert result.kept["amount"].to_list() == [-50.0, 1300.0]


def test_a_fee_column_moves_the_running_balance_beside_the_amount(tmp_path, capsys):
    """Revolut charges a card payment's fee in a column of its own: the balance falls by the
    amount and the fee. The row's amount stays the payment's; the balance check counts both
    instead of warning of a missing row."""
    export = tmp_path / "Revolut_EUR.csv"
    export.write_text(
        "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\n"
        "TOPUP,Current,2026-01-01 10:00:00,2026-01-01 10:00:01,Top-up,1000.00,0.00,EUR,"
        "COMPLETED,1000.00\n"
        "CARD_PAYMENT,Current,2026-03-01 16:45:00,2026-03-02 10:30:00,Online Store,-50.25,0.15,"
        "EUR,COMPLETED,949.60\n"
        "TRANSFER,Current,2026-03-15 11:00:00,2026-03-15 11:00:01,Rent,-100.00,0.00,EUR,"
        "COMPLETED,849.60\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Fee"] == "fee"
    assert result.kept["amount"].to_list() == [1000.0, -50.25, -100.0]
    assert "2 of 2 steps follow" in out and "does not follow" not in out
    assert not result.notes[0].breaks
