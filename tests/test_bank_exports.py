"""Exports as banks make them: no ids (derived ids, overlapping downloads deduplicated across
files), the formats banks export (OFX/QFX, CAMT.053, MT940, issuer CSV layouts), and errors
that name the file, the line or the field and what to do. Every test reads real files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import dagster as dg
import pytest

from ml_assets.core.intake.ingest import SchemaError, scan_transactions
from ml_assets.core.intake.partitions import days_between
from ml_assets.core.intake.quarantine import quarantine_verdict
from ml_assets.core.intake.raw_days import export_days, files_split
from ml_assets.core.params import RawTransactionsParams

CARD_HEADER = "Transaction Date,Post Date,Description,Category,Type,Amount,Memo"
CARD_COLUMNS = {
    "Post Date": "posted_date",
    "Description": "description",
    "Category": "category",
    "Type": "transaction_type",
    "Amount": "amount",
}
FIRST = dt.date(2026, 3, 1)


def card_rows(first_day: int, last_day: int) -> list[str]:
    """Card activity, three purchases a day; day 0 has two identical coffees (genuine)."""
    rows = []
    for n in range(first_day, last_day + 1):
        day = (FIRST + dt.timedelta(days=n)).strftime("%m/%d/%Y")
        rows += [
            f"{day},{day},STARBUCKS STORE 0{n % 7},Food & Drink,Sale,-4.85,",
            f"{day},{day},SHELL OIL 57444,Gas,Sale,-{30 + n}.10,",
            f'{day},{day},"AMAZON MKTPL*2K4, SEATTLE",Shopping,Sale,-{12 + n}.99,',
        ]
        if n == 0:
            rows.append(rows[-3])  # a second identical coffee the same day
    return rows


def write_card_csv(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join([CARD_HEADER, *rows]) + "\n")
    return path


def card_settings(path: Path, **extra) -> RawTransactionsParams:
    return RawTransactionsParams(
        source="files",
        path=str(path),
        column_map=CARD_COLUMNS,
        date_format="%m/%d/%Y",
        **extra,
    )


def test_identical_genuine_purchases_stay_two_and_a_redownload_adds_nothing(tmp_path):
    path = write_card_csv(tmp_path / "activity.csv", card_rows(0, 0))
    result = scan_transactions(path, column_map=CARD_COLUMNS, date_format="%m/%d/%Y")
    assert result.rows_in == 4 and result.kept.height == 4 and result.duplicates == 0
    coffees = result.kept.filter(result.kept["description"].str.starts_with("STARBUCKS"))
    assert coffees.height == 2 and coffees["transaction_id"].n_unique() == 2
    again = scan_transactions(path, column_map=CARD_COLUMNS, date_format="%m/%d/%Y")
    assert again.kept["transaction_id"].to_list() == result.kept["transaction_id"].to_list()
    assert all(i.startswith("d-") for i in result.kept["transaction_id"])


def test_overlapping_downloads_keep_each_transaction_once(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    write_card_csv(exports / "activity-a.csv", card_rows(0, 9))  # days 0-9
    write_card_csv(exports / "activity-b.csv", card_rows(5, 14))  # days 5-14 (overlap 5-9)
    files = {p.name: p for p in sorted(exports.iterdir())}
    days = days_between(FIRST.isoformat(), (FIRST + dt.timedelta(days=14)).isoformat())
    split = files_split(files, card_settings(exports), days)
    kept = sum(r.kept.height for r in split.days.values())
    quarantined = sum(r.quarantined.height for r in split.days.values())
    duplicates = sum(r.duplicates for r in split.days.values())
    across = sum(r.duplicates_across_files for r in split.days.values())
    assert split.rows_read == 31 + 30  # day 0 has four rows
    assert (kept, quarantined, duplicates, across) == (46, 0, 15, 15)
    assert split.rows_read == kept + quarantined + duplicates
    day0 = split.days[FIRST.isoformat()]
    assert day0.kept["description"].to_list().count("STARBUCKS STORE 00") == 2


def test_a_bank_id_reused_with_other_content_is_still_a_conflict(tmp_path):
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("id,date,amount,memo\nx1,2026-03-01,-4.85,COFFEE\n")
    b.write_text("id,date,amount,memo\nx1,2026-03-01,-9.99,COFFEE\n")
    settings = RawTransactionsParams(
        source="files",
        path=str(tmp_path),
        column_map={"id": "transaction_id", "date": "posted_date", "memo": "description"},
    )
    split = files_split({"a.csv": a, "b.csv": b}, settings, ["2026-03-01"])
    day = split.days["2026-03-01"]
    assert day.kept.height == 1 and dict(day.reasons) == {"conflicting_duplicate_id": 1}


# --- formats banks export: fixtures with planted defects in tests/fixtures/bank_exports/ ---

FIXTURES = Path(__file__).parent / "fixtures" / "bank_exports"


def reasons_by_line(result) -> dict[int, str]:
    return dict(zip(result.quarantined["line"], result.quarantined["reason"], strict=True))


def test_card_activity_download_via_preset(tmp_path):
    """No ids, US dates, an issuer layout; planted: a bad amount (line 8), a bad date (10)
    and a truncated last line (14); two identical coffees (lines 2, 3) are both kept."""
    path = FIXTURES / "card_activity_20261129.CSV"
    result = scan_transactions(path, csv_preset="card_activity")
    assert result.rows_in == 13
    assert reasons_by_line(result) == {8: "bad_amount", 10: "bad_date", 14: "truncated_line"}
    assert result.kept.height == 10 and result.kept["transaction_id"].n_unique() == 10
    first = result.kept.row(0, named=True)
    assert (first["posted_date"], first["amount"], first["category"]) == (
        "2026-03-02",
        -4.85,
        "Food & Drink",
    )
    assert first["transaction_type"] == "Sale"
    assert result.kept.height + result.quarantined.height + result.duplicates == result.rows_in


def test_debit_credit_preset_signs_amounts(tmp_path):
    """Planted: a row with neither debit nor credit (line 4), a debit that is not a number (5)."""
    result = scan_transactions(FIXTURES / "card_debit_credit.csv", csv_preset="card_debit_credit")
    assert result.kept["amount"].to_list() == [-4.85, 250.0]
    assert reasons_by_line(result) == {4: "missing_field", 5: "bad_amount"}
    bad = result.quarantined.filter(result.quarantined["line"] == 5)
    assert "'Debit'" in bad["detail"][0] and bad["field"][0] == "debit"  # the file's, ours


def test_ofx_statement(tmp_path):
    """The account and FITID are the id; planted: no FITID (line 23), a TRNAMT that is not a number (29), a
    DTPOSTED that is not a date (36). The day is the bank's, not UTC's."""
    result = scan_transactions(FIXTURES / "checking_20260305.ofx")
    assert result.rows_in == 5
    assert reasons_by_line(result) == {23: "missing_field", 29: "bad_amount", 36: "bad_date"}
    assert result.kept["transaction_id"].to_list() == [
        "000123456789:202603010001", "000123456789:202603050001"
    ]  # fmt: skip
    assert result.kept["posted_date"].to_list() == ["2026-03-01", "2026-03-05"]
    assert result.kept["description"].to_list() == ["STARBUCKS STORE 00", "NETFLIX.COM MONTHLY"]
    assert set(result.kept["account_id"]) == {"000123456789"}


def test_ofx_ids_are_unique_per_account_not_per_file(tmp_path):
    """A checking and a card statement in one file may number their entries alike: both kept."""
    statement = """<{kind}><CURDEF>USD</CURDEF><{account}><ACCTID>{number}</ACCTID></{account}>
