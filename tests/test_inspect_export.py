"""`python -m ml_assets inspect PATH`: what an export is, and params that read it with no hand
edit. Its whole output is a params file (findings are YAML comments): written to a file as it
is, `days` reads the exports with it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from ml_assets.__main__ import main
from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.raw_days import scan_exports
from ml_assets.core.intake.text_encoding import detect_encoding
from ml_assets.core.params import RawTransactionsParams
from tests.test_bank_formats_sheets_qif import write_activity_xlsx

BANKS = Path(__file__).parent / "fixtures" / "banks"
EXPORTS = Path(__file__).parent / "fixtures" / "bank_exports"


def inspect(path: Path, capsys) -> tuple[int, str, dict]:
    code = main(["inspect", str(path)])
    out = capsys.readouterr().out
    return code, out, yaml.safe_load(out) or {}


def test_a_checking_download_with_a_summary_block(capsys):
    code, out, params = inspect(BANKS / "stmt.csv", capsys)
    assert code == 0
    assert "#   encoding:        cp1252: not UTF-8 (byte 0xc9 on line 12)" in out
    assert "CRLF line ends" in out and "line 7: Date | Description | Amount | Running Bal." in out
    assert "6 lines above the header" in out and "opening 1,234.56 (line 2)" in out
    assert "%m/%d/%Y" in out and "purchases negative, as ours" in out
    assert "column 'Running Bal.': 10 of 11 steps follow; 1 repeat(s)" in out
    assert "stmt.csv:17: running balance 2,360.65 does not follow" in out
    assert "#     2026-01-02  2474.74 ACME CORP PAYROLL PPD ID: 1234567890" in out
    assert params["raw_transactions"] == {
        "source": "files",
        "path": str((BANKS / "stmt.csv").resolve()),
        "encoding": "cp1252",
        "column_map": {
            "Date": "posted_date",
            "Description": "description",
            "Amount": "amount",
            "Running Bal.": "balance",
        },
        "date_format": "%m/%d/%Y",
    }


@pytest.mark.parametrize(
    ("fixture", "kept", "facts"),
    [
        (BANKS / "Umsaetze_Girokonto.csv", 5, {"delimiter": "';'", "dates": "%d.%m.%Y"}),
        (BANKS / "quicken_checking.qif", 7, {"labels": "category"}),
        (EXPORTS / "card_activity_20261129.CSV", 10, {"columns": "csv_preset card_activity"}),
        (EXPORTS / "card_debit_credit.csv", 2, {"sign": "unsigned debit and credit"}),
        (EXPORTS / "checking_20260305.ofx", 2, {"ids": "from the file"}),
        (EXPORTS / "camt053_20260305.xml", 3, {"format": "camt053"}),
    ],
)
def test_every_format_gets_settings_that_read_it(fixture, kept, facts):
    found = inspect_file(fixture)
    assert found.error is None and found.result.kept.height == kept
    found_facts = dict(found.facts)
    for label, text in facts.items():
        assert text in found_facts[label], (label, found_facts[label])
    settings = RawTransactionsParams(source="files", path=str(fixture), **found.settings)
    assert scan_exports(fixture, settings).kept.equals(found.result.kept)  # what the load reads


def test_a_dutch_export_signed_by_a_direction_column_with_compact_dates(tmp_path):
    """ING's layout: semicolons, unsigned decimal-comma amounts and an Af/Bij column."""
    export = tmp_path / "NL11INGB0001234567_01-11-2026_30-11-2026.csv"
    header = '"Datum";"Naam / Omschrijving";"Rekening";"Tegenrekening";"Code";"Af Bij";'
    header += '"Bedrag (EUR)";"Mutatiesoort";"Mededelingen"'
    rows = [
        ("20261103", "ALBERT HEIJN 1403 AMSTERDAM", "BA", "Af", "23,45", "Betaalautomaat"),
        ("20261105", "Werkgever BV", "GT", "Bij", "2.474,74", "Overschrijving"),
        ("20261107", "NS GROEP IZ NS REIZIGERS", "BA", "Af", "4,80", "Betaalautomaat"),
    ]
    lines = [header] + [
        f'"{day}";"{name}";"NL11INGB0001234567";"";"{code}";"{way}";"{amount}";"{kind}";'
        f'"Pasvolgnr: 001 Transactie: X{i}"'
        for i, (day, name, code, way, amount, kind) in enumerate(rows)
    ]
    export.write_text("\n".join(lines) + "\n")
    found = inspect_file(export)
    assert found.error is None, found.error
    facts = dict(found.facts)
    assert "YYYYMMDD" in facts["dates"] and "direction column" in facts["sign"]
    kept = found.result.kept
    assert kept["amount"].to_list() == [-23.45, 2474.74, -4.80]
    assert [str(d) for d in kept["posted_date"].to_list()] == [
        "2026-11-03", "2026-11-05", "2026-11-07"
    ]  # fmt: skip
    settings = RawTransactionsParams(source="files", path=str(export), **found.settings)
    assert scan_exports(export, settings).kept.equals(kept)


