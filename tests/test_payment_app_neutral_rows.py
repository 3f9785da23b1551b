"""Payment apps' bills (Alipay, WeChat Pay, JD) mark rows neither income nor spending: Alipay
and JD write 不计收支 in 收/支, WeChat Pay "/". A refund among them is money back, read
positive; a purchase JD marks neutral because it was wholly refunded is spending, which its
refund balances; the others (a top-up, a withdrawal, a card repayment, a fund transfer) move
the user's own money: counted as neutral moves, never rows and never quarantined. A trade
Alipay closed after it was paid (支出, 交易关闭) is spending its refund row balances; one
closed unpaid (不计收支, 交易关闭) is counted. Each bill is written here in the app's layout,
with made-up rows."""

from __future__ import annotations

from tests.test_issuer_csv_layouts import loaded

RULE = "-" * 20
ALIPAY_PREAMBLE = (
    f"{RULE}\n导出信息：\n姓名：测试\n起始时间：[2026-03-01 00:00:00]    终止时间：[2026-03-31 23:59:59]\n"
    f"共6笔记录\n\n{RULE}支付宝（中国）网络技术有限公司  电子客户回单{RULE}\n"
)
ALIPAY_HEADER = (
    "交易时间,交易分类,交易对方,对方账号,商品说明,收/支,金额,收/付款方式,交易状态,交易订单号,"
    "商家订单号,备注,\n"
)


def test_alipay_refunds_are_money_back_and_fund_moves_are_counted(tmp_path, capsys):
    export = tmp_path / "alipay_record_20260401.csv"
    rows = (
        "2026-03-02 12:10:05,餐饮美食,小王面馆,/,牛肉面,支出,28.00,储蓄卡(1111),交易成功,"
        "20260302001\t,T01\t,,\n"
        "2026-03-03 09:00:00,数码电器,样例数码店,/,耳机,支出,300.00,储蓄卡(1111),交易成功,"
        "20260303002\t,T02\t,,\n"
        "2026-03-05 10:00:00,退款,样例数码店,/,退款-耳机,不计收支,120.00,储蓄卡(1111),退款成功,"
        "20260303002_1\t,T02\t,,\n"
        "2026-03-06 20:30:00,投资理财,理财平台,/,余额宝-转入,不计收支,500.00,余额,交易成功,"
        "20260306003\t,\t,,\n"
        "2026-03-07 08:00:00,交通出行,公交卡,/,公交卡充值,支出,50.00,余额,交易关闭,"
        "20260307004\t,D1\t,,\n"
        "2026-03-07 08:01:00,退款,公交卡,/,退款-公交卡充值,不计收支,50.00,余额,退款成功,"
        "20260307004_1\t,D1\t,,\n"
        "2026-03-08 11:00:00,日用百货,样例小店,/,纸巾,不计收支,9.90,,交易关闭,20260308005\t,\t,,\n"
    )
    export.write_bytes((ALIPAY_PREAMBLE + ALIPAY_HEADER + rows).encode("gb18030"))
    out, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["商品说明"] == "description"
    assert result.quarantined.height == 0 and result.kept.height == 5 and counted == 2
    assert result.kept["amount"].to_list() == [-28.0, -300.0, 120.0, -50.0, 50.0]
    assert result.kept["description"].to_list()[:3] == [
        "小王面馆 牛肉面",
        "样例数码店 耳机",
        "样例数码店 退款-耳机",
    ]
    notes = result.notes[0].statement_lines
    assert [kind for _, kind in notes] == ["neutral move", "closed trade"]
    assert "neutral move line 12" in out and "fix the row" not in out


WECHAT_HEADER = (
    "\ufeff微信支付账单明细,,,,,,,,,,\n微信昵称：[测],,,,,,,,,,\n,,,,,,,,,,\n"
    "----------------------微信支付账单明细列表--------------------,,,,,,,,,,\n"
    "交易时间,交易类型,交易对方,商品,收/支,金额(元),支付方式,当前状态,交易单号,商户单号,备注\n"
)


def test_wechat_neutral_moves_are_counted_and_its_slash_is_no_text(tmp_path, capsys):
    export = tmp_path / "微信支付账单(20260301-20260331).csv"
    export.write_text(
        WECHAT_HEADER + "2026-03-02 08:01:00,商户消费,早餐店,包子,支出,¥6.50,零钱,支付成功,"
        "4200001\t,/\t,/\n"
        "2026-03-03 10:00:00,零钱提现,样例银行(1111),/,/,¥200.00,零钱,提现已到账,4200002\t,/\t,"
        "服务费¥0.20\n"
        "2026-03-04 11:00:00,信用卡还款,样例银行信用卡还款,/,/,¥800.00,零钱,支付成功,4200003\t,"
        "/\t,/\n"
        "2026-03-05 12:00:00,微信红包,小李,/,收入,¥8.88,/,已存入零钱,4200004\t,/\t,/\n",
        encoding="utf-8",
    )
    out, _, result, counted = loaded(export, capsys)
    assert result.quarantined.height == 0 and counted == 2
    assert result.kept["amount"].to_list() == [-6.5, 8.88]
    assert result.kept["description"].to_list() == ["早餐店 包子", "小李"]
    assert result.kept["merchant"].to_list() == ["早餐店", "小李"]


JD_HEADER = "交易时间,商户名称,交易说明,金额,收/付款方式,交易状态,收/支,交易分类,交易订单号,商家订单号,备注\n"


def test_jd_refunds_balance_their_purchases(tmp_path, capsys):
    """JD notes a partial refund in the purchase's amount and marks a wholly refunded
    purchase neutral: the purchase is spending either way, each refund money back, so a
    wholly refunded order comes to nothing; a pay-later order (先享后付) moved no money yet."""
    export = tmp_path / "京东交易流水.csv"
    export.write_text(
        "\ufeff导出信息：\n京东账号名：test\n日期区间：2026-03-01 至 2026-03-31\n\n"
        + JD_HEADER
        + "2026-03-09 10:00:00\t,样例商城,退款-样例外套 XL,80.00,信用卡(1111),退款成功,不计收支,"
        "网购,100001\t,200001\t, ,\n"
        "2026-03-08 10:00:00\t,样例商城,样例外套 XL 等多件,200.00(已退款80.00),信用卡(1111),"
        "交易成功,支出,服饰,100001\t,200001\t, ,\n"
        "2026-03-07 10:00:00\t,样例商城,退款-样例鞋子,150.00,信用卡(1111),退款成功,不计收支,"
        "网购,100002\t,200002\t, ,\n"
        "2026-03-06 10:00:00\t,样例商城,样例鞋子,150.00(已全额退款),信用卡(1111),交易成功,"
        "不计收支,服饰,100002\t,200002\t, ,\n"
        "2026-03-05 10:00:00\t,样例商城,样例水果,35.60,先享后付,交易成功,不计收支,先享后付,"
        "100003\t,200003\t, ,\n",
        encoding="utf-8",
    )
    _, _, result, counted = loaded(export, capsys)
    assert result.quarantined.height == 0 and counted == 1
    assert result.kept["amount"].to_list() == [80.0, -200.0, 150.0, -150.0]
    assert round(sum(result.kept["amount"]), 2) == -120.0  # what the user paid
