"""Exports as banks and payment apps write them outside English, read with what ``inspect``
finds alone: PayPal's activity in French and Spanish (the payment's "Brut"/"Bruto" beside a
shipping part that reads 0 on every row), ICICI's statement sheet with serial numbers and a
legend under its table, text cells quoted over lines or padded to a width, and an amount
column whose name says the currency in words ("Montant(EUROS)"). Files written by the tests
in those layouts, with invented merchants and figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from ml_assets.core.intake.description_parts import description_of
from ml_assets.core.intake.ingest import scan_transactions
from tests.test_inspect_export import inspect

_SETTINGS = (
    "column_map", "date_format", "delimiter", "decimal", "spending", "currency", "header_line",
    "sheet", "encoding",
)  # fmt: skip


def _read(export: Path, capsys):
    """inspect's report, the settings it printed, and the file read with them."""
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    settings = params["raw_transactions"]
    given = {k: settings[k] for k in _SETTINGS if k in settings}
    return out, given, scan_transactions(export, **given)


PAYPAL_FR = (
    '"Date","Heure","Description","Devise","Brut","Frais","Net","Solde","Nom",'
    '"Montant des frais de livraison et de traitement","TVA"\n'
    '"3/4/2024","09:15:02","Paiement express","EUR","-42,50","0,00","-42,50","-42,50",'
    '"Papeterie Lumen","0,00","0,00"\n'
    '"3/21/2024","18:40:11","Paiement préapprouvé","EUR","-12,99","0,00","-12,99","-55,49",'
    '"CineStream","0,00","0,00"\n'
    '"3/28/2024","10:02:45","Paiement reçu","EUR","25,00","-1,05","23,95","-31,54",'
    '"Camille Rivet","0,00","0,00"\n'
)
PAYPAL_ES = (
    '"Fecha","Hora","Nombre","Tipo","Divisa","Bruto","Tarifa","Neto",'
    '"Importe de envío y manipulación","Saldo"\n'
    '"04/03/2024","09:15:02","Librería Farol","Pago exprés","EUR","-42,50","0,00","-42,50",'
    '"0,00","-42,50"\n'
    '"21/03/2024","18:40:11","CineStream","Pago preaprobado","EUR","-12,99","0,00","-12,99",'
    '"0,00","-55,49"\n'
    '"28/03/2024","10:02:45","Camila Ruiz","Pago recibido","EUR","25,00","-1,05","23,95",'
    '"0,00","-31,54"\n'
)


@pytest.mark.parametrize(("name", "text"), [("fr.csv", PAYPAL_FR), ("es.csv", PAYPAL_ES)])
def test_paypal_in_french_and_spanish_reads_the_payment_not_its_shipping_part(
    tmp_path, capsys, name, text
):
    export = tmp_path / f"Telechargement_{name}"
    export.write_text(text, encoding="utf-8")
    out, settings, result = _read(export, capsys)
    mapped = {v: k for k, v in settings["column_map"].items() if v != "description"}
    assert mapped["amount"] in ("Brut", "Bruto"), out
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["amount"].to_list() == pytest.approx([-42.5, -12.99, 25.0])
    assert "DOUBTFUL" not in out


def test_an_amount_column_of_zeros_alone_is_doubted(tmp_path, capsys):
    export = tmp_path / "export.csv"
    export.write_text(
        'Datum,Text,Wert\n04.03.2024,Laden Eins,"0,00"\n05.03.2024,Kino Zwei,"0,00"\n',
        encoding="utf-8",
    )
    code, out, _ = inspect(export, capsys)
    assert code == 0
    assert "DOUBTFUL: column 'Wert' reads 0 on every row" in out, out