def test_multi_line_descriptions_keep_the_output_a_params_file(tmp_path, capsys):
    """Some French banks break a Libellé over lines inside its quotes: the text reads as one
    line, so every finding stays a comment and the output still loads as params."""
    export = tmp_path / "CA20261130.csv"
    export.write_bytes(
        "Date;Libellé;Débit euros;Crédit euros;\n"
        '03/11/2026;"PAIEMENT PAR CARTE \nCARREFOUR CITY PARIS 02/11";12,40;;\n'
        '05/11/2026;"VIREMENT EN VOTRE FAVEUR \nEMPLOYEUR SA";;2 474,74;\n'.encode("cp1252")
    )
    code, out, params = inspect(export, capsys)
    assert code == 0
    assert "#     2026-11-03  -12.40  PAIEMENT PAR CARTE CARREFOUR CITY PARIS 02/11" in out
    assert all(line.startswith("#") for line in out.split("raw_transactions:")[0].splitlines())
    assert params["raw_transactions"]["column_map"]["Libellé"] == "description"


def test_a_control_character_in_a_description_keeps_the_output_a_params_file(tmp_path, capsys):
    """A C1 control character (what a UTF-8 file read as Latin-1 leaves: "MÃ\x9cLLER") is
    not allowed anywhere in YAML, comments included: the preview shows it escaped."""
    export = tmp_path / "export.csv"
    export.write_text(
        "Date,Description,Amount\n2026-11-03,M\u00c3\u009cLLER GMBH,-89.99\n"
        "2026-11-04,REWE MARKT,-12.40\n",
        encoding="utf-8",
    )
    code, out, params = inspect(export, capsys)
    assert code == 0 and "\u009c" not in out
    assert "-89.99 M\u00c3\\x9cLLER GMBH" in out
    assert params["raw_transactions"]["column_map"]["Description"] == "description"


