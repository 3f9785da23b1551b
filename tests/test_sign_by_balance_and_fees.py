"""Which way the money of a file of positive amounts went, told by its running balance and its
rows' words, and a merchant's balance told from a card by its fee column. A running balance
that follows every positive amount shows they all went one way; a row whose words say money in
(an HSA's "Employer Contribution", a savings account's "Interest applied") then makes them all
money in, as a row that says money out makes them a card's purchases; nothing telling, the
card's reading stays, with advice. Beside a fee column (Stripe's balance export), sales are
positive and a "REFUND FOR PAYMENT" shown negative is a refund given, not a card's credit.
Each file is written here in its issuer's layout, with made-up rows."""

from __future__ import annotations

from tests.test_issuer_csv_layouts import inspect, loaded

HSA = (
    '"Date","Transaction","Amount","Cash Balance"\n'
    '"2024-01-12","Employer Contribution (Tax year: 2024)","$400.00","$400.00"\n'
    '"2024-02-09","Employer Contribution (Tax year: 2024)","$400.00","$800.00"\n'
    '"2024-03-08","Employee Contribution (Tax year: 2024)","$150.00","$950.00"\n'
)
# a savings account's export (Marcus UK's), newest first: one row's words say money in
SAVINGS = (
    '"TransactionDate","Description","Value","AccountBalance","AccountName"\n'
    '"20240601","Interest applied","2.17","1902.17","Online Saver"\n'
    '"20240524","Transfer from SAMPLE CURRENT","700.0","1900.0","Online Saver"\n'
    '"20240505","Transfer from SAMPLE CURRENT","450.0","1200.0","Online Saver"\n'
    '"20240501","Transfer from SAMPLE CURRENT","750.0","750.0","Online Saver"\n'
)


def test_hsa_contributions_beside_a_running_balance_are_money_in(tmp_path, capsys):
    export = tmp_path / "cash-transactions-contribution.csv"
    export.write_text(HSA)
    out, section, result, _ = loaded(export, capsys)
    assert "spending" not in section
    assert result.kept["amount"].to_list() == [400.0, 400.0, 150.0]
    assert "running balance follows every amount" in out


def test_savings_export_with_one_row_saying_money_in_is_money_in(tmp_path, capsys):
    """Only "Interest applied" says its way; the balance rises with every row alike, so the
    transfers in are money in too."""
    export = tmp_path / "Transactions__Account_Number__2024-06-12_13_40.csv"
    export.write_text(SAVINGS)
    _, section, result, _ = loaded(export, capsys)
    assert "spending" not in section
    assert result.kept["amount"].to_list() == [2.17, 700.0, 450.0, 750.0]


def test_without_the_balance_the_same_rows_keep_the_cards_reading(tmp_path, capsys):
    """Nothing shows the amounts are signed alike: an unsigned card statement reads the same
    way, so the reading stays a card's, with the advice to sign each row by its words."""
    export = tmp_path / "savings_no_balance.csv"
    export.write_text(
        "\n".join(
            ",".join(line.split(",")[:3] + line.split(",")[4:]) for line in SAVINGS.split("\n")
        )
    )
    out, section, _, _ = loaded(export, capsys)
    assert section["spending"] == "positive"
    assert "spending: by_words" in out


def test_card_purchases_beside_an_owed_balance_stay_purchases(tmp_path, capsys):
    """A card's owed balance rises with each purchase: rows whose words say money out make
    every amount a purchase; rows that say nothing leave the card's reading, with advice."""
    export = tmp_path / "card.csv"
    export.write_text(
        "Date,Description,Amount,Balance\n"
        "2024-04-02,POS SAMPLE GROCER 1234,52.10,52.10\n"
        "2024-04-05,ATM SAMPLE STREET,100.00,152.10\n"
        "2024-04-09,SAMPLE BOOKSHOP,18.40,170.50\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive"
    assert result.kept["amount"].to_list() == [-52.1, -100.0, -18.4]
    assert "say money out" in out
    export.write_text(
        "Date,Description,Amount,Balance\n"
        "2024-04-02,SAMPLE GROCER,52.10,52.10\n"
        "2024-04-05,SAMPLE BOOKSHOP,18.40,70.50\n"
    )
    out, section, _, _ = loaded(export, capsys)
    assert section["spending"] == "positive"
    assert "set spending: negative if the account only receives money" in out


def test_stripe_balance_refund_given_is_money_out(tmp_path, capsys):
    """Stripe's balance export: gross, fee and net; its sales positive and a refund it gave
    negative, as ours."""
    export = tmp_path / "balance_history.csv"
    export.write_text(
        '"balance_transaction_id","created_utc","available_on_utc","currency","gross","fee",'
        '"net","reporting_category","description"\n'
        '"txn_1Sample0001","2024-02-01 10:00:00","2024-02-05 00:00:00","usd","36.00","1.34",'
        '"34.66","charge","Order 2001 - linen apron"\n'
        '"txn_1Sample0002","2024-02-02 11:30:00","2024-02-06 00:00:00","usd","18.00","0.82",'
        '"17.18","charge","Order 2002 - oak coaster"\n'
        '"txn_1Sample0003","2024-02-03 09:15:00","2024-02-07 00:00:00","usd","-18.00","0.00",'
        '"-18.00","refund","REFUND FOR PAYMENT"\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert "spending" not in section
    assert result.kept["amount"].to_list() == [36.0, 18.0, -18.0]
    assert "refund(s) given negative" in out


def test_a_cards_refund_and_payment_shown_negative_still_flip_it(tmp_path, capsys):
    """A card that lists purchases positive shows its refunds and payments negative: without a
    fee column a refund alone flips it, as does a payment received beside a fee column."""
    export = tmp_path / "card.csv"
    export.write_text(
        "Date,Description,Amount\n"
        "2024-05-02,SAMPLE HARDWARE,64.00\n"
        "2024-05-04,SAMPLE CINEMA,22.50\n"
        "2024-05-08,REFUND SAMPLE HARDWARE,-64.00\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive"
    assert result.kept["amount"].to_list() == [-64.0, -22.5, 64.0]
    export.write_text(
        "Date,Description,Amount,Foreign Fee\n"
        "2024-05-02,SAMPLE HARDWARE,64.00,0.00\n"
        "2024-05-04,SAMPLE CINEMA,22.50,0.66\n"
        "2024-05-06,SAMPLE CAFE,9.80,0.00\n"
        "2024-05-08,PAYMENT RECEIVED - THANK YOU,-500.00,0.00\n"
    )
    code, out, params = inspect(export, capsys)
    assert code == 0 and params["raw_transactions"]["spending"] == "positive", out


def test_records_beside_a_fee_field_are_a_merchants(tmp_path, capsys):
    """The same rule for records (JSONL): a fee field beside mostly positive amounts."""
    export = tmp_path / "balance.jsonl"
    export.write_text(
        '{"created": "2024-02-01", "amount": "36.00", "fee": "1.34", "description": "Order 2001"}\n'
        '{"created": "2024-02-02", "amount": "18.00", "fee": "0.82", "description": "Order 2002"}\n'
        '{"created": "2024-02-03", "amount": "-18.00", "fee": "0.00", '
        '"description": "REFUND FOR PAYMENT"}\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert "spending" not in section
    assert result.kept["amount"].to_list() == [36.0, 18.0, -18.0]
