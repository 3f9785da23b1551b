"""A status column that says a payment did not happen (Revolut's REVERTED and DECLINED, FAILED,
Satispay's NOT APPROVED, the same words in other languages): the row is counted as no
transaction, with its kind and line, never kept as spending and never silently dropped. The
files are written here in each layout, not copied."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.row_status import not_happened, status_kind, status_sets_aside
from tests.test_issuer_csv_layouts import loaded


def test_revolut_reverted_and_declined_rows_are_counted_not_spent(tmp_path, capsys):
    """Revolut leaves a reverted or declined card payment's Completed Date and Balance blank
    and the balances around it skip it: no money moved."""
    export = tmp_path / "account-statement_2025-03-01_2025-03-31_en_ab12cd.csv"
    export.write_text(
        "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\n"
        "CARD_PAYMENT,Current,2025-03-01 10:00:00,2025-03-02 09:00:00,Caffe Lumen,-4.50,0.00,"
        "EUR,COMPLETED,95.50\n"
        "CARD_PAYMENT,Current,2025-03-03 12:00:00,,Libreria Orsa,-23.00,0.00,EUR,REVERTED,\n"
        "CARD_PAYMENT,Current,2025-03-04 18:30:00,,Teatro Nuovo,-40.00,0.00,EUR,DECLINED,\n"
        "CARD_PAYMENT,Current,2025-03-05 08:00:00,,Museo Civico,-9.00,0.00,EUR,FAILED,\n"
        "CARD_PAYMENT,Current,2025-03-05 08:00:00,2025-03-06 09:00:00,Panetteria Sole,-2.10,0.00,"
        "EUR,COMPLETED,93.40\n",
        encoding="utf-8",
    )
    out, _, result, counted = loaded(export, capsys)
    assert result.kept["description"].to_list() == ["Caffe Lumen", "Panetteria Sole"]
    assert result.kept["amount"].to_list() == [-4.5, -2.1]
    assert counted == 3
    assert (
        "reverted transaction line 3, declined transaction line 4, failed transaction line 5" in out
    )
    assert result.quarantined.height == 0
    # the rows kept are dated by their completion: the rows set aside do not vote on the
    # date column
    assert result.kept["posted_date"].cast(str).to_list() == ["2025-03-02", "2025-03-06"], out


def test_satispay_not_approved_row_is_counted_not_spent(tmp_path, capsys):
    export = tmp_path / "satispay.csv"
    export.write_text(
        "id,name,state,kind,date,amount,currency,extra info\n"
        'a1,"Ricarica Satispay",APPROVED,BANK,"3 feb 2025. 08:10:00","50,00 ",EUR,""\n'
        'a2,"Bar Aurora",APPROVED,C2B,"4 feb 2025. 09:15:12","-1,80 ",EUR,""\n'
        'a3,"Giulia Verdi",NOT APPROVED,P2P,"5 feb 2025. 19:02:44","-12,00 ",EUR,"cena"\n'
        'a4,"Forno Rossi",APPROVED,C2B,"6 feb 2025. 07:58:30","-3,20 ",EUR,""\n',
        encoding="utf-8",
    )
    out, _, result, counted = loaded(export, capsys)
    assert result.kept["amount"].to_list() == [50.0, -1.8, -3.2]
    assert counted == 1 and "not approved transaction line 4" in out


@pytest.mark.parametrize(
    ("name", "value", "kind"),
    [
        ("State", "REVERTED", "reverted transaction"),
        ("Status", "Declined", "declined transaction"),
        ("Statut", "Refusée", "declined transaction"),
        ("Estado", "Rechazada", "declined transaction"),
        ("Stato", "Annullato", "cancelled transaction"),
        ("Status", "Fehlgeschlagen", "failed transaction"),
        ("Статус", "FAILED", "failed transaction"),
        ("Статус", "Отклонена", "declined transaction"),
        ("state", "NOT_APPROVED", "not approved transaction"),
        ("Status", "Denied", "denied transaction"),
    ],
)
def test_words_of_a_payment_that_did_not_happen(name, value, kind):
    assert status_kind({"description": "Shop", name: value}) == kind


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("State", "COMPLETED"),
        ("Status", "Reversed"),  # (PayPal lists the reversal as a row of its own)
        ("Status", "Refunded"),
        ("description", "DECLINED"),  # (the words count only in a status column)
        ("Memo", "failed"),
    ],
)
def test_other_statuses_and_columns_leave_the_row_a_transaction(name, value):
    assert not_happened({"description": "Shop", name: value}) is None


def test_a_row_set_aside_by_its_status_is_told_from_its_cells():
    header = ["Started Date", "Completed Date", "Description", "Amount", "State"]
    assert status_sets_aside(header, ["2025-03-03", "", "Shop", "-1", "DECLINED"])
    assert status_sets_aside(header, ["2025-03-03", "", "Shop", "-1", "PENDING"])
    assert not status_sets_aside(header, ["2025-03-03", "2025-03-04", "Shop", "-1", "COMPLETED"])