@pytest.mark.parametrize(
    ("encoding", "lines", "mapped"),
    [
        (
            "cp932",  # a Japanese bank's Shift-JIS download: split paid and deposited amounts
            ["日付,摘要,お支払金額,お預り金額,差引残高", "2026/11/03,セブンイレブン 新宿店,540,,123456",
             "2026/11/04,給与 株式会社アクメ,,250000,373456", "2026/11/05,東京電力 電気料金,8420,,365036"],
            {"日付": "posted_date", "摘要": "description", "お支払金額": "debit",
             "お預り金額": "credit", "差引残高": "balance"},
        ),
        (
            "cp1251",  # a Russian bank's Windows-1251 download
            ["Дата;Описание;Сумма", "03.11.2026;Пятёрочка Москва;-540,00",
             "04.11.2026;Зарплата ООО Акме;250000,00", "05.11.2026;Мосэнергосбыт;-8420,00"],
            {"Дата": "posted_date", "Описание": "description", "Сумма": "amount"},
        ),
        (
            "gb18030",  # a Chinese bank's GB18030 download
            ["交易日期,摘要,金额", "2026-11-03,美团外卖 北京,-540.00",
             "2026-11-04,工资 阿克米公司,250000.00", "2026-11-05,国家电网 电费,-8420.00"],
            {"交易日期": "posted_date", "摘要": "description", "金额": "amount"},
        ),
    ],
)  # fmt: skip
def test_a_download_in_another_script_s_code_page(tmp_path, encoding, lines, mapped):
    """Not UTF-8 and not Western text: the code page is found, the header's names read."""
    export = tmp_path / "export.csv"
    export.write_bytes(("\r\n".join(lines) + "\r\n").encode(encoding))
    found = inspect_file(export)
    assert found.error is None, found.error
    assert found.settings["encoding"] == encoding
    assert found.settings["column_map"] == mapped
    kept = found.result.kept
    assert kept["amount"].to_list() == [-540.0, 250000.0, -8420.0]
    assert kept["posted_date"].to_list() == ["2026-11-03", "2026-11-04", "2026-11-05"]
    assert kept["description"][0] == re.split("[,;]", lines[1])[1]
    settings = RawTransactionsParams(source="files", path=str(export), **found.settings)
    assert scan_exports(export, settings).kept.equals(kept)


def test_western_text_with_curly_quotes_or_a_stray_byte_stays_windows_1252():
    rows = "".join(
        f"11/0{i % 9 + 1}/2026,McDonald\u2019s #{i} \u2013 Joe\u2019s \u201cDiner\u201d,-4.{i:02d}\n"
        for i in range(40)
    )
    text = "Date,Description,Amount\n" + rows + "11/09/2026,Caf\u00e9 D\u00e9j\u00e0 Vu,-3.00\n"
    assert detect_encoding(text.encode("cp1252"))[0] == "cp1252"
    stray = b"11/09/2026,ODD \x81 BYTE,-1.00\n"  # one of the five bytes cp1252 leaves undefined
    assert detect_encoding(text.encode("cp1252") + stray)[0] == "cp1252"


def test_a_warehouse_table_gets_a_column_map_from_its_names(tmp_path):
    """Parquet and JSONL tables in their own names (a warehouse's NUMERIC amounts and UTC
    timestamps, an API's camelCase keys that come and go) get a column_map; a table already in
    ours gets none."""
    import datetime as dt
    import json
    from decimal import Decimal

    import polars as pl

    parquet = tmp_path / "warehouse.parquet"
    pl.DataFrame({
        "txn_id": ["a1", "a2"],
        "booked_at": [dt.datetime(2026, 11, 3, 23, 30, tzinfo=dt.UTC),
                      dt.datetime(2026, 11, 4, 8, 0, tzinfo=dt.UTC)],
        "amount": pl.Series([Decimal("-12.40"), Decimal("2474.74")], dtype=pl.Decimal(12, 2)),
        "memo": ["ALBERT HEIJN 1403", "ACME PAYROLL"],
    }).write_parquet(parquet)  # fmt: skip
    jsonl = tmp_path / "export.jsonl"
    jsonl.write_text(
        json.dumps({"id": "b1", "date": "2026-11-05", "amount": -4.85, "details": "STARBUCKS"})
        + "\n"
    )
    api = tmp_path / "api.jsonl"  # an open-banking API's camelCase records
    api.write_text(
        json.dumps({"transactionId": "t1", "bookingDate": "2026-11-03", "amount": "-12.40",
                    "creditorName": "Albert Heijn", "remittanceInformationUnstructured": "Pin"})
        + "\n"
        + json.dumps({"transactionId": "t2", "bookingDate": "2026-11-04", "amount": "2474.74",
                      "debtorName": "Werkgever BV", "remittanceInformationUnstructured": "Salaris"})
        + "\n"
    )  # fmt: skip
    ours = tmp_path / "ours.jsonl"
    ours.write_text(json.dumps({"transaction_id": "c1", "posted_date": "2026-11-06",
                                "amount": -1.0, "description": "NS"}) + "\n")  # fmt: skip
    expected = {
        parquet: {"txn_id": "transaction_id", "booked_at": "posted_date", "memo": "description"},
        jsonl: {"id": "transaction_id", "date": "posted_date", "details": "description"},
        api: {"transactionId": "transaction_id", "bookingDate": "posted_date",
              "creditorName": "description", "remittanceInformationUnstructured": "description",
              "debtorName": "description"},
        ours: None,
    }  # fmt: skip
    for path, mapping in expected.items():
        found = inspect_file(path)
        assert found.error is None and found.result.quarantined.height == 0, path
        assert found.settings.get("column_map") == mapping, path
        settings = RawTransactionsParams(source="files", path=str(path), **found.settings)
        assert scan_exports(path, settings).kept.equals(found.result.kept)
    assert inspect_file(parquet).result.kept["amount"].to_list() == [-12.4, 2474.74]
    assert inspect_file(api).result.kept["description"].to_list() == [
        "Albert Heijn Pin", "Werkgever BV Salaris"
    ]  # fmt: skip


