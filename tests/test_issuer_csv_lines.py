"""Lines of an issuer's CSV that are no booked row, and what the load does with them, as other
tools' sample exports show them: pending rows (by a date cell or a status column), section
titles and footers, lines continuing the row above, balances stated among the rows, a fee
beside the amount, and a description over the limit, each counted or quarantined as inspect
says. The files are written here in each layout, not copied."""

from __future__ import annotations

from ml_assets.core.intake.raw_days import scan_exports
from ml_assets.core.params import RawTransactionsParams
from tests.test_issuer_csv_layouts import loaded


def test_a_card_of_positive_amounts_with_pending_rows(tmp_path, capsys):
    """M&S Bank's card export: every amount positive with its pound sign, the payment received
    among them, and rows not booked yet dated "Pending": the purchases are positive (a
    payment shown positive says nothing where no amount is negative), the pending rows are
    counted, not quarantined. The payment received is marked by a "CR" in a column the header
    leaves unnamed: inspect maps it by position to the direction, and the row is money in."""
    export = tmp_path / "MS_JANE_SMITH_01-12-2026_14-12-2026.csv"
    export.write_text(
        "\ufeffDate Processed,Description,Amount,\n"
        "Pending,L'OLILO                 LONDON       GBR,£67.40,\n"
        "Pending,NOWTV.COM/BILLINGHELP    SKY          GBR,£8.99,\n"
        '12-Dec-2026,ROYAL LONDON INSURANCE        01222 61234  GBR,"£1,183.23",\n'
        "12-Dec-2026,DELIVEROO.CO.UK        LONDON        LND,£18.89,\n"
        "03-Dec-2026,TFL TRAVEL CH          TFL.GOV.UK/CP GBR,£1.50,\n"
        '02-Dec-2026,PAYMENT RECEIVED - THANK YOU,"+ £1,100.00",CR\n',
        encoding="utf-8",
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["spending"] == "positive" and "purchases positive" in out
    assert counted == 2 and "pending transaction line 2" in out
    assert section["column_map"]["column 4"] == "direction"
    assert result.kept["amount"].to_list() == [-1183.23, -18.89, -1.5, 1100.0]
    assert result.rows_in == 4 and result.quarantined.height == 0


def test_section_titles_among_the_rows_are_counted_not_quarantined(tmp_path, capsys):
    """Schwab's checking download: a title line above the header, then two lines of one cell
    ("Pending Transactions are not reflected ...", "Posted Transactions") before the rows."""
    export = tmp_path / "EAC_Checking_Transactions_20261223-160009.CSV"
    export.write_text(
        "Transactions  for Checking account EAC as of 12/23/2026 16:00:10 ET\n"
        '"Date","Type","Check #","Description","Withdrawal (-)","Deposit (+)","RunningBalance"\n'
        '"Pending Transactions are not reflected within this sort criterion."\n'
        '"Posted Transactions"\n'
        '"12/20/2026","ATMREBATE","","ATM Fee Rebate","","$3.00","$20,053.01"\n'
        '"12/18/2026","WIRE","","Incoming Wire Transfer","","$20,000.00","$20,050.01"\n'
        '"12/13/2026","TRANSFER","","Funds Transfer to Brokerage","$10,500.00","","$50.01"\n'
    )
    out, _, result, counted = loaded(export, capsys)
    assert counted == 2 and "section title line 3, section title line 4" in out
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["amount"].to_list() == [3.0, 20000.0, -10500.0]


def test_a_blank_named_date_column_gives_way_and_a_footer_is_counted(tmp_path, capsys):
    """Fidelity's account history: blank lines above the header, a "Settlement Date" left
    blank on cash rows beside the "Run Date", and a disclaimer below the rows, its text in the
    first cell of otherwise empty lines."""
    export = tmp_path / "History_for_Account_X8YYYYYYY.csv"
    export.write_text(
        ",,,,,\n,,,,,\n"
        "Run Date,Action,Security Description,Quantity,Amount ($),Settlement Date\n"
        "01/27/2026, DIRECT DEBIT TREASURY DIRECT (Cash), No Description,,-10000,\n"
        "01/23/2026, DIRECT DEBIT CHASE CREDIT AUTOPAY (Cash), No Description,,-135.6,\n"
        "01/19/2026, DIRECT DEPOSIT HOOGLE INC. PAYROLL (Cash), No Description,,1001.1,\n"
        ",,,,,\n"
        "The data and information in this spreadsheet is provided to you solely for your use,,,,,\n"
        '"informational purposes only, and is not intended to provide advice.",,,,,\n'
        "Brokerage services are provided by Fidelity Brokerage Services LLC 900 Salem Street,,,,,\n"
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Run Date"] == "posted_date"
    assert counted == 3 and result.rows_in == 3 == result.kept.height
    assert result.kept["posted_date"].to_list()[0] == "2026-01-27"


def test_a_date_alone_in_the_first_cell_is_quarantined_not_counted_away(tmp_path):
    """A line with only a date (or a number) in its first cell may be a row whose other cells
    were lost: quarantined, named, never counted as a title."""
    export = tmp_path / "export.csv"
    export.write_text(
        "Date,Description,Amount\n2026-01-05,COFFEE,-3.50\n2026-01-06,,\n12 Jan 2026,,\n"
    )
    result = scan_exports(
        export,
        RawTransactionsParams(
            column_map={"Date": "posted_date", "Description": "description", "Amount": "amount"}
        ),
    )
    assert result.rows_in == 3 and result.kept.height == 1 and result.quarantined.height == 2
    assert not result.notes[0].statement_lines


def test_continuation_lines_join_the_row_above(tmp_path, capsys):
    """OCBC's history: each row's payee on a line of its own below it, in the description's
    column alone, and withdrawals and deposits in columns named with the currency."""
    export = tmp_path / "TransactionHistory_20260418043121.csv"
    export.write_text(
        "Account details for:,FRANK Account 666-666666-666\n"
        'Available Balance,"6,666.66"\n\nTransaction History\n'
        "Transaction date,Value date,Description,Withdrawals (SGD),Deposits (SGD)\n"
        "18/04/2026,18/04/2026,DEBIT PURCHASE,6.66,\n"
        ",,15/04/26  66-6666 UBER EATS AN2GO HELP.UBER\n"
        "17/04/2026,17/04/2026,CASH WITHDRAWAL  ATM,66.66,\n"
        ",,66-6666 OCBC-666 BRANCH          S\n"
        "16/04/2026,16/04/2026,SALARY,,3000.00\n"
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Withdrawals (SGD)"] == "debit"
    assert counted == 2 and "continuation line line 7, continuation line line 9" in out
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["description"].to_list() == [
        "DEBIT PURCHASE 15/04/26 66-6666 UBER EATS AN2GO HELP.UBER",
        "CASH WITHDRAWAL ATM 66-6666 OCBC-666 BRANCH S",
        "SALARY",
    ]
    assert result.kept["amount"].to_list() == [-6.66, -66.66, 3000.0]


def test_pending_rows_by_their_status_column(tmp_path, capsys):
    """Revolut's statement lists card payments not yet completed with State PENDING and no
    completed date: counted as pending, not kept as booked."""
    export = tmp_path / "account-statement_2026-01-01_2026-01-31.csv"
    export.write_text(
        "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\n"
        "TRANSFER,Current,2026-01-02 12:16:54,2026-01-02 12:16:55,To Guybrush,-250.00,0.00,EUR,"
        "COMPLETED,442.67\n"
        "CARD_PAYMENT,Current,2026-01-13 11:21:43,,store,-44.57,0.00,EUR,PENDING,\n"
        "CARD_PAYMENT,Current,2026-01-14 08:40:02,2026-01-15 10:28:09,Cafe,-3.20,0.00,EUR,"
        "COMPLETED,439.47\n"
    )
    out, _, result, counted = loaded(export, capsys)
    assert counted == 1 and "pending transaction line 3" in out
    assert result.kept["description"].to_list() == ["To Guybrush", "Cafe"]
    assert set(result.kept["currency"]) == {"EUR"}


def test_inspect_counts_a_too_long_description_as_the_load_does(tmp_path, capsys):
    """Sparkasse's quarterly closing notice: one row of 0,00 whose text runs to 960
    characters. inspect says it is quarantined, as the load will, instead of "0 quarantined"."""
    export = tmp_path / "umsatz.csv"
    notice = "ABSCHLUSS " + "Entgelte und Zinsen fuer den Abrechnungszeitraum " * 20
    export.write_text(
        "Buchungstag;Verwendungszweck;Betrag\n"
        "30.03.2026;KARTENZAHLUNG REWE;-12,40\n"
        f"31.03.2026;{notice};0,00\n"
        "01.04.2026;LOHN APRIL;2100,00\n"
    )
    out, _, result, _ = loaded(export, capsys)
    assert "rows:            3 in: 2 kept, 1 quarantined" in out
    assert dict(result.reasons) == {"description_too_long": 1}


def test_a_label_column_and_balances_stated_at_the_start_and_end_of_the_period(tmp_path, capsys):
    """A French bank's English export: the text under "Label", the closing balance stated
    above the header and the opening one below the rows, its figure in the credit column."""
    export = tmp_path / "statement.csv"
    export.write_text(
        "Bank code : 1001010101,Agency Code : 10000,Download start date : 01/04/2026,,,\n"
        ",,,,,\n"
        'Balance at end of period,,,,"+31070,11",\n'
        "Date,Operation Number,Label,Debit,Credit,Detail\n"
        '01/04/26,OP 1,CARTE MONOPRIX PARIS,"-50,00",,DETAILS 1\n'
        '02/04/26,OP 2,VIR SALAIRE ACME,,"1300,00",DETAILS 2\n'
        'Balance at start of period,,,,"+29820,11",\n'
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["Label"] == "description"
    assert counted == 1 and "balance line 7" in out
    assert result.rows_in == 2 == result.kept.height
    assert result.kept["amount"].to_list() == [-50.0, 1300.0]


def test_a_fee_column_moves_the_running_balance_beside_the_amount(tmp_path, capsys):
    """Revolut charges a card payment's fee in a column of its own: the balance falls by the
    amount and the fee. The row's amount stays the payment's; the balance check counts both
    instead of warning of a missing row."""
    export = tmp_path / "Revolut_EUR.csv"
    export.write_text(
        "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\n"
        "TOPUP,Current,2026-01-01 10:00:00,2026-01-01 10:00:01,Top-up,1000.00,0.00,EUR,"
        "COMPLETED,1000.00\n"
        "CARD_PAYMENT,Current,2026-03-01 16:45:00,2026-03-02 10:30:00,Online Store,-50.25,0.15,"
        "EUR,COMPLETED,949.60\n"
        "TRANSFER,Current,2026-03-15 11:00:00,2026-03-15 11:00:01,Rent,-100.00,0.00,EUR,"
        "COMPLETED,849.60\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Fee"] == "fee"
    assert result.kept["amount"].to_list() == [1000.0, -50.25, -100.0]
    assert "2 of 2 steps follow" in out and "does not follow" not in out
    assert not result.notes[0].breaks


def test_balances_in_columns_of_their_own_open_and_close_the_statement(tmp_path, capsys):
    """Venmo's statement states the period's balances on lines of their own, each figure alone
    under its column ("Beginning Balance" above the rows, "Ending Balance" below them): they
    are its opening and closing balances, not rows to quarantine, and neither column is a
    running balance."""
    export = tmp_path / "venmo_statement.csv"
    export.write_text(
        "Account Statement - (@Jo-Rivera) ,,,,,,,,,,,,,,\n"
        "Account Activity,,,,,,,,,,,,,,\n"
        ",ID,Datetime,Type,Status,Note,From,To,Amount (total),Amount (fee),Funding Source,"
        "Destination,Beginning Balance,Ending Balance,Disclaimer\n"
        ",,,,,,,,,,,,$40.00,,\n"
        ",4100000001,2026-04-05T19:02:11,Payment,Complete,pizza,Jo Rivera,Mia Chen,- $18.00,,"
        "Venmo balance,,,,\n"
        ",4100000002,2026-04-06T09:15:40,Payment,Complete,rent,Jo Rivera,Ben Ortiz,- $60.00,,"
        "Bank,,,,\n"
        ",4100000003,2026-04-07T12:00:00,Payment,Complete,beers,Lee Park,Jo Rivera,+ $12.00,,,"
        "Venmo balance,,,\n"
        ",,,,,,,,,,,,,$-26.00,\n",
        encoding="utf-8",
    )
    out, section, result, counted = loaded(export, capsys)
    assert result.rows_in == 3 == result.kept.height and result.quarantined.height == 0
    assert counted == 2 and "balance line 4" in out and "balance line 8" in out
    notes = result.notes[0]
    assert (notes.opening().amount, notes.closing().amount) == (40.0, -26.0)
    assert "balance" not in section["column_map"].values()
    assert not notes.warnings, notes.warnings  # 40.00 - 18 - 60 + 12 is the ending -26.00
    # a closing balance the rows do not reach: the missing money is said
    export.write_text(export.read_text().replace("$-26.00", "$-36.00"))
    _, _, result, _ = loaded(export, capsys)
    assert any("-36.00" in w for w in result.notes[0].warnings), result.notes[0].warnings


def test_a_lone_figure_under_a_running_balance_is_no_stated_balance(tmp_path, capsys):
    """Only a column named for the period's opening or closing balance states one: a line
    holding a figure under a plain "Balance" alone stays a row to look at, quarantined."""
    export = tmp_path / "checking.csv"
    export.write_text(
        "Date,Description,Amount,Balance\n"
        "2026-04-05,PIZZA PLACE,-18.00,82.00\n"
        ",,,70.00\n"
        "2026-04-06,RENT,-60.00,10.00\n"
    )
    _, _, result, counted = loaded(export, capsys)
    assert counted == 0 and result.rows_in == 3
    assert result.kept.height == 2 and result.quarantined.height == 1


def test_footnotes_below_the_table_do_not_vote_on_its_columns(tmp_path, capsys):
    """A short statement with its bank's footnotes below it, each a line of one cell (under
    the description): the id column, filled on every transaction, is still the id."""
    from tests.test_inspect_export import inspect

    export = tmp_path / "statement.csv"
    export.write_text(
        "Transaction ID,Date,Description,Amount\n"
        "TX-1001,2026-03-02,SPOTIFY AB,-9.99\n"
        "TX-1002,2026-03-03,ACME PAYROLL,2100.00\n"
        ",,This is a computer generated statement.,\n"
        ",,Contact us within 30 days of any error.,\n"
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert params["raw_transactions"]["column_map"]["Transaction ID"] == "transaction_id"
    assert "ids:             from the file" in out


def test_a_second_table_of_the_same_columns_has_its_header_read_as_one(tmp_path, capsys):
    """Discount Bank's page: the pending list, then the booked one under a header that names
    one column otherwise ("Reference" for "Notes"); that header is no quarantined row."""
    from ml_assets.core.intake.ingest import scan_transactions

    header = "Date,Value date,Description,{},Amount,Balance\n"
    export = tmp_path / "account.csv"
    export.write_text(
        header.format("Notes")
        + "05/01/2026,02/02/2026,VISA CARD CHARGE,,-710.39,10496.54\n"
        + "Recent transactions:\n"
        + header.format("Reference")
        + "01/02/2026,01/02/2026,CHEQUE WITHDRAWAL,1790,-300.00,11205.51\n"
        + "31/01/2026,01/02/2026,SALARY ACME LTD,1789,988.00,11505.51\n"
    )
    result = scan_transactions(
        export,
        column_map={"Date": "posted_date", "Description": "description", "Amount": "amount"},
        date_format="%d/%m/%Y",
    )
    assert result.rows_in == 3 == result.kept.height


def test_page_footers_and_a_closing_balance_in_a_column_of_no_field(tmp_path):
    """ING Romania's signatures and branch below each page's rows (words alone, no digit, in
    columns of no field) are page footers; BCR's "Saldo Final :" whose words stand in such a
    column is its balance line. Neither is a quarantined row; a row with a figure still is."""
    from ml_assets.core.intake.ingest import scan_transactions

    export = tmp_path / "Tranzactii.csv"
    export.write_text(
        "Data,Semnatura,Detalii tranzactie,Debit,Credit,Nota\n"
        '12/08/2021,,Cumparare POS MEGA IMAGE,"7,00",,\n'
        ",Roxana Petria,,,,Alexandra Ilie\n"
        ",,,,,ING Bank N.V. Amsterdam\n"
        '13/08/2021,,Incasare salariu,,"5.000,00",\n'
        ',Saldo Final   :,,,"6.926,67",\n'
        ',,ATM WITHDRAWAL,"50,00",,\n'
    )
    result = scan_transactions(
        export,
        column_map={"Data": "posted_date", "Detalii tranzactie": "description",
                    "Debit": "debit", "Credit": "credit"},
        date_format="%d/%m/%Y",
        decimal=",",
    )  # fmt: skip
    assert result.kept["amount"].to_list() == [-7.0, 5000.0]
    assert result.rows_in == 3 and dict(result.reasons) == {"missing_field": 1}
