"""Which column is a table's text, amount and balance, as bank and app downloads write them:
a merchant's name beside a time of day (PC Financial's Mastercard), a product name on every
row beside the real text (UBS), a party beside a payment reference or a purpose (N26,
Outbank, Neon), a full description beside a booking type (Fineco), ING Spain's "desc";
balances read as balances (BancoPosta's SALDO INIZIALE / FINALE, the balance before and
after each row in ABN AMRO's headerless download, Handelsbanken's header below a preamble);
Shinsei's and UBS's names; and the refusal that names the column it cannot read. Every file
is written here in its layout, not copied; rows in = kept + quarantined + duplicates."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.statements import balance_in, statement_line
from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded


def test_a_merchant_name_column_is_the_text_and_the_merchant_never_the_time(tmp_path, capsys):
    """PC Financial's Mastercard names no description: "Merchant Name" is the text and the
    merchant; the "Time" column ("06:50 PM", words with a space) is never the text."""
    export = tmp_path / "pcmastercard.csv"
    export.write_text(
        '"Merchant Name","Card Used For Transaction","Date","Time","Amount"\n'
        '"Mobil","**** 1234","01/10/2019","06:50 PM","36.33"\n'
        '"APL*ITUNES.COM/BILL","**** 4567","12/15/2018","05:08 PM","13.98"\n'
        '"Loblaws","**** 1234","12/16/2018","11:02 AM","54.10"\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Merchant Name"] == "description"
    assert "Time" not in section["column_map"]
    assert result.kept["description"].to_list() == ["Mobil", "APL*ITUNES.COM/BILL", "Loblaws"]
    assert result.kept["merchant"].to_list() == ["Mobil", "APL*ITUNES.COM/BILL", "Loblaws"]


def test_a_column_of_times_is_no_text_in_a_file_without_a_header(tmp_path, capsys):
    """Without a header the text is the column of words with the most different values; a
    time of day ("06:50 PM") is not one, though it has a space in it."""
    export = tmp_path / "card.csv"
    export.write_text(
        "2026-01-05,06:50 PM,-12.50,COFFEE SHOP\n"
        "2026-01-06,07:15 AM,-40.00,SHELL OIL\n"
        "2026-01-07,01:02 PM,-9.99,NETFLIX COM\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["4"] == "description"
    assert result.kept["description"].to_list() == ["COFFEE SHOP", "SHELL OIL", "NETFLIX COM"]


def test_ubs_text_is_in_its_numbered_descriptions_not_the_product_name(tmp_path, capsys):
    """UBS writes the account's product ("Compte personnel UBS") in "Description" on every
    row and the text in "Description 1" to "3"; "Monn." is the currency."""
    export = tmp_path / "ubs.csv"
    export.write_text(
        "Produit;Monn.;Description;Date de valeur;Description 1;Description 2;Description 3;"
        "N° de transaction;Débit;Crédit;Solde\n"
        "0123 45678901.23A;CHF;Compte personnel UBS;31.03.2019;Solde prix prestations;;;"
        "A01;10.00;;11373.94\n"
        "0123 45678901.23A;CHF;Compte personnel UBS;28.02.2019;Virement postal;"
        "ASSOCIATION FOO-BAR;BVD 1, 1201 GENEVE;A02;;240.00;11613.94\n"
        "0123 45678901.23A;CHF;Compte personnel UBS;27.04.2019;Ordre e-banking;REMB-CASH;"
        "Quuz-baz SARL, 1203 GENEVE;A03;200.00;;11413.94\n",
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Monn."] == "currency"
    assert "Description" not in section["column_map"]
    assert "Description holds one value on every row" in out
    assert result.kept["description"].to_list() == [
        "Solde prix prestations",
        "Virement postal ASSOCIATION FOO-BAR BVD 1, 1201 GENEVE",
        "Ordre e-banking REMB-CASH Quuz-baz SARL, 1203 GENEVE",
    ]
    assert set(result.kept["currency"]) == {"CHF"}
    assert result.kept["amount"].to_list() == [-10.0, 240.0, -200.0]


N26_HEADER = (
    '"Booking Date","Value Date","Partner Name","Partner Iban",Type,"Payment Reference",'
    '"Account Name","Amount (EUR)","Original Amount","Original Currency","Exchange Rate"\n'
)


def test_n26_partner_and_payment_reference_are_the_text_and_the_partner_the_merchant(
    tmp_path, capsys
):
    """N26: "Partner Name" is the other party and "Payment Reference" the purpose, joined
    (the party first); a row without a reference keeps its party."""
    export = tmp_path / "n26.csv"
    export.write_text(
        N26_HEADER + '2024-01-15,2024-01-15,"STARBUCKS COFFEE",,Presentment,,"Main Account",'
        "-4.50,4.50,EUR,1\n"
        '2024-01-16,2024-01-16,"AMAZON.COM",,Presentment,"Online purchase - Books",'
        '"Main Account",-29.99,29.99,EUR,1\n'
        '2024-01-18,2024-01-18,"John Smith",DE89370400440532013000,"Credit Transfer",'
        '"Salary January 2024","Main Account",2500.00,,,\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Partner Name"] == "description"
    assert section["column_map"]["Payment Reference"] == "description"
    assert result.kept["description"].to_list() == [
        "STARBUCKS COFFEE",
        "AMAZON.COM Online purchase - Books",
        "John Smith Salary January 2024",
    ]
    assert result.kept["merchant"].to_list() == ["STARBUCKS COFFEE", "AMAZON.COM", "John Smith"]


def test_n26_rows_without_any_reference_are_read_by_their_partner(tmp_path, capsys):
    """Two transfers between one's own N26 spaces: no reference at all, the partner alone."""
    export = tmp_path / "n26-fr.csv"
    export.write_text(
        N26_HEADER + '2020-03-07,,"Compte courant",DE27100110000000000000,"Credit Transfer",,'
        '"Coffre fort",328.00,,,\n'
        '2020-03-07,,"Compte courant",DE27100110000000000000,"Debit Transfer",,"Coffre fort",'
        "-328.00,,,\n"
    )
    _, _, result, _ = loaded(export, capsys)
    assert result.kept["description"].to_list() == ["Compte courant", "Compte courant"]
    assert result.kept["amount"].to_list() == [328.0, -328.0]