def test_icici_statement_sheet_takes_its_remarks_not_its_serial_numbers(tmp_path, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    rows = [
        [],
        [None, "DETAILED STATEMENT"],
        [None, "Account Number", None, "XXXXXXXX1234 ( INR ) - A N OTHER"],
        [None, "S No.", "Value Date", "Transaction Date", "Cheque Number", "Transaction Remarks",
         "Withdrawal Amount (INR )", "Deposit Amount (INR )", "Balance (INR )"],
        [None, "1", "03/02/2025", "03/02/2025", "-", "UPI/teastall@ybl/tea/HDFC BANK/5012",
         "45.00", "0.0", "10955.00"],
        [None, "2", "04/02/2025", "04/02/2025", "-", "SMS CHRG FOR QTR", "15.00", "0.0",
         "10940.00"],
        [None, "3", "06/02/2025", "06/02/2025", "-", "MMT/IMPS/502211/Rent Feb/R KUMAR",
         "0.0", "12000.00", "22940.00"],
        [None, "Legends Used in Account Statement"],
        [None, "1. BIL - Internet Bill payment"],
        [None, "2. CCWD - Cardless Cash Withdrawal"],
    ]  # fmt: skip
    for row in rows:
        sheet.append(row)
    export = tmp_path / "OpTransactionHistory.xlsx"
    book.save(export)
    out, settings, result = _read(export, capsys)
    assert "S No." not in settings["column_map"], out
    assert result.kept["description"].to_list() == [
        "UPI/teastall@ybl/tea/HDFC BANK/5012",
        "SMS CHRG FOR QTR",
        "MMT/IMPS/502211/Rent Feb/R KUMAR",
    ]
    assert result.kept["amount"].to_list() == pytest.approx([-45.0, -15.0, 12000.0])
    # the legend's lines, in the serial number's column, are counted, not quarantined
    assert result.quarantined.height == 0
    assert [kind for _, kind in result.notes[0].statement_lines] == ["section title"] * 3


def test_text_quoted_over_lines_or_padded_reads_as_one_line(tmp_path, capsys):
    export = tmp_path / "CA20250210_1200.csv"
    export.write_text(
        "Date;Libellé;Débit euros;Crédit euros;\n"
        '08/02/2025;"PAIEMENT PAR CARTE      \nPHARMACIE CENTRALE  07/02\n";18,90;;\n'
        '06/02/2025;"VIREMENT EN VOTRE FAVEUR\nMUTUELLE SOLEIL          \nREMB";;35,20;\n'
        '03/02/2025;"PRELEVEMENT                                   ASSURANCE HABITAT";1 045,00;;\n',
        encoding="cp1252",
    )
    out, _, result = _read(export, capsys)
    assert result.kept["description"].to_list() == [
        "PAIEMENT PAR CARTE PHARMACIE CENTRALE 07/02",
        "VIREMENT EN VOTRE FAVEUR MUTUELLE SOLEIL REMB",
        "PRELEVEMENT ASSURANCE HABITAT",
    ]
    assert result.kept["amount"].to_list() == pytest.approx([-18.9, 35.2, -1045.0])
    # the amount columns' names say the currency in words
    assert set(result.kept["currency"].to_list()) == {"EUR"}, out
    assert "EUR (the column name 'Débit euros')" in out


@pytest.mark.parametrize(
    ("name", "currency"),
    [("Montant(EUROS)", "EUR"), ("Valor (reais)", "BRL"), ("Amount (dollars)", "USD")],
)
def test_an_amount_named_with_a_currency_word(tmp_path, capsys, name, currency):
    export = tmp_path / "releve.csv"
    export.write_text(
        f"Date;Libellé;{name}\n07/02/2025;EPICERIE LUNE;-12,40\n06/02/2025;LOYER DURAND;450,00\n",
        encoding="utf-8",
    )
    out, _, result = _read(export, capsys)
    assert set(result.kept["currency"].to_list()) == {currency}
    # "dollars" is a dozen countries' word: no claim, the default said as such
    named = f"{currency} (the column name {name!r})" in out
    assert named == (currency != "USD"), out


def test_a_text_cell_holding_a_whole_number_is_text():
    assert description_of([7]) == "7"
    assert description_of(["  BAECKEREI   KORN \n"]) == "BAECKEREI KORN"
    assert description_of([None]) is None


def test_an_indian_branch_code_above_the_table_points_to_rupees(tmp_path, capsys):
    export = tmp_path / "statement.xls"  # SBI's "Excel" download: tab-separated text
    export.write_text(
        "Account Name       :\tMr. A N OTHER\nIFS Code           :\tSBIN0000001\n\n"
        "Txn Date\tValue Date\tDescription\tRef No./Cheque No.\tDebit\tCredit\tBalance\n"
        "3 Feb 2025\t3 Feb 2025\tTO TRANSFER-UPI/DR/501234/TEA STALL\t-\t45.00\t\t10,955.00\n"
        "6 Feb 2025\t6 Feb 2025\tBY TRANSFER-NEFT SALARY ACME\t-\t\t12,000.00\t22,955.00\n",
        encoding="utf-8",
    )
    out, settings, result = _read(export, capsys)
    assert settings["currency"] == "INR", out
    assert "the Indian branch code SBIN0000001 (IFSC)" in out
    assert result.kept["amount"].to_list() == pytest.approx([-45.0, 12000.0])


def test_a_closing_balance_on_a_short_line_below_the_table_is_a_balance_line(tmp_path, capsys):
    export = tmp_path / "Kotak_statement.csv"
    export.write_text(
        "Currency,INR\n"
        "Sl. No.,Transaction Date,Value Date,Description,Chq / Ref No.,Amount,Dr / Cr,Balance,"
        "Dr / Cr\n"
        '1,04-02-2025,04-02-2025,NEFT SAMPLE EMPLOYER SALARY,NEFT-1,"17,810.74",CR,'
        '"18,810.74",CR\n'
        '2,08-02-2025,08-02-2025,UPI/SAMPLE GROCER/veg,UPI-2,458.00,DR,"18,352.74",CR\n'
        'Closing balance,"as on 28/02/2025   INR 18,352.74"\n',
        encoding="utf-8",
    )
    out, _, result = _read(export, capsys)
    assert result.rows_in == 2 == result.kept.height and result.quarantined.height == 0, out
    notes = result.notes[0]
    assert (5, "balance") in notes.statement_lines
    assert notes.closing() is not None and notes.closing().amount == 18352.74
    assert not notes.breaks


def test_a_file_naming_no_currency_is_told_what_says_it_is_not_a_us_banks(tmp_path, capsys):
    german = tmp_path / "umsaetze.csv"
    german.write_text(
        "Datum;Buchungstext;Betrag\n03.02.2025;REWE Markt;-12,40\n05.02.2025;Gehalt;2450,00\n",
        encoding="utf-8",
    )
    code, out, _ = inspect(german, capsys)
    assert code == 0
    assert "USD unless raw_transactions.currency says so" in out
    assert "the decimal comma and the ';' separator and the column name 'Datum' are not a US" in out
    american = tmp_path / "activity.csv"
    american.write_text(
        "Date,Description,Amount\n02/03/2025,SHOP,-12.40\n02/05/2025,PAY,2450.00\n",
        encoding="utf-8",
    )
    code, out, _ = inspect(american, capsys)
    assert code == 0 and "USD unless" in out and "are not a US bank's" not in out


def test_dates_typed_into_general_cells_are_read_as_excels_serial_days(tmp_path, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in [
        ["Date", "Details", "Amount"],
        [45385, "TAXI RAPIDO", -18.0],
        [45386, "COFFEE HUT", -3.5],
        [45387, "INTEREST", 0.42],
    ]:
        sheet.append(row)  # whole numbers in General cells, as a script writes a date
    export = tmp_path / "export.xlsx"
    book.save(export)
    out, _, result = _read(export, capsys)
    assert "3 serial days in General cells" in out, out
    assert result.kept["posted_date"].cast(str).to_list() == [
        "2024-04-03", "2024-04-04", "2024-04-05",
    ]  # fmt: skip
