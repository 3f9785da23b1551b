"""Two unsigned money columns under the names Swiss and Central American banks give them
(Credit Suisse's Belastung and Gutschrift, BNCR's debito and credito, BAC's Débitos and
Créditos, BCR's Monto Débito and Monto Crédito): money out and money in, paired, so no
credit row is quarantined or kept as 0.00. UBS's three text columns and its transaction
number; the account's currency from a Costa Rican IBAN or a "Bewertet in:" label. Files
written by the tests in the banks' layouts."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.ingest import scan_transactions
from tests.test_inspect_export import inspect

LAYOUTS = {  # (header, a row's line), each bank's figures as it writes them
    "credit_suisse.csv": (
        "Saldo,17'173.76 CHF,,\nValutadatum,Text,Belastung,Gutschrift\n",
        "{d},{t},{out},{into}\n",
    ),
    "ConsultaSaldos.csv": (  # thousands grouped
        "oficina;fechaMovimiento;numeroDocumento;debito;credito;descripcion\n",
        "228;{d};12962335;{out_grouped};{into_grouped};{t}\n",
    ),
    "Transacciones_del_mes.csv": (  # 0.00 where a row has no figure
        "Fecha,Referencia,Descripción,Débitos,Créditos,Balance\n",
        "{d},114185575,{t},{out_zero},{into_zero},\n",
    ),
    "EstadoCuenta.csv": (
        "Fecha Contable,Documento,Concepto,Monto Débito,Monto Crédito\n",
        "{d},4711,{t},{out},{into}\n",
    ),
}
BOOKINGS = [  # (date, text, money out, money in): most rows money out, as on most accounts
    ("01.11.2024", "COMPRA AUTOMERCADO ESCAZU", "45.30", ""),
    ("02.11.2024", "DEPOSITO MARIA MENDOZA", "", "643.25"),
    ("04.11.2024", "PAGO FACTURA ICE", "37.90", ""),
    ("05.11.2024", "SUPER PALI DESAMPARADOS", "12.15", ""),
    ("06.11.2024", "GASOLINERA UNO ESCAZU", "30.00", ""),
    ("07.11.2024", "FARMACIA FISCHEL", "8.40", ""),
]


def _line(line: str, date: str, text: str, out: str, into: str) -> str:
    def grouped(figure: str) -> str:
        return f"{float(figure) * 1000:,.2f}" if figure else ""

    return line.format(
        d=date, t=text, out=out, into=into, out_grouped=grouped(out),
        into_grouped=grouped(into), out_zero=out or "0.00", into_zero=into or "0.00",
    )  # fmt: skip


@pytest.mark.parametrize("mostly", ["out", "in"])
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_money_out_and_money_in_columns_are_paired(tmp_path, capsys, name, mostly):
    header, line = LAYOUTS[name]
    export = tmp_path / name
    bookings = BOOKINGS if mostly == "out" else [(d, t, i, o) for d, t, o, i in BOOKINGS]
    export.write_text(header + "".join(_line(line, *b) for b in bookings), encoding="utf-8")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    roles = sorted(params["raw_transactions"]["column_map"].values())
    assert "debit" in roles and "credit" in roles, out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export,
        column_map=settings["column_map"],
        date_format=settings.get("date_format"),
        delimiter=settings.get("delimiter", "auto"),
        decimal=settings.get("decimal", "auto"),
    )
    assert result.rows_in == 6 == result.kept.height
    scale = 1000 if "grouped" in line else 1
    expected = [-45.3, 643.25, -37.9, -12.15, -30.0, -8.4]
    expected = expected if mostly == "out" else [-a for a in expected]
    assert result.kept["amount"].to_list() == pytest.approx([a * scale for a in expected])


def test_ubs_texts_and_transaction_numbers_and_a_labelled_currency(tmp_path, capsys):
    export = tmp_path / "ubs.csv"
    export.write_text(
        "Kontonummer:;0231 00100040.01;;\nBewertet in:;CHF;;\n\n"
        "Buchungsdatum;Belastung;Gutschrift;Saldo;Transaktions-Nr.;Beschreibung1;"
        "Beschreibung2;Beschreibung3\n"
        "2024-11-14;-13.95;;109136.16;8432319TO1096932;Coop Pronto;Zuerich;Kartenzahlung\n"
        "2024-11-15;;1167.50;110303.66;ZD81319ZC3551360;ACME AG;Lohn November;Gutschrift\n",
        encoding="utf-8",
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "currency:        CHF, as 'Bewertet in: CHF' above the table shows" in out
    column_map = params["raw_transactions"]["column_map"]
    assert column_map["Transaktions-Nr."] == "transaction_id"
    assert column_map["Beschreibung1"] == "description"
    result = scan_transactions(export, column_map=column_map, delimiter=";")
    assert result.kept["description"].to_list()[0].startswith("Coop Pronto Zuerich")
    assert result.kept["amount"].to_list() == [-13.95, 1167.5]


def test_a_costa_rican_iban_points_to_colones(tmp_path, capsys):
    export = tmp_path / "movimientos.csv"
    export.write_text(
        "Producto,CR17010200009020144482\n\nFecha,Concepto,Monto\n"
        "03/12/2024,PAGO ICE,-37.90\n04/12/2024,SINPE MOVIL JUAN,-12.00\n",
        encoding="utf-8",
    )
    code, out, _ = inspect(export, capsys)
    assert code == 0, out
    assert "currency:        CRC, as the IBAN CR17010200009020144482 shows" in out


def test_a_balance_written_with_its_currency_above_the_table_points_to_it(tmp_path, capsys):
    """Credit Suisse's "Saldo,17'173.76 CHF" above the header points to CHF; a purchase
    abroad below it ("12.00 USD" in a row's text) points nowhere."""
    export = tmp_path / "export.csv"
    rows = "31.12.2023,COOP PRONTO,20.00,\n29.12.2023,AMAZON MARKETPLACE 12.00 USD,11.05,\n"
    export.write_text(
        "Saldo,17'173.76 CHF,,\nValutadatum,Text,Belastung,Gutschrift\n" + rows, encoding="utf-8"
    )
    code, out, _ = inspect(export, capsys)
    assert code == 0, out
    assert 'currency:        CHF, as "17\'173.76 CHF" above the table shows' in out
    below_only = tmp_path / "no_balance.csv"
    below_only.write_text("Valutadatum,Text,Belastung,Gutschrift\n" + rows, encoding="utf-8")
    code, out, _ = inspect(below_only, capsys)
    assert code == 0, out
    assert "currency:        none in the file" in out


def test_a_headerless_exports_direction_column_signs_its_amounts(tmp_path, capsys):
    """Swedbank Lithuania's export without a header line: unsigned amounts beside a D/K
    column. Money in (K) stays positive, money out (D) turns negative."""
    export = tmp_path / "swedbank.csv"
    export.write_text(
        "LT357300010133333333,20,2017-09-04,Jonas Jonaitis,Pavedimas,9.00,EUR,K,201701,MK,,\n"
        "LT357300010133333333,20,2017-09-05,MAXIMA LT,Pirkimas,23.10,EUR,D,201702,MK,,\n"
        "LT357300010133333333,20,2017-09-06,IKI,Pirkimas kortele,5.25,EUR,D,201703,MK,,\n"
        "LT357300010133333333,20,2017-09-07,Petras Petraitis,Pavedimas,100.00,EUR,K,201704,MK,,\n",
        encoding="utf-8",
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    settings = params["raw_transactions"]
    assert "direction" in settings["column_map"].values(), out
    result = scan_transactions(
        export, column_map=settings["column_map"], header_line=settings.get("header_line")
    )
    assert result.kept["amount"].to_list() == [9.0, -23.1, -5.25, 100.0]


CARD_IN_TWO_CURRENCIES = (
    "Fecha,Concepto,Lugar,Transacción Colones,Interés Colones,Transacción Dolares,"
    "Interés Dolares\n"
    '02/11/2024,AUTOMERCADO ESCAZU,San Jose,"45,300.00",0.00,,\n'
    "03/11/2024,NETFLIX.COM,Los Gatos,,,15.49,0.00\n"
    '04/11/2024,SODA LA PARADA,Heredia,"3,800.00",0.00,,\n'
    "05/11/2024,AMAZON MKTPLACE,Seattle,,,42.10,0.00\n"
    '06/11/2024,PAGO ELECTRONICO TARJETA,,"-120,000.00",0.00,,\n'
)


def test_a_card_writing_each_purchase_in_its_currencys_column(tmp_path, capsys):
    """Promerica's card (Costa Rica): colones and dollars in columns of their own, each row
    filling one; the interest columns beside them are no amount."""
    export = tmp_path / "tarjeta.csv"
    export.write_text(CARD_IN_TWO_CURRENCIES, encoding="utf-8")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    column_map = params["raw_transactions"]["column_map"]
    amounts = sorted(t for t, o in column_map.items() if o == "amount")
    assert amounts == ["Transacción Colones", "Transacción Dolares"], out
    assert "'Transacción Colones' CRC, 'Transacción Dolares' USD" in out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export,
        column_map=column_map,
        date_format=settings.get("date_format"),
        spending=settings.get("spending"),
    )
    assert result.rows_in == 5 == result.kept.height
    assert result.kept["currency"].to_list() == ["CRC", "USD", "CRC", "USD", "CRC"]
    assert result.kept["amount"].to_list() == [-45300.0, -15.49, -3800.0, -42.1, 120000.0]


def test_an_amount_shown_in_two_currencies_on_every_row_stays_one_amount(tmp_path, capsys):
    """A card that writes every purchase in the account's currency and again in dollars:
    both columns filled on every row, so the second is no other currency's amount."""
    export = tmp_path / "card.csv"
    export.write_text(
        "Fecha,Concepto,Importe Colones,Importe Dolares\n"
        "02/11/2024,AUTOMERCADO,-45300.00,-88.10\n03/11/2024,NETFLIX,-7950.00,-15.49\n",
        encoding="utf-8",
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert list(params["raw_transactions"]["column_map"].values()).count("amount") == 1
