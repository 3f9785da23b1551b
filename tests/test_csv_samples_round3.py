"""Bank CSV layouts as real downloads write them (YNAB4's register, Volksbank/GLS, DKB, German
PayPal, ING "mit Saldo", Commerzbank), each read the documented way: ``inspect`` writes the
settings, the load reads the file with them, and every row is accounted for. The files are
written here in each layout, not copied."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.column_names import field_of, names_other_party, normalized
from ml_assets.core.intake.sniffing import sniff_date_format, sniff_delimiter
from tests.test_issuer_csv_layouts import loaded


def test_ynab4_outflow_and_inflow_are_money_out_and_in_and_the_payee_leads(tmp_path, capsys):
    """YNAB4's register export writes every amount unsigned, in "Outflow" or "Inflow": a salary
    in Inflow is money in, not a purchase of nothing. "Payee" names the merchant and "Memo" is
    the user's note (often blank): the payee leads the description and is the merchant."""
    export = tmp_path / "My Budget as of 2022-11-10 Register.csv"
    export.write_text(
        '"Account","Flag","Check Number","Date","Payee","Category","Master Category",'
        '"Sub Category","Memo","Outflow","Inflow","Cleared","Running Balance"\n'
        '"checking1",,,2022/11/07,"shop1",,,,"Lunch",$4.75,$0.00,C,$95.25\n'
        '"checking1",,,2022/11/08,"Employer",,,,"Salary",$0.00,$500.00,C,$595.25\n'
        '"checking1",,,2022/11/09,"coffeeshop",,,,,$3.10,$0.00,C,$592.15\n'
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Outflow"] == "debit"
    assert section["column_map"]["Inflow"] == "credit"
    assert "unsigned debit and credit columns" in out
    assert result.kept.height == result.rows_in == 3
    assert result.kept["amount"].to_list() == [-4.75, 500.0, -3.1]
    assert result.kept["description"].to_list() == ["shop1 Lunch", "Employer Salary", "coffeeshop"]
    assert result.kept["merchant"].to_list() == ["shop1", "Employer", "coffeeshop"]


def test_volksbank_name_zahlungsbeteiligter_is_the_other_party(tmp_path, capsys):
    """The Volksbank/GLS download: "Buchungstext" is the booking type, "Verwendungszweck" the
    purpose (often just "Miete"), "Name Zahlungsbeteiligter" the other party, which leads the
    description and is the merchant. A closing entry without a party keeps its purpose."""
    export = tmp_path / "Umsaetze_DE89370400440532013000_2025.12.10.csv"
    export.write_text(
        "Bezeichnung Auftragskonto;IBAN Auftragskonto;BIC Auftragskonto;Bankname Auftragskonto;"
        "Buchungstag;Valutadatum;Name Zahlungsbeteiligter;IBAN Zahlungsbeteiligter;"
        "BIC (SWIFT-Code) Zahlungsbeteiligter;Buchungstext;Verwendungszweck;Betrag;Waehrung;"
        "Saldo nach Buchung;Bemerkung;Gekennzeichneter Umsatz;Glaeubiger ID;Mandatsreferenz\n"
        "Giro;DE89370400440532013000;GENODEM1GLS;GLS Bank;10.12.2025;10.12.2025;"
        "Hausverwaltung Nord;DE02100100100006820101;PBNKDEFFXXX;Dauerauftrag;Miete;-850,00;EUR;"
        "1150,00;;;;\n"
        "Giro;DE89370400440532013000;GENODEM1GLS;GLS Bank;11.12.2025;11.12.2025;"
        "Bio Markt Sonnenblume;DE02100100100006820102;PBNKDEFFXXX;Kartenzahlung;Kauf;-24,16;EUR;"
        "1125,84;;;;\n"
        "Giro;DE89370400440532013000;GENODEM1GLS;GLS Bank;12.12.2025;12.12.2025;;;;Abschluss;"
        "Abschluss per 30.11.2025;-6,00;EUR;1119,84;;;;\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Name Zahlungsbeteiligter"] == "description"
    assert section["column_map"]["Buchungstext"] == "transaction_type"
    assert result.kept["description"].to_list() == [
        "Hausverwaltung Nord Miete",
        "Bio Markt Sonnenblume Kauf",
        "Abschluss per 30.11.2025",
    ]
    assert result.kept["merchant"].to_list() == [
        "Hausverwaltung Nord",
        "Bio Markt Sonnenblume",
        None,
    ]


def test_dkb_gender_inclusive_names_give_the_payee(tmp_path, capsys):
    """DKB writes "Zahlungsempfänger*in" and "Zahlungspflichtige*r" below a preamble with the
    balance: the payee (the merchant of a purchase) leads the description."""
    export = tmp_path / "20-12-2025_Umsatzliste_Girokonto_DE42120300001033738756.csv"
    export.write_text(
        '\ufeff"Girokonto";"DE42120300001033738756"\n'
        "\n"
        '"Kontostand vom 09.12.2025:";"4.093,32 €"\n'
        '""\n'
        '"Buchungsdatum";"Wertstellung";"Status";"Zahlungspflichtige*r";"Zahlungsempfänger*in";'
        '"Verwendungszweck";"Umsatztyp";"IBAN";"Betrag (€)";"Gläubiger-ID";"Mandatsreferenz";'
        '"Kundenreferenz"\n'
        '"08.12.25";"08.12.25";"Gebucht";"Max Mustermann";"Stadtwerke Nord";"Abschlag Strom";'
        '"Ausgang";"DE89370400440532013000";"-48";"DE12ZZZ00000012345";"M-1";""\n'
        '"05.12.25";"05.12.25";"Gebucht";"Max Mustermann";"K.Michel GmbH";"Rechnung 4711";'
        '"Ausgang";"DE89370400440532013000";"-62,3";"";"";""\n'
        '"01.12.25";"01.12.25";"Gebucht";"Max Mustermann";"Buchhandlung am Markt";"Bücher";'
        '"Ausgang";"DE89370400440532013000";"-29,99";"";"";""\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Zahlungsempfänger*in"] == "description"
    assert result.kept.height == result.rows_in == 3
    assert result.kept["merchant"].to_list() == [
        "Stadtwerke Nord",
        "K.Michel GmbH",
        "Buchhandlung am Markt",
    ]
    assert result.kept["amount"].to_list() == [-48.0, -62.3, -29.99]
    assert result.kept["description"][2] == "Buchhandlung am Markt Bücher"


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("Zahlungsempfänger*in", "zahlungsempfaenger"),
        ("Zahlungspflichtige*r", "zahlungspflichtiger"),
        ("Zahlungspflichtige/r", "zahlungspflichtiger"),
        ("Empfänger:in", "empfaenger"),
        ("Empfänger/-in", "empfaenger"),
        ("Empfänger(in)", "empfaenger"),
        ("Empfänger*innen", "empfaenger"),
        ("Auftraggeber/Empfänger", "auftraggeber empfaenger"),
        # an ending only where German puts one: these are words of their own
        ("Paid Out/In", "paid out in"),
        ("money_in", "money in"),
        ("Type/Ref", "type ref"),
    ],
)
def test_gender_inclusive_endings_read_as_the_plain_name(name, plain):
    assert normalized(name) == plain