<BANKTRANLIST><DTSTART>20261101</DTSTART><DTEND>20261130</DTEND><STMTTRN><TRNTYPE>DEBIT</TRNTYPE>
<DTPOSTED>{day}</DTPOSTED><TRNAMT>{amount}</TRNAMT><FITID>1</FITID><NAME>{name}</NAME></STMTTRN>
</BANKTRANLIST></{kind}>"""
    bank = statement.format(
        kind="STMTRS",
        account="BANKACCTFROM",
        number="1111",
        day="20261103",
        amount="-45.10",
        name="PG&amp;E WEB ONLINE",
    )
    card = statement.format(kind="CCSTMTRS", account="CCACCTFROM", number="4444", day="20261104",
                            amount="-5.85", name="STARBUCKS STORE 00412")  # fmt: skip
    status = "<STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>"
    path = tmp_path / "all_accounts.ofx"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<?OFX OFXHEADER="200" VERSION="220" '
        'SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n<OFX><SIGNONMSGSRSV1><SONRS>'
        f"{status}<DTSERVER>20261130</DTSERVER><LANGUAGE>ENG</LANGUAGE></SONRS></SIGNONMSGSRSV1>"
        f"<BANKMSGSRSV1><STMTTRNRS><TRNUID>1</TRNUID>{status}{bank}</STMTTRNRS></BANKMSGSRSV1>"
        f"<CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>2</TRNUID>{status}{card}</CCSTMTTRNRS>"
        "</CREDITCARDMSGSRSV1></OFX>\n"
    )
    result = scan_transactions(path)
    assert result.quarantined.height == 0
    assert result.kept["transaction_id"].to_list() == ["1111:1", "4444:1"]
    assert result.kept["amount"].to_list() == [-45.1, -5.85]


def test_qfx_and_a_broken_ofx_file(tmp_path):
    qfx = tmp_path / "card.qfx"
    qfx.write_bytes((FIXTURES / "checking_20260305.ofx").read_bytes())
    assert scan_transactions(qfx).kept.height == 2
    broken = tmp_path / "broken.ofx"
    broken.write_text("OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1>")
    result = scan_transactions(broken)
    assert result.rows_in == 1 and dict(result.reasons) == {"unreadable_file": 1}
    assert str(broken) in result.quarantined["detail"][0]


def test_camt053_statement(tmp_path):
    """Entry references are ids (one entry without one gets a derived id); planted: an amount
    that is not a number (line 31), an entry without a booking date (38)."""
    result = scan_transactions(FIXTURES / "camt053_20260305.xml")
    assert result.rows_in == 5
    assert reasons_by_line(result) == {31: "bad_amount", 38: "missing_field"}
    kept = result.kept
    assert kept["transaction_id"].to_list()[:2] == ["REF-0001", "REF-0002"]
    assert kept["transaction_id"][2].startswith("d-")
    assert kept["amount"].to_list() == [-4.85, 2500.0, -60.0]
    assert set(kept["currency"]) == {"EUR"} and kept["merchant"][0] == "STARBUCKS BERLIN"


def test_camt053_that_is_not_xml(tmp_path):
    path = tmp_path / "camt.xml"
    path.write_text("<Document><BkToCstmrStmt><Stmt>\n<Ntry>")
    result = scan_transactions(path)
    assert (
        dict(result.reasons) == {"unreadable_file": 1}
        and f"{path}:" in result.quarantined["detail"][0]
    )


def test_mt940_statement(tmp_path):
    """Derived ids (MT940 has no reliable one); planted: a :61: line that does not parse
    (line 9), an empty :86: (13), whose entry is described by its SWIFT type code."""
    result = scan_transactions(FIXTURES / "mt940_20260305.sta")
    assert result.rows_in == 5
    assert reasons_by_line(result) == {9: "bad_mt940"}
    assert result.kept["amount"].to_list() == [-4.85, 2500.0, -60.0, -12.0]
    assert result.kept["description"][3] == "Miscellaneous"
    assert result.kept["posted_date"].to_list() == [
        "2026-03-01", "2026-03-02", "2026-03-04", "2026-03-05"
    ]  # fmt: skip
    assert all(i.startswith("d-") for i in result.kept["transaction_id"])
    assert set(result.kept["account_id"]) == {"NL69INGB0123456789"}


def test_mt940_structured_details_of_a_german_bank():
    """German banks' :86: is ?-sub-fields (wrapped at 65 characters): the description is the
    other party (?32 + ?33) and the purpose (SVWZ+, across ?2x), not the IBAN or the mandate
    and end-to-end references; a reversal of a credit (RC) is a debit; a free-text :86: in the
    same statement is read as it is."""
    result = scan_transactions(FIXTURES / "mt940_structured_20261106.sta")
    assert result.rows_in == 4 and result.quarantined.height == 0
    kept = result.kept
    assert kept["amount"].to_list() == [-23.45, -84.0, -59.9, 2474.74]
    assert kept["description"].to_list() == [
        "REWE Markt GmbH 2026-11-02T18:22 Debitk.1 2029-12 REWE SAGT DANKE 4411",
        "Stadtwerke München GmbH Strom Abschlag Nov 2026 Kd-Nr. 55555",
        "DB Vertrieb GmbH Fahrkarte storniert",
        "ARBEITGEBER GMBH LOHN NOV 2026",
    ]
    assert kept["merchant"].to_list()[:3] == [
        "REWE Markt GmbH", "Stadtwerke München GmbH", "DB Vertrieb GmbH"
    ]  # fmt: skip
    assert kept["merchant"][3] is None


def test_mt940_tagged_details_of_a_dutch_bank():
    """Dutch banks tag their :86: (/NAME/ or /CNTP/ account/BIC/name/city, /REMI/ with or
    without USTD//, wrapped mid-word): the description is the other party and the remittance
    text, no IBAN, BIC or reference; a free-text :86: beside them is read as it is."""
    result = scan_transactions(FIXTURES / "mt940_tagged_20261105.sta")
    assert result.rows_in == 4 and result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "Albert Heijn BV Bestelling 12345 AH online",
        "WERKGEVER BV Salaris november 2026",
        "Jansen Vastgoed Huur november",
        "BEA NR:ABC123 05.11.26/09.12 STARBUCKS AMSTERDAM,PAS123",
    ]
    assert result.kept["merchant"].to_list() == [
        "Albert Heijn BV", "WERKGEVER BV", "Jansen Vastgoed", None
    ]  # fmt: skip
    assert result.kept["amount"].to_list() == [-23.45, 2474.74, -950.0, -4.85]


def test_a_folder_of_every_format_is_read_by_extension(tmp_path):
    import shutil

    for name in (
        "card_activity_20261129.CSV",
        "checking_20260305.ofx",
        "camt053_20260305.xml",
        "mt940_20260305.sta",
    ):
        shutil.copy(FIXTURES / name, tmp_path / name)
    result = scan_transactions(tmp_path, csv_preset="card_activity")
    assert result.rows_in == 13 + 5 + 5 + 5
    assert result.kept.height + result.quarantined.height + result.duplicates == result.rows_in


def test_three_banks_in_one_folder_as_the_guide_loads_them(tmp_path):
    """docs/guides/your-own-data.md, "End to end": the planted defects stop the load at the
    default share, naming the file, line and reason; at 0.6 it goes on, every row accounted
    for and the two identical coffees kept as two."""
    import shutil

    names = ("camt053_20260305.xml", "card_activity_20261129.CSV", "checking_20260305.ofx")
    for name in names:
        shutil.copy(FIXTURES / name, tmp_path / name)
    settings = RawTransactionsParams(source="files", path=str(tmp_path), csv_preset="card_activity")
    files = {name: tmp_path / name for name in names}
    fed = sorted(export_days(files, settings))
    assert (fed[0], fed[-1]) == ("2026-03-01", "2026-03-11")
    split = files_split(files, settings, days_between(fed[0], fed[-1]))
    stop = quarantine_verdict(
        split, settings.max_quarantine_share, settings.quarantine_min_day_rows
    )
    assert stop.startswith("raw_transactions: export camt053_20260305.xml: 2 of 5 rows")
    assert f"{tmp_path / names[0]}:31: field 'amount' is not a number" in stop
    assert quarantine_verdict(split, 0.6, settings.quarantine_min_day_rows) is None
    assert len(split.days) == 11
    kept = sum(r.kept.height for r in split.days.values())
    quarantined = sum(r.quarantined.height for r in split.days.values())
    duplicates = sum(r.duplicates for r in split.days.values())
    assert (split.rows_read, kept, quarantined, duplicates) == (23, 15, 8, 0)
    descriptions = [d for r in split.days.values() for d in r.kept["description"]]
    assert descriptions.count("STARBUCKS STORE 00412") == 2


def test_the_payee_leads_the_description_and_a_mapped_merchant_column_wins(tmp_path):
    path = tmp_path / "umsaetze.csv"
    path.write_text(
        "Buchungstag;Verwendungszweck;Beguenstigter/Zahlungspflichtiger;Betrag;Filiale\n"
        "02.03.2026;2026-03-02T18:22 Debitk.1 2029-12;REWE Markt GmbH;-23,17;REWE 4411\n"
        "03.03.2026;Abschlag Strom Kd-Nr. 55555;;-86,00;\n"
    )
    columns = {
        "Buchungstag": "posted_date",
        "Verwendungszweck": "description",
        "Beguenstigter/Zahlungspflichtiger": "description",
        "Betrag": "amount",
    }
    kept = scan_transactions(path, column_map=columns).kept
    assert kept["description"].to_list() == [
        "REWE Markt GmbH 2026-03-02T18:22 Debitk.1 2029-12",
        "Abschlag Strom Kd-Nr. 55555",
    ]
    assert kept["merchant"].to_list() == ["REWE Markt GmbH", None]
    mapped = scan_transactions(path, column_map={**columns, "Filiale": "merchant"}).kept
    assert mapped["merchant"].to_list() == ["REWE 4411", None]
    assert mapped["description"].to_list() == kept["description"].to_list()


def test_a_header_that_does_not_fit_names_the_preset_that_does():
    with pytest.raises(SchemaError) as caught:
        scan_transactions(FIXTURES / "card_activity_20261129.CSV")
    message = str(caught.value)
    assert "card_activity_20261129.CSV:1:" in message
    assert "header: ['Transaction Date', 'Post Date', 'Description'" in message
    assert "the header fits csv_preset: card_activity " in message
    with pytest.raises(SchemaError, match="csv_preset 'card_activity' needs columns"):
        scan_transactions(FIXTURES / "card_debit_credit.csv", csv_preset="card_activity")


def test_a_column_map_naming_a_missing_column_names_it_and_the_header(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("id,date,amt,memo\n1,2026-03-01,-4.85,COFFEE\n")
    mapping = {
        "id": "transaction_id",
        "date": "posted_date",
        "Amt": "amount",
        "memo": "description",
    }
    with pytest.raises(SchemaError) as caught:
        scan_transactions(path, column_map=mapping)
    message = str(caught.value)
    assert f"{path}:1: column_map maps 'Amt' -> 'amount', not in the header" in message
    assert "header: ['id', 'date', 'amt', 'memo']" in message
    jsonl = tmp_path / "export.jsonl"
    jsonl.write_text('{"id": "1", "date": "2026-03-01", "amt": 1, "memo": "X"}\n')
    result = scan_transactions(jsonl, column_map=mapping)
    detail = result.quarantined["detail"][0]
    assert (
        "column_map maps 'Amt' -> 'amount'" in detail and "['amt', 'date', 'id', 'memo']" in detail
    )


def test_a_million_character_field_is_quarantined_with_its_line(tmp_path):
    path = tmp_path / "export.csv"
    long = "X" * 1_000_000
    path.write_text(
        "id,posted_date,amount,description\n"
        "a,2026-03-01,-1,OK\n"
        f"b,2026-03-01,-1,{long}\n"
        f'c,2026-03-01,-1,"{long}"\n'
        "d,2026-03-01,-1,ALSO OK\n"
    )
    result = scan_transactions(path, column_map={"id": "transaction_id"}, max_description_chars=512)
    assert result.kept["transaction_id"].to_list() == ["a", "d"]
    assert reasons_by_line(result) == {3: "description_too_long", 4: "description_too_long"}


def test_a_line_over_the_limit_is_skipped_unread_and_quarantined(tmp_path, monkeypatch):
    from ml_assets.core.intake import csv_exports

    monkeypatch.setattr(csv_exports, "MAX_LINE_CHARS", 100_000)
    path = tmp_path / "export.csv"
    long = "X" * 1_000_000
    path.write_text(
        "posted_date,amount,description,memo\n"
        "2026-03-01,-1,OK,\n"
        f"2026-03-01,-1,HUGE MEMO,{long}\n"
        f'2026-03-01,-1,QUOTED HUGE MEMO,"{long}\n{long}"\n'
        "2026-03-01,-2,ALSO OK,\n"
    )
    result = scan_transactions(path)
    assert result.kept["description"].to_list() == ["OK", "ALSO OK"]
    assert reasons_by_line(result) == {3: "line_too_long", 4: "line_too_long", 5: "line_too_long"}
    assert f"{path}:3: line longer than 100000 characters" in result.quarantined["detail"][0]
    assert result.rows_in == 5 and len(result.quarantined["raw"][0]) <= 2000


# --- which day a row belongs to ---


def test_a_download_named_by_its_date_is_split_by_posted_date(tmp_path):
    """An activity download named by its download day (~300 days of rows in the real case) is
    not that day's export: rows go to the days they were posted, with a warning that counts."""
    from ml_assets.assets.raw_transactions import fingerprint_params, source_homes, source_listing

    exports = tmp_path / "exports"
    exports.mkdir()
    download = exports / "Chase1234_Activity_20261129.CSV"
    write_card_csv(download, card_rows(0, 29))
    settings = card_settings(exports)
    days = days_between("2026-03-01", "2026-03-30")
    split = files_split({download.name: download}, settings, days)
    assert [split.days[d].kept.height for d in days[:2]] == [4, 3]
    assert split.rows_read == 91 == sum(r.rows_in for r in split.days.values())
    (warning,) = split.warnings
    assert "named for 2026-11-29 but holds 91 rows posted on 30 days" in warning
    assert "(2026-03-01..2026-03-30)" in warning and "day_from: path" in warning
    section = settings.model_dump(mode="json")
    listing = source_listing(section)
    homes = source_homes(section, listing)
    assert homes == {download.name: None}
    assert fingerprint_params(section, "2026-03-05", listing, homes)["_source_files"] == listing


def test_a_daily_export_with_late_postings_stays_on_its_day(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    daily = exports / "2026-03-05.csv"
    daily.write_text(
        "posted_date,amount,description\n2026-03-05,-1,A\n2026-03-03,-2,LATE POSTING\n"
    )
    settings = RawTransactionsParams(source="files", path=str(exports))
    split = files_split({daily.name: daily}, settings, ["2026-03-03", "2026-03-05"])
    assert split.days["2026-03-05"].kept.height == 2 and not split.warnings


def test_day_from_path_keeps_a_dated_file_whole_and_says_so(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    download = exports / "activity_20260320.csv"
    write_card_csv(download, card_rows(0, 9))
    settings = card_settings(exports, day_from="path")
    split = files_split({download.name: download}, settings, ["2026-03-20"])
    assert split.days["2026-03-20"].kept.height == 31
    assert (
        "31 rows posted on 10 days (2026-03-01..2026-03-10) all go to 2026-03-20"
        in (split.warnings[0])
    )


def test_two_dated_downloads_overlapping_meet_on_the_posted_day(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    write_card_csv(exports / "activity_20260311.CSV", card_rows(0, 9))
    write_card_csv(exports / "activity_20260316.CSV", card_rows(5, 14))
    files = {p.name: p for p in sorted(exports.iterdir())}
    days = days_between("2026-03-01", "2026-03-15")
    split = files_split(files, card_settings(exports), days)
    assert sum(r.kept.height for r in split.days.values()) == 46
    assert sum(r.duplicates_across_files for r in split.days.values()) == 15
    assert len(split.warnings) == 2


# --- quarantine limits that work for small days; a failed load leaves nothing behind ---


def busy_card_csv(path: Path, days: int, per_day: int, bad: int) -> Path:
    """~per_day purchases a day for ``days`` days, then ``bad`` rows with impossible dates
    (quarantined onto the file's newest day, as rows without a usable date are)."""
    rows = []
    for n in range(days):
        day = (FIRST + dt.timedelta(days=n)).strftime("%m/%d/%Y")
        rows += [
            f"{day},{day},MERCHANT {i:02d} STORE {n},Shopping,Sale,-{i + 1}.{n % 100:02d},"
            for i in range(per_day)
        ]
    rows += [f"03/01/2026,03/32/2026,BROKEN {i},Shopping,Sale,-1.00," for i in range(bad)]
    return write_card_csv(path, rows)


def _run(tmp_path, overrides, first, last):
    from tests.test_quarantine import _materialize_raw

    return _materialize_raw(tmp_path, overrides, first, last)


def _failure_message(result) -> str:
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    return failure.step_failure_data.error.message


def test_a_few_bad_rows_on_a_small_day_do_not_fail_a_clean_file(tmp_path):
    path = busy_card_csv(tmp_path / "activity_20261129.CSV", days=30, per_day=17, bad=6)
    overrides = {"source": "files", "path": str(path), "csv_preset": "card_activity"}
    result = _run(tmp_path, overrides, "2026-03-01", "2026-03-30")
    assert result.success
    metadata = result.asset_materializations_for_node("raw_transactions")[0].metadata
    assert metadata["rows_in"].value == 30 * 17 + 6
    assert metadata["rows_quarantined"].value == 6 and metadata["rows_kept"].value == 510
    store = tmp_path / "store"
    from resources.artifact_store import ArtifactStore

    newest = ArtifactStore(root=str(store)).partition_refs("raw_transactions")["2026-03-30"]
    assert (newest.dir / "ingest_report.json").read_text().count('"rows_quarantined": 6') == 1


def test_too_many_bad_rows_fail_before_any_day_is_written(tmp_path):
    path = busy_card_csv(tmp_path / "activity.CSV", days=10, per_day=17, bad=30)
    overrides = {"source": "files", "path": str(path), "csv_preset": "card_activity"}
    result = _run(tmp_path, overrides, "2026-03-01", "2026-03-10")
    assert not result.success
    message = _failure_message(result)
    assert "export activity.CSV: 30 of 200 rows (15.0%) failed validation" in message
    assert "bad_date x30" in message and f"{path}:172" in message
    raw = tmp_path / "store" / "raw_transactions"
    leftovers = [p.name for p in raw.iterdir()] if raw.exists() else []
    assert leftovers == [], leftovers  # no entry, no pointer, no temp folder


def test_an_empty_source_fails_at_raw_transactions(tmp_path):
    path = write_card_csv(tmp_path / "activity.CSV", [])
    overrides = {"source": "files", "path": str(path), "csv_preset": "card_activity"}
    result = _run(tmp_path, overrides, "2026-03-01", "2026-03-02")
    assert not result.success
    assert f"{path} holds no transaction for these days" in _failure_message(result)
    assert "header only" in _failure_message(result)


# --- batch_predictions reads its source exactly as raw_transactions reads exports ---


def test_batch_source_is_validated_like_raw_transactions(tmp_path):
    from ml_assets.core.params import BatchPredictionsParams
    from ml_assets.core.serving.predictions import read_batch_source

    path = tmp_path / "to_score.CSV"
    write_card_csv(
        path,
        [
            "03/01/2026,03/02/2026,STARBUCKS,Food & Drink,Sale,-4.85,",
            f"03/01/2026,03/02/2026,{'X' * 600},Shopping,Sale,-1.00,",
        ],
    )
    raw = RawTransactionsParams(csv_preset="card_activity", max_description_chars=512)
    result = read_batch_source(raw, BatchPredictionsParams(source=str(path)))
    assert result.kept["description"].to_list() == ["STARBUCKS"]
    assert dict(result.reasons) == {"description_too_long": 1}


def test_an_all_rejected_batch_gives_an_empty_table_not_a_crash(tmp_path):
    import numpy as np
    import polars as pl

    from ml_assets.core.params import BatchPredictionsParams
    from ml_assets.core.serving.predictions import predictions_frame, read_batch_source

    path = tmp_path / "to_score.csv"
    path.write_text("posted_date,amount,description\nnot a date,-1,A\n2026-03-01,abc,B\n")
    result = read_batch_source(RawTransactionsParams(), BatchPredictionsParams(source=str(path)))
    assert result.kept.height == 0 and result.quarantined.height == 2
    heads = {"category": ["coffee", "fuel", "groceries"], "transaction_type": ["a", "b"]}
    empty = predictions_frame(result.kept, heads, None)
    assert empty.height == 0
    assert empty.schema["category_probs"] == pl.Array(pl.Float32, 3)
    assert empty.schema["transaction_type_confidence"] == pl.Float32
    rows = pl.DataFrame(
        {"transaction_id": ["t"], "posted_date": ["2026-03-01"], "amount": [-1.0],
         "description": ["SHELL"]}
    )  # fmt: skip
    logits = {"category": np.array([[0.0, 3.0, 0.0]]), "transaction_type": np.array([[2.0, 0.0]])}
    scored = predictions_frame(rows, heads, logits)
    assert scored["category"].to_list() == ["fuel"] and scored["transaction_type"][0] == "a"
    assert scored.columns == empty.columns


def test_a_failed_check_logs_its_reason_for_the_cli(tmp_path):
    """What the CLI prints is the run's event log: the failed check's metadata must be in it."""
    from ml_assets.wiring.check_reasons import logged_check

    spec = dg.AssetCheckSpec("rows_accounted_for", asset="counted", blocking=True)

    @dg.asset(check_specs=[spec])
    def counted(context):  # (no annotation: this module postpones them)
        yield dg.Output(1)
        yield logged_check(
            context,
            dg.AssetCheckResult(
                check_name=spec.name, passed=False, metadata={"unaccounted": 3, "days": "x"}
            ),
        )

    with dg.instance_for_test() as instance:
        result = dg.materialize([counted], instance=instance, raise_on_error=False)
        messages = [entry.user_message for entry in instance.all_logs(result.run_id)]
    assert any("check rows_accounted_for FAILED: unaccounted=3; days=x" in m for m in messages), (
        messages
    )


def test_days_names_a_missing_path_or_an_empty_source_in_one_line(tmp_path, capsys):
    from ml_assets.__main__ import main

    params = tmp_path / "params.yaml"
    params.write_text(f"raw_transactions: {{source: files, path: {tmp_path / 'nope'}}}\n")
    assert main(["days", "--params", str(params)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'nope'} does not exist" in err
    header_only = write_card_csv(tmp_path / "activity.CSV", [])
    params.write_text(
        f"raw_transactions: {{source: files, path: {header_only}, csv_preset: card_activity}}\n"
    )
    assert main(["days", "--params", str(params)]) == 1
    assert "holds no valid transaction" in capsys.readouterr().err
    # every row quarantined: the error says why, with a row's line and what to set
    dateless = tmp_path / "dateless.csv"
    dateless.write_text("posted_date,description,amount\n2026-02-31,COFFEE,-3.50\n")
    params.write_text(f"raw_transactions: {{source: files, path: {dateless}}}\n")
    assert main(["days", "--params", str(params)]) == 1
    err = capsys.readouterr().err
    assert "holds no valid transaction" in err and f"bad_date x1: {dateless}:2" in err, err
    params.write_text(f"raw_transactions: {{source: files, path: {header_only}}}\n")
    assert main(["days", "--params", str(params)]) == 2
    assert "the header fits csv_preset: card_activity" in capsys.readouterr().err


def test_days_of_a_download_are_its_posted_days(tmp_path, capsys):
    from ml_assets.__main__ import main

    download = write_card_csv(tmp_path / "activity_20261129.CSV", card_rows(0, 29))
    params = tmp_path / "params.yaml"
    params.write_text(
        f"raw_transactions: {{source: files, path: {download}, csv_preset: card_activity}}\n"
    )
    assert main(["days", "--params", str(params)]) == 0
    assert capsys.readouterr().out.strip() == "2026-03-01...2026-03-30"


def test_a_corrupt_gzip_or_parquet_file_is_named_not_a_crash(tmp_path):
    import gzip

    good = b"\n".join(
        b'{"transaction_id": "t%d", "posted_date": "2026-03-01", "amount": -1, "description": "X"}'
        % i
        for i in range(2000)
    )
    packed = gzip.compress(good + b"\n")
    path = tmp_path / "export.jsonl.gz"
    path.write_bytes(packed[: len(packed) // 2])  # an interrupted download
    result = scan_transactions(path)
    assert result.kept.height > 0 and dict(result.reasons) == {"unreadable_file": 1}
    assert f"{path}:" in result.quarantined["detail"][0]
    broken = tmp_path / "export.parquet"
    broken.write_bytes(b"PAR1 not really")
    result = scan_transactions(broken)
    assert (
        dict(result.reasons) == {"unreadable_file": 1}
        and str(broken) in result.quarantined["detail"][0]
    )


def test_a_cp1252_download_reads_with_its_encoding_and_names_it_otherwise(tmp_path):
    path = tmp_path / "activity.csv"
    path.write_bytes("Date,Description,Amount\n03/01/2026,CAFÉ DE FLORE,12.50\n".encode("cp1252"))
    wrong = scan_transactions(path, csv_preset="card_activity_positive")
    assert dict(wrong.reasons) == {"invalid_utf8": 1}
    assert "set raw_transactions.encoding" in wrong.quarantined["detail"][0]
    assert f"python -m ml_assets inspect {path}" in wrong.quarantined["detail"][0]
    right = scan_transactions(path, csv_preset="card_activity_positive", encoding="cp1252")
    row = right.kept.row(0, named=True)
    assert (row["description"], row["amount"]) == ("CAFÉ DE FLORE", -12.5)  # purchases flipped


def test_a_bad_debit_cell_is_quarantined_under_the_column_it_is_in(tmp_path):
    path = tmp_path / "statement.csv"
    path.write_text(
        "Date,Description,Paid out,Paid in\n"
        '2026-03-02,TESCO STORES 2211,"£1,2,50",\n'
        "2026-03-02,ACME LTD SALARY,,2000.00\n"
    )
    columns = {"Date": "posted_date", "Description": "description"}
    columns |= {"Paid out": "debit", "Paid in": "credit"}
    result = scan_transactions(path, column_map=columns, decimal=".")
    assert result.kept["amount"].to_list() == [2000.0]
    (row,) = result.quarantined.iter_rows(named=True)
    assert (row["reason"], row["field"], row["line"]) == ("bad_amount", "debit", 2)
    assert "field 'debit' '£1,2,50'" in row["detail"]


def test_a_party_is_the_merchant_only_when_one_is_named(tmp_path):
    """JSON records from a bank API: a creditor and a debtor both named (one is the account's
    owner) give no merchant rather than an owner-dependent one; a NaN or a record's own empty
    merchant field never becomes or hides one; a list of strings is joined."""
    import json

    records = [
        {
            "id": "1",
            "date": "2026-03-02",
            "amount": -4.85,
            "creditorName": "REWE Markt GmbH",
            "debtorName": "Max Mustermann",
            "text": "card",
        },
        {
            "id": "2",
            "date": "2026-03-02",
            "amount": -9.99,
            "creditorName": ["SPOTIFY", "AB"],
            "text": "subscription",
            "merchant": None,
        },
        {
            "id": "3",
            "date": "2026-03-03",
            "amount": -1.00,
            "creditorName": float("nan"),
            "text": "fee",
        },
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    columns = {"id": "transaction_id", "date": "posted_date", "text": "description"}
    columns |= {"creditorName": "description", "debtorName": "description"}
    kept = scan_transactions(path, column_map=columns).kept
    assert kept["merchant"].to_list() == [None, "SPOTIFY AB", None]
    assert kept["description"][1] == "SPOTIFY AB subscription"
