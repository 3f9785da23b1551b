"""A column that marks the amounts of one way only and leaves the others blank: ICICI's card
CSV writes "CR" in "BillingAmountSign" on a payment or a reversal and nothing on a purchase,
HDFC's card writes "Cr" in "Debit / Credit", and an account may write "DR" on its withdrawals
alone. The marked rows are signed by their mark, the unmarked ones the other way. Each file is
written here in the bank's layout, with made-up rows; ``inspect`` writes the settings and the
load reads the file with them."""

from __future__ import annotations

from tests.test_issuer_csv_layouts import loaded


def test_icici_card_billing_amount_sign_marks_money_in(tmp_path, capsys):
    """ICICI's monthly card CSV: a preamble, a card-number line under the header, unsigned
    amounts, "CR" on the money in."""
    export = tmp_path / "icici_cc.csv"
    export.write_text(
        '"Accountno:","0000000011112222"\n'
        '"Customer Name:","MS A SAMPLE"\n'
        "\n"
        '"Transaction Details:"\n'
        '"Date","Sr.No.","Transaction Details","Reward Point Header","Intl.Amount",'
        '"Amount(in Rs)","BillingAmountSign"\n'
        '"XXXXXXXXXXXX9876"\n'
        '"03/02/2025","1","MODEL BAKERY NASHIK","6","0","812.00",""\n'
        '"06/02/2025","2","Reversal of fuel Surcharge","0","0","7.50","CR"\n'
        '"11/02/2025","3","TUNEBOX MUSIC","2","0","119.00",""\n'
        '"15/02/2025","4","PAYMENT RECEIVED - THANK YOU","0","0","4200.00","CR"\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["BillingAmountSign"] == "direction"
    assert result.kept["amount"].to_list() == [-812.0, 7.5, -119.0, 4200.0]
    assert "marks only money in" in out


def test_hdfc_card_debit_credit_column_marks_money_in(tmp_path, capsys):
    """HDFC's card CSV (here comma-delimited): no known amount name ("AMT"), so the columns come
    by their values; "Debit / Credit" is blank on purchases and "Cr" on a refund, each cell
    with a trailing space; dates carry a time."""
    export = tmp_path / "hdfc_cc.csv"
    export.write_text(
        "Name,A SAMPLE               \n"
        "Statement Date,13/02/2025 \n"
        "\n"
        "Transaction type,Primary / Addon Customer Name,DATE,Description,Base NeuCoins,AMT,"
        "Debit / Credit \n"
        "Domestic,A SAMPLE,04/02/2025 18:02:11,SAMPLE HARDWARE PUNE,,431.20, \n"
        "Domestic,A SAMPLE,06/02/2025 09:40:05,UPI-Sample Cafe Limited,,88.00, \n"
        "Domestic,A SAMPLE,08/02/2025 13:15:47,UPI-Refund Sample Cafe,,88.00,Cr \n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Debit / Credit"] == "direction"
    assert result.kept["amount"].to_list() == [-431.2, -88.0, 88.0]


def test_debit_marks_alone_leave_the_unmarked_rows_money_in(tmp_path, capsys):
    """An account that writes "DR" on its withdrawals and nothing on its deposits: the
    unmarked rows are the money in, not purchases."""
    export = tmp_path / "account.csv"
    export.write_text(
        "Date,Details,Amount,Mark\n"
        "01/03/2025,SALARY SAMPLE WORKS LTD,52000.00,\n"
        "03/03/2025,ATM CASH SAMPLE ROAD,2000.00,DR\n"
        "05/03/2025,SAMPLE PHARMACY,345.60,DR\n"
        "09/03/2025,NEFT SAMPLE TENANT RENT,15000.00,\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Mark"] == "direction"
    assert result.kept["amount"].to_list() == [52000.0, -2000.0, -345.6, 15000.0]
    assert "marks only money out" in out
