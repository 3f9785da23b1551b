"""Columns told apart by their role, in layouts with more than one candidate for a field: the
payment's amount among its parts and its fee (PayPal), the other party's name beside its
account number (bunq) or beside the account's owner (Venmo), the account's amount and currency
beside the transaction's own (VTB, DKB), an amount column of zeros (ICICI), headerless debit
and credit columns with "0" on the empty side (SunTrust, Raiffeisen), and a transaction number
that starts with a date (Alipay). Each file is written here in the bank's layout, with made-up
rows; ``inspect`` writes the settings and the load reads the file with them."""

from __future__ import annotations

from ml_assets.core.intake.column_names import field_of, party_role
from tests.test_issuer_csv_layouts import loaded

PAYPAL_HEADER = (
    '"Date","Time","TimeZone","Name","Type","Status","Currency","Gross","Fee","Net",'
    '"From Email Address","To Email Address","Transaction ID","Shipping and Handling Amount",'
    '"Insurance Amount","Sales Tax","Balance","Subject","Note","Balance Impact"\n'
)


def test_paypal_takes_the_gross_and_the_type_where_no_party_is_named(tmp_path, capsys):
    """PayPal's activity download: the amount is "Gross" (the fee is its own column), never
    the shipping, insurance or tax beside it; a bank deposit names no party, so its "Type"
    is its text and it is kept."""
    export = tmp_path / "Download.CSV"
    export.write_text(
        "\ufeff" + PAYPAL_HEADER + '"01/03/2024","10:15:02","PST","Acme Widgets Inc",'
        '"Express Checkout Payment","Completed","USD","-45.99","0.00","-45.99","","",'
        '"1AB23456CD789012E","5.00","","","-45.99","Order 1234","","Debit"\n'
        '"01/04/2024","09:00:00","PST","","Bank Deposit to PP Account","Completed","USD",'
        '"45.99","0.00","45.99","","","2AB23456CD789012E","0.00","","","0.00","","","Credit"\n'
        '"01/05/2024","12:30:00","PST","Jane Doe","General Payment","Completed","USD",'
        '"120.00","-3.78","116.22","","","3AB23456CD789012E","0.00","","","116.22",'
        '"Invoice 77","","Credit"\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Gross"] == "amount" and section["column_map"]["Fee"] == "fee"
    assert "Shipping and Handling Amount" not in section["column_map"]
    assert result.kept.height == result.rows_in == 3
    assert result.kept["amount"].to_list() == [-45.99, 45.99, 120.0]
    assert result.kept["description"][1] == "Bank Deposit to PP Account"
    assert result.kept["merchant"].to_list() == ["Acme Widgets Inc", None, "Jane Doe"]


def test_bunq_takes_the_name_and_never_the_counterpartys_iban(tmp_path, capsys):
    """bunq's English export: "Counterparty" holds the other party's IBAN (or nothing, for
    a card payment), "Name" the party: the text is the name and the description, the
    merchant the name."""
    export = tmp_path / "2019-03-02_11-50-46_bunq-statement.csv"
    export.write_text(
        '"Date","Amount","Account","Counterparty","Name","Description"\n'
        '"2018-12-06","-8,78","NL26BUNQ2025126409","","CLOUDFLARE","CLOUDFLARE 650-3198939"\n'
        '"2018-12-09","750,00","NL26BUNQ2025126409","NL77RABO0311467415","W. KOELEWIJN EO",'
        '"Naar Bunq"\n'
        '"2018-12-10","-45,00","NL26BUNQ2025126409","NL89INGB0001234567","J. Jansen",'
        '"Huur december"\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert "Counterparty" not in section["column_map"] and "holds account numbers" in out
    assert result.kept["merchant"].to_list() == ["CLOUDFLARE", "W. KOELEWIJN EO", "J. Jansen"]
    assert result.kept["description"][1:].to_list() == [
        "W. KOELEWIJN EO Naar Bunq",
        "J. Jansen Huur december",
    ]
    # a card-only month: Counterparty blank on every row, the name still leads
    cards = tmp_path / "bunq-cards.csv"
    cards.write_text(
        '"Date","Amount","Account","Counterparty","Name","Description"\n'
        '"2018-12-06","-8,78","NL26BUNQ2025126409","","CLOUDFLARE","CLOUDFLARE 650-3198939"\n'
        '"2018-12-17","-7,99","NL26BUNQ2025126409","","NETFLIX.COM","NETFLIX.COM 1408724, NL"\n'
    )
    _, _, result, _ = loaded(cards, capsys)
    assert result.kept["merchant"].to_list() == ["CLOUDFLARE", "NETFLIX.COM"]


def test_venmo_takes_the_party_that_is_not_the_owner_and_the_note(tmp_path, capsys):
    """Venmo's statement names both sides ("From", "To"), one of them the account's owner:
    money out goes to "To", money in comes from "From"; "Note" is the purpose. A transfer
    to the bank names no party: its "Type" is its text."""
    assert (party_role("From"), party_role("To"), field_of("Note")) == ("payer", "payee", "purpose")
    export = tmp_path / "venmo_statement.csv"
    export.write_text(
        '" ID","Datetime","Type","Status","Note","From","To","Amount (total)","Amount (fee)",'
        '"Funding Source","Destination"\n'
        '"2394198259925614643","2017-04-25T03:15:53","Payment","Complete","Tutoring",'
        '"Brian Taylor","Tom Johnson","- $220.00","","Visa Debit *1559",""\n'
        '"0454063333607815882","2017-09-06T05:10:45","Payment","Complete","Rent",'
        '"Sally Smith","Brian Taylor","+ $1,150.00","","","Venmo balance"\n'
        '"3096141616","2017-09-06T18:23:02","Standard Transfer","Issued","","","",'
        '"- $1,150.00","","","Visa Debit *8967"\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Amount (total)"] == "amount"
    assert result.kept.height == result.rows_in == 3
    assert result.kept["merchant"].to_list() == ["Tom Johnson", "Sally Smith", None]
    assert [d.split()[-1] for d in result.kept["description"]] == ["Tutoring", "Rent", "Transfer"]
    assert "Brian Taylor" not in " ".join(result.kept["description"])


def test_indian_czech_and_chinese_payee_and_purpose_names(tmp_path, capsys):
    """HDFC's "Narration" (its debit and credit columns write 0.00 on the other side),
    Paytm's "Activity" and "Comment", Air Bank's "Název protiúčtu" and "Zpráva pro
    příjemce" with its "Zaúčtovaná částka" in "Měna účtu", and China Merchants Bank's payee
    对手户名 beside its booking type 交易摘要 are known for what they hold."""
    hdfc = tmp_path / "hdfc_statement.csv"
    hdfc.write_text(
        "Date,Narration,Value Dat,Debit Amount,Credit Amount,Chq/Ref Number,Closing Balance\n"
        "03/05/23,UPI-SWIGGY-BENGALURU,03/05/23,110.00,0.00,00003,30192.98\n"
        "05/05/23,NEFT SALARY ACME,05/05/23,0.00,237.00,00004,30429.98\n"
    )
    _, _, result, _ = loaded(hdfc, capsys)
    assert result.kept["amount"].to_list() == [-110.0, 237.0]
    assert result.kept["description"].to_list() == ["UPI-SWIGGY-BENGALURU", "NEFT SALARY ACME"]
    paytm = tmp_path / "paytm_statement.csv"
    paytm.write_text(
        "Date,Activity,Source/Destination,Wallet Txn ID,Comment,Debit,Credit,"
        "Transaction Breakup,Status\n"
        "2024-06-01 17:42,Paid for order,Main Wallet,56789632564,Lunch,30,,,SUCCESS\n"
        "2024-06-02 13:25,Added money,Main Wallet,56789632565,,,500,,SUCCESS\n"
    )
    _, _, result, _ = loaded(paytm, capsys)
    assert result.kept["amount"].to_list() == [-30.0, 500.0]
    assert result.kept["description"].to_list() == ["Paid for order Lunch", "Added money"]
    airbank = tmp_path / "Movements_1234512345_201805271848.csv"
    airbank.write_text(
        "Datum provedení;Datum zaúčtování;Číslo účtu;Název účtu;Číslo protiúčtu;"
        "Název protiúčtu;Typ transakce;Zpráva pro příjemce;Poznámka;Zaúčtovaná částka;"
        "Měna účtu;Původní částka;Původní měna;Poplatek;Id transakce\n"
        "27.05.2018;27.05.2018;123456789/3030;Jan Novák;2000123456/2010;Kavárna Slavia;"
        "Platba kartou;káva;;-120,00;CZK;-120,00;CZK;0,00;3228446118\n"
        "28.05.2018;28.05.2018;123456789/3030;Jan Novák;1111222233/0100;Zaměstnavatel s.r.o.;"
        "Příchozí platba;mzda květen;;32000,00;CZK;32000,00;CZK;0,00;3228446119\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(airbank, capsys)
    assert section["column_map"]["Měna účtu"] == "currency"
    assert result.kept["amount"].to_list() == [-120.0, 32000.0]
    assert result.kept["description"].to_list() == [
        "Kavárna Slavia káva",
        "Zaměstnavatel s.r.o. mzda květen",
    ]
    cmb = tmp_path / "cmb_debit.csv"
    cmb.write_text(
        '"记账日期","记账时间","收入(+)/支出(-)","余额","交易摘要","对手户名","对手账号","币种"\n'
        '"2024/01/15","08:34:12","-38.00","44962.00","三方支付","星巴克","20880-1234","CNY"\n'
        '"2024/01/16","09:15:23","8000.00","52962.00","工资","某某有限公司","622-5678","CNY"\n',
        encoding="utf-8",
    )
    _, _, result, _ = loaded(cmb, capsys)
    assert result.kept["merchant"].to_list() == ["星巴克", "某某有限公司"]
    assert result.kept["description"].to_list() == ["星巴克 三方支付", "某某有限公司 工资"]


def test_the_amount_in_the_accounts_currency_and_never_a_column_of_zeros(tmp_path, capsys):
    """ICICI's card statement writes "Intl.Amount" 0 on every purchase at home beside its
    "Amount(in Rs)"; VTB writes each amount in the operation's currency and in the
    account's, each with its currency column; DKB's card names its booked currency
    "Buchungswährung". The account's amount is read, with its currency."""
    icici = tmp_path / "icici_cc_monthly.csv"
    icici.write_text(
        '"Date","Sr.No.","Transaction Details","Reward Point Header","Intl.Amount",'
        '"Amount(in Rs)","BillingAmountSign"\n'
        '"01/03/2023","7260000000","WWW AMAZON IN GURGAON IN","1","0","165.72",""\n'
        '"02/03/2023","7260000001","SWIGGY Bengaluru IN","1","0","449.00",""\n'
        '"03/03/2023","7260000002","UBER INDIA","1","0","210.50",""\n'
    )
    out, section, result, _ = loaded(icici, capsys)
    assert section["column_map"]["Amount(in Rs)"] == "amount"
    assert sorted(result.kept["amount"].abs().to_list()) == [165.72, 210.5, 449.0]
    vtb = tmp_path / "vtb.csv"
    vtb.write_text(
        "Номер карты/счета/договора;Дата операции;Дата обработки;Сумма операции;"
        "Валюта операции;Сумма пересчитанная в валюту счета;Валюта счета;Основание;Статус\n"
        "'462235******7428;2019-07-06 00:00:00;2019-07-08;-4,50;EUR;-336,15;RUB;"
        "Карта *1234 payee1;Исполнено\n"
        "'462235******7428;2019-07-05 00:00:00;2019-07-07;-300,00;RUB;-300,00;RUB;"
        "Карта *1234 MTS TOPUP;Исполнено\n"
        "'462235******7428;2019-07-13 10:48:55;;-600,00;RUB;-600,00;RUB;"
        "Карта *1234 MEGAFON TOPUP;В обработке\n",
        encoding="utf-8",
    )
    _, section, result, counted = loaded(vtb, capsys)
    assert section["column_map"]["Валюта счета"] == "currency"
    assert result.kept["amount"].to_list() == [-336.15, -300.0]
    assert result.kept["currency"].to_list() == ["RUB", "RUB"] and counted == 1  # (pending)
    dkb = tmp_path / "umsatz-1234________1234-20180227.CSV"
    dkb.write_text(
        '"Umsatz getätigt von";"Belegdatum";"Buchungsdatum";"Originalbetrag";"Originalwährung";'
        '"Umrechnungskurs";"Buchungsbetrag";"Buchungswährung";"Transaktionsbeschreibung"\n'
        '"51_5 4400";"20.02.18";"20.02.18";"-5,00";"USD";"1,20";"-4,17";"EUR";"STARBUCKS NY"\n'
        '"51_5 4400";"21.02.18";"22.02.18";"-9,00";"EUR";"1,00";"-9,00";"EUR";"REWE KOELN"\n',
        encoding="utf-8",
    )
    _, _, result, _ = loaded(dkb, capsys)
    assert result.kept["amount"].to_list() == [-4.17, -9.0]
    assert result.kept["currency"].to_list() == ["EUR", "EUR"]


def test_headerless_debit_and_credit_told_by_the_balance_or_the_words(tmp_path, capsys):
    """SunTrust writes "0" on the empty side of its debit and credit columns, and a running
    balance: the deposits are money in (the balance rises by them). Raiffeisen's
    tab-separated download puts the credit before the debit, leaves the other side blank,
    and has a null booking: the card payments ("HOFER DANKT") are the debits."""
    suntrust = tmp_path / "suntrust.csv"
    suntrust.write_text(
        "11/01/2014,0, Deposit,0,500.00,500.00\n11/02/2014,101,Check,100.00,0,400.00\n"
        "11/03/2014,102,Check,100.00,0,300.00\n11/17/2014,0, Deposit,0,700.00,1000.00\n"
    )
    out, section, result, _ = loaded(suntrust, capsys)
    assert section["column_map"]["6"] == "balance" and "running balance in column 6" in out
    assert result.kept["amount"].to_list() == [500.0, -100.0, -100.0, 700.0]
    raiffeisen = tmp_path / "raiffeisen.tsv"
    raiffeisen.write_text(
        "18.09.2017\tHOFER DANKT  0527  K2   18.09. 17:20\t18.09.2017\t\t33,87\n"
        "28.09.2017\tSOFTWARE Wien\t28.09.2017\t307,67\t\n"
        "29.09.2017\tEntgelt Kontofuehrung\t01.10.2017\t\t20,16\n"
        "29.09.2017\tLIDL DANKT   0223  K1   27.09. 17:40\t27.09.2017\t\t2,28\n"
        "A null transaction\t\t\t\t\n"
        "30.09.2017\t0,0625 % p.a. Habenzinsen\t30.09.2017\t0,01\t\n"
        "02.10.2017\tPOS 11,36 AT K2 EUROSPAR DANKT 4082\t01.10.2017\t\t11,36\n"
    )
    _, section, result, _ = loaded(raiffeisen, capsys)
    assert (section["column_map"]["4"], section["column_map"]["5"]) == ("credit", "debit")
    assert result.kept["amount"].to_list() == [-33.87, 307.67, -20.16, -2.28, 0.01, -11.36]


def test_alipay_reads_the_payment_time_and_counts_a_closed_trade(tmp_path, capsys):
    """Alipay's bill starts each row with a 16-digit transaction number that begins with a
    date; the payment time (付款时间) is the date. A trade closed unpaid (交易关闭) moved no
    money: counted, not kept. Without a header the column of dates written apart wins."""
    lines = [
        "------------------------交易记录明细列表------------------------",
        "账号:[test@example.com]",
        "交易号 ,商家订单号 ,交易创建时间 ,付款时间 ,类型 ,交易对方 ,商品名称 ,金额（元）,收/支 ,"
        "交易状态 ,服务费（元）",
        "2024010100000001 ,SO20240101001 ,2024-01-02 08:30:00 ,2024-01-02 08:30:00 ,即时到账交易 ,"
        "星巴克咖啡 ,星巴克拿铁大杯 ,38.00 ,支出 ,交易成功 ,0.00",
        "2024011000000005 ,SO20240110005 ,2024-01-10 10:30:00 ,2024-01-10 10:30:00 ,即时到账交易 ,"
        "星巴克咖啡 ,星巴克拿铁大杯 ,38.00 ,,交易关闭 ,0.00",
        "2024012500000008 ,SO20240125008 ,2024-01-25 09:30:00 ,2024-01-25 09:30:00 ,即时到账交易 ,"
        "某某公司 ,工资 ,8500.00 ,收入 ,交易成功 ,0.00",
    ]
    export = tmp_path / "alipay_record_20240201.csv"
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, _, result, counted = loaded(export, capsys)
    assert result.kept["posted_date"].cast(str).to_list() == ["2024-01-02", "2024-01-25"]
    assert result.kept["amount"].to_list() == [-38.0, 8500.0] and counted == 1
    assert result.kept["description"].to_list() == ["星巴克咖啡 星巴克拿铁大杯", "某某公司 工资"]
    headerless = tmp_path / "ids_first.csv"
    headerless.write_text(
        "2024010100000001,2024-01-02 08:30:00,STARBUCKS COFFEE,-38.00\n"
        "2024010300000002,2024-01-03 12:15:00,DIDI RIDE,-25.50\n"
        "2024010500000003,2024-01-05 18:00:00,JD MALL,-49.00\n"
    )
    _, section, result, _ = loaded(headerless, capsys)
    assert section["column_map"]["2"] == "posted_date"
    assert result.kept["posted_date"].cast(str).to_list() == [
        "2024-01-02",
        "2024-01-03",
        "2024-01-05",
    ]
