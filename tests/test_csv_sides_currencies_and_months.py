"""Chinese banks' and payment apps' CSV layouts (a debit/credit mark column, income and
expense column pairs, currency columns and amounts that write their currency, notes after an
amount, totals lines, trade lists), short rows, card files whose negative rows are payments,
month names in other languages, and Canadian month-first dates: each read the documented
way, ``inspect`` writing the settings and the load reading the file with them. The files are
written here in each layout (a few synthetic rows), not copied."""

from __future__ import annotations

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_path
from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded


def test_a_debit_credit_mark_column_signs_the_amounts(tmp_path, capsys):
    """BOCOM's "借贷" column says "借 Dr" (debit) or "贷 Cr" (credit) beside unsigned amounts:
    interest and incoming transfers are money in."""
    export = tmp_path / "bocom.csv"
    export.write_text(
        "序号,交易日期,交易时间,交易类型,借贷,交易金额,余额,对方户名,摘要\n"
        "1,2025-01-01,00:00:00,存款利息,贷 Cr,1.23,1334.63,应付个人活期储蓄存款利息,\n"
        "2,2025-01-04,11:46:44,其他交易,贷 Cr,10.00,1344.63,哈哈,银联入账\n"
        "3,2025-01-05,12:48:15,异地跨行消费,借 Dr,10.00,1334.63,网上国网,\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["借贷"] == "direction"
    assert "spending" not in section
    assert result.kept["amount"].to_list() == [1.23, 10.0, -10.0]


def test_income_and_expense_columns_take_their_side_from_their_names(tmp_path, capsys):
    """ICBC writes income (收入) left of expense (支出), its booked pair beside the
    transaction's, and its currency as 人民币: the repayment is money in, purchases out, in
    CNY; the merchant column leads the text, its summary (the booking type: a repayment says
    so) follows; the totals line is counted, not quarantined."""
    export = tmp_path / "icbc.csv"
    export.write_text(
        "交易日期,记账日期,摘要,交易场所,交易金额(收入),交易金额(支出),交易币种,"
        "记账金额(收入),记账金额(支出),记账币种,余额,对方户名\n"
        "2023-05-05,2023-05-05,消费,财付通-拼多多平台商户,,18.00,人民币,,18.00,人民币,-3728.62,\n"
        "2023-04-25,2023-04-25,人民币自动转帐还款,XX分行银行卡中心,1234.56,,人民币,1234.56,,"
        "人民币,-3710.62,\n"
        "2023-05-04,2023-05-04,ETC,广东联合电子收费股份,,12.35,人民币,,12.35,人民币,-4945.18,\n"
        "合计金额,,,,1234.56,30.35,,1234.56,30.35,\n",
        encoding="utf-8",
    )
    out, section, result, counted = loaded(export, capsys)
    columns = section["column_map"]
    assert columns["记账金额(收入)"] == "credit" and columns["记账金额(支出)"] == "debit"
    assert columns["摘要"] == "description" and columns["交易场所"] == "description"
    assert result.kept["amount"].to_list() == [-18.0, 1234.56, -12.35]
    assert set(result.kept["currency"]) == {"CNY"}
    assert result.kept["description"][:2].to_list() == [
        "财付通-拼多多平台商户 消费",
        "XX分行银行卡中心 人民币自动转帐还款",
    ]
    assert result.quarantined.height == 0 and counted == 1


def test_amounts_that_write_their_currency_are_read_in_it(tmp_path, capsys):
    """BOCOM's card writes "CNY 123.18" (and "CNY13.50") under "入账币种/金额": the booked
    amount, in the currency it writes."""
    export = tmp_path / "bocom_card.csv"
    export.write_text(
        "交易日期,记账日期,交易说明,交易币种/金额,入账币种/金额\n"
        "2025-01-11,2025-01-12,消费 美团,CNY 2.99,CNY 2.99\n"
        "2025-01-13,2025-01-13,消费 京东商城平台商户,CNY13.50,CNY13.50\n"
        "2025-01-18,2025-01-18,消费 Suica Charge,JPY 1000.00,CNY 49.85\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["入账币种/金额"] == "amount"
    assert result.kept["amount"].to_list() == [-2.99, -13.5, -49.85]
    assert set(result.kept["currency"]) == {"CNY"}


def test_a_billing_currency_column_gives_each_row_its_currency(tmp_path, capsys):
    """HSBC Hong Kong's card lists rows in CNY and HKD under "Billing currency"."""
    export = tmp_path / "hsbc.csv"
    export.write_text(
        "Transaction date,Post date,Description,Billing amount,Billing currency\n"
        '09/04/2025,10/04/2025,QR UNIONPAY MERCHANT,"-1,099.14",CNY\n'
        '07/04/2025,08/04/2025,SALES: MCDONALDS (HKD),"-27.90",HKD\n'
        '24/03/2025,24/03/2025,PAYMENT - THANK YOU,"3,266.16",CNY\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Billing currency"] == "currency"
    assert result.kept["currency"].to_list() == ["CNY", "HKD", "CNY"]


def test_a_row_leaving_off_unmapped_trailing_cells_is_read(tmp_path, capsys):
    """ABC leaves off a row's empty trailing cells; a row without its balance is read too;
    a row that leaves off its amount is still quarantined."""
    abc = tmp_path / "abc.csv"
    abc.write_text(
        "交易日期,交易时间,交易摘要,交易金额,本次余额,对手信息,日 志 号,交易渠道,交易附言\n"
        "20240102,132324,财付通,-10.00,11000.00,微信支付北京一卡通,369333999,电子商务,微信支付\n"
        "20240103,,正常还款,-12345.89,1943.12,12341234123412341,111222333\n"
        "20240104,,结息,+0.01,1943.13,银行,0000000000,,个人活期结息\n",
        encoding="utf-8",
    )
    _, _, result, _ = loaded(abc, capsys)
    assert result.kept["amount"].to_list() == [-10.0, -12345.89, 0.01]
    english = tmp_path / "short.csv"
    english.write_text(
        "Date,Description,Amount,Balance\n2024-03-01,GROCER,-12.50,100.00\n"
        "2024-03-02,RENT,-800.00\n2024-03-03,SALARY,2000.00,1287.50\n2024-03-04,CAFE\n"
    )
    _, _, result, _ = loaded(english, capsys)
    assert result.kept["amount"].to_list() == [-12.5, -800.0, 2000.0]
    assert result.quarantined.height == 1


def test_a_card_file_whose_negative_rows_are_repayments_lists_purchases_positive(tmp_path, capsys):
    """CGB lists purchases positive and half its rows negative: the negative rows are a
    refund (退款) and a repayment (还款), so money in; Rogers' negative row is CashBack."""
    cgb = tmp_path / "cgb.csv"
    cgb.write_text(
        "交易日期,入账日期,交易摘要,交易金额,交易货币,入账金额,入账货币\n"
        "2025/01/05,2025/01/06,（消费）示例商户A,15.90,人民币,15.90,人民币\n"
        "2025/01/04,2025/01/04,（退款）示例商户B,-97.20,人民币,-97.20,人民币\n"
        "2025/01/03,2025/01/03,（分期）银联分期,387.42,人民币,387.42,人民币\n"
        "2024/12/25,2024/12/26,（还款）云闪付 银联入账,-1130.68,人民币,-1130.68,人民币\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(cgb, capsys)
    assert section["spending"] == "positive"
    assert result.kept["amount"].to_list() == [-15.9, 97.2, -387.42, 1130.68]
    assert set(result.kept["currency"]) == {"CNY"}
    rogers = tmp_path / "rogers.csv"
    rogers.write_text(
        '"Transaction Date","Activity Type","Merchant Name","Merchant Category","Amount"\n'
        '"2020-06-01","TRANS","Merchant","Catalog Merchant","$4,004.44"\n'
        '"2020-06-05","TRANS","CashBack / Remises","","-43.00"\n'
    )
    _, section, result, _ = loaded(rogers, capsys)
    assert result.kept["amount"].to_list() == [-4004.44, 43.0]


def test_italian_month_abbreviations_are_read(tmp_path, capsys):
    """Satispay writes "24 lug 2024. 02:59:45": the suggested date_format reads it."""
    export = tmp_path / "satispay.csv"
    export.write_text(
        "id,name,state,kind,date,amount,currency,extra info\n"
        'a1,"Ricarica Satispay",APPROVED,BANK,"24 lug 2024. 02:59:45","30,40 ",EUR,""\n'
        'a2,"Ajeje Brazorf",APPROVED,P2P,"22 giu 2024. 19:45:52","-17,00 ",EUR,""\n'
        'a3,"Supermercato",APPROVED,C2B,"20 mag 2024. 12:21:36","-2,00 ",EUR,""\n'
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["date_format"] == "%d %b %Y. %H:%M:%S"
    assert result.kept["posted_date"].to_list() == ["2024-07-24", "2024-06-22", "2024-05-20"]


def test_meituan_reads_the_paid_amount_and_the_order_title(tmp_path, capsys):
    """Meituan's "实付金额" (paid) over its list price "订单金额", its order title as the
    text, never the merchant's order number; "¥" in a simplified Chinese file is CNY."""
    export = tmp_path / "meituan.csv"
    export.write_text(
        "交易创建时间,交易成功时间,交易类型,订单标题,收/支,支付方式,订单金额,实付金额,交易单号,"
        "商家单号,备注\n"
        "2025-02-28 20:35:13,2025-02-28 20:35:25,支付,喜茶 订单详情,支出,美团月付,¥22.30,¥21.17,"
        "2502281110040,0_2204430449361044,/\n"
        "2025-02-27 07:04:17,2025-02-27 07:04:18,退款,葡式蛋挞6只,收入,信用卡,¥20.00,¥20.00,"
        "2502270181541,4981008581243837847,/\n"
        "2025-02-23 18:36:01,2025-02-23 18:36:06,支付,云南米线单人餐,支出,信用卡,¥19.90,¥19.90,"
        "2502231110040,1KUMYGHXA2A04076,/\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["currency"] == "CNY"
    assert section["column_map"]["实付金额"] == "amount"
    assert result.kept["amount"].to_list() == [-21.17, 20.0, -19.9]
    assert result.kept["description"].to_list()[1] == "葡式蛋挞6只"


def test_an_amount_with_a_refund_note_is_read_and_the_note_said(tmp_path, capsys):
    """JD writes "131.77(已退款89.84)" for a purchase partly refunded: the purchase is read,
    and a warning says a note was dropped."""
    export = tmp_path / "jd.csv"
    export.write_text(
        "交易时间,商户名称,交易说明,金额,收/付款方式,交易状态,收/支,交易分类\n"
        "2024-12-30 17:16:02,京东物流,京东外部商户,10.20,钱包余额,交易成功,支出,收发快递\n"
        "2024-12-28 13:27:56,京东平台商户,JEEP卫衣,131.77(已退款89.84),信用卡,部分退款,支出,服饰\n",
        encoding="utf-8",
    )
    _, _, result, _ = loaded(export, capsys)
    assert result.kept["amount"].to_list() == [-10.2, -131.77]
    assert any("已退款89.84" in w for notes in result.notes for w in notes.warnings)


def test_a_crypto_trade_list_is_refused_as_no_bank_statement(tmp_path, capsys):
    """Huobi's trades (价格 price, 数量 quantity, 成交额 traded value): no unit price becomes
    an amount; inspect says it is a trade list."""
    export = tmp_path / "huobi.csv"
    export.write_text(
        '"时间","交易类型","交易对","方向","价格","数量","成交额","手续费"\n'
        "2021-02-24 09:56:20,币币交易,BTC/USDT,卖出,49850.00,0.000108,5.38380000,0.01USDT\n"
        "2021-02-23 20:32:37,币币交易,BTC/USDT,买入,45999.00,0.000304,13.98369600,0.00BTC\n",
        encoding="utf-8",
    )
    code, out, _ = inspect(export, capsys)
    assert code != 0 or "raw_transactions" not in out
    assert "a list of trades" in out and "'成交额' -> amount" in out


def test_canadian_dates_read_both_ways_stay_month_first(tmp_path):
    """Simplii's "06/10/2017" reads both ways, over years: spans about as long say nothing,
    and the rows' order (not a day-first guess) decides: month first."""
    export = tmp_path / "simplii.csv"
    export.write_text(
        "Date, Transaction Details, Funds Out, Funds In\n"
        "06/10/2017,PAYROLL DEPOSIT COMPANY INC.,,123.45\n"
        "05/06/2020,BANK TO BANK TSF EXT TSF,1234.56,\n"
        "06/05/2020, INTEREST,,0.69\n"
    )
    (found,) = inspect_path(export)
    assert found.settings["date_format"] == "%m/%d/%Y"


def test_romanian_and_hungarian_month_names_read(tmp_path):
    """ING Romania's "31 iulie 2021" and a Hungarian "2021. március 5." are dates."""
    from ml_assets.core.intake.records import parse_date_text

    assert parse_date_text("31 iulie 2021", "%d %B %Y").date().isoformat() == "2021-07-31"
    assert parse_date_text("1 noiembrie 2021", "%d %B %Y").date().isoformat() == "2021-11-01"
    assert parse_date_text("2021. március 5.", "%Y. %B %d.").date().isoformat() == "2021-03-05"
    export = tmp_path / "Tranzactii.csv"
    export.write_text(
        "Data,,,Detalii tranzactie,Debit,,Credit,Balanta\n"
        '31 iulie 2021,,,Cumparare POS,"44,00",,,"6.879,67"\n'
        ",,,Terminal: MEGA IMAGE 0012 RO BUCURESTI,,,,\n"
        '2 august 2021,,,Incasare salariu,,,"5.000,00","11.879,67"\n',
        encoding="utf-8",
    )
    result = scan_transactions(
        export,
        column_map={"Data": "posted_date", "Detalii tranzactie": "description",
                    "Debit": "debit", "Credit": "credit"},
        date_format="%d %B %Y",
        decimal=",",
    )  # fmt: skip
    assert result.kept["posted_date"].to_list() == ["2021-07-31", "2021-08-02"]
    assert result.kept["amount"].to_list() == [-44.0, 5000.0]
