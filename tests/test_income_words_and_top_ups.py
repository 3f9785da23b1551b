"""The words that tell a file's sign: a transit card's top-up (Suica's half-width ｵｰﾄﾁｬｰｼﾞ)
among fares of the other sign, Japanese, Portuguese and NZ income words, an account's
transfer "TO CARD ... THANK YOU" that pays a card (money out, not a card's payment
received), and a card whose amounts are all unsigned while some rows' words say money in
(signed row by row where every row says its way, else said by inspect). Each file is written here in its bank's layout, with invented rows."""

from __future__ import annotations

from ml_assets.core.intake.money_words import says_income, way_by_words
from ml_assets.core.intake.raw_days import scan_exports
from ml_assets.core.intake.sign_guess import sign_of
from ml_assets.core.params import RawTransactionsParams
from tests.test_issuer_csv_layouts import loaded


def test_a_transit_card_history_whose_top_up_is_negative_lists_fares_positive(tmp_path, capsys):
    """Suica writes fares positive and its auto top-up (half-width ｵｰﾄﾁｬｰｼﾞ) negative, in
    cp932: with one top-up among three fares the file looked signed; the top-up says money in,
    so the fares are money out."""
    export = tmp_path / "suica.csv"
    export.write_bytes(
        (
            "カードID=09876543B2109876,,,,,,,,,\n"
            "利用年月日,定期,鉄道会社名,入場駅/事業者名,定期,鉄道会社名,出場駅/降車場所,"
            "利用額(円),残額(円),メモ\n"
            "2026/04/12,,,,,,,210,2090,物販\n"
            "2026/04/11,,JR東,目黒,,JR東,渋谷,160,2300,\n"
            "2026/04/11,,JR東,渋谷,,JR東,目黒,160,2460,\n"
            "2026/04/11,,JR東,目黒,,,,-2000,2620,ｵｰﾄﾁｬｰｼﾞ\n"
        ).encode("cp932")
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive" and "purchases positive: flipped" in out
    assert result.kept["amount"].to_list() == [-210.0, -160.0, -160.0, 2000.0]


def test_a_top_up_charged_to_a_card_is_one_more_purchase():
    """On the card that pays for it (View Card's "オートチャージ"), a top-up has the sign of
    the purchases around it: it says nothing of the file's sign, and one refund written
    negative leaves a card that lists its purchases positive."""
    amounts = ["3000", "1200", "3000", "800", "640", "-500"]
    texts = [
        "目黒駅 オートチャージ",
        "テスト書店",
        "渋谷駅 オートチャージ",
        "サンプル食堂",
        "文具店",
        "返金 文具店",
    ]
    spending, why = sign_of(amounts, texts)
    assert spending == "positive", why
    assert not says_income("目黒駅 オートチャージ", 3000.0, 1, 6)
    assert says_income("目黒 ｵｰﾄﾁｬｰｼﾞ", -2000.0, 1, 4)


def test_unsigned_top_ups_are_said_to_be_read_as_purchases():
    """An e-money history of unsigned amounts (WAON's "チャージ" beside its payments): one
    sign per file reads the top-ups as purchases, and inspect says so."""
    spending, why = sign_of(["2150", "5000", "640"], ["支払", "チャージ", "支払"])
    assert spending == "positive"
    assert "1 row(s) are top-ups (e.g. 'チャージ'), read as purchases" in why


def test_japanese_income_words_tell_the_sign():
    """入金 (a deposit), 給与 (salary) and 返金 (a refund) are money in."""
    for word in ("振込 入金", "給与 サンプル商事", "返金 テスト商店"):
        assert says_income(word, 1.0, 2, 4), word
    spending, why = sign_of(
        ["250000", "-6480", "-20000"], ["給与 サンプル商事", "ガス代", "カード"]
    )
    assert spending == "negative" and "income row" in why


def test_portuguese_card_words_flip_a_card_that_lists_purchases_positive(tmp_path, capsys):
    """A Brazilian card's "Pagamento recebido" (payment received) and "Estorno" (a reversal)
    are money in: written negative, they show the purchases are written positive, even where
    they are a third of the rows."""
    export = tmp_path / "cartao.csv"
    export.write_text(
        "date,title,amount\n"
        "2026-04-20,Quitanda Verde,18.40\n"
        "2026-04-18,Livraria Sol - Parcela 2/4,59.90\n"
        "2026-04-15,Pagamento recebido,-300.00\n"
        '2026-04-12,Estorno de "Loja Lua",-15.00\n'
        "2026-04-10,Drogaria Mar,27.35\n"
        "2026-04-09,Padaria Nova,9.80\n",
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive", out
    assert result.kept["amount"].to_list() == [-18.4, -59.9, 300.0, 15.0, -27.35, -9.8]


def test_an_account_transfer_that_thanks_the_card_it_pays_is_money_out(tmp_path, capsys):
    """ASB's account: a direct credit comes in "D/C FROM ...", and the transfer that pays the
    card says "TO CARD 4321  THANK YOU": the paying side, money out. Half the rows negative
    made it look like a card's payments received, and the file was flipped."""
    export = tmp_path / "Export20260410.csv"
    export.write_text(
        "Created date / time : 10 April 2026 / 08:30:00\n"
        "Bank 12; Branch 3001; Account 7654321-00 (Streamline)\n"
        "From date 20260201\n"
        "To date 20260410\n"
        "Avail Bal : 310.00 as of 20260410\n"
        "Ledger Balance : 310.00 as of 20260410\n"
        "Date,Unique Id,Tran Type,Cheque Number,Payee,Memo,Amount\n"
        "\n"
        '2026/02/14,2026021401,D/C,,"D/C FROM EXAMPLE TRADING","Savings",2100.00\n'
        '2026/02/15,2026021501,TFR OUT,,"MB TRANSFER","TO CARD 4321  THANK YOU",-1650.00\n'
        '2026/03/14,2026031401,D/C,,"D/C FROM EXAMPLE TRADING","Savings",2100.00\n'
        '2026/03/15,2026031501,TFR OUT,,"MB TRANSFER","TO CARD 4321  THANK YOU",-1900.00\n',
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert "spending" not in section and "purchases negative, as ours" in out
    assert result.kept["amount"].to_list() == [2100.0, -1650.0, 2100.0, -1900.0]
    # the same rows, written as the reader joins their texts
    assert (
        sign_of(["800", "-800", "500", "-500"], ["D/C FROM A", "TO CARD 1 THANK YOU"] * 2)[0]
        == "negative"
    )


def test_a_card_whose_every_row_says_its_way_is_signed_row_by_row(tmp_path, capsys):
    """BOCOM's card writes every amount unsigned; the text's first word says a purchase
    (消费), a return (退货) or a repayment (信用卡还款). Every row says its way, so each is
    signed by its words (``spending: by_words``): the returns and repayments are money in."""
    export = tmp_path / "bocom_card.csv"
    export.write_text(
        "交易日期,记账日期,交易说明,交易币种/金额,入账币种/金额\n"
        "2026-04-02,2026-04-02,消费 样例书店,CNY 42.00,CNY 42.00\n"
        "2026-04-05,2026-04-05,退货 样例商城,CNY 88.00,CNY 88.00\n"
        "2026-04-07,2026-04-07,消费 Example Bakery,CNY 16.50,CNY 16.50\n"
        "2026-04-11,2026-04-11,信用卡还款 转账还款-李四 5678,CNY 300.00,CNY 300.00\n",
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "by_words"
    assert "each row signed by its words: 2 say money in (e.g. '退货 样例商城')" in out
    assert result.kept["amount"].to_list() == [-42.0, 88.0, -16.5, 300.0]
    assert [way_by_words(t) for t in ("消费 样例书店", "退货 样例商城", "信用卡还款 转账")] == [
        -1,
        1,
        1,
    ]


def test_a_card_whose_few_rows_say_money_in_keeps_one_sign_and_says_so(tmp_path, capsys):
    """A card export of unsigned amounts where only a refund's words say which way its money
    went (the shops' names say nothing): one sign for the file, as purchases, and inspect says
    which rows' words disagree and the setting that signs each row by its words; set, the
    refund is money in."""
    export = tmp_path / "card.csv"
    export.write_text(
        "Date,Description,Amount\n"
        "2026-04-02,CORNER BOOKSHOP,42.00\n"
        "2026-04-05,REFUND EXAMPLE STORE,88.00\n"
        "2026-04-07,EXAMPLE BAKERY,16.50\n"
        "2026-04-09,CITY PARKING,6.00\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["spending"] == "positive"
    assert "1 row(s) say money in by their words (e.g. 'REFUND EXAMPLE STORE')" in out
    assert "set spending: by_words" in out
    assert result.kept["amount"].to_list() == [-42.0, -88.0, -16.5, -6.0]
    params = RawTransactionsParams(**{**section, "spending": "by_words"})
    assert scan_exports(export, params).kept["amount"].to_list() == [-42.0, 88.0, -16.5, -6.0]
    # a card's interest charged is no income: a purchase, as a row that says nothing is
    assert way_by_words("INTEREST CHARGE ON PURCHASES") is None
    assert way_by_words("INTEREST PAYMENT") == 1


def test_an_e_money_history_says_payment_or_top_up_in_a_column_of_its_own(tmp_path, capsys):
    """WAON writes every amount unsigned with a yen sign after it, and its 利用区分 says 支払
    (a payment) or チャージ (a top-up): that column signs each row, so the top-up is money in
    while the shop's name stays the text."""
    export = tmp_path / "waon.csv"
    export.write_text(
        "取引年月日,利用店舗,利用金額（税込）,利用区分,チャージ区分\n"
        '2026/04/01,ミナミ商店,"2,180円",支払,-\n'
        '2026/04/03,ミナミ商店,"3,000円",チャージ,現金\n'
        "2026/04/08,キタ薬局,455円,支払,-\n",
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["利用区分"] == "direction" and section["currency"] == "JPY"
    assert result.kept["amount"].to_list() == [-2180.0, 3000.0, -455.0]
    assert result.kept["description"].to_list() == ["ミナミ商店", "ミナミ商店", "キタ薬局"]
