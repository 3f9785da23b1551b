"""More MT940 and CAMT.053 as banks make them: MT940 led by the bank's own header lines (ABN
AMRO, Bunq, ING, Rabobank) told by its content under .txt or no extension, old Rabobank
amounts with a decimal point, Komercijalna Banka's /BENM/ and /ORDP/ details, Zenith Bank's
blank statement number and :61: lines without a type code; CAMT.053 whose only text is a
detail's AddtlTxInf (UniCredit Hungary), and the Bank of Lithuania's one-line statements whose
entries carry no date. Rows in = kept + quarantined on every file.

The fixtures under ``fixtures/statement_variants_more`` are written for these tests, each with
the structure of a real export: fruitl00p/php-mt940's ``test/Parser/Banking/Mt940/Engine/``
``Abn/sample``, ``Bunq/sample``, ``Ing/sample``, ``Rabo/sample``, ``Kbs/sample`` and
``Zetb/sample`` (https://github.com/fruitl00p/php-mt940, MIT license; Komercijalna Banka's and
Zenith Bank's texts are taken from them), Subite-eu/camt-to-coda's
``example-files/CAMT/LT625883379695428516/CAMT_053/2024-03-07.xml``
(https://github.com/Subite-eu/camt-to-coda, MIT license) and the layout, not the text, of
zoltansebestyen/ofxstatement-unicredithu's ``STATEMENT_12345678_20171130.xml`` (GPLv3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ml_assets.core.intake.export_formats import skipped_files, statement_by_content
from ml_assets.core.intake.ingest import scan_transactions

FIXTURES = Path(__file__).parent / "fixtures" / "statement_variants_more"


def read(path: Path, fmt: str = "auto"):
    """The file's scan, every row kept or quarantined."""
    result = scan_transactions(path, fmt)
    assert result.kept.height + result.quarantined.height == result.rows_in
    return result


def warnings_of(result) -> list[str]:
    return [warning for notes in result.notes for warning in notes.warnings]


@pytest.mark.parametrize(
    ("name", "amounts"),
    [
        ("MT940_abnamro", [-7.5, -42.1]),  # ABNANL2A / 940 / ABNANL2A, no extension
        ("bunq_statement.txt", [2.0, -3.62]),  # BUNQNL2A / 940 / BUNQNL2A
        ("ing_mt940.txt", [25.03, -3.03]),  # 0000 01INGBNL2AXXXX00001 twice, 940 00; CRLF
        ("rabobank_940.txt", [43985.66, -299.47]),  # :940:
    ],
)
def test_mt940_led_by_the_banks_header_lines_is_told_by_its_content(name, amounts):
    path = FIXTURES / name
    assert statement_by_content(path) == "mt940"
    result = read(path)
    assert result.kept["amount"].to_list() == amounts
    assert warnings_of(result) == []  # the statements' balances add up as read


def test_a_folder_reads_its_mt940_and_skips_text_files_that_are_none(tmp_path):
    """A :20: line without an opening balance after it is no statement: a QIF and notes saved
    as .txt or without an extension are skipped, the ING statement beside them read (a .txt
    that is a table of transactions is read as CSV: test_export_content_sniffing)."""
    (tmp_path / "ing_mt940.txt").write_bytes((FIXTURES / "ing_mt940.txt").read_bytes())
    others = {
        "export.txt": "exported on the 3rd, total -5.00\n:20: off at KIOSK\n",
        "money.txt": "!Type:Bank\nD03/03/2026\nT-7.50\nPKPN BV\n^\n",
        "notes": "exported on the 3rd\nbank: ING\n:20: is the statement's reference\n",
    }
    for name, text in others.items():
        (tmp_path / name).write_text(text)
    result = read(tmp_path)
    assert result.kept["amount"].to_list() == [25.03, -3.03]
    assert [path.name for path in skipped_files(tmp_path, "auto")] == sorted(others)


def test_old_rabobank_amounts_with_a_decimal_point_are_read_to_the_cent():
    """SWIFT writes a decimal comma; the library read C000000043985.66 as 43985, taking
    ".66" for the reference. The balances, written the same way, add up to the cent."""
    result = read(FIXTURES / "rabobank_940.txt", "mt940")
    assert result.kept["amount"].to_list() == [43985.66, -299.47]
    assert result.kept["merchant"].to_list() == ["MR AND MRS DAVIDS", "STG. DEHON INTERNATIONAL"]
    assert warnings_of(result) == []


def test_mt940_benm_and_ordp_details_give_the_party_and_the_text():
    """Komercijalna Banka: /BENM/ (beneficiary) or /ORDP/ (ordering party) and the account,
    then the party's name, the purpose (a reference after //) and the text, a line each; a
    placeholder (/EMPTY/) and a code (/747//747) are no text; /REMI/ is the text where
    written."""
    result = read(FIXTURES / "kbs_20260301.sta")
    assert result.rows_in == 4 and result.quarantined.height == 0
    bank = "KOMERCIJALNA BANKA AD SKOPJE-CENTRALA SKul. Orce Nikolov br.3"
    assert result.kept["description"].to_list() == [
        f"{bank} Mesecna provizija Mesecen nadomest za vodenje smetka za 02.2026",
        "KOMERCIJALNA BANKA AD SKOPJE - PROVIZIJA Mesecna provizija za mesec 02/2026",
        "IVOTEHNA DOOEL SKOPJE Uplata po faktura 747",
        "MARKO PETROVSKI Vrakjanje na zaem",
    ]
    assert result.kept["merchant"].to_list() == [
        bank,
        "KOMERCIJALNA BANKA AD SKOPJE - PROVIZIJA",
        "IVOTEHNA DOOEL SKOPJE",
        "MARKO PETROVSKI",
    ]
    assert result.kept["amount"].to_list() == [-80.0, -300.0, 2250.0, 100.0]
    assert warnings_of(result) == []


