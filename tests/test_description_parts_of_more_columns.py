"""Every column whose name says it holds the other party or the payment's purpose is part of
the description, not only the likeliest one: ICBC's payee (对方户名) beside the shop (交易场所),
BOC's booking name, message and party, MUFG's payee beside its booking text, SEB's
"Beneficiary's name" beside its "Description". A placeholder a bank writes in an empty field
("/", "--", "----------") is no text and no merchant, and a part the text already holds word
for word (Kiwibank's reference inside its description) is said once. Each file is written
here in the bank's layout, with made-up rows."""

from __future__ import annotations

from tests.test_issuer_csv_layouts import loaded


def test_icbc_joins_the_payee_to_the_shop_and_the_summary(tmp_path, capsys):
    export = tmp_path / "icbc_debit.csv"
    pad = "          \t"
    export.write_text(
        '明细查询文件下载\n\n卡号: 1234****0000,"卡别名: "\n\n'
        "交易日期,摘要,交易场所,交易国家或地区简称,钞/汇,交易金额(收入),交易金额(支出),交易币种,"
        "记账金额(收入),记账金额(支出),记账币种,余额,对方户名\n"
        f'2026-04-02{pad},"消费{pad}","样例咖啡馆{pad}","CHN{pad}",钞{pad},"-{pad}","-{pad}",'
        f'-{pad},"{pad}","32.00{pad}",人民币{pad},"968.00{pad}","某支付科技有限公司{pad}",\n'
        f'2026-04-05{pad},"他行汇入{pad}","{pad}","CHN{pad}",钞{pad},"-{pad}","-{pad}",-{pad},'
        f'"1,000.00{pad}","{pad}",人民币{pad},"1,968.00{pad}","周小七{pad}",\n'
        f'2026-04-07{pad},"网转{pad}","手机银行{pad}","CHN{pad}",钞{pad},"-{pad}","-{pad}",'
        f'-{pad},"{pad}","300.00{pad}",人民币{pad},"1,668.00{pad}","吴小八{pad}",\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["对方户名"] == "description"
    assert result.kept["description"].to_list() == [
        "样例咖啡馆 某支付科技有限公司 消费",
        "周小七 他行汇入",
        "手机银行 吴小八 网转",
    ]
    assert result.kept["merchant"].to_list() == ["样例咖啡馆", "周小七", "手机银行"]


def test_boc_keeps_the_booking_name_and_party_without_its_dashes(tmp_path, capsys):
    export = tmp_path / "boc_debit.csv"
    export.write_text(
        "中国银行交易流水明细单\n"
        "记账日期,记账时间,币别,金额,余额,交易名称,渠道,网点名称,附言,对方账户名,对方卡号/账号,"
        "对方开户行,借记卡号\n"
        "2026-04-02,09:10:00,人民币,-42.00,958.00,网上快捷支付,银企对接,-------------------,"
        "支付宝-样例饭店,支付宝-样例饭店,Z200******010N,-------------------,1234\n"
        '2026-04-05,16:00:00,人民币,"5,000.00","5,958.00",工资,柜台,样例支行,----------,'
        "样例科技有限公司,4520******0000,样例支行,1234\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert {section["column_map"][n] for n in ("交易名称", "附言", "对方账户名")} == {"description"}
    assert result.kept["description"].to_list() == [
        "支付宝-样例饭店 网上快捷支付",
        "样例科技有限公司 工资",
    ]
    assert result.kept["merchant"].to_list() == ["支付宝-样例饭店", "样例科技有限公司"]


def test_mufg_reads_its_debit_and_credit_and_its_payee(tmp_path, capsys):
    export = tmp_path / "mufg.csv"
    export.write_bytes(
        '"日付","摘要","摘要内容","支払い金額","預かり金額","差引残高","メモ","未資金化区分","入払区分"\r\n'
        '"2026/4/1","振込１","テストシヨウジ（カ","","120,000","620,000","","","入金"\r\n'
        '"2026/4/3","口座振替３","サンプルデンキ","5,400","","614,600","","","振替支払い"\r\n'
        '"2026/4/9","カード","","10,000","","604,600","","","支払い"\r\n'.encode("cp932")
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["支払い金額"] == "debit"
    assert section["column_map"]["預かり金額"] == "credit"
    assert result.kept["amount"].to_list() == [120000.0, -5400.0, -10000.0]
    assert result.kept["description"].to_list() == [
        "テストシヨウジ（カ 振込１",
        "サンプルデンキ 口座振替３",
        "カード",
    ]


def test_seb_names_the_beneficiary_without_its_address(tmp_path, capsys):
    """SEB (Estonia, Latvia, Lithuania) writes the other party in "Beneficiary's name", a
    card payment's shop with its address after a backslash, and a booking code (MK, TT, L)
    in "Type": the party leads the text and is the merchant, the code is the booking type."""
    export = tmp_path / "seb.csv"
    export.write_text(
        "\ufeffAccount;Document No.;Date;Beneficiary's account;\"Beneficiary's name\";BIC/SWIFT;"
        'Type;(D/C);Amount;Reference no.;Archive ID;"Description";Commission fee;Currency;'
        "ID code/Registry code \n"
        '"EE001010010000000009";"CLR1";"02.04.2024";"";"PAGARIKODA        \\SAIA 1      '
        '\\TARTU";"EEUHEE2X";"MK";"D";4,20;"";"RO1";"31/03/2024 08:10 kaart...009999 '
        'PAGARIKODA/TARTU/EST #200001";0;"EUR";\n'
        '"EE001010010000000009";"";"03.04.2024";"EE001010220000000008";"Soojus AS";"EEUHEE2X";'
        '"MK";"D";41,00;"11223344";"RO2";"11223344";0;"EUR";\n'
        '"EE001010010000000009";"";"04.04.2024";"EE002200220000000007";"JAAN KASK";'
        '"HABAEE2X";"MK";"C";150,00;"";"RO3";"laen tagasi";0;"EUR";"38001010000"\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Beneficiary's name"] == "description"
    assert section["column_map"]["Type"] == "transaction_type"
    assert result.kept["merchant"].to_list() == ["PAGARIKODA", "Soojus AS", "JAAN KASK"]
    assert result.kept["description"].to_list() == [
        "PAGARIKODA 31/03/2024 08:10 kaart...009999 PAGARIKODA/TARTU/EST #200001",
        "Soojus AS 11223344",
        "JAAN KASK laen tagasi",
    ]
    assert result.kept["amount"].to_list() == [-4.2, -41.0, 150.0]


def test_a_reference_inside_the_text_and_a_dash_party_are_said_once(tmp_path, capsys):
    """Kiwibank repeats the payee's reference inside its description; ABC writes "--" where
    no other party is named: neither adds to the text, and "--" is no merchant."""
    kiwibank = tmp_path / "kiwibank.csv"
    kiwibank.write_text(
        "Account number,Effective Date,Transaction Date,Description,Transaction Code,"
        "Particulars,Code,Reference,Other Party Name,Amount,Balance\n"
        "38-9000-0000001-00,2026-04-01,2026-04-01,PAY Ann Gym Fees Tom,DIRECT DEBIT,Gym,Fees,"
        "Tom,Ann,-20.00,480.00\n"
        "38-9000-0000001-00,2026-04-02,2026-04-02,CORNER DAIRY,EFTPOS PURCHASE,,,,,-4.50,475.50\n"
    )
    _, section, result, _ = loaded(kiwibank, capsys)
    assert section["column_map"]["Reference"] == "description"
    assert result.kept["description"].to_list() == ["PAY Ann Gym Fees Tom", "CORNER DAIRY"]
    abc = tmp_path / "abc_debit.csv"
    abc.write_text(
        "交易日期,交易时间,交易摘要,交易金额,本次余额,对手信息,日 志 号,交易渠道,交易附言\n"
        "20260401,101010,转存,+500.00,1500.00,赵小九,369000001,超级网银,转账\n"
        "20260402,,结息,+0.05,1500.05,--,0000000000,,个人活期结息\n"
    )
    _, _, result, _ = loaded(abc, capsys)
    assert result.kept["description"].to_list() == ["赵小九 转存 转账", "结息 个人活期结息"]
    assert result.kept["merchant"].to_list() == ["赵小九", None]


def test_an_emoji_note_is_text_not_a_placeholder(tmp_path, capsys):
    """Venmo's note is often emoji alone ("🍕"): it says what was paid for, so it stays in the
    text beside the other party, as a placeholder of punctuation does not."""
    export = tmp_path / "venmo_statement.csv"
    export.write_text(
        ",ID,Datetime,Type,Status,Note,From,To,Amount (total)\n"
        ",4100000001,2026-04-05T19:02:11,Payment,Complete,🍕,Jo Rivera,Mia Chen,- $18.00\n"
        ",4100000002,2026-04-06T09:15:40,Payment,Complete,🏠💡,Jo Rivera,Ben Ortiz,- $60.00\n"
        ",4100000003,2026-04-07T12:00:00,Payment,Complete,--,Lee Park,Jo Rivera,+ $12.00\n",
        encoding="utf-8",
    )
    _, _, result, _ = loaded(export, capsys)
    texts = result.kept["description"].to_list()
    assert "🍕" in texts[0] and "Mia Chen" in texts[0] and "🏠💡" in texts[1]
    assert "--" not in texts[2] and "Lee Park" in texts[2]
