"""Bank-data API responses saved as the API returned them: the list of transactions inside
each API's envelope (TrueLayer, Up, Stripe, Akahu, PayPal, Open Banking UK, Starling v1, and
an envelope of one list found by its content), money objects (a value beside a currency code,
Tink's scaled exact number), a direction beside unsigned amounts, Revolut Business legs,
Monzo's merchant ids. Each file is written here in its API's documented layout (a few
synthetic records), read the documented way: ``inspect`` writes the settings, the load reads
the file with them, and every row is accounted for."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


def _rows(result) -> list[tuple]:
    return result.kept.select("posted_date", "amount", "currency", "description").rows()


def test_truelayer_results_are_read_and_dated_by_their_timestamp(tmp_path, capsys):
    export = _write(
        tmp_path / "truelayer.json",
        {
            "results": [
                {
                    "transaction_id": "tl-1",
                    "timestamp": "2026-03-06T00:00:00",
                    "description": "GOOGLE PLAY STORE",
                    "amount": -2.99,
                    "currency": "GBP",
                    "transaction_type": "DEBIT",
                    "transaction_category": "PURCHASE",
                    "transaction_classification": ["Entertainment", "Games"],
                    "merchant_name": "Google Play",
                },
                {
                    "transaction_id": "tl-2",
                    "timestamp": "2026-03-07T00:00:00",
                    "description": "ACME PAYROLL",
                    "amount": 1500.0,
                    "currency": "GBP",
                    "transaction_type": "CREDIT",
                    "transaction_category": "CREDIT",
                    "transaction_classification": [],
                },
            ]
        },
    )
    out, section, result, _ = loaded(export, capsys)
    assert "under 'results' (TrueLayer's layout)" in out
    assert section["column_map"]["timestamp"] == "posted_date"
    assert _rows(result) == [
        ("2026-03-06", -2.99, "GBP", "GOOGLE PLAY STORE"),
        ("2026-03-07", 1500.0, "GBP", "ACME PAYROLL"),
    ]
    assert result.kept["category"].to_list() == ["Entertainment Games", None]


def test_truelayer_card_debits_sent_positive_are_signed_by_their_type(tmp_path, capsys):
    """A card account's amounts are unsigned; transaction_type says DEBIT or CREDIT."""
    records = [
        ("c-1", "2026-01-16T00:00:00+00:00", 24.25, "SAINSBURYS SMRKT", "DEBIT"),
        ("c-2", "2026-01-18T00:00:00+00:00", 10.0, "REFUND SAINSBURYS", "CREDIT"),
    ]
    results = [
        {"transaction_id": i, "timestamp": t, "amount": a, "currency": "GBP", "description": d,
         "transaction_type": k, "transaction_category": "PURCHASE"}
        for i, t, a, d, k in records
    ]  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "card.json", {"results": results}), capsys)
    assert section["column_map"]["transaction_type"] == "direction"
    assert result.kept["amount"].to_list() == [-24.25, 10.0]


def test_up_json_api_records_with_money_objects(tmp_path, capsys):
    """Up's ``data`` holds JSON:API resources: the fields under ``attributes``, the amount a
    money object whose code must never be read as the amount; a HELD one is pending."""

    def up(uid: str, status: str, value: str, text: str) -> dict:
        return {
            "type": "transactions",
            "id": uid,
            "attributes": {
                "status": status,
                "description": text,
                "amount": {"currencyCode": "AUD", "value": value, "valueInBaseUnits": 0},
                "roundUp": {"amount": {"currencyCode": "AUD", "value": "-0.02"}},
                "createdAt": "2026-11-07T14:15:00+11:00",
            },
            "relationships": {"account": {"data": {"type": "accounts", "id": "acc-1"}}},
        }

    document = {
        "data": [
            up("u-1", "SETTLED", "-59.98", "Woolworths"),
            up("u-2", "SETTLED", "120.00", "Jane Smith"),
            up("u-3", "HELD", "-4.50", "Cafe"),
        ],
        "links": {"prev": None, "next": None},
    }
    out, section, result, counted = loaded(_write(tmp_path / "up.json", document), capsys)
    mapping = section["column_map"]
    assert mapping["amount.value"] == "amount" and mapping["amount.currencyCode"] == "currency"
    assert "amount.currencyCode: amount" not in out
    assert _rows(result) == [
        ("2026-11-07", -59.98, "AUD", "Woolworths"),
        ("2026-11-07", 120.0, "AUD", "Jane Smith"),
    ]
    assert result.kept["account_id"].to_list() == ["acc-1", "acc-1"]
    assert result.kept["transaction_type"].to_list() == [None, None]  # ("transactions": no kind)
    assert counted == 1  # the held one


