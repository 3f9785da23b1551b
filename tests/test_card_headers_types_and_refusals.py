"""Headers of more issuers read by their names (PayPay Card's "利用日/キャンセル日", View Card's
"ご利用年月日", "ご利用箇所", "ご利用額" below its holder's line), a booking type column that only
says the sign (Wise's "Transaction Type": DEBIT, CREDIT) left for the one that names the kind
of booking, and the refusal of a file with no transactions in it (an empty export, a daily
balance history) said as such. Each file is written here in the issuer's layout, with
made-up rows."""

from __future__ import annotations

from tests.test_inspect_export import inspect
from tests.test_issuer_csv_layouts import loaded


def test_paypay_card_reads_its_use_or_cancel_date(tmp_path, capsys):
    export = tmp_path / "paypay_card.csv"
    export.write_text(
        '"利用日/キャンセル日","利用店名・商品名","利用者","支払区分","利用金額","手数料","支払総額",'
        '"当月支払金額","翌月以降繰越金額","調整額","当月お支払日"\n'
        '"2026/4/3","サンプル食堂","本人*","1回","980","0","980","980","0","0","2026/5/27"\n'
        '"2026/4/8","テスト薬局","本人*","1回","1540","0","1540","1540","0","0","2026/5/27"\n'
        '"2026/4/12","ＸＹＺ文具","本人*","1回","330","0","330","330","0","0","2026/5/27"\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["利用日/キャンセル日"] == "posted_date"
    assert result.kept["amount"].to_list() == [-980.0, -1540.0, -330.0]


def test_view_card_reads_below_its_summary_and_holder_line(tmp_path, capsys):
    export = tmp_path / "view_card.csv"
    export.write_bytes(
        "会員番号,****-****-****-0001\n対象カード,「ビュー・スイカ｣カード\n"
        'お支払日,2026年05月07日\n今回お支払金額,"2,800"\n\n'
        "ご利用年月日,ご利用箇所,ご利用額,払戻額,ご請求額（うち手数料・利息）,支払区分（回数）,今回回数,"
        "今回ご請求額・弁済金（うち手数料・利息）,現地通貨額,通貨略称,換算レート\n"
        "****-****-****-0001 テスト　ハナコ\n"
        '2026/04/02,新宿駅　オートチャージ,"2,000",,"2,000",１回払,,"2,000",,   ,\n'
        "2026/04/20,サンプル書房,800,,800,１回払,,800,,   ,\n".encode("cp932")
    )
    _, section, result, counted = loaded(export, capsys)
    assert section["column_map"]["ご利用額"] == "amount"
    assert result.kept["description"].to_list() == ["新宿駅　オートチャージ", "サンプル書房"]
    assert result.kept["amount"].to_list() == [-2000.0, -800.0] and counted == 1


def test_wise_booking_type_is_the_kind_not_the_sign(tmp_path, capsys):
    export = tmp_path / "statement_GBP.csv"
    export.write_text(
        '"TransferWise ID",Date,Amount,Currency,Description,"Running Balance",'
        '"Transaction Type","Transaction Details Type"\n'
        'CARD-1,02-04-2026,-12.50,GBP,"Card transaction of 12.50 GBP issued by Cafe Uno",'
        "487.50,DEBIT,CARD\n"
        'TRANSFER-2,03-04-2026,-100.00,GBP,"Sent money to Ann Lee",387.50,DEBIT,TRANSFER\n'
        'TRANSFER-3,04-04-2026,250.00,GBP,"Received money from Bob Ray",637.50,CREDIT,DEPOSIT\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert "Transaction Type" not in section["column_map"]
    assert section["column_map"]["Transaction Details Type"] == "transaction_type"
    assert result.kept["transaction_type"].to_list() == ["CARD", "TRANSFER", "DEPOSIT"]
    assert result.kept["amount"].to_list() == [-12.5, -100.0, 250.0]


def test_an_empty_export_and_a_balance_history_are_said_to_hold_no_transactions(tmp_path, capsys):
    empty = tmp_path / "Knab_transactieoverzicht.csv"
    empty.write_text("KNAB EXPORT;;;;;;;;;;\n")
    code, out, _ = inspect(empty, capsys)
    assert code != 0 and "no transactions in this export" in out
    history = tmp_path / "NL00INGB0000000001_01-01-2026_31-03-2026.csv"
    history.write_text(
        '"Datum","Boeksaldo","Valutair saldo"\n"2026-03-31","10,50","10,50"\n'
        '"2026-03-30","12,00","12,00"\n"2026-03-29","12,00","12,00"\n'
    )
    code, out, _ = inspect(history, capsys)
    assert code != 0 and "a history of the account's balance, no transactions" in out


def test_a_column_naming_the_card_a_purchase_was_paid_with_is_no_direction(tmp_path, capsys):
    """A Brazilian card export says how each purchase was paid ("Crédito", "Débito" in
    "Modalidade"), or "Crédito" on every row ("Forma de pagamento"): those words name the
    card, not the way the money went, so every purchase stays spending."""
    for name, ways in (
        ("Modalidade", ("Crédito", "Débito")),
        ("Forma de pagamento", ("Crédito",) * 2),
    ):
        export = tmp_path / f"{name}.csv"
        export.write_text(
            f"Data,Estabelecimento,Valor,{name}\n"
            f"05/04/2026,PADARIA AURORA,25.90,{ways[0]}\n"
            f"06/04/2026,TAXI CENTRO,18.50,{ways[1]}\n"
            f"07/04/2026,POSTO LESTE,120.00,{ways[0]}\n",
            encoding="utf-8",
        )
        _, section, result, _ = loaded(export, capsys)
        assert name not in section.get("column_map", {}), section
        assert result.kept["amount"].to_list() == [-25.9, -18.5, -120.0]