def test_the_counterparty_names_german_banks_write():
    for name in (
        "Name Zahlungsbeteiligter",
        "Zahlungsempfänger*in",
        "Zahlungspflichtige*r",
        "Empfänger:in",
        "Auftraggeber/Empfänger",
        "Payee",
    ):
        assert field_of(name) == "counterparty", name
    assert (field_of("Outflow"), field_of("Inflow")) == ("debit", "credit")
    # an address or an account is no party, whatever word it shares with one
    assert not names_other_party("Empfänger E-Mail-Adresse")
    assert not names_other_party("Empfänger IBAN")
    assert names_other_party("Empfänger")


def test_german_paypal_takes_no_e_mail_address_for_the_merchant(tmp_path, capsys):
    """PayPal's German activity download: "Name" is the other party, and "Empfänger
    E-Mail-Adresse" holds an address (the user's own on money in): no row's merchant is an
    e-mail address."""
    export = tmp_path / "Download.CSV"
    export.write_text(
        '\ufeff"Datum","Uhrzeit","Zeitzone","Name","Typ","Status","Währung","Brutto","Gebühr",'
        '"Netto","Absender E-Mail-Adresse","Empfänger E-Mail-Adresse","Transaktionscode"\n'
        '"18.06.2025","07:47:30","CEST","PayPal Inc.","Überweisung als Zahlungsquelle",'
        '"Abgeschlossen","EUR","100,00","0,00","100,00","viban_TopUp@paypal.com",'
        '"fibu@musterfirma.de","8L0000000S000000N"\n'
        '"21.06.2025","12:29:40","CEST","Deutsche Post AG","PayPal Express-Zahlung",'
        '"Abgeschlossen","EUR","-6,19","0,00","-6,19","fibu@musterfirma.de",'
        '"service@beispiel.de","3PH00000FD000000S"\n'
        '"27.06.2025","14:53:27","CEST","Lieferant GmbH","PayPal Express-Zahlung",'
        '"Abgeschlossen","EUR","-29,93","0,00","-29,93","fibu@musterfirma.de",'
        '"info@lieferant.de","0YC000000K000000C"\n',
        encoding="utf-8",
    )
    _, _, result, _ = loaded(export, capsys)
    assert result.kept.height == result.rows_in == 3
    assert result.kept["amount"].to_list() == [100.0, -6.19, -29.93]
    assert not any("@" in (m or "") for m in result.kept["merchant"].to_list())
    assert result.kept["description"].to_list() == [
        "PayPal Inc.",
        "Deutsche Post AG",
        "Lieferant GmbH",
    ]


