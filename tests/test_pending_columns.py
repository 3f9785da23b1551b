"""A row that a pending column marks as not booked yet (Outbank's "Vormerkung" = "Ja",
Intesa Sanpaolo's app export "Contabilizzazione" = "NON CONTABILIZZATO") is counted as a
pending transaction, never kept as a booked row: it comes again once booked. The files are
written here in each layout, with invented shops and amounts."""

from __future__ import annotations

import datetime as dt

from ml_assets.core.intake.row_status import status_kind
from tests.test_issuer_csv_layouts import loaded


def test_outbanks_vormerkung_yes_is_a_pending_row(tmp_path, capsys):
    export = tmp_path / "outbank.csv"
    export.write_text(
        '"Buchungstext";"Währung";"Betrag";"Buchungstag";"Valuta-Datum";'
        '"Empfänger/Auftraggeber";"Bankleitzahl";"Kontonummer";"Verwendungszweck";"Vormerkung";'
        '"Buchungsschlüssel";"Kommentar";"Kategorie"\n'
        ';"EUR";"-18,40";"05.03.2025";"05.03.2025";"Kiosk Lindenhof";;;"Kartenzahlung";"Ja";;;'
        '"Freizeit"\n'
        ';"EUR";"-7,25";"02.03.2025";"02.03.2025";"Backstube Ahorn";;;"Kartenzahlung";"Nein";;;'
        '"Lebensmittel"\n',
        encoding="utf-8",
    )
    out, _, result, counted = loaded(export, capsys)
    assert result.kept["description"].to_list() == ["Backstube Ahorn Kartenzahlung"]
    assert result.kept["amount"].to_list() == [-7.25]
    assert counted == 1 and "pending transaction line 2" in out
    assert result.quarantined.height == 0


def test_intesas_non_contabilizzato_is_a_pending_row(tmp_path, capsys):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Lista Operazione"
    sheet.append(["Elenco operazioni"])
    sheet.append([])
    sheet.append(["Data", "Operazione", "Dettagli", "Conto o carta", "Contabilizzazione",
                  "Categoria", "Valuta", "Importo"])  # fmt: skip
    rows = [
        (dt.datetime(2024, 5, 9), "Pagamento effettuato su POS", "Edicola Stella",
         "NON CONTABILIZZATO", "Tempo libero", -6.5),
        (dt.datetime(2024, 5, 8), "Pagamento effettuato su POS", "Osteria Gialla",
         "CONTABILIZZATO", "Ristoranti e bar", -38.0),
        (dt.datetime(2024, 5, 7), "Accredito bonifico", "Bonifico da Gamma Srl",
         "CONTABILIZZATO", "Stipendi e pensioni", 1400.0),
    ]  # fmt: skip
    for day, kind, text, booked, category, amount in rows:
        sheet.append([day, kind, text, "Conto 2000/456", booked, category, "EUR", amount])
    export = tmp_path / "lista_operazioni.xlsx"
    book.save(export)
    out, _, result, counted = loaded(export, capsys)
    assert result.kept["description"].to_list() == ["Osteria Gialla", "Bonifico da Gamma Srl"]
    assert result.kept["amount"].to_list() == [-38.0, 1400.0]
    assert counted == 1 and "pending transaction row 4" in out


def test_a_yes_counts_only_under_a_pending_columns_name():
    assert status_kind({"description": "Shop", "Vormerkung": "Ja"}) == "pending transaction"
    assert status_kind({"description": "Shop", "isPending": "true"}) == "pending transaction"
    assert status_kind({"description": "Shop", "Vormerkung": "Nein"}) is None
    assert status_kind({"description": "Shop", "Storniert": "Ja"}) is None
    assert status_kind({"description": "Shop", "Contabilizzazione": "CONTABILIZZATO"}) is None
