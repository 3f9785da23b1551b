"""Fio banka's CSV statement (Czechia) and mBank's (Poland), as those banks lay them out,
written by the tests: Fio's payments with no counterparty or message have only their booking
type ("Typ") to say what they are; mBank's text is its operation, its title (the shop) and
its counterparty, between an opening balance above the table and a closing one below it."""

from __future__ import annotations

from ml_assets.core.intake.ingest import scan_transactions
from tests.test_inspect_export import inspect


def test_fio_rows_with_only_a_booking_type_keep_it_as_their_text(tmp_path, capsys):
    export = tmp_path / "Vypis_z_uctu-1234567890_20260701-20260731.csv"
    export.write_text(
        '"Výpis č. 7/2026 z účtu ""1234567890/2010"""\n'
        '"Počáteční stav účtu k 01.07.2026: 382,38 CZK"\n\n'
        '"ID operace";"Datum";"Objem";"Měna";"Název protiúčtu";"Zpráva pro příjemce";"Typ"\n'
        '"27721834815";"04.07.2026";"-50";"CZK";"";"";"Bezhotovostní platba"\n'
        '"27735036379";"13.07.2026";"29760";"CZK";"ČSSZ";"Peněž. pomoc";"Bezhotovostní příjem"\n'
        '"27749380245";"31.07.2026";"90,72";"CZK";"";"";"Připsaný úrok"\n',
        encoding="utf-8-sig",
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export,
        column_map=settings["column_map"],
        date_format=settings.get("date_format"),
        delimiter=";",
        decimal=settings.get("decimal", "auto"),
    )
    assert result.rows_in == 3 == result.kept.height
    texts = result.kept["description"].to_list()
    assert "Bezhotovostní platba" in texts[0] and "Připsaný úrok" in texts[2]


def test_mbanks_shop_title_and_its_balances_above_and_below(tmp_path, capsys):
    export = tmp_path / "lista_operacji.csv"
    export.write_bytes(
        (
            "mBank S.A. Bankowość Detaliczna;\n#Waluta;\nPLN;\n\n#Saldo początkowe;67,93 PLN;\n\n"
            "#Data księgowania;#Data operacji;#Opis operacji;#Tytuł;#Nadawca/Odbiorca;"
            "#Numer konta;#Kwota;#Saldo po operacji;\n"
            '2026-07-04;2026-07-04;PRZELEW PRZYCH.;"Jan Nowak zwrot";"Revolut";\'PL46\';155,00;'
            "222,93;\n"
            '2026-07-05;2026-07-05;ZAKUP PRZY UŻYCIU KARTY;"ALIMAR /WROCLAW";"  ";\'\';-240,00;'
            "-17,07;\n"
            '2026-07-20;2026-07-20;BLIK ZAKUP E-COMMERCE;"HTTPS://SKLEP.PRZYKLAD";"  ";\'\';'
            "-21,34;-38,41;\n\n\n;;;;;;#Saldo końcowe;-38,41 PLN;\n"
        ).encode("cp1250")
    )
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    assert "#Tytuł -> description" in out and "#Nadawca/Odbiorca -> description" in out
    assert "balances:        opening 67.93" in out and "closing -38.41" in out
    assert "3 in: 3 kept, 0 quarantined" in out and "warning" not in out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export,
        column_map=settings["column_map"],
        encoding=settings.get("encoding"),
        delimiter=";",
        decimal=settings.get("decimal", "auto"),
    )
    assert "ALIMAR /WROCLAW" in result.kept["description"].to_list()[1]
    assert result.kept["amount"].to_list() == [155.0, -240.0, -21.34]