def test_outbank_reason_joins_the_name_which_is_the_merchant(tmp_path, capsys):
    """Outbank writes the other party in "Name" and the payment's purpose in "Reason"."""
    export = tmp_path / "outbank.csv"
    export.write_text(
        "#;Account;Date;Value Date;Amount;Currency;Name;Number;Bank;Reason;Category\n"
        '1;DE81254326973657190105;2/20/19;2/20/19;100,00;EUR;"Jane Doe";"DE21290466325050683191";'
        '"INGDDEFFXXX";"Jane Doe";"Refund"\n'
        '2;DE81254326973657190105;2/8/19;2/8/19;-63,89;EUR;"Shell Gas";"DE33674643548447246470";'
        '"CHASDEFX";"Shell Gas purchase MASTER 0123456789";"Travel"\n'
        '3;DE81254326973657190105;1/21/19;1/21/19;-47,00;EUR;"Vattenfall";'
        '"DE09550104000533925078";"AARBDE5WDOM";"Energy bill Jan 2019";"Household"\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Reason"] == "description"
    assert result.kept["description"].to_list() == [
        "Jane Doe",
        "Shell Gas purchase MASTER 0123456789",
        "Vattenfall Energy bill Jan 2019",
    ]
    assert result.kept["merchant"].to_list() == ["Jane Doe", "Shell Gas", "Vattenfall"]


def test_neon_subject_joins_its_description(tmp_path, capsys):
    """Neon writes who was paid in "Description" and what for in "Subject"."""
    export = tmp_path / "neon.csv"
    export.write_text(
        '"Date";"Amount";"Original amount";"Original currency";"Exchange rate";"Description";'
        '"Subject";"Category";"Tags";"Wise";"Spaces"\n'
        '"2024-12-30";"-3000.00";"";"";"";"Investment Broker";"Account Transfer";"finances";"";'
        '"no";"no"\n'
        '"2024-12-24";"-24.95";"";"";"";"Internet Provider";"Monthly Internet Service";'
        '"housing";"";"no";"no"\n'
        '"2024-12-20";"7484.95";"";"";"";"Employer Name";"Salary Payment 202412";'
        '"income_salary";"";"no";"no"\n'
    )
    _, _, result, _ = loaded(export, capsys)
    assert result.kept["description"].to_list() == [
        "Investment Broker Account Transfer",
        "Internet Provider Monthly Internet Service",
        "Employer Name Salary Payment 202412",
    ]


def test_ing_spain_desc_is_the_text_not_its_subcategory(tmp_path, capsys):
    """ING Spain's "subcategory" ("Compras (otros)") varies as much as its "desc": the name
    says which is the text."""
    export = tmp_path / "ingesp.csv"
    export.write_text(
        "date,class,subcategory,desc,notes,image,amount,balance\n"
        "24/03/2022,Ventajas ING,Otras Ventajas ING,Abono por campaña Abono Shopping,,No,"
        "2.83,1719.90\n"
        "31/03/2022,Compras,Compras (otros),Devolución Tarjeta AMZN Mktp ES,,No,1.37,1721.27\n"
        "02/04/2022,Ocio,Restaurantes y bares,Pago en SPORTS BAR DANI,,No,-17.60,1703.67\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["desc"] == "description"
    assert result.kept["description"].to_list() == [
        "Abono por campaña Abono Shopping",
        "Devolución Tarjeta AMZN Mktp ES",
        "Pago en SPORTS BAR DANI",
    ]


def test_fineco_full_description_is_the_text_below_its_preamble(tmp_path, capsys):
    """Fineco's movements sheet: "Descrizione" is the booking type, "Descrizione_Completa"
    the text."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in (
        ["Conto Corrente: 0000000"],
        ["Periodo Dal: 01/01/2024 Al: 31/12/2024"],
        [],
        ["Data", "Entrate", "Uscite", "Descrizione", "Descrizione_Completa", "Stato"],
        ["30/12/2024", None, -9.99, "VISA DEBIT", "Pagamento Visa Debit SPOTIFY", "Contabilizzato"],
        ["31/12/2024", 150.62, None, "Bonifico SEPA Italia", "Bonifico da ROSSI MARIO", "Contabilizzato"],
    ):  # fmt: skip
        sheet.append(row)
    export = tmp_path / "movements.xlsx"
    book.save(export)
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Descrizione_Completa"] == "description"
    assert result.kept["description"].to_list() == [
        "Pagamento Visa Debit SPOTIFY",
        "Bonifico da ROSSI MARIO",
    ]


def test_bancoposta_saldo_iniziale_and_finale_are_its_balances(tmp_path, capsys):
    """BancoPosta frames its rows with "SALDO INIZIALE" and "|SALDO FINALE" lines: the
    opening and the closing balance, neither a row."""
    export = tmp_path / "bancoposta.csv"
    export.write_text(
        "Data;Valuta;Addebiti;Accrediti;Descrizione operazioni\n"
        "31/12/17;;;26.851,95|;SALDO INIZIALE\n"
        "03/01/18;03/01/18;2,90;;IMPOSTA DI BOLLO\n"
        "23/01/18;23/01/18;;1.250,00;BONIFICO A VOSTRO FAVORE DA NOME PER CAUSALE\n"
        "31/01/18;;;28.099,05;|SALDO FINALE\n"
    )
    out, _, result, counted = loaded(export, capsys)
    assert counted == 2 and result.rows_in == 2
    assert result.kept["amount"].to_list() == [-2.9, 1250.0]
    assert "opening 26,851.95 (line 2), closing 28,099.05 (line 5)" in out
    assert "unaccounted" not in out


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("SALDO INIZIALE", "opening"),
        ("SALDO FINALE", "closing"),
        ("Saldo inicial", "opening"),
        ("Saldo anterior", "opening"),
        ("Saldo final", "closing"),
        ("Solde initial", "opening"),
        ("Solde final", "closing"),
        ("Ancien solde", "opening"),
        ("Nouveau solde", "closing"),
    ],
)
def test_italian_spanish_portuguese_and_french_balance_lines(text, kind):
    """A dated line whose whole text is such a phrase is a balance line, of its kind."""
    record = {"posted_date": "31/01/2026", "amount": "1.234,56", "description": f"|{text}"}
    assert statement_line(record) == "balance"
    found = balance_in(["31/01/2026", text, "1.234,56"], ",", 7)
    assert found is not None and (found.kind, found.amount) == (kind, 1234.56)


HANDELSBANKEN_ROWS = (
    "2025-01-02;2025-01-02;blipp;-238;779,4\n2025-01-02;2025-01-02;blupp;-228;1017,4\n"
)


def test_handelsbanken_header_below_its_preamble(tmp_path, capsys):
    """Handelsbanken puts its name, the account and the period above the header."""
    export = tmp_path / "handelsbanken.csv"
    export.write_text(
        "Handelsbanken\n2025-01-03, 15:52\n\ntransactionaccount 123 123 123\n\n"
        "Period: 2024-11-05 - 2025-01-03\n\n"
        "Reskontradatum;Transaktionsdatum;Text;Belopp;Saldo\n" + HANDELSBANKEN_ROWS
    )
    out, section, result, _ = loaded(export, capsys)
    assert "line 8: Reskontradatum" in out
    assert section["column_map"]["Reskontradatum"] == "posted_date"
    assert result.kept["amount"].to_list() == [-238.0, -228.0]


def test_a_header_of_unknown_names_below_a_preamble_is_read_by_its_values(tmp_path, capsys):
    """Names no list knows below a bank's name: the columns come from the values of the rows
    below that header, as they do for such a header on line 1."""
    export = tmp_path / "export.csv"
    export.write_text("Handelsbanken\n\nDag;Bokad;Meddelande;Belopp;Saldo\n" + HANDELSBANKEN_ROWS)
    out, section, result, _ = loaded(export, capsys)
    assert "line 3: Dag | Bokad | Meddelande | Belopp | Saldo" in out
    assert section["column_map"]["Dag"] == "posted_date"
    assert section["column_map"]["Meddelande"] == "description"
    assert result.kept["description"].to_list() == ["blipp", "blupp"]


def test_shinsei_withdrawal_and_deposit_names_without_the_yen_suffix(tmp_path, capsys):
    export = tmp_path / "shinsei.csv"
    export.write_text(
        '"取引日","摘要","出金金額","入金金額","残高"\n'
        '"2023/06/22","振込","","110","711"\n'
        '"2023/06/22","振込手数料","110","","601"\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["出金金額"] == "debit"
    assert section["column_map"]["入金金額"] == "credit"
    assert result.kept["amount"].to_list() == [110.0, -110.0]


def test_abn_amro_balances_before_and_after_are_no_amount(tmp_path, capsys):
    """ABN AMRO's tab-separated download has no header: account, currency, date, balance
    before, balance after, value date, amount, text. The signed amount is the amount, not the
    balance after it (the balance before plus the amount); a gross, fee and net are not such
    a pair."""
    rows = [  # (as the bank's sample: not every row follows the one above)
        ("20211230", "3025,00", "3000,00", "-25,00", "BEA NR:A1B23C Hema ZAANDAM"),
        ("20211230", "3000,00", "3025,00", "25,00", "BEA Hema TERUGBOEKING"),
        ("20211231", "3000,00", "2993,50", "-6,50", "BEA CCV TRAVERSE P1 SCHIPHOL"),
        ("20221220", "3500,00", "3493,00", "-7,00", "ABN AMRO Bank N.V. CreditCard"),
        ("20230202", "3493,00", "3454,65", "-38,35", "SEPA iDEAL Foobar Pizza Delivery"),
        ("20230203", "3454,65", "3443,40", "-11,25", "SEPA Incasso FOO BAR FIZZ"),
    ]
    export = tmp_path / "TXT231231235959.tsv"
    export.write_text(
        "".join(
            f"123456789\tEUR\t{day}\t{before}\t{after}\t{day}\t{amount}\t{text}\n"
            for day, before, after, amount, text in rows
        )
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["7"] == "amount"
    assert "4 and 5 differ by the amount" in out
    assert result.kept["amount"].to_list() == [-25.0, 25.0, -6.5, -7.0, -38.35, -11.25]
    # a gross, a fee and a net (net = gross + fee, the fee mostly zero, nothing chaining)
    # are no such pair: the gross stays the amount
    activity = tmp_path / "activity.csv"
    activity.write_text(
        "10/01/2026,Calm Radio,-6.99,0.00,-6.99\n"
        "10/02/2026,Patreon,-7.00,0.00,-7.00\n"
        "10/22/2026,Noble Benefactor,10.00,-0.59,9.41\n"
    )
    _, section, result, _ = loaded(activity, capsys)
    assert section["column_map"]["3"] == "amount"
    assert result.kept["amount"].to_list() == [-6.99, -7.0, 10.0]


def test_the_refusal_names_the_column_it_cannot_read_and_a_value(tmp_path, capsys):
    """Dates without a year (as JA Bank writes them) in a Woolworths-like layout: the error
    names the date column, one of its values and that no setting gives a year, and both
    amount columns as the debit and the credit they are."""
    export = tmp_path / "transactions.csv"
    export.write_text(
        "Date,Status,Description,Credit,Debit\n"
        "4月30日,Processed,WOOLWORTHS MELBOURNE,,54.73\n"
        "5月1日,Processed,Crocodile Dundee,3.14,\n"
        "5月2日,Processed,FOODIE KITCHEN DARWIN,,12.3\n",
        encoding="utf-8",
    )
    code, out, _ = inspect(export, capsys)
    assert code == 1
    assert "Credit -> credit, Debit -> debit" in out
    assert "column 'Date' holds dates without a year (line 2: '4月30日')" in out
    assert "no date_format can give a year" in out


def test_finpension_cash_flow_is_the_amount_and_its_category_the_text(tmp_path, capsys):
    """FinPension's statement: "Cash Flow" is the amount (not "Number of Shares"); a deposit
    names no asset, so its "Category" is part of the text; "Asset Currency" is the fund's,
    not the cash's."""
    export = tmp_path / "finpension.csv"
    export.write_text(
        'Date;Category;"Asset Name";ISIN;"Number of Shares";"Asset Currency";"Currency Rate";'
        '"Asset Price in CHF";"Cash Flow";Balance\n'
        "2023-01-01;Deposit;;;;CHF;1.00;;1000.00;1000.00\n"
        "2023-01-15;Buy;Test Fund CHF;CH0012345678;5.25;CHF;1.00;95.24;-500.00;500.00\n"
        "2023-02-01;Buy;Test Fund USD;CH0098765432;10.50;USD;0.92;43.81;-460.00;40.00\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Cash Flow"] == "amount"
    assert "Asset Currency" not in section["column_map"]
    assert result.kept["amount"].to_list() == [1000.0, -500.0, -460.0]
    assert result.kept["description"].to_list() == [
        "Deposit",
        "Buy Test Fund CHF",
        "Buy Test Fund USD",
    ]


def test_a_text_the_values_give_joins_where_the_named_one_is_blank(tmp_path, capsys):
    """Danske Bank Lithuania's download writes its rows a few cells left of its header, so
    its names give the date and a text ("Memo") but the amounts lie under "MemoConv": those
    come from the values. Where "Memo" is blank, the column of words the values chose (the
    party, under "City") still makes the text: no row is quarantined for want of one."""
    export = tmp_path / "danske.csv"
    export.write_text(
        "Date,Bank,Branch,Address,City,Country,Name,Memo,MemoConv,MemoDet,Amount,\n"
        '2012:03:01,,"",",Vilnius,LT","Paslaugų pajamos","Mokestis už pervedimą",,'
        '"Mokėjimo operacija: suma 1,01 USD",-7.8,\n'
        '2012:03:02,CITIBANK NA,"",",Vilnius,LT","ACME LLC","Mokėjimo nurodymas ACME",,,889.81,\n'
        '2012:03:05,,"",",Vilnius,LT","Paslaugų pajamos","Mokestis už pervedimą",,'
        '"Mokėjimo operacija: suma 500 LTL",-0.46,\n'
        '2012:03:06,SEB,"",",Vilnius,LT","UAB Verslas","Mokėjimo nurodymas Verslas",,,120.00,\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert result.rows_in == result.kept.height == 4
    assert result.kept["amount"].to_list() == [-7.8, 889.81, -0.46, 120.0]
    assert result.kept["description"][1] == "ACME LLC"
    assert "Memo" in section["column_map"] and "where the others are blank" in out
