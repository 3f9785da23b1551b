"""API documents whose transactions are not one flat list: a GraphQL list of edges (Copilot
Money's), an array of accounts each with its transactions (Afterbanks'), the Berlin Group's
card-account transactions, and a Berlin Group response that holds only the account's
balances. Each is written here in its API's layout (invented merchants and amounts)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


def _rows(result) -> list[tuple]:
    columns = ("posted_date", "account_id", "amount", "currency", "description")
    return result.kept.select(*columns).rows()


def test_graphql_edges_are_read_node_by_node(tmp_path, capsys):
    """One list (``transactions.edges``), each edge's node a record; the pending node counted;
    no currency in the file: the finding says the rows are read as USD."""

    def edge(ref, name, amount, day, pending):
        return {"cursor": f"c-{ref}", "node": {
            "id": ref, "accountId": "acc-9", "name": name, "amount": amount, "date": day,
            "isPending": pending, "categoryId": "cat-x"}}  # fmt: skip

    document = {
        "transactions": {
            "edges": [
                edge("t-1", "HILLSIDE CYCLES", -64.0, "2024-08-01", False),
                edge("t-2", "DOCKSIDE CAFE", -7.25, "2024-08-02", True),
            ],
            "pageInfo": {"hasNextPage": False, "endCursor": "c-t-2"},
        }
    }
    out, _, result, _ = loaded(_write(tmp_path / "copilot.json", document), capsys)
    assert "under 'transactions.edges'" in out
    assert _rows(result) == [("2024-08-01", None, -64.0, "USD", "HILLSIDE CYCLES")]
    assert "1: pending transaction" in out and "every row is read as USD" in out


def test_an_array_of_accounts_gives_each_transaction_its_account(tmp_path, capsys):
    """Afterbanks: each account's currency and number ("product") are its transactions';
    the dates are day first (dd-mm-yyyy); every transaction is a row, no account is (one
    without transactions has no ``transactions`` key)."""

    def account(product, currency, *transactions):
        return {"balance": 0, "currency": currency, "description": "CUENTA", "product": product,
                "type": "checking", "transactions": list(transactions)}  # fmt: skip

    def tx(amount, day, text):
        return {"amount": amount, "balance": 0, "date": day, "date2": day, "description": text}

    document = [
        account("0049-0001-51-0000000001", "EUR",
                tx(-12.35, "14-03-2023", "COMPRA TARJ. FARMACIA SOL"),
                tx(1500.0, "10-03-2023", "NOMINA TALLERES NORTE SL")),
        account("4940________0007", "EUR", tx(-96.1, "02-03-2023", "LIBRERIA LA ISLA")),
        {"balance": 0, "currency": "EUR", "description": "DEBIT CARD",
         "product": "5402________9999", "type": "debit"},  # (an account of no transactions)
    ]  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "afterbanks.json", document), capsys)
    assert section["date_format"] == "%d-%m-%Y"
    assert _rows(result) == [
        ("2023-03-14", "0049-0001-51-0000000001", -12.35, "EUR", "COMPRA TARJ. FARMACIA SOL"),
        ("2023-03-10", "0049-0001-51-0000000001", 1500.0, "EUR", "NOMINA TALLERES NORTE SL"),
        ("2023-03-02", "4940________0007", -96.1, "EUR", "LIBRERIA LA ISLA"),
    ]
    assert result.rows_in == 3


def test_berlin_group_card_transactions_are_read_and_balances_left_alone(tmp_path, capsys):
    document = {
        "cardAccount": {"maskedPan": "525412******3241", "currency": "EUR"},
        "cardTransactions": {
            "booked": [
                {"cardTransactionId": "ct-1", "transactionDate": "2024-01-08",
                 "bookingDate": "2024-01-09",
                 "transactionAmount": {"currency": "EUR", "amount": "-58.40"},
                 "originalAmount": {"currency": "SEK", "amount": "-650.00"},
                 "maskedPAN": "525412******3241", "transactionDetails": "HAMNKIOSKEN MALMO"},
                {"cardTransactionId": "ct-2", "transactionDate": "2024-01-15",
                 "bookingDate": "2024-01-15",
                 "transactionAmount": {"currency": "EUR", "amount": "200.00"},
                 "maskedPAN": "525412******3241", "transactionDetails": "PAYMENT THANK YOU"},
            ],
            "pending": [
                {"cardTransactionId": "ct-3", "transactionDate": "2024-01-20",
                 "transactionAmount": {"currency": "EUR", "amount": "-9.90"},
                 "maskedPAN": "525412******3241", "transactionDetails": "STREAMBOX"},
            ],
        },
        "balances": [
            {"balanceAmount": {"currency": "EUR", "amount": "-141.60"},
             "balanceType": "interimBooked", "referenceDate": "2024-01-20"},
        ],
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "card.json", document), capsys)
    assert "card-account transactions document" in out
    assert _rows(result) == [
        ("2024-01-09", "525412******3241", -58.4, "EUR", "HAMNKIOSKEN MALMO"),
        ("2024-01-15", "525412******3241", 200.0, "EUR", "PAYMENT THANK YOU"),
    ]
    assert result.kept["transaction_id"].to_list() == ["ct-1", "ct-2"]
    assert "1: pending transaction" in out


def test_a_response_of_balances_only_is_refused_as_holding_no_transactions(tmp_path, capsys):
    """A Berlin Group /transactions response that lists its transactions in a file to
    download holds the account and its balances: no rows, said so (not 2 balances
    quarantined as transactions), on one line as curl saves it or pretty-printed."""
    document = {
        "account": {"iban": "DE89370400440532013000", "currency": "EUR"},
        "balances": [
            {"balanceAmount": {"currency": "EUR", "amount": "1712.00"},
             "balanceType": kind, "lastChangeDateTime": "2021-07-07T10:40:30.712+02:00",
             "referenceDate": "2021-07-07"}
            for kind in ("interimAvailable", "closingBooked")
        ],
        "_links": {"download": {"href": "https://bank.example/v1/accounts/x/transactions/download/1"}},
    }  # fmt: skip
    for path in (tmp_path / "one-line.json", tmp_path / "pretty.json"):
        text = json.dumps(document, indent=None if path.stem == "one-line" else 2)
        path.write_text(text)
        code, out, _ = inspect(path, capsys)
        assert code == 1
        assert "holds the account's balances ('balances'), no transactions" in out
        assert "_links.download" in out