def test_a_spreadsheet_and_a_file_without_a_header(tmp_path):
    found = inspect_file(write_activity_xlsx(tmp_path / "Activity_Checking.xlsx"))
    assert found.settings["sheet"] == "Transactions" and found.result.kept.height == 4
    assert "row 4: Date | Description | column 3 | Amount | Balance" in dict(found.facts)["header"]
    headerless = tmp_path / "Checking1.csv"
    headerless.write_text(
        '"01/28/2026","-15.49","*","","NETFLIX.COM"\r\n'
        '"01/16/2026","2474.74","*","","ACME CORP PAYROLL 260116"\r\n'
        '"01/05/2026","-4.85","*","","STARBUCKS STORE 00412"\r\n'
    )
    found = inspect_file(headerless)
    assert found.settings["header_line"] == 0
    assert found.settings["column_map"] == {"1": "posted_date", "2": "amount", "5": "description"}
    assert found.result.kept["amount"].to_list() == [-15.49, 2474.74, -4.85]


def test_a_folder_of_three_banks_gets_one_entry_per_layout_and_days_reads_it(
    tmp_path, capsys, monkeypatch
):
    folder = tmp_path / "downloads"
    folder.mkdir()
    for name in ("stmt.csv", "Umsaetze_Girokonto.csv", "quicken_checking.qif"):
        shutil.copy(BANKS / name, folder / name)
    shutil.copy(EXPORTS / "card_activity_20261129.CSV", folder / "Chase1234_Activity_20261129.CSV")
    code, out, params = inspect(folder, capsys)
    assert code == 0
    section = params["raw_transactions"]
    assert section["path"] == str(folder.resolve())
    exports = section["exports"]
    assert exports["Chase*_Activity_*.CSV"] == {"csv_preset": "card_activity"}
    assert exports["Umsaetze_Girokonto.csv"]["decimal"] == ","
    assert exports["quicken_checking.qif"] == {"encoding": "cp1252"}
    my_params = tmp_path / "my-params.yaml"
    my_params.write_text(out)  # the output as it is: comments and all
    monkeypatch.setenv("TXN_PARAMS_PROFILE", "tiny")
    assert main(["days", "--params", str(my_params)]) == 0
    assert capsys.readouterr().out.strip() == "2026-01-02...2026-03-11"
    # next month's Chase download matches the same entry
    chase = folder / "Chase1234_Activity_20261229.CSV"
    shutil.copy(EXPORTS / "card_activity_20261129.CSV", chase)
    settings = RawTransactionsParams(**section)
    assert scan_exports(chase, settings).kept.height == 10


