"""Statements as real banks' samples showed them: a header's charset the text contradicts, a
code page other than the one guessed, entries whose only text is a reference or a type, a
short OFX header, QuickBooks' ``.qbo`` and hledger's ``.ssv``, and an investment statement
whose trades the parser nests. Rows in = kept + quarantined on every file.

The fixtures under ``fixtures/statement_samples_round3`` are written for these tests, each
with the structure of a real export: Banco do Brasil's OFX (CHARSET:1252 over UTF-8 text),
a Hungarian bank's MT940 in cp852, Danske Bank's MT940 (most :61: lines without :86:),
ofxtools' ``stmtrs.ofx`` (a CHECK and an ATM withdrawal with neither NAME nor MEMO), a QFX
whose header stops after ENCODING, the ISO camt.053.001.02 example (a batch and an FX deal
without remittance text), a QuickBooks Web Connect download and Google Finance's OFX."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.bank_formats import iter_ofx
from ml_assets.core.intake.export_formats import format_of
from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file

FIXTURES = Path(__file__).parent / "fixtures" / "statement_samples_round3"


def read(path: Path, **settings):
    """The file's scan, every row kept or quarantined."""
    result = scan_transactions(path, **settings)
    assert result.kept.height + result.quarantined.height == result.rows_in
    return result


def test_an_ofx_declaring_windows_1252_over_utf_8_text_is_read_as_utf_8_and_says_so():
    """Banco do Brasil declares CHARSET:1252 but writes UTF-8: read as declared, "CRÉDITO"
    would be kept as "CRÃ‰DITO". The same text truly in Windows-1252 keeps its header."""
    path = FIXTURES / "bb_charset1252_utf8_body.ofx"
    result = read(path)
    assert result.kept["description"].to_list() == ["DOC CRÉDITO EM CONTA", "PAGAMENTO CONTA ÁGUA"]
    assert set(result.kept["currency"]) == {"BRL"}
    warnings: list[str] = []
    assert len(list(iter_ofx(path, warnings=warnings))) == 2
    (warning,) = warnings
    assert warning.startswith(f"{path}: the OFX header says CHARSET:1252, but the text is UTF-8")


def test_an_ofx_whose_header_declares_utf_8_is_read_without_a_word(tmp_path):
    """ENCODING:UTF-8 (with CHARSET:UTF-8, or with the 1252 ofxtools then sets aside) says
    what the text is: nothing is overruled, and no warning says so."""
    text = (FIXTURES / "bb_charset1252_utf8_body.ofx").read_text(encoding="utf-8")
    for charset in ("UTF-8", "1252"):
        path = tmp_path / f"utf8-{charset}.ofx"
        header = text.replace("ENCODING:USASCII", "ENCODING:UTF-8")
        path.write_text(header.replace("CHARSET:1252", f"CHARSET:{charset}"), encoding="utf-8")
        warnings: list[str] = []
        rows = list(iter_ofx(path, warnings=warnings))
        assert rows[0][1]["description"] == "DOC CRÉDITO EM CONTA" and warnings == []


def test_an_ofx_truly_in_windows_1252_is_read_as_its_header_says(tmp_path):
    path = tmp_path / "cp1252.ofx"
    text = (FIXTURES / "bb_charset1252_utf8_body.ofx").read_text(encoding="utf-8")
    path.write_bytes(text.encode("cp1252"))
    warnings: list[str] = []
    rows = list(iter_ofx(path, warnings=warnings))
    assert [row[1]["description"] for row in rows] == [
        "DOC CRÉDITO EM CONTA",
        "PAGAMENTO CONTA ÁGUA",
    ]
    assert warnings == []


def test_an_mt940_in_another_code_page_is_not_kept_garbled():
    """A Hungarian bank's cp852 is not UTF-8, and its "ü" (0x81) is a byte Windows-1252 has
    no character for: read as Windows-1252 every entry's letters would be wrong ("tutal s"
    for "átutalás"), so every entry is quarantined naming the setting and the code pages to
    try, not only the one holding the byte; with ``encoding: cp852`` all are read."""
    path = FIXTURES / "otp_cp852.sta"
    guessed = read(path)
    assert guessed.rows_in == 3 and guessed.kept.height == 0
    assert dict(guessed.reasons) == {"invalid_utf8": 3}
    detail = guessed.quarantined["detail"][0]
    assert detail.startswith(f"{path}:5: entry not read: the file is not UTF-8")
    assert "byte 0x81 on line 8" in detail
    assert "raw_transactions.encoding" in detail and "cp852" in detail
    as_set = read(path, encoding="cp852")
    assert as_set.quarantined.height == 0
    assert as_set.kept["description"].to_list() == [
        "Csoportos átutalás jóváírása HUNGARY KFT.",
        "Bankon belüli átutalás SPYMARKET",
        "Díj, jutalék",
    ]
    chosen = read(path, encoding="cp1252")  # a set encoding wins: only the byte's entry fails
    assert chosen.kept.height == 2 and dict(chosen.reasons) == {"invalid_utf8": 1}


