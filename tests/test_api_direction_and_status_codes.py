"""PSD2 and open-finance APIs that send unsigned amounts beside a code of the way the money
went, and a status code for entries not booked: ISO 20022's DBIT/CRDT and PDNG (STET's French
banks, Enable Banking's Nordic and European ones) and Open Finance Brasil's DEBITO/CREDITO and
LANCAMENTO_FUTURO. Each file is written here in its API's documented layout (invented
merchants and amounts); ``inspect`` writes the settings and the load reads the file with them,
every row accounted for: money out negative, a pending or scheduled entry counted, never a
row."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_issuer_csv_layouts import loaded


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False))
    return path


def _rows(result) -> list[tuple]:
    return result.kept.select("posted_date", "amount", "currency", "description").rows()


def _enable_banking(ref: str, amount: str, way: str, status: str, day: str | None, **more):
    return {
        "entry_reference": ref,
        "transaction_amount": {"currency": "EUR", "amount": amount},
        "credit_debit_indicator": way,
        "status": status,
        "booking_date": day,
        "value_date": day,
        "reference_number": None,
        "balance_after_transaction": {"currency": "EUR", "amount": "900.00"},
        **more,
    }


def test_enable_banking_debits_are_money_out_and_its_pending_entry_is_counted(tmp_path, capsys):
    """DBIT signs the unsigned amount; PDNG is pending; the id is the entry reference, not the
    reference number that is null on every entry."""
    document = {
        "transactions": [
            _enable_banking(
                "E-100", "12.30", "DBIT", "BOOK", "2024-03-04",
                creditor={"name": "FJORD KIOSK"}, remittance_information=["Kortkjop 02.03"],
            ),
            _enable_banking(
                "E-101", "1500.00", "CRDT", "BOOK", "2024-03-05",
                debtor={"name": "POLARLYS AS"}, remittance_information=["Lonn mars"],
            ),
            _enable_banking(
                None, "45.00", "DBIT", "PDNG", None,
                creditor={"name": "BENSIN NORD"}, transaction_date="2024-03-06",
            ),
        ],
        "continuation_key": None,
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "enable.json", document), capsys)
    assert section["column_map"]["credit_debit_indicator"] == "direction"
    assert section["column_map"]["entry_reference"] == "transaction_id"
    assert "reference_number" not in section["column_map"]
    assert _rows(result) == [
        ("2024-03-04", -12.3, "EUR", "FJORD KIOSK Kortkjop 02.03"),
        ("2024-03-05", 1500.0, "EUR", "POLARLYS AS Lonn mars"),
    ]
    assert result.kept["transaction_id"].to_list() == ["E-100", "E-101"]
    assert result.quarantined.height == 0 and "1: pending transaction" in out


def test_stet_entries_are_signed_by_their_indicator_and_other_statuses_counted(tmp_path, capsys):
    """STET (French banks' PSD2 API): camelCase, the remittance's unstructured lines; PDNG,
    OTHR and RJCT entries are counted, each by what it is."""

    def entry(ref, amount, way, status, day, text):
        return {
            "resourceId": f"r-{ref}", "entryReference": ref,
            "transactionAmount": {"amount": amount, "currency": "EUR"},
            "creditDebitIndicator": way, "status": status, "bookingDate": day,
            "remittanceInformation": {"unstructured": [text]},
        }  # fmt: skip

    document = {
        "transactions": [
            entry("A1", "38.90", "DBIT", "BOOK", "2024-02-12", "CB BOULANGERIE DU QUAI 10/02"),
            entry("A2", "1200.00", "CRDT", "BOOK", "2024-02-13", "VIR SEPA ATELIER NORD SALAIRE"),
            entry("A3", "15.00", "DBIT", "PDNG", "2024-02-14", "CB CINEMA DU PHARE 14/02"),
            entry("A4", "22.00", "DBIT", "OTHR", "2024-02-14", "CB LIBRAIRIE DU PORT"),
            entry("A5", "60.00", "DBIT", "RJCT", "2024-02-15", "PRLV REFUSE"),
        ],
        "_links": {"self": {"href": "/accounts/a1/transactions?page=1"}},
    }
    out, section, result, _ = loaded(_write(tmp_path / "stet.json", document), capsys)
    assert section["column_map"]["creditDebitIndicator"] == "direction"
    assert _rows(result) == [
        ("2024-02-12", -38.9, "EUR", "CB BOULANGERIE DU QUAI 10/02"),
        ("2024-02-13", 1200.0, "EUR", "VIR SEPA ATELIER NORD SALAIRE"),
    ]
    assert "pending transaction" in out and "rejected transaction" in out
    assert "entry of status OTHR" in out
    assert result.rows_in == 2  # the three not booked are counted apart, not rows


def test_a_bank_that_signs_some_debits_keeps_them_negative(tmp_path, capsys):
    """Some STET banks sign a debit as well as marking it DBIT: the indicator signs the
    unsigned debits, and an amount already negative stays negative."""
    document = {
        "transactions": [
            {"entryReference": r, "transactionAmount": {"amount": a, "currency": "EUR"},
             "creditDebitIndicator": w, "status": "BOOK", "bookingDate": d,
             "remittanceInformation": {"unstructured": [t]}}
            for r, a, w, d, t in [
                ("S1", "-1.00", "DBIT", "2024-02-01", "FRAIS TENUE DE COMPTE"),
                ("S2", "19.90", "DBIT", "2024-02-02", "CB EPICERIE DU COIN"),
                ("S3", "250.00", "CRDT", "2024-02-03", "VIR RECU MARTIN"),
            ]
        ]
    }  # fmt: skip
    _, section, result, _ = loaded(_write(tmp_path / "mixed.json", document), capsys)
    assert section["column_map"]["creditDebitIndicator"] == "direction"
    assert result.kept["amount"].to_list() == [-1.0, -19.9, 250.0]


def test_signed_amounts_beside_a_credit_marked_negative_are_left_as_signed(tmp_path, capsys):
    """A negative amount marked CRDT (a reversal a bank signs) would turn if the indicator
    signed every amount: the indicator is not read, and the amounts keep their signs."""
    document = {
        "transactions": [
            {"entryReference": r, "transactionAmount": {"amount": a, "currency": "EUR"},
             "creditDebitIndicator": w, "status": "BOOK", "bookingDate": "2024-02-01",
             "remittanceInformation": {"unstructured": [t]}}
            for r, a, w, t in [
                ("R1", "-5.00", "CRDT", "ANNULATION VIREMENT"),
                ("R2", "19.90", "DBIT", "CB EPICERIE DU COIN"),
            ]
        ]
    }  # fmt: skip
    _, section, result, _ = loaded(_write(tmp_path / "reversal.json", document), capsys)
    assert "direction" not in section["column_map"].values()
    assert result.kept["amount"].to_list() == [-5.0, 19.9]


def _ofb(ref: str, kind: str, way: str, name: str, amount: str, day: str) -> dict:
    return {
        "transactionId": ref,
        "completedAuthorisedPaymentType": kind,
        "creditDebitType": way,
        "transactionName": name,
        "type": "PIX",
        "transactionAmount": {"amount": amount, "currency": "BRL"},
        "transactionDateTime": day,
        "partieCnpjCpf": "11222333000181",
    }


def test_open_finance_brasil_debits_are_money_out_and_future_entries_counted(tmp_path, capsys):
    """transactionName is the text, DEBITO money out, LANCAMENTO_FUTURO a scheduled entry."""
    document = {
        "data": [
            _ofb("t-1", "TRANSACAO_EFETIVADA", "DEBITO", "PIX ENVIADO PADARIA SOL",
                 "27.5000", "2023-04-03T14:22:10.000Z"),
            _ofb("t-2", "TRANSACAO_EFETIVADA", "CREDITO", "TED RECEBIDA OFICINA LUA",
                 "3500.0000", "2023-04-05T09:00:00.000Z"),
            _ofb("t-3", "LANCAMENTO_FUTURO", "DEBITO", "BOLETO CONDOMINIO",
                 "610.0000", "2023-04-10T00:00:00.000Z"),
        ],
        "links": {"self": "https://api.banco.example/open-banking/accounts/v2/x/transactions"},
        "meta": {"totalRecords": 3, "totalPages": 1},
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "ofb.json", document), capsys)
    assert section["column_map"]["transactionName"] == "description"
    assert section["column_map"]["creditDebitType"] == "direction"
    assert _rows(result) == [
        ("2023-04-03", -27.5, "BRL", "PIX ENVIADO PADARIA SOL"),
        ("2023-04-05", 3500.0, "BRL", "TED RECEBIDA OFICINA LUA"),
    ]
    assert "1: scheduled transaction" in out and result.quarantined.height == 0