def test_stripe_balance_transactions_in_cents_described_by_their_type(tmp_path, capsys):
    document = {
        "object": "list",
        "url": "/v1/balance_transactions",
        "has_more": False,
        "data": [
            {"id": "txn_1", "object": "balance_transaction", "amount": -400,
             "created": 1678043844, "currency": "usd", "description": None, "fee": 0,
             "net": -400, "reporting_category": "transfer", "status": "available",
             "type": "transfer"},
            {"id": "txn_2", "object": "balance_transaction", "amount": 2500,
             "created": 1678130244, "currency": "usd", "description": "Invoice 0042",
             "fee": 103, "net": 2397, "reporting_category": "charge",
             "status": "available", "type": "charge"},
        ],
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "stripe.json", document), capsys)
    assert section["amount_unit"] == "minor"
    assert "reporting_category" not in section["column_map"]
    assert _rows(result) == [
        ("2023-03-05", -4.0, "USD", "transfer"),
        ("2023-03-06", 25.0, "USD", "Invoice 0042"),
    ]
    assert result.kept["category"].to_list() == [None, None]


def test_akahu_items_are_new_zealand_dollars(tmp_path, capsys):
    document = {
        "success": True,
        "cursor": {"next": None},
        "items": [
            {"_id": "txn_1", "_account": "acc_1", "_user": "user_1", "_connection": "conn_1",
             "date": "2026-05-20T00:00:00.000Z", "description": "COUNTDOWN PONSONBY",
             "amount": -82.45, "type": "EFTPOS",
             "merchant": {"_id": "merchant_1", "name": "Countdown"}},
        ],
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "akahu.json", document), capsys)
    assert "under 'items' (Akahu's layout)" in out and section["currency"] == "NZD"
    assert _rows(result) == [("2026-05-20", -82.45, "NZD", "COUNTDOWN PONSONBY")]
    assert result.kept["merchant"].to_list() == ["Countdown"]


def test_paypal_transaction_info_and_its_amount_object(tmp_path, capsys):
    """PayPal Transaction Search: each record's fields in ``transaction_info``, the amount an
    object. A pending (P) and a denied (D) transaction moved no money yet: counted, not rows."""

    def money(value: str) -> dict:
        return {"currency_code": "USD", "value": value}

    def detail(uid: str, status: str, value: str, text: str) -> dict:
        return {
            "transaction_info": {
                "transaction_id": uid,
                "transaction_initiation_date": "2026-07-11T04:03:52+0000",
                "transaction_amount": money(value),
                "fee_amount": money("-13.79"),
                "transaction_status": status,
                "transaction_subject": text,
            },
            "payer_info": {"account_id": "6STWC2LSUYYYE", "country_code": "US"},
            "cart_info": {"item_details": [{"item_name": "Radio"}]},
        }

    document = {
        "transaction_details": [
            detail("5TY05013RG002845M", "S", "465.00", "Bill for your purchase"),
            detail("6AB05013RG002846N", "P", "-20.00", "Order not yet settled"),
            detail("7CD05013RG002847P", "D", "-35.00", "Payment the bank refused"),
        ],
        "account_number": "XZXSPECYZZMMQ",
        "page": 1,
    }
    out, section, result, counted = loaded(_write(tmp_path / "paypal.json", document), capsys)
    assert section["column_map"]["transaction_amount.value"] == "amount"
    assert "cart_info.item_details" not in section["column_map"]
    assert _rows(result) == [("2026-07-11", 465.0, "USD", "Bill for your purchase")]
    kinds = sorted(kind for notes in result.notes for _, kind in notes.statement_lines)
    assert counted == 2 and kinds == ["denied transaction", "pending transaction"]