ING_HEADER = (
    "Buchung;Wertstellungsdatum;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Betrag;Währung"
)
ING_ROWS = [
    "09.12.2025;09.12.2025;VISA Firma;Lastschrift;NR XXXX 4025 KAUFUMSATZ 05.12 13.98;-13,98;EUR",
    "08.12.2025;08.12.2025;Gerhard Zintel;Dauerauftrag;Nebenkosten Gerhard;-200,00;EUR",
    "28.11.2025;28.11.2025;Rente;Gehalt/Rente;RV-RENTE 11.2025;2.647,74;EUR",
    "26.11.2025;26.11.2025;UKW;Gehalt/Rente;PENSION 12/25- PID 651730;144,48;EUR",
] + [
    f"{day}.11.2025;{day}.11.2025;VISA Firma;Lastschrift;NR XXXX 4025 KAUFUMSATZ;-{day},50;EUR"
    for day in range(17, 23)
]


def ing_export(with_balance: bool) -> list[str]:
    """ING's "Umsatzanzeige": a preamble of ``key;value`` lines (with the balance, when the
    user ticked "mit Saldo"), a notice, then the table."""
    lines = [
        "Umsatzanzeige;Datei erstellt am: 09.12.2025 15:23",
        "",
        "IBAN;DE89370400440532013000",
        "Kontoname;Girokonto",
        "Bank;ING",
        "Kunde;Max Mustermann",
        "Zeitraum;17.11.2025 - 09.12.2025",
    ]
    lines += ["Saldo;66.331,90;EUR"] if with_balance else []
    lines += [
        "",
        "Sortierung;Datum absteigend",
        "",
        "In der CSV-Datei finden Sie alle bereits gebuchten Umsätze. Die vorgemerkten Umsätze "
        "werden nicht aufgenommen, auch wenn sie in Ihrem Internetbanking angezeigt werden.",
        "",
        ING_HEADER,
        *ING_ROWS,
    ]
    return [line + "\r\n" for line in lines]


