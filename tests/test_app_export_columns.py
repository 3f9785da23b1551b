"""Exports of budgeting apps and banks whose columns say more than one name does: Toshl's
"Expense amount" and "Income amount" (money out and in, paired), the app's category columns
(Finanzguru's "Hauptkategorie", Goodbudget's "Envelope"), a type that says only the way the
money went (Wallet by BudgetBakers), a split's breakdown (Goodbudget's "Details"), a party
beside the payment's text (MoneyMoney's "Name" and "Verwendungszweck", Firefly III's source
and destination), a bank's own text beside an app's merchant name (Monarch's "Original
Statement") and the text beside a booking type (Intesa Sanpaolo's "Descrizione Estesa",
BBVA's "Movimiento"). Files written by the tests in the apps' layouts; merchants and amounts
invented."""

from __future__ import annotations

from pathlib import Path

import pytest

from ml_assets.core.intake.inspect_export import inspect_file


def _read(tmp_path: Path, name: str, text: str):
    export = tmp_path / name
    export.write_text(text, encoding="utf-8")
    found = inspect_file(export)
    assert found.error is None, found.error
    return found


def _column(found, name: str) -> list:
    return found.result.kept[name].to_list()


def _fact(found, label: str) -> str:
    return dict(found.facts)[label]


def test_toshl_income_amounts_are_money_in_not_zero(tmp_path):
    found = _read(
        tmp_path,
        "toshl_export.csv",
        '"Date","Account","Category","Tags","Expense amount","Income amount","Currency",'
        '"In main currency","Main currency","Description"\n'
        '"14/03/2025","Cash","Food & Drinks","","12.50","0","EUR","12.50","EUR","Copperpot Cafe"\n'
        '"15/03/2025","Bank","Salary","","0","2,400.00","EUR","2,400.00","EUR","Acme Corp March"\n'
        '"16/03/2025","Bank","Refunds","","0","15.00","EUR","15.00","EUR","Greenleaf refund"\n',
    )
    columns = _fact(found, "columns")
    assert "Expense amount -> debit" in columns and "Income amount -> credit" in columns
    assert "In main currency" not in columns  # (the same figures, converted)
    assert _column(found, "amount") == pytest.approx([-12.5, 2400.0, 15.0])
    assert _column(found, "category") == ["Food & Drinks", "Salary", "Refunds"]


def test_an_amount_zero_where_another_amount_column_is_not_is_flagged(tmp_path):
    found = _read(
        tmp_path,
        "export.csv",
        "Date,Description,Amount,Amount received\n"
        "2025-03-04,Copperpot Cafe,-12.50,0\n"
        "2025-03-05,Acme Corp salary,0,2400.00\n"
        "2025-03-06,Greenleaf Market,-3.00,\n",
    )
    assert (
        "WARNING: Amount is 0 or blank on 1 row(s) where Amount received holds an amount "
        "(line 3)" in _fact(found, "columns")
    )


def test_finanzguru_main_category_is_the_label(tmp_path):
    found = _read(
        tmp_path,
        "finanzguru.csv",
        "Name Referenzkonto;Buchungstag;Beguenstigter/Auftraggeber;Verwendungszweck;Betrag;"
        "Hauptkategorie;Unterkategorie;Vertrag\n"
        "Girokonto;03.03.2025;Greenleaf Markt;Kartenzahlung 03.03;-42,10;Lebensmittel;"
        "Supermarkt;\n"
        "Girokonto;05.03.2025;Acme GmbH;Lohn Maerz 2025;2400,00;Einkommen;Gehalt;\n",
    )
    assert _column(found, "category") == ["Lebensmittel", "Einkommen"]
    assert _column(found, "description") == [
        "Greenleaf Markt Kartenzahlung 03.03",
        "Acme GmbH Lohn Maerz 2025",
    ]


def test_goodbudget_envelope_is_the_category_and_a_split_breakdown_no_text(tmp_path):
    found = _read(
        tmp_path,
        "goodbudget.csv",
        "Date,Envelope,Account,Name,Notes,Amount,Status,Details\n"
        "03/14/2025,,Checking,Greenleaf Market,weekly shop,-50.00,,Groceries|-42.10||Household|-7.90\n"
        "03/15/2025,Rent,Checking,Landlord Ltd,,-900.00,,\n"
        '03/16/2025,Paycheck,Checking,Acme Corp,salary,"2,400.00",,\n',
    )
    assert _column(found, "description") == [
        "Greenleaf Market weekly shop",
        "Landlord Ltd",
        "Acme Corp salary",
    ]
    assert _column(found, "category") == [None, "Rent", "Paycheck"]
    assert _column(found, "amount") == pytest.approx([-50.0, -900.0, 2400.0])