def test_an_mt940_entry_without_details_is_read_by_its_61_references():
    """Danske Bank writes no :86: for most entries; their text is the :61: line's customer
    reference and bank reference, which its other entries' :86: repeat. An entry whose
    reference is a bare number is described by its SWIFT type code (NMSC)."""
    path = FIXTURES / "danske_no_details.sta"
    result = read(path)
    assert result.rows_in == 5 and result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "DBT.DB 70201234",
        "Gebyrer ifolge nota",
        "DB faktura 1234567",
        "Rente",
        "Miscellaneous",
    ]
    assert result.kept["amount"].to_list() == [-50.0, -2214.0, 2000.0, 183.49, 3260.0]
    assert result.kept["merchant"].to_list() == [None] * 5


def test_an_ofx_transaction_without_name_or_memo_is_its_type_and_check_number():
    """ofxtools' sample statement has a CHECK and an ATM withdrawal with neither NAME nor
    MEMO: their text is what a statement prints for them. The file's header also stops
    after ENCODING (no CHARSET, COMPRESSION or file ids), which ofxtools cannot read."""
    result = read(FIXTURES / "checks_short_header.qfx")
    assert result.rows_in == 3 == result.kept.height
    assert result.kept["description"].to_list() == ["CHECK 1000", "ATM", "Coffee Morning coffee"]
    assert result.kept["amount"].to_list() == [-200.0, -300.0, -15.0]


def test_an_ofx_header_with_a_blank_line_among_its_fields_is_read(tmp_path):
    path = tmp_path / "blank_line.ofx"
    text = (FIXTURES / "bb_charset1252_utf8_body.ofx").read_text(encoding="utf-8")
    path.write_text(text.replace("SECURITY:NONE\n", "SECURITY:NONE\n\n"), encoding="utf-8")
    assert read(path).kept["description"][0] == "DOC CRÉDITO EM CONTA"


def test_a_camt_entry_without_remittance_text_is_read_by_what_else_it_says():
    """The ISO example's batch (20 payments booked as one sum) and FX deal carry no text:
    the description is the structured creditor reference, else the purpose, else the
    payer's reference (end-to-end id, the batch's payment order); an entry whose only
    reference is a bare number, beside the bank's own (its id), stays quarantined. Beside a
    party, the creditor's reference is a per-payment number and a purpose code (OTHR) no
    text: the party alone; an invoice number that is a bare number is no text either."""
    path = FIXTURES / "camt053_no_remittance_text.xml"
    result = read(path)
    assert result.rows_in == 8
    assert result.kept["description"].to_list() == [
        "FINP-0055/001",
        "AAAASS1085FINPSS",
        "RF18539007547034",
        "SALA",
        "Stadtwerke Malmo",
        "Stadtwerke Muenchen",
    ]
    assert result.kept["amount"].to_list() == [-200000.0, 30000.0, -1250.0, 18000.0, -8.85, -45.0]
    assert result.kept["transaction_id"].to_list() == [
        "SVC-1", "SVC-2", "SVC-3", "SVC-4", "SVC-6", "SVC-7"
    ]  # fmt: skip
    detail, bare_number = result.quarantined["detail"]
    assert bare_number.startswith(f"{path}:103: required field 'description' is missing")
    assert detail.startswith(f"{path}:76: required field 'description' is missing")
    assert "EndToEndId" in detail


def test_a_quickbooks_qbo_is_ofx_by_its_extension_and_by_its_content(tmp_path):
    """QuickBooks Web Connect's .qbo is OFX 2: its XML declaration comes before <?OFX?>."""
    path = FIXTURES / "card_activity.qbo"
    assert format_of(path, "auto") == "ofx"
    inspected = inspect_file(path)
    assert inspected.error is None
    assert ("format", "ofx (by the extension .qbo)") in inspected.facts
    assert inspected.result.kept["amount"].to_list() == [-129.0, 5000.0]
    unnamed = tmp_path / "download"
    unnamed.write_bytes(path.read_bytes())
    assert format_of(unnamed, "auto") == "ofx"
    assert read(unnamed).kept["description"].to_list() == [
        "STREAMING SUBSCRIPTION",
        "PAYMENT RECEIVED",
    ]


def test_hledgers_semicolon_separated_ssv_is_read_as_csv():
    path = FIXTURES / "checking.ssv"
    inspected = inspect_file(path)
    assert inspected.error is None
    assert ("format", "csv (by the extension .ssv)") in inspected.facts
    assert inspected.settings["delimiter"] == ";"
    assert inspected.result.kept["amount"].to_list() == [-4.5, 2500.0]


def test_each_investment_trade_is_counted_however_the_parser_nests_it():
    """Google Finance's trades carry an empty <MEMO> without its end tag, after which
    ofxtools nests each trade inside the one before: each is still counted, at its line."""
    skipped: list[tuple[int, str]] = []
    path = FIXTURES / "trades_empty_memo.ofx"
    assert list(iter_ofx(path, skipped)) == []
    assert skipped == [
        (39, "OFX investment BUYSTOCK"),
        (58, "OFX investment BUYSTOCK"),
        (77, "OFX investment SELLSTOCK"),
    ]
    result = read(path)
    assert result.rows_in == 0
    assert result.notes[0].metadata()["not_transactions"] == {
        "OFX investment BUYSTOCK": 2,
        "OFX investment SELLSTOCK": 1,
    }
