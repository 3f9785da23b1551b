"""Three conventions of real exports, written by the tests in each bank's layout: Swedbank
Sweden's reserved card amounts ("SKYDDAT BELOPP", not booked), Bank Pocztowy's dates with
spaces ("2019 10 11"), and a Japanese bank's header in kanji alone (Shinsei's 出金金額,
入金金額, 残高), which points inspect to the yen."""

from __future__ import annotations

from ml_assets.core.intake.ingest import scan_transactions
from tests.test_inspect_export import inspect


def test_swedbanks_reserved_amounts_are_pending_not_rows(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(
        "SKYDDAT BELOPP;2019-07-19;-;-196,00;-\n"
        "Övf via internet ;2019-07-19;2019-07-22;-1,00;22 102,16\n"
        "ICA NARA TANUM;2019-07-18;2019-07-19;-312,50;22 103,16\n",
        encoding="utf-8",
    )
    result = scan_transactions(
        export,
        column_map={"1": "description", "2": "posted_date", "4": "amount"},
        header_line=0,
        delimiter=";",
        decimal=",",
    )
    assert result.kept["amount"].to_list() == [-1.0, -312.5]
    assert result.rows_in == 2 and result.quarantined.height == 0


def test_dates_written_with_spaces_read(tmp_path, capsys):
    export = tmp_path / "historia.csv"
    export.write_text(
        "Data operacji,Opis,Kwota\n2019 10 11,BIEDRONKA 3412,-45.90\n"
        "2019 10 12,WYNAGRODZENIE,3200.00\n2019 10 14,ORLEN 112,-210.00\n",
        encoding="utf-8",
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert params["raw_transactions"]["date_format"] == "%Y %m %d"
    assert "3 in: 3 kept, 0 quarantined" in out


def test_a_japanese_header_in_kanji_alone_points_to_the_yen(tmp_path, capsys):
    export = tmp_path / "shinsei.csv"
    export.write_text(
        "取引日,摘要,出金金額,入金金額,残高\n2024/05/01,セブンイレブン,540,,99460\n"
        "2024/05/02,給与,,250000,349460\n",
        encoding="utf-8",
    )
    code, out, _ = inspect(export, capsys)
    assert code == 0, out
    assert "currency:        JPY" in out