def test_inspect_without_a_path_or_with_a_missing_one_says_so(tmp_path, capsys):
    assert main(["inspect"]) == 2
    assert "inspect needs a PATH" in capsys.readouterr().err
    assert main(["inspect", str(tmp_path / "nope.csv")]) == 2
    assert "nope.csv does not exist" in capsys.readouterr().err
    code, out, _ = inspect(BANKS / "summary_no_header.csv", capsys)
    assert code == 1 and "#   error: " in out and "raw_transactions.header_line" in out


def test_a_scan_with_settings_per_file_pattern(tmp_path):
    """raw_transactions.exports: the first pattern a file's name matches replaces the keys."""
    for name in ("stmt.csv", "Umsaetze_Girokonto.csv"):
        shutil.copy(BANKS / name, tmp_path / name)
    exports = {
        "stmt*.csv": {
            "encoding": "cp1252",
            "column_map": {"Date": "posted_date", "Description": "description", "Amount": "amount"},
        },
        "umsaetze_*.CSV": {  # case does not matter: banks vary .CSV and .csv
            "encoding": "cp1252",
            "column_map": {
                "Buchungstag": "posted_date",
                "Verwendungszweck": "description",
                "Betrag (EUR)": "amount",
            },
        },
    }
    result = scan_transactions(tmp_path, exports=exports)
    assert [n.settings["delimiter"] for n in result.notes] == [";", ","]
    assert result.kept.height == 5 + 10


def test_a_direction_column_signs_unsigned_amounts(tmp_path):
    """ING-style: unsigned amounts and an "Af Bij" column; a value it does not know is named."""
    path = tmp_path / "NL91INGB0001234567_01-01-2026_31-01-2026.csv"
    path.write_text(
        '"Datum","Naam / Omschrijving","Af Bij","Bedrag (EUR)","Mededelingen"\r\n'
        '"20260102","ACME BV","Bij","2450,00","SALARIS JANUARI"\r\n'
        '"20260103","Albert Heijn 1234","Af","23,17","Pasvolgnr: 001"\r\n'
        '"20260106","NS GROEP","Op","104,40","NS-Flex"\r\n'
    )
    found = inspect_file(path)
    assert found.settings["column_map"]["Af Bij"] == "direction"
    assert "signed by the direction column" in dict(found.facts)["sign"]
    assert found.result.kept["amount"].to_list() == [2450.0, -23.17]
    (detail,) = found.result.quarantined["detail"].to_list()
    assert f"{path}:4: the direction column says 'Op'" in detail


def test_header_names_read_by_their_words_and_a_date_filled_on_every_row(tmp_path):
    """Revolut-style: "Started Date" / "Completed Date" (blank while a payment is pending, and
    its State PENDING: counted as pending, not kept). The booked rows are dated by their
    completion: a pending row does not vote, so every download of the account dates a
    transaction alike, whether or not it still holds pending rows."""
    path = tmp_path / "account-statement.csv"
    path.write_text(
        "Type,Started Date,Completed Date,Description,Amount,Currency,State,Balance\n"
        "CARD_PAYMENT,2026-01-03 08:12:44,2026-01-04 10:01:02,Pret A Manger,-6.45,GBP,COMPLETED,1243.55\n"
        "TOPUP,2026-01-05 19:20:11,2026-01-05 19:20:12,Top-Up by *1234,500.00,GBP,COMPLETED,1743.55\n"
        "CARD_PAYMENT,2026-01-12 21:05:09,,Deliveroo,-23.90,GBP,PENDING,\n"
    )
    found = inspect_file(path)
    assert found.settings["column_map"]["Completed Date"] == "posted_date"
    assert found.result.quarantined.height == 0 and found.result.kept.height == 2
    assert found.result.notes[0].statement_lines == [(4, "pending transaction")]


