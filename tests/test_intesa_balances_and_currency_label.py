"""Intesa Sanpaolo's "Lista Movimenti" download: its currency stated only above the header
("Controvalore in:" | "Euro") is the account's, to confirm; its "Saldo contabile iniziale in
euro" and "Saldo contabile finale in Euro" lines are the opening and closing balances, not
rows. A label never wins over the table's own currency column. Files written here in the
layout, with invented shops and amounts."""

from __future__ import annotations

from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.currency_clues import currency_pointed_to
from tests.test_issuer_csv_layouts import loaded
from tests.test_legacy_and_html_sheets import _xls


def _lista_movimenti(path, extra_column: tuple[str, str] | None = None):
    header = ["Data", "Valuta", "Descrizione", "Addebiti", "Accrediti", "Descrizione Estesa"]
    rows = [
        ["", "", "Saldo contabile iniziale in euro", "", 300.0, ""],
        ["05/06/2024", "04/06/2024", "Pagamento Tramite Pos", 9.9, "", "Gelateria Luna 03/06"],
        ["06/06/2024", "06/06/2024", "Pagamento Tramite Pos", 41.5, "", "Libreria Vento 05/06"],
        ["07/06/2024", "07/06/2024", "Accredito Bonifico", "", 950.0, "Da Delta Srl Stipendio"],
        ["", "", "Saldo contabile finale in Euro", "", 1198.6, ""],
    ]
    if extra_column is not None:
        header.append(extra_column[0])
        rows = [[*r, extra_column[1] if r[0] else ""] for r in rows]
    return _xls(
        path,
        [["", "", "Intestatario contratto Internet:", "NERI ANNA"], [],
         ["", "", "Numero Conto Corrente:", 4321.0], [],
         ["", "", "Controvalore in:", "Euro"], [], ["Movimenti"], [], header, *rows],
    )  # fmt: skip


def test_the_currency_above_the_header_and_the_balance_lines_are_read(tmp_path, capsys):
    out, section, result, counted = loaded(_lista_movimenti(tmp_path / "movimenti.xls"), capsys)
    assert section["currency"] == "EUR"
    assert "EUR, as 'Controvalore in: Euro' above the table shows" in out and "confirm it" in out
    assert "opening 300.00" in out and "closing 1,198.60" in out
    assert counted == 2 and "balance row 10, balance row 14" in out
    assert result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [-9.9, -41.5, 950.0]
    assert set(result.kept["currency"].to_list()) == {"EUR"}


def test_a_label_never_wins_over_the_tables_currency_column(tmp_path, capsys):
    export = _lista_movimenti(tmp_path / "movimenti.xls", ("Divisa", "CHF"))
    out, section, result, _ = loaded(export, capsys)
    assert "currency" not in section and "Divisa -> currency" in out
    assert set(result.kept["currency"].to_list()) == {"CHF"}


def test_a_labels_currency_is_a_code_or_a_currencys_name():
    def pointed(*lines: list[str]):
        rows = [CellRow(n, cells, b"") for n, cells in enumerate(lines)]
        return currency_pointed_to(rows, ["Data", "Importo"], header_line=len(lines))

    assert pointed(["Controvalore in:", "Euro"])[0] == "EUR"
    assert pointed(["Währung:", "Euros"])[0] == "EUR"
    assert pointed(["Devise :", "EUR"])[0] == "EUR"
    assert pointed(["Kontowährung", "CHF"])[0] == "CHF"
    # "Valuta" the value date, beside another column's name, names no currency
    assert pointed(["Data", "Valuta", "Descrizione", "Importo"]) is None
    assert pointed(["Moneda:", "Pesos"]) is None
