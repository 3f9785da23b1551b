"""What points to a file's currency where it writes none: a yen amount written "1,504円" or
after a Shift JIS backslash, column names in Japanese kana, a New Zealand account number
or "NZ$", a Canadian Interac transfer or province codes, a Nordic amount column's name.
inspect writes a pointed currency for the user to confirm. Each file is written here in its
bank's layout, with invented rows."""

from __future__ import annotations

from ml_assets.core.intake.amount_text import amount_or_none, normalize_amount
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.currency_clues import currency_named, currency_pointed_to
from tests.test_issuer_csv_layouts import loaded


def _rows(*lines: list[str]) -> list[CellRow]:
    return [CellRow(i + 1, list(cells), b"") for i, cells in enumerate(lines)]


def test_yen_amounts_written_with_their_sign_read_as_numbers():
    """WAON's "1,504円" (the yen after the figures), Mobile Suica's "\\1,350" (Shift JIS
    shows its backslash as the yen sign), "¥" and the full-width "￥" all read."""
    written = ["1,504円", "398円", "\\1,350", "-\\10,612", "¥2,200", "￥2,200", "+10,000"]
    assert [amount_or_none(v, ".") for v in written] == [
        1504.0,
        398.0,
        1350.0,
        -10612.0,
        2200.0,
        2200.0,
        10000.0,
    ]
    assert normalize_amount("5,000円", ".", "waon.csv:3") == "5000"


def test_a_backslash_before_the_figures_is_the_yen_in_a_japanese_file():
    """By the script of the names: kana say the yen, hangul the won, neither says nothing."""
    amounts = ["\\1,350", "-150"]
    assert currency_named(amounts, ["入金・利用額"], ("月日", "種別"))[0] == "JPY"
    assert currency_named(amounts, ["거래금액"])[0] == "KRW"
    assert currency_named(amounts, ["Amount"]) is None


def test_a_yen_suffix_names_the_currency_of_a_file_that_reads(tmp_path, capsys):
    export = tmp_path / "waon.csv"
    export.write_text(
        "取引年月日,利用店舗,利用金額（税込）,利用区分,チャージ区分\n"
        '2026/04/02,テスト商店目黒,"2,150円",支払,-\n'
        "2026/04/06,サンプル薬局,640円,支払,-\n"
        "2026/04/09,テスト商店目黒,312円,支払,-\n",
        encoding="utf-8",
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["currency"] == "JPY" and "'円' in the amounts" in out
    assert result.kept["amount"].to_list() == [-2150.0, -640.0, -312.0]


def test_kana_column_names_point_to_the_yen():
    """A header in Japanese kana points to JPY as one in simplified Chinese points to CNY."""
    header = ["日付", "摘要", "摘要内容", "支払い金額", "預かり金額", "差引残高"]
    rows = _rows(header, ["2026/4/2", "振込", "テスト", "", "1,000", "9,000"])
    code, said = currency_pointed_to(rows, header)
    assert code == "JPY" and "kana" in said


def test_a_new_zealand_account_number_points_to_the_new_zealand_dollar(tmp_path, capsys):
    """Kiwibank writes the account as bank-branch-account-suffix ("38-9001-0123456-00") on
    each row: inspect writes NZD for the user to confirm."""
    export = tmp_path / "kiwibank.csv"
    export.write_text(
        "Account number,Effective Date,Transaction Date,Description,Transaction Code,Amount,"
        "Balance\n"
        "38-9001-0123456-00,2026-04-01,2026-04-01,Example Bakery,EFTPOS PURCHASE,-6.50,493.50\n"
        "38-9001-0123456-00,2026-04-02,2026-04-02,Sample Books,EFTPOS PURCHASE,-22.00,471.50\n",
        encoding="utf-8",
    )
    out, section, _, _ = loaded(export, capsys)
    assert section["currency"] == "NZD"
    assert "the New Zealand account number in '38-9001-0123456-00' shows" in out
    assert "confirm it" in out


def test_other_clues_of_new_zealand_and_canada():
    """ASB's preamble "Bank 12; Branch 3001; Account 7654321-00", an amount in "NZ$", TD's
    "SEND E-TFR" (Interac), a card whose purchases end with a province ("... SURREY BC")."""
    asb = _rows(["Bank 12; Branch 3001; Account 7654321-00 (Streamline)"])
    assert currency_pointed_to(asb, ["Date", "Payee", "Amount"])[0] == "NZD"
    card = _rows(["2026/04/10", "SAMPLE SHOP TOKYO 500.00 YEN (NZ$5.40)", "5.40"])
    assert currency_pointed_to(card, ["Date", "Description", "Amount"])[0] == "NZD"
    td = _rows(["05/01/2026", "SEND E-TFR ***Ab1", "40.00", "", "120.00"])
    assert currency_pointed_to(td, ["1", "2", "3", "4", "5"])[0] == "CAD"
    bmo = _rows(
        ["1", "20260511", "3.27", "EXAMPLE MART W12 SURREY BC"],
        ["2", "20260512", "8.10", "SAMPLE GROCER #7 VANCOUVER BC"],
        ["3", "20260513", "4.00", "BUS FARE"],
    )
    assert currency_pointed_to(bmo, ["Item #", "Date", "Amount", "Description"])[0] == "CAD"
    # one row of three ending with a province is no clue: the code may be a word there
    assert currency_pointed_to(bmo[:1] + _rows(["a"], ["b"]), ["Description"]) is None
    # Australia's Northern Territory and Brazil's Pernambuco are no Canadian province
    darwin = _rows(["2026-05-11", "WOOLWORTHS CASUARINA NT"], ["2026-05-12", "SHELL DARWIN NT"])
    assert currency_pointed_to(darwin, ["Date", "Description"]) is None
    recife = _rows(
        ["2026-05-11", "PADARIA BOA VIAGEM RECIFE PE"], ["2026-05-12", "FARMACIA OLINDA PE"]
    )
    assert currency_pointed_to(recife, ["Data", "Descricao"]) is None


def test_a_nordic_amount_name_points_to_its_krone_where_nothing_else_does(tmp_path, capsys):
    """A Norwegian bank's "Beløp" (amount) points to NOK; Handelsbanken's Swedish "Belopp"
    points nowhere, as a Finnish bank writes Swedish too; an IBAN in the rows is the stronger
    clue."""
    export = tmp_path / "handelsbanken.csv"
    export.write_text(
        "Reskontradatum;Transaktionsdatum;Text;Belopp;Saldo\n"
        "2026-04-08;2026-04-07;EXEMPEL LIVS;-312,00;4688,00\n"
        "2026-04-05;2026-04-05;LON APRIL;5000,00;5000,00\n",
        encoding="utf-8",
    )
    out, section, _, _ = loaded(export, capsys)
    assert "currency" not in section and "every row is read as USD" in out
    assert (
        currency_pointed_to(
            _rows(["2026-04-08", "KIWI OSLO", "-12,00"]), ["Dato", "Tekst", "Beløp"]
        )[0]
        == "NOK"
    )
    header = ["Kirjauspäivä", "Text", "Beløp"]
    finnish = _rows(["2026-04-08", "FI2112345600000785 Exempel Ab", "-12,00"])
    assert currency_pointed_to(finnish, header)[0] == "EUR"