def test_a_payee_column_leads_the_description_and_is_the_merchant(tmp_path):
    """A Swiss-French statement: the booking type (`Libellé`) comes first in the file, the
    payee after it, and the user's own label column has a name of their own. The payee leads
    the joined description and groups the held-out split, as CAMT.053's other party does."""
    path = tmp_path / "Kontoauszug_20260405.tsv"
    rows = [
        ("03.04.2026", "Achat carte débit", "MIGROS ZURICH", "40,87-", "Courses"),
        ("03.04.2026", "Paiement TWINT", "COOP PRONTO BERN", "12,50-", "Courses"),
        ("04.04.2026", "Ordre permanent", "IMMO GERANCE SA", "1850,00-", ""),
        ("04.04.2026", "Achat carte débit", "SBB CFF FFS", "8,80-", "Transport"),
    ]
    lines = ["Date comptable\tLibellé\tBénéficiaire / Donneur d'ordre\tMontant\tMa catégorie"]
    lines += ["\t".join(row) for row in rows]
    path.write_text("\ufeff" + "\r\n".join(lines) + "\r\n", encoding="utf-8")
    found = inspect_file(path)
    mapping = found.settings["column_map"]
    assert mapping["Bénéficiaire / Donneur d'ordre"] == "description"
    assert mapping["Ma catégorie"] == "category"
    kept = found.result.kept
    assert kept["description"].to_list()[0] == "MIGROS ZURICH Achat carte débit"
    assert kept["merchant"].to_list() == [row[2] for row in rows]
    assert kept["category"].to_list() == ["Courses", "Courses", None, "Transport"]
    merchants = dict(found.facts)["merchants"]
    assert merchants.startswith("4 distinct keys from the merchant (or payee) column")
    assert "too few merchants" not in merchants


def test_inspect_warns_when_one_merchant_key_holds_the_rows(tmp_path):
    """Descriptions that start with the booking type give every card payment one key; the
    held-out split could hold no merchant out, and inspect says what to map."""
    path = tmp_path / "export.csv"
    lines = ["Date,Text,Amount"]
    lines += [f"2026-03-{d:02d},ACHAT CARTE {m},-{d}.50" for d in range(1, 29) for m in "AB"]
    lines += ["2026-03-21,SALARY ACME,2500.00", "2026-03-22,RENT,-900.00"]
    path.write_text("\n".join(lines) + "\n")
    merchants = dict(inspect_file(path).facts)["merchants"]
    assert merchants.startswith("3 distinct keys from the description")
    assert "'achat carte', holds 97% of rows: too few merchants" in merchants
    assert "map the column that names the payee or merchant to `merchant`" in merchants


def test_a_currency_the_amounts_write_is_the_rows_currency(tmp_path, capsys):
    """A UK download writes "£" in its Paid out / Paid in cells and has no currency column:
    inspect reads GBP off the cells, and the rows are stored in it, not in the default USD."""
    path = tmp_path / "statement.csv"
    path.write_text(
        "Date,Description,Paid out,Paid in,Balance\n"
        '03/04/2026,TESCO STORES 2211,£23.17,,"£1,976.83"\n'
        '02/04/2026,ACME LTD SALARY,,"£2,000.00","£2,000.00"\n'
    )
    code, out, params = inspect(path, capsys)
    assert code == 0 and "#   currency:        GBP ('£' in the amounts, e.g. '£23.17')" in out
    settings = RawTransactionsParams(**params["raw_transactions"])
    assert settings.currency == "GBP"
    assert scan_exports(path, settings).kept["currency"].to_list() == ["GBP", "GBP"]
    assert scan_exports(path, settings.model_copy(update={"currency": None})).kept[
        "currency"
    ].to_list() == ["USD", "USD"]