def test_a_balance_line_in_the_preamble_does_not_change_the_separator():
    """Read with a comma, each row of a semicolon file with one decimal-comma amount has two
    fields, and so do the notice's sentence and "Saldo;66.331,90;EUR": more lines than the
    table's, but the table's seven fields a line decide."""
    assert sniff_delimiter(ing_export(with_balance=True)) == ";"
    assert sniff_delimiter(ing_export(with_balance=False)) == ";"
    comma = ["Date,Description,Amount\n"] + [
        f"2026-01-0{d},Shop;Ltd,-{d}.50\n" for d in range(1, 5)
    ]
    assert sniff_delimiter(comma) == ","  # a semicolon in every row's text splits it as well
    # commas in a semicolon file's text split its rows wider, but not its header
    semicolon = ["Datum;Text;Betrag\n"] + [
        f"0{d}.01.2026;Kartenzahlung, REWE, Berlin;-{d},50\n" for d in range(1, 5)
    ]
    assert sniff_delimiter(semicolon) == ";"


def test_ing_mit_saldo_reads_as_ing_without_the_balance(tmp_path, capsys):
    export = tmp_path / "Umsatzanzeige_DE89370400440532013000_20251209.csv"
    export.write_bytes("".join(ing_export(with_balance=True)).encode("cp1252"))
    out, section, result, _ = loaded(export, capsys)
    assert "#   delimiter:       ';'" in out
    assert section["column_map"]["Auftraggeber/Empfänger"] == "description"
    assert result.kept.height == result.rows_in == 10
    assert sorted(result.kept["amount"].to_list())[-3:] == [-13.98, 144.48, 2647.74]


def test_commerzbank_buchungstext_beside_umsatzart_is_the_text(tmp_path, capsys):
    """Commerzbank's download: "Umsatzart" is the booking type and "Buchungstext" the text
    (elsewhere, beside a "Verwendungszweck", Buchungstext is the booking type)."""
    export = tmp_path / "Umsaetze_KtoNr123456700_EUR_09-12-2025_1200.CSV"
    export.write_text(
        "\ufeffBuchungstag;Wertstellung;Umsatzart;Buchungstext;Betrag;Währung;IBAN Kontoinhaber;"
        "Kategorie\r\n"
        "31.12.2024;31.12.2024;Zinsen/Entgelte;Kontoführung Grundpreis 9,90- EUR;-10,7;EUR;"
        "DE79500400000123456700;\r\n"
        "21.01.2025;21.01.2025;Lastschrift;1x1 Mail & Media GmbH KD-Nr. K12345678;-12,34;EUR;"
        "DE79500400000123456700;\r\n"
        "02.05.2025;02.05.2025;Lastschrift;HanseMerkur Krankenversicherung AG Praemie 05/2025;"
        "-33,50;EUR;DE79500400000123456700;\r\n"
        "15.05.2025;15.05.2025;Gutschrift;Erstattung Stadtwerke Nord;45,00;EUR;"
        "DE79500400000123456700;\r\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Buchungstext"] == "description"
    assert section["column_map"]["Umsatzart"] == "transaction_type"
    assert result.kept.height == result.rows_in == 4
    assert result.kept["amount"].to_list() == [-10.7, -12.34, -33.5, 45.0]
    assert result.kept["description"][1] == "1x1 Mail & Media GmbH KD-Nr. K12345678"
    assert result.kept["transaction_type"][3] == "Gutschrift"