def test_mt940_with_a_blank_statement_number_and_no_type_codes_is_read():
    """Zenith Bank writes ":28C: /1" (no statement number), which no row reads, and :61:
    lines without a type code (2603180318CN220000,00//19239782213), which SWIFT allows."""
    result = read(FIXTURES / "zenith_20260318.sta")
    assert result.rows_in == 3 and result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [220000.0, -43000.0, -240.23]
    assert set(result.kept["currency"]) == {"NGN"}
    assert result.kept["description"][2] == "Acct Maint. Fee + VAT"
    assert warnings_of(result) == []


def test_an_unreadable_statement_header_line_is_named_not_the_61_line(tmp_path):
    """An opening balance without its C/D mark fails every entry it is read with: the error
    names that line and its text, where it used to blame the entry's :61: line."""
    path = tmp_path / "statement.sta"
    path.write_text(
        ":20:S1\n:25:DE1\n:28C:1\n:60F:260301EUR100,00\n"
        ":61:2603020302D1,00NMSCNONREF\n:86:KIOSK\n:62F:C260302EUR99,00\n-\n"
    )
    result = read(path)
    (detail,) = result.quarantined["detail"]
    assert detail.startswith(f"{path}:5: MT940 entry not readable: the :60F: line it is read with")
    assert "'260301EUR100,00'" in detail and ":61: line" not in detail


def test_camt_additional_transaction_information_is_the_text_without_remittance_text():
    """UniCredit Hungary writes an entry's only text in NtryDtls/TxDtls/AddtlTxInf: it is the
    description where the detail has no remittance text (RmtInf/Ustrd), before the entry's
    own AddtlNtryInf."""
    result = read(FIXTURES / "unicredit_hu_20260331.xml")
    assert result.rows_in == 3 and result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "Jóváírt kamat március",
        "Minta Kft. Szamla 2026/0042",
        "Db Szamlavezetesi dij",
    ]
    assert result.kept["amount"].to_list() == [2000.0, 123456.0, -6000.0]
    assert warnings_of(result) == []


def test_camt_entries_a_bank_dates_none_of_take_the_statements_day_and_say_so():
    """The Bank of Lithuania writes no BookgDt or ValDt: each entry takes the statement's day
    (here its message's CreDtTm, the only one it has), said in a warning. The XML is on one
    line, so an entry's error names its position as well as line 2."""
    path = FIXTURES / "lb_statement_20260309.xml"
    result = read(path)
    assert result.rows_in == 3
    assert result.kept["posted_date"].to_list() == ["2026-03-09", "2026-03-09"]
    assert result.kept["description"].to_list() == ["Palukanos uz kovo men.", "Komisinis mokestis"]
    (warning,) = warnings_of(result)  # the balances add up: only the day is said
    assert warning.startswith(f"{path}:2: statement MSG66141212-BBBBBB: 3 row(s) of entries")
    assert "dated 2026-03-09, read from <GrpHdr/CreDtTm>" in warning
    (detail,) = result.quarantined["detail"]  # an entry with no text at all
    assert detail.startswith(f"{path}:2, Ntry[3]: required field 'description' is missing")


def test_camt_an_undated_entry_among_dated_ones_is_quarantined_by_its_position(tmp_path):
    """Where the bank dates some entries, one without a date is broken, not given the
    statement's day; the end of the statement's period (FrToDt) is its day before the
    message's."""
    text = (FIXTURES / "lb_statement_20260309.xml").read_text()
    dated = tmp_path / "dated.xml"
    dated.write_text(
        text.replace("</CdtDbtInd>", "</CdtDbtInd><BookgDt><Dt>2026-03-09</Dt></BookgDt>", 1)
    )
    result = read(dated)
    assert result.kept["posted_date"].to_list() == ["2026-03-09"]
    assert warnings_of(result) == []
    assert [d.split(": required field")[0] for d in result.quarantined["detail"]] == [
        f"{dated}:2, Ntry[2]",
        f"{dated}:2, Ntry[3]",
    ]
    assert result.quarantined["field"].to_list() == ["posted_date", "posted_date"]

    period = tmp_path / "period.xml"
    period.write_text(
        text.replace(
            "<Id>MSG66141212-BBBBBB</Id>",
            "<Id>MSG66141212-BBBBBB</Id><FrToDt><FrDtTm>2026-03-08T00:00:00</FrDtTm>"
            "<ToDtTm>2026-03-08T23:59:59</ToDtTm></FrToDt>",
        )
    )
    result = read(period)
    assert set(result.kept["posted_date"]) == {"2026-03-08"}
    assert "read from <FrToDt/ToDtTm>" in warnings_of(result)[0]