def test_open_banking_credit_debit_indicator_signs_each_row(tmp_path, capsys):
    def entry(uid: str, amount: str, way: str, text: str, balance_way: str) -> dict:
        return {
            "AccountId": "22289",
            "TransactionId": uid,
            "Amount": {"Amount": amount, "Currency": "GBP"},
            "CreditDebitIndicator": way,
            "Status": "Booked",
            "BookingDateTime": "2026-04-05T10:43:07+00:00",
            "TransactionInformation": text,
            "Balance": {
                "Amount": {"Amount": "230.00", "Currency": "GBP"},
                "CreditDebitIndicator": balance_way,
                "Type": "InterimBooked",
            },
        }

    document = {
        "Data": {
            "Transaction": [
                entry("123", "10.00", "Credit", "Cash from Aubrey", "Credit"),
                entry("567", "100.00", "Debit", "Paid the gas bill", "Credit"),
            ]
        },
        "Links": {"Self": "https://api.example.com/open-banking/v3.1/aisp/transactions"},
        "Meta": {"TotalPages": 1},
    }
    out, section, result, _ = loaded(_write(tmp_path / "obie.json", document), capsys)
    assert "under 'Data.Transaction' (Open Banking UK's layout)" in out
    mapping = section["column_map"]
    assert mapping["CreditDebitIndicator"] == "direction"
    assert "Balance.CreditDebitIndicator" not in mapping and "spending" not in section
    assert _rows(result) == [
        ("2026-04-05", 10.0, "GBP", "Cash from Aubrey"),
        ("2026-04-05", -100.0, "GBP", "Paid the gas bill"),
    ]


def test_starling_v1_signed_amounts_are_kept_beside_their_direction(tmp_path, capsys):
    transactions = [
        {"id": "s-1", "currency": "GBP", "amount": -1.02, "direction": "OUTBOUND",
         "created": "2026-05-30T18:06:28.773Z", "narrative": "Aldi", "source": "MASTER_CARD"},
        {"id": "s-2", "currency": "GBP", "amount": 50.0, "direction": "INBOUND",
         "created": "2026-05-22T13:17:36.278Z", "narrative": "Money received",
         "source": "FASTER_PAYMENTS_IN"},
    ]  # fmt: skip
    document = {"_links": {"nextPage": {"href": "x"}}, "_embedded": {"transactions": transactions}}
    out, section, result, _ = loaded(_write(tmp_path / "starling.json", document), capsys)
    assert "under '_embedded.transactions' (Starling v1's layout)" in out
    assert result.quarantined.height == 0
    assert _rows(result) == [
        ("2026-05-30", -1.02, "GBP", "Aldi"),
        ("2026-05-22", 50.0, "GBP", "Money received"),
    ]


def test_tink_exact_number_is_scaled(tmp_path, capsys):
    """Tink writes -130.0 as {"scale": "1", "unscaledValue": "-1300"}."""
    document = {
        "nextPageToken": "",
        "transactions": [
            {
                "accountId": "4a29",
                "amount": {
                    "currencyCode": "GBP",
                    "value": {"scale": "1", "unscaledValue": "-1300"},
                },
                "dates": {"booked": "2026-12-15", "value": "2026-12-15"},
                "descriptions": {"display": "Tesco", "original": "TESCO STORES 3297"},
                "id": "d8f3",
                "status": "BOOKED",
            }
        ],
    }
    out, section, result, _ = loaded(_write(tmp_path / "tink.json", document), capsys)
    assert section["column_map"]["amount.value"] == "amount"
    assert _rows(result) == [("2026-12-15", -130.0, "GBP", "TESCO STORES 3297")]