def test_a_currency_column_wins_over_the_setting_and_two_symbols_say_nothing(tmp_path):
    from ml_assets.core.intake.currency_clues import currency_named

    path = tmp_path / "export.csv"
    path.write_text(
        "Date,Description,Amount,Currency\n2026-04-03,SBB,-8.80,CHF\n2026-04-03,X,-1,\n"
    )
    columns = {c: c.lower() for c in ("Description", "Amount", "Currency")}
    settings = RawTransactionsParams(
        source="files",
        path=str(path),
        column_map={"Date": "posted_date", **columns},
        currency="eur",
    )
    assert scan_exports(path, settings).kept["currency"].to_list() == ["CHF", "EUR"]
    assert currency_named(["£1.00", "€2.00"], []) is None
    assert currency_named(["12,50"], ["Betrag (EUR)"]) == ("EUR", "the column name 'Betrag (EUR)'")
    assert currency_named(["$4.85"], ["Amount"]) is None  # dollars of which country


def test_a_booking_type_on_every_row_is_named_as_a_head_the_user_may_not_want(tmp_path):
    path = tmp_path / "umsaetze.csv"
    lines = ["Buchungstag;Buchungstext;Verwendungszweck;Betrag;Kategorie"]
    lines += [f"0{d}.03.2026;KARTENZAHLUNG;REWE {d};-1{d},50;Lebensmittel" for d in range(1, 8)]
    path.write_text("\n".join(lines) + "\n")
    found = inspect_file(path)
    assert found.settings["column_map"]["Buchungstext"] == "transaction_type"
    assert dict(found.facts)["types"].startswith("'Buchungstext' is on every row")
    lines[3] = lines[3].replace("KARTENZAHLUNG", "")  # a user's own type labels, on some rows
    path.write_text("\n".join(lines) + "\n")
    assert "types" not in dict(inspect_file(path).facts)


def test_code_and_id_columns_are_no_labels_and_a_party_found_by_its_words_leads(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(
        "Date,Description,Amount,MCC Category,Tegenpartij\n"
        "2026-03-02,Betaalautomaat 12:01 pasnr 123,-4.85,5814,Albert Heijn\n"
        "2026-03-03,Betaalautomaat 09:12 pasnr 123,-40.10,5541,Shell\n"
    )
    found = inspect_file(path)
    assert "MCC Category" not in found.settings["column_map"]
    assert found.settings["column_map"]["Tegenpartij"] == "description"
    kept = found.result.kept
    assert kept["description"][0] == "Albert Heijn Betaalautomaat 12:01 pasnr 123"
    assert kept["merchant"].to_list() == ["Albert Heijn", "Shell"]


def test_currency_codes_written_against_the_number_are_read():
    from ml_assets.core.intake.currency_clues import currency_named

    assert currency_named(["12,50EUR", "EUR3.20"], []) == ("EUR", "in the amounts, e.g. '12,50EUR'")
    assert currency_named(["12 EURO"], []) is None  # a word, not a code


def test_a_budgeting_apps_unallocated_envelope_is_said_to_be_no_label(tmp_path):
    """Goodbudget writes "[Unallocated]" in the Envelope (category) column of a row in no
    envelope: inspect says the features read it as no label, and which setting lists it."""
    export = tmp_path / "goodbudget.csv"
    export.write_text(
        "Date,Envelope,Account,Name,Notes,Amount,Status,Details\n"
        "03/04/2025,Groceries,Checking,Greenleaf Market,weekly shop,-50.00,,\n"
        "03/05/2025,Rent,Checking,Landlord Ltd,,-900.00,,\n"
        '03/06/2025,[Unallocated],Checking,Acme Corp,salary,"2,400.00",,\n'
    )
    found = inspect_file(export)
    assert found.error is None, found.error
    assert dict(found.facts)["labels"] == (
        "category; category '[Unallocated]' on 1 row read as no label "
        "(transaction_features.no_label_values)"
    )
    assert found.result.kept["category"].to_list() == ["Groceries", "Rent", "[Unallocated]"]