def test_buchungstext_alone_is_the_text(tmp_path, capsys):
    """A download whose only text column is "Buchungstext" (elsewhere a booking type beside a
    purpose text): it is the description, and every row is read."""
    export = tmp_path / "umsaetze.csv"
    export.write_text(
        "Buchungstag;Buchungstext;Betrag\n"
        "02.03.2026;Kartenzahlung REWE SAGT DANKE 41400673;-17,22\n"
        "03.03.2026;Lastschrift Stadtwerke Abschlag;-61,00\n"
        "04.03.2026;Gutschrift Gehalt Maerz;2.100,00\n"
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Buchungstext"] == "description"
    assert result.kept["amount"].to_list() == [-17.22, -61.0, 2100.0]


def test_amounts_with_an_arabic_currency_sign_and_direction_marks_are_read(tmp_path, capsys):
    """YNAB4 in a right-to-left locale writes "د.ا.\u200f4.750" (the Jordanian dinar's sign and
    a right-to-left mark before the amount): the sign and the mark are not part of the number."""
    export = tmp_path / "register.csv"
    export.write_text(
        '"Account","Date","Payee","Memo","Outflow","Inflow"\n'
        '"checking1","2022/11/07","shop1","Lunch","د.ا.\u200f4.750","د.ا.\u200f0.000"\n'
        '"checking1","2022/11/08","Employer","Salary","د.ا.\u200f0.000","د.ا.\u200f500.000"\n',
        encoding="utf-8",
    )
    _, _, result, _ = loaded(export, capsys)
    assert result.kept["amount"].to_list() == [-4.75, 500.0] and result.quarantined.height == 0
    # the Arabic-Indic digits are the amount, not a sign's letters
    digits = tmp_path / "arabic_digits.csv"
    digits.write_text(
        "Date,Description,Amount\n2026-01-02,CARREFOUR,-١٢.٥٠\n2026-01-03,SALARY ACME,٥٠٠٠.٠٠\n"
        "2026-01-04,STC BILL,-٢٣٠.٧٥\n",
        encoding="utf-8",
    )
    _, _, result, _ = loaded(digits, capsys)
    assert result.kept["amount"].to_list() == [-12.5, 5000.0, -230.75]


def test_wechat_pay_bill_with_its_direction_words_and_yuan(tmp_path, capsys):
    """WeChat Pay's bill: a preamble of 16 lines, then 交易时间 (time), 交易对方 (the other
    party), 收/支 (支出 out, 收入 in) and 金额(元), the amount in yuan, written in simplified
    script: renminbi."""
    preamble = ["微信支付账单明细", "微信昵称：[微]", "起始时间：[2026-08-30 00:00:00]", "",
                "共3笔记录", "收入：1笔 670.00元", "支出：2笔 170.58元", "",
                "----------------------微信支付账单明细列表--------------------"]  # fmt: skip
    rows = [
        "交易时间,交易类型,交易对方,商品,收/支,金额(元),支付方式,当前状态,交易单号,商户单号,备注",
        "2026-08-30 20:46:40,扫二维码付款,用户b,二维码收款,支出,¥20.00,招商银行(1111),已转账,1001,/,/",
        "2026-08-30 20:46:41,商户消费,京东商城平台商户,京东-订单编号233,支出,¥150.58,招商银行(1111),"
        "支付成功,1002,6184,/",
        "2026-08-30 20:46:42,二维码收款,CW,二维码收款,收入,¥670.00,零钱,已收钱,1003,/,/",
    ]
    export = tmp_path / "微信支付账单(20260830-20260906).csv"
    export.write_text("\n".join(line + ",,,,,,,,,," * ("," not in line) for line in preamble)
                      + "\n" + "\n".join(rows) + "\n", encoding="utf-8-sig")  # fmt: skip
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["收/支"] == "direction" and section["currency"] == "CNY"
    assert result.kept["amount"].to_list() == [-20.0, -150.58, 670.0]
    assert result.kept["description"][1].startswith("京东商城平台商户")


def test_rakuten_cards_shop_and_product_column_is_the_text(tmp_path, capsys):
    """Rakuten Card's statement heads the shop "利用店名・商品名" (shop name · product)."""
    export = tmp_path / "enavi202610(1234).csv"
    export.write_text(
        '"利用日","利用店名・商品名","利用者","支払方法","利用金額","支払手数料","支払総額"\n'
        '"2026/09/07","ローソン","本人","1回払い","1051","0","1051"\n'
        '"2026/09/08","楽天市場","本人","1回払い","3980","0","3980"\n',
        encoding="utf-8-sig",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["利用店名・商品名"] == "description"
    assert result.kept["description"].to_list() == ["ローソン", "楽天市場"]


def test_dkb_takes_the_payer_on_money_in_and_the_payee_on_money_out(tmp_path, capsys):
    """DKB names the payer ("Zahlungspflichtige*r") and the payee ("Zahlungsempfänger*in"),
    one of them always the account's owner: a salary's party is the employer, a purchase's
    the shop, never the owner; that party leads the text and is the merchant."""
    export = tmp_path / "dkb.csv"
    export.write_text(
        '"Buchungsdatum";"Wertstellung";"Status";"Zahlungspflichtige*r";"Zahlungsempfänger*in";'
        '"Verwendungszweck";"Umsatztyp";"IBAN";"Betrag (€)"\n'
        '"28.11.26";"28.11.26";"Gebucht";"ACME GmbH";"Max Mustermann";"Gehalt November";'
        '"Eingang";"DE89370400440532013000";"2.400"\n'
        '"29.11.26";"29.11.26";"Gebucht";"Max Mustermann";"REWE Markt GmbH";"Einkauf 4711";'
        '"Ausgang";"DE89370400440532013001";"-62,3"\n'
        '"30.11.26";"30.11.26";"Gebucht";"Max Mustermann";"Stadtwerke Koeln";"Abschlag Strom";'
        '"Ausgang";"DE89370400440532013002";"-48"\n',
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Zahlungspflichtige*r"] == "description"
    assert result.kept["description"].to_list() == [
        "ACME GmbH Gehalt November", "REWE Markt GmbH Einkauf 4711", "Stadtwerke Koeln Abschlag Strom"
    ]  # fmt: skip
    assert result.kept["merchant"].to_list() == ["ACME GmbH", "REWE Markt GmbH", "Stadtwerke Koeln"]


def test_otp_hungarian_column_names(tmp_path, capsys):
    """OTP Bank's account history: Könyvelés dátuma (booking date), Összeg (amount),
    Devizanem (currency), Ellenoldali név (the other party) and Közlemény (the text)."""
    export = tmp_path / "szamlatortenet.csv"
    export.write_text(
        "Számlaszám;Ellenoldali számlaszám;Ellenoldali név;Forgalom típusa;Közlemény;"
        "Banki azonosító;Tranzakció időpontja;Könyvelés dátuma;Összeg;Devizanem\n"
        "11111111-22222222;;SPAR MAGYARORSZAG KFT;VÁSÁRLÁS KÁRTYÁVAL;SPAR vásárlás;"
        "2026010209150011001;2026-01-02 09:15:00;2026-01-02;-4990;HUF\n"
        "11111111-22222222;10300002-00000000-11112222;Munkáltató Zrt.;AZONNALI ÁTUTALÁS;Munkabér;"
        "2026010508300011003;2026-01-05 08:30:00;2026-01-05;450000;HUF\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Könyvelés dátuma"] == "posted_date"
    assert result.kept["description"].to_list() == [
        "SPAR MAGYARORSZAG KFT SPAR vásárlás", "Munkáltató Zrt. Munkabér"
    ]  # fmt: skip
    assert set(result.kept["currency"]) == {"HUF"}


def test_erste_hungary_dates_with_a_final_dot_and_its_amount_name(tmp_path, capsys):
    """Erste Bank Hungary writes "2026.04.19." and names the signed amount "Tranzakció
    összege" and its currency "Tranzakció devizaneme"."""
    export = tmp_path / "W80844_EBH_202645.csv"
    export.write_text(
        "Tranzakció dátuma,Partner neve,Tranzakció összege,Tranzakció devizaneme,Közlemény,"
        "Egyenleg,Devizanem\n"
        "2026.04.19.,TESCO GLOBAL ARUHAZAK,-350,HUF,,2345.56,HUF\n"
        "2026.04.17.,MUNKAADO KFT,1290,HUF,Munkaber aprilis,2695.56,HUF\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert (
        section["date_format"] == "%Y.%m.%d."
        and section["column_map"]["Tranzakció devizaneme"] == "currency"
    )
    assert result.kept["posted_date"].to_list() == ["2026-04-19", "2026-04-17"]
    assert result.kept["amount"].to_list() == [-350.0, 1290.0]


def test_ukrainian_business_exports_sign_by_their_operation_and_skip_registry_codes(
    tmp_path, capsys
):
    """Alfa-Bank Ukraine's business report: "Операція" says Дебет or Кредит of an unsigned
    "Сума", and an 8-digit registry code ("Код контрагента", 11111111) is no date (1111-11-11)
    beside "Дата проведення"."""
    export = tmp_path / "ReportAlfa-Bank_20261005_124902.csv"
    export.write_text(
        "Наш рахунок;Операція;Найменування контрагента;Код контрагента;Призначення платежу;"
        "Дата проведення;Номер документа;Сума;Валюта\n"
        "2600111;Дебет;XYZ COMPANY;11111111;Списання коштів для продажу валюти;03.03.2026;"
        "104285940;1018.23;GBP\n"
        "2600111;Кредит;JOHN DOE;22222222;Надходження від клієнта;03.03.2026;102069016;"
        "5018.23;GBP\n"
        "2600111;Дебет;XYZ BANK;33333333;Погашення комісії;02.04.2026;104285941;50.00;UAH\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Операція"] == "direction"
    assert result.kept["posted_date"].to_list() == ["2026-03-03", "2026-03-03", "2026-04-02"]
    assert result.kept["amount"].to_list() == [-1018.23, 5018.23, -50.0]
    assert sniff_date_format(["11111111", "22222222", "33333333"])[0] is None  # no year 1111


def test_monobank_amount_in_the_card_currency_named_by_its_column(tmp_path, capsys):
    """monobank's "Сума в валюті картки (UAH)" is in hryvnia; its "Валюта" column is the
    operation's currency (EUR for a purchase abroad), another amount's: the rows are UAH."""
    export = tmp_path / "monobank-black-UAH_01-06-26.csv"
    export.write_text(
        "Дата i час операції,Деталі операції,MCC,Сума в валюті картки (UAH),"
        "Сума в валюті операції,Валюта,Курс,Сума комісій (UAH),Сума кешбеку (UAH),"
        "Залишок після операції\n"
        "01.04.2026 05:27:35,Відсотки за березень,4829,19.32,19.32,UAH,—,—,—,9499.41\n"
        "01.04.2026 15:46:23,Google,5817,-431.09,-10.4,EUR,0.024125,—,—,9068.32\n"
        "12.05.2026 10:00:00,Uklon,4121,-180.00,-180.00,UAH,—,—,—,8888.32\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["currency"] == "UAH" and "currency" not in section["column_map"].values()
    assert set(result.kept["currency"]) == {"UAH"}
    assert result.kept["amount"].to_list() == [19.32, -431.09, -180.0]


def test_dnb_cards_balance_from_the_last_bill_is_no_purchase(tmp_path, capsys):
    """DNB's Mastercard statement opens with "Skyldig beløp fra forrige faktura" (owed from
    the last bill), dated and with an amount: a balance line, not a purchase of 5,000."""
    export = tmp_path / "dnb.csv"
    export.write_text(
        "Dato;Beløpet gjelder;Valuta;Kurs;Inn;Ut\n"
        "10.11.2026;Skyldig beløp fra forrige faktura;;;;5000\n"
        "25.10.2026;Innbetaling;;;5000;\n"
        "24.10.2026;REMA 1000 OSLO, Oslo;;;;150,5\n"
        "25.10.2026;SPOTIFY AB, Stockholm;;;;119\n",
        encoding="utf-8",
    )
    out, _, result, counted = loaded(export, capsys)
    assert counted == 1 and "balance line 2" in out
    assert result.kept["amount"].to_list() == [5000.0, -150.5, -119.0]


def test_wise_names_the_payee_once(tmp_path, capsys):
    """Wise's statement writes "Sent money to Jane Doe" beside "Payee Name" Jane Doe: the
    text says the name once."""
    export = tmp_path / "statement_EUR_2026-01-01_2026-01-31.csv"
    export.write_text(
        '"TransferWise ID",Date,Amount,Currency,Description,"Payment Reference",'
        '"Running Balance","Payer Name","Payee Name",Merchant\n'
        'TRANSFER-1,23-01-2026,-300.00,EUR,"Sent money to Jane Doe",rent,1664.50,,"Jane Doe",\n'
        'CARD-2,24-01-2026,-19.72,EUR,"Card transaction of 19.72 EUR issued by Coffee Shop",,'
        '1644.78,,,"Coffee Shop"\n'
    )
    _, _, result, _ = loaded(export, capsys)
    assert result.kept["description"].to_list() == [
        "Sent money to Jane Doe", "Card transaction of 19.72 EUR issued by Coffee Shop"
    ]  # fmt: skip


def test_sense_bank_sections_each_repeat_the_header(tmp_path, capsys):
    """Sense Bank writes the account's operations, then each card's under a title of its own
    and the header again ("Дата і час;Статус;..."): the title and the repeated header are
    counted, not quarantined; "Cума списання" (with a Latin C) is the debit."""
    header = "Дата і час;Статус;Тип;Деталі;Адреса;MCC;Cума списання;Cума зарахування"
    export = tmp_path / "alfabank-uah.csv"
    export.write_text(
        "Виписка за рахунком;;;;;;;\nРахунок UA111 (UAH);;;;;;;\n"
        f"{header}\n"
        "09.01.26 00:58;виконано;Інше;Щомісячна комісія;Kyiv, UKR;;-150,00;\n"
        "25.01.26 12:12;виконано;Інше;Перерахування доходу;Kyiv, UKR;;;10000,13\n"
        "Деталізація операцій за карткою: Visa 4111xxxxxxx1111;;;;;;;\n"
        f"{header}\n"
        "24.01.26 11:49;виконано;Покупка;WFP.OPENDATABOTM;DNIPRO, UKR;7311;-270,00;\n",
        encoding="utf-8",
    )
    out, _, result, counted = loaded(export, capsys)
    assert result.quarantined.height == 0 and counted == 2 and "repeated header line 7" in out
    assert result.kept["amount"].to_list() == [-150.0, 10000.13, -270.0]


def test_privatbank_card_statement_names(tmp_path, capsys):
    """PrivatBank's card statement: "Дата", "Опис операції", the amount in the card's currency
    ("Сума в валюті картки") and that currency ("Валюта картки"), not the transaction's."""
    export = tmp_path / "privatbank.csv"
    export.write_text(
        "Дата,Категорія,Картка,Опис операції,Сума в валюті картки,Валюта картки,"
        "Сума в валюті транзакції,Валюта транзакції\n"
        "24.07.2026 04:49:39,Цифрові товари,8345 **** 2284,Namecheap,-805.88,UAH,19.18,USD\n"
        "23.07.2026 00:37:19,Дім та ремонт,8346 **** 2284,THE HOME DEPOT #7079,-207.56,UAH,"
        "6.76,CAD\n",
        encoding="utf-8",
    )
    _, section, result, _ = loaded(export, capsys)
    assert section["column_map"]["Валюта картки"] == "currency"
    assert set(result.kept["currency"]) == {"UAH"}
    assert result.kept["amount"].to_list() == [-805.88, -207.56]