def test_revolut_business_legs_are_a_row_each(tmp_path, capsys):
    """A card payment has one leg; an exchange two, on two accounts; a declined payment none."""

    def transaction(uid: str, kind: str, state: str, legs: list, **more) -> dict:
        times = {"created_at": "2026-08-04T09:00:00Z", "completed_at": "2026-08-04T09:00:01Z"}
        return {"id": uid, "type": kind, "state": state, **times, "legs": legs, **more}

    document = [
        transaction(
            "pay-1", "card_payment", "completed",
            [{"leg_id": "l1", "account_id": "acct-1", "amount": -10.25, "currency": "GBP",
              "description": "Pret A Manger"}],
            merchant={"name": "Pret A Manger", "city": "London"},
        ),
        transaction(
            "fx-1", "exchange", "completed",
            [{"leg_id": "l2", "account_id": "acct-1", "amount": -100.0, "currency": "GBP"},
             {"leg_id": "l2", "account_id": "acct-2", "amount": 120.0, "currency": "USD"}],
        ),
        transaction(
            "pay-2", "card_payment", "declined",
            [{"leg_id": "l3", "account_id": "acct-1", "amount": -5.0, "currency": "GBP"}],
        ),
    ]  # fmt: skip
    out, section, result, counted = loaded(_write(tmp_path / "revolut.json", document), capsys)
    assert _rows(result) == [
        ("2026-08-04", -10.25, "GBP", "Pret A Manger"),
        ("2026-08-04", -100.0, "GBP", "exchange"),
        ("2026-08-04", 120.0, "USD", "exchange"),
    ]
    assert result.kept["account_id"].to_list() == ["acct-1", "acct-1", "acct-2"]
    assert result.kept["transaction_id"].to_list() == ["pay-1", "fx-1/1", "fx-1/2"]
    assert counted == 1 and result.duplicates == 0


def test_monzo_merchant_id_is_no_merchant_name(tmp_path, capsys):
    document = {
        "transactions": [
            {"id": "tx_1", "created": "2026-08-22T12:20:18Z", "amount": -510, "currency": "GBP",
             "description": "THE DE BEAUVOIR DELI C LONDON GBR",
             "merchant": "merch_00008zIcpbAKe8shBxXUtl", "account_balance": 13013,
             "is_load": False, "settled": "2026-08-23T12:20:18Z", "category": "eating_out"},
            {"id": "tx_2", "created": "2026-08-23T16:15:03Z", "amount": -679, "currency": "GBP",
             "description": "VUE BSL LTD ISLINGTON GBR",
             "merchant": {"id": "merch_00008z6uFVhVBcaZzSQwCX", "name": "Vue Cinemas"},
             "account_balance": 12334, "is_load": False, "settled": "2026-08-24T16:15:03Z",
             "category": "entertainment"},
        ]
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "monzo.json", document), capsys)
    assert result.kept["merchant"].to_list() == [None, "Vue Cinemas"]
    assert result.kept["amount"].to_list() == [-5.1, -6.79]


def test_another_envelope_is_read_by_its_one_list_and_named(tmp_path, capsys):
    document = {
        "status": "ok",
        "page": {"number": 1, "size": 2},
        "response": {
            "account": {"id": "acc-9"},
            "entries": [
                {"id": "e-1", "date": "2026-02-01", "amount": -12.5, "description": "BAKERY"},
                {"id": "e-2", "date": "2026-02-02", "amount": -3.0, "description": "BUS"},
            ],
        },
    }
    out, section, result, _ = loaded(_write(tmp_path / "bank.json", document), capsys)
    assert "under 'response.entries'" in out
    assert result.kept["description"].to_list() == ["BAKERY", "BUS"]


def test_an_envelope_of_two_transaction_lists_is_refused_naming_them(tmp_path, capsys):
    entry = {"id": "e-1", "date": "2026-02-01", "amount": -12.5, "description": "BAKERY"}
    document = {"checking": [entry], "savings": [dict(entry, id="e-2")]}
    code, out, _ = inspect(_write(tmp_path / "two.json", document), capsys)
    assert code != 0
    assert "several lists of transactions, ['checking', 'savings']" in out