def test_wallet_type_of_expenses_and_income_is_no_text(tmp_path):
    found = _read(
        tmp_path,
        "wallet.csv",
        "account;category;currency;amount;ref_currency_amount;type;payment_type;"
        "payment_type_local;note;date;transfer;payee;labels\n"
        "Checking;Groceries;EUR;-42.10;-45.80;Expenses;DEBIT_CARD;Debit card;weekly shop;"
        "2025-03-04T10:15:00.000Z;false;Greenleaf Market;\n"
        "Checking;Transfer, withdraw;EUR;-200.00;-217.60;Expenses;TRANSFER;Bank transfer;;"
        "2025-03-05T12:00:00.000Z;true;;\n"
        "Checking;Wage, invoices;EUR;2400.00;2611.20;Income;TRANSFER;Bank transfer;March salary;"
        "2025-03-06T09:00:00.000Z;false;Acme Corp;\n",
    )
    assert _column(found, "description") == [
        "Greenleaf Market weekly shop",
        "Acme Corp March salary",
    ]
    quarantined = found.result.quarantined
    assert quarantined["line"].to_list() == [3]
    assert quarantined["field"].to_list() == ["description"]


def test_moneymoney_name_and_purpose_are_both_the_text(tmp_path):
    found = _read(
        tmp_path,
        "moneymoney.csv",
        "Datum;Wertstellung;Kategorie;Name;Verwendungszweck;Konto;Bank;Betrag;Währung\n"
        "04.03.2025;04.03.2025;Lebensmittel\\Supermarkt;GREENLEAF MARKT;Kartenzahlung 03.03;"
        "DE00123;Musterbank;-42,10;EUR\n"
        "06.03.2025;06.03.2025;Gehalt;ACME GMBH;Lohn März;DE00123;Musterbank;2.400,00;EUR\n",
    )
    assert _column(found, "description") == [
        "GREENLEAF MARKT Kartenzahlung 03.03",
        "ACME GMBH Lohn März",
    ]
    assert _column(found, "merchant") == ["GREENLEAF MARKT", "ACME GMBH"]


def test_firefly_source_and_destination_give_the_other_party(tmp_path):
    found = _read(
        tmp_path,
        "firefly.csv",
        "journal_id,type,amount,currency_code,description,date,source_name,source_type,"
        "destination_name,destination_type,category\n"
        "11,Withdrawal,-42.10,EUR,Weekly shop,2025-03-04T00:00:00+01:00,Girokonto,"
        "Asset account,Greenleaf Market,Expense account,Groceries\n"
        "12,Transfer,-200.00,EUR,To savings,2025-03-05T00:00:00+01:00,Girokonto,"
        "Asset account,Sparkonto,Asset account,\n"
        "13,Deposit,2400.00,EUR,March salary,2025-03-06T00:00:00+01:00,Acme Corp,"
        "Revenue account,Girokonto,Asset account,Salary\n",
    )
    assert _column(found, "description") == [
        "Greenleaf Market Weekly shop",
        "Sparkonto To savings",
        "Acme Corp March salary",
    ]


def test_monarch_original_statement_is_the_text_and_merchant_the_merchant(tmp_path):
    found = _read(
        tmp_path,
        "monarch.csv",
        "Date,Merchant,Category,Account,Original Statement,Notes,Amount,Tags\n"
        "2025-03-04,Greenleaf Market,Groceries,Checking (...1234),GREENLEAF MKT #112 SPRINGFIELD"
        ",,-42.10,\n"
        '2025-03-06,Acme Payroll,Paychecks,Checking (...1234),ACME CORP PAYROLL PPD,,"2,400.00",\n',
    )
    assert _column(found, "description") == [
        "GREENLEAF MKT #112 SPRINGFIELD",
        "ACME CORP PAYROLL PPD",
    ]
    assert _column(found, "merchant") == ["Greenleaf Market", "Acme Payroll"]


def test_intesa_extended_description_joins_its_booking_type(tmp_path):
    found = _read(
        tmp_path,
        "lista_movimenti.csv",
        "Data;Valuta;Descrizione;Addebiti;Accrediti;Descrizione Estesa\n"
        "04/03/2024;02/03/2024;Pagamento Tramite Pos;12,40;;Bar Aurora Via Roma 02/03-08:10\n"
        "06/03/2024;06/03/2024;Accredito Bonifico;;1200,00;Bonifico Da Alfa Srl Per Stipendio\n",
    )
    assert _column(found, "description") == [
        "Pagamento Tramite Pos Bar Aurora Via Roma 02/03-08:10",
        "Accredito Bonifico Bonifico Da Alfa Srl Per Stipendio",
    ]


def test_bbva_movimiento_gives_a_bizum_its_purpose(tmp_path):
    found = _read(
        tmp_path,
        "informe_bbva.csv",
        "F.Valor;Fecha;Concepto;Movimiento;Importe;Divisa;Disponible;Divisa;Observaciones\n"
        "05/03/2024;05/03/2024;Bizum;Enviado: cena cumple;-25,00;EUR;975,00;EUR;ENVIADO: Cena\n"
        "06/03/2024;06/03/2024;Transferencia recibida;Alquiler marzo piso;650,00;EUR;1625,00;"
        "EUR;ALQUILER MARZO\n"
        "08/03/2024;08/03/2024;Panaderia sol;Pago con tarjeta;-3,10;EUR;1621,90;EUR;4111 PANADERIA\n",
    )
    assert _column(found, "description") == [
        "Bizum Enviado: cena cumple",
        "Transferencia recibida Alquiler marzo piso",
        "Panaderia sol Pago con tarjeta",
    ]
