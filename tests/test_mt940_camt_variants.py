"""MT940 and CAMT.053 as banks other than the standards' examples make them: text in UTF-8 or
Windows-1252, the payee in the :61: line (old Rabobank, ASN), ASN Bank's long :61: reference,
German structured details whose purpose has no ``SVWZ+``, Triodos's ``>`` sub-fields, details
in ``:NS:`` (Sberbank Hungary), and a CAMT account numbered by another scheme than IBAN.
Rows in = kept + quarantined on every file.

The fixtures under ``fixtures/mt940_camt_variants`` are written for these tests, each with
the structure of a real export: WoLpH/mt940's test files ``jejik/rabobank.sta``,
``ASNB/0708271685_09022020_164516.940.txt``, ``betterplace/sepa_mt9401.sta``,
``sberbank/171011_01234945.sta`` and ``jejik/triodos.sta`` (https://github.com/WoLpH/mt940,
BSD-3-Clause license), actualbudget's ``data.sta`` (https://github.com/actualbudget/actual,
MIT license) and genkgo/camt's ``test/data/camt053.v4.xml`` (https://github.com/genkgo/camt,
MIT license)."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.ingest import SchemaError, scan_transactions
from ml_assets.core.intake.mt940_exports import iter_mt940

FIXTURES = Path(__file__).parent / "fixtures" / "mt940_camt_variants"


def read(name: str):
    """The file's scan, every row kept or quarantined, and no balance left unaccounted."""
    result = scan_transactions(FIXTURES / name)
    assert result.kept.height + result.quarantined.height == result.rows_in
    assert [w for notes in result.notes for w in notes.warnings] == []
    return result


def test_mt940_text_is_read_as_the_bank_wrote_it_in_utf_8_or_windows_1252():
    """UTF-8 where the bytes are UTF-8 (accents, umlauts; a soft hyphen is dropped), else
    Windows-1252, whose euro sign Latin-1 would read as a control character."""
    utf8 = read("releve_utf8.sta")
    assert utf8.kept["description"].to_list() == [
        "Boulangerie L'Étoile Facture 2026-0042",
        "MÜLLER GMBH Rechnung 4711",
        "ING iDEAL 04032026 TMG TANGO",
    ]
    assert utf8.kept["merchant"].to_list() == ["Boulangerie L'Étoile", "MÜLLER GMBH", None]
    cp1252 = read("umsaetze_cp1252.sta")
    assert cp1252.kept["description"].to_list() == [
        "Bäckerei Müller Brötchen 2,50 €",
        "Café Rösterei Kaffee",
    ]


def test_mt940_text_no_bank_writes_is_quarantined_naming_the_line_and_the_encoding(tmp_path):
    """A set encoding is the one read; a character that is no text in it (a C1 control, a
    byte it has no character for) quarantines its entry with the file, line and fix instead
    of reaching a description."""
    rows = list(iter_mt940(FIXTURES / "umsaetze_cp1252.sta", encoding="latin-1"))
    error, kept = rows[0][1], rows[1][1]
    assert isinstance(error, SchemaError) and error.reason == "invalid_utf8"
    assert str(error).startswith(f"{FIXTURES / 'umsaetze_cp1252.sta'}:5: U+0080 is not text in ")
    assert "raw_transactions.encoding" in str(error)
    assert kept["description"] == "Café Rösterei Kaffee"
    as_set = scan_transactions(FIXTURES / "umsaetze_cp1252.sta", encoding="latin-1")
    assert dict(as_set.reasons) == {"invalid_utf8": 1}  # raw_transactions.encoding reaches it
    assert as_set.notes[0].settings["encoding"] == "latin-1"

    head = ":20:S1\n:25:DE1\n:28C:1\n:60F:C260301EUR100,00\n"
    entries = ":61:2603020302D1,00NMSCNONREF\n:86:{}\n:61:2603030303D2,00NMSCNONREF\n:86:{}\n"
    tail = ":62F:C260303EUR97,00\n-\n"
    undefined = tmp_path / "undefined_byte.sta"  # 0x81: no character in Windows-1252
    undefined.write_bytes(
        (head + entries.format("KIOSK \x81", "Bäckerei") + tail).encode("latin-1")
    )
    twice = tmp_path / "utf8_twice.sta"  # "Ü" converted to UTF-8 twice: "Ã" and U+009C
    twice.write_bytes((head + entries.format("MÃ\x9cLLER GMBH", "MÜLLER GMBH") + tail).encode())
    result = scan_transactions(twice)
    assert result.rows_in == 2 and result.kept["description"].to_list() == ["MÜLLER GMBH"]
    (detail,) = result.quarantined["detail"]
    assert detail.startswith(f"{twice}:5: U+009C is not text in utf-8")
    # a byte Windows-1252 has no character for: another code page, every entry quarantined
    result = scan_transactions(undefined)
    assert result.rows_in == 2 and result.kept.height == 0
    assert dict(result.reasons) == {"invalid_utf8": 2}
    assert "byte 0x81 on line 6" in result.quarantined["detail"][0]
    as_cp1252 = scan_transactions(undefined, encoding="cp1252")
    assert as_cp1252.kept["description"].to_list() == ["Bäckerei"]
    assert as_cp1252.quarantined["detail"][0].startswith(
        f"{undefined}:5: byte 0x81 is not text in cp1252"
    )


def test_old_rabobank_names_the_payee_in_the_statement_line():
    """Rabobank's format before SEPA puts the payee in the :61: supplementary details: it
    leads the description (once, where the :86: text holds it too) and is the merchant; an
    account number there names no payee."""
    result = read("rabobank_old.sta")
    assert result.kept["description"].to_list() == [
        "T-MOBILE NETHERLANDS BV BETALINGSKENM. 123456789 FACTUURNUMMER 987654321",
        "BETALINGSKENM. 173787046000009 KPN - MOBIEL",
        "ACCEPTGIRO 1234",
    ]
    assert result.kept["merchant"].to_list() == ["T-MOBILE NETHERLANDS BV", "KPN - MOBIEL", None]
    assert result.kept["amount"].to_list() == [-44.95, -88.1, -25.0]


def test_asn_bank_statement_lines_are_read_as_the_mt940_library_reads_them():
    """ASN writes the other party's IBAN as the :61: reference (longer than SWIFT's 16
    characters) and its name on the next line: read with the library's ``StatementASNB``,
    from a ``.940.txt`` file told by its content. A mark SWIFT does not know (``ED``, line
    29) stays quarantined."""
    result = read("0123456789_06032026_101500.940.txt")
    assert result.rows_in == 4
    assert dict(zip(result.quarantined["line"], result.quarantined["reason"], strict=True)) == {
        29: "bad_mt940"
    }
    kept = result.kept
    assert kept["amount"].to_list() == [-65.0, 1000.0, -801.55]
    assert kept["posted_date"].to_list() == ["2026-03-02", "2026-03-05", "2026-03-05"]
    assert set(kept["account_id"]) == {"NL81ASNB0123456789"}
    assert kept["merchant"].to_list() == [
        "hr j de vries", "de vries j", "international card services"
    ]  # fmt: skip
    assert kept["description"].to_list() == [
        "NL47INGB0123456789 hr j de vries Betaling sieraden",
        "NL56ASNB0123456789 de vries j INTERNE OVERBOEKING VIA MOBIEL",
        "NL08ABNA0123456789 international card services Betaling aan ICS 99999999999 ICS "
        "Referentie: 2026-03-05 19:47",
    ]


def test_german_structured_details_keep_their_free_text_without_svwz():
    """A return or a batch order's purpose is a reference (EREF+, KREF+) and the bank's
    message (MTLG:), with no SVWZ+: the message is the description. The purpose goes on in
    ?60-?63; with neither party nor purpose, the posting text (?00) is the description."""
    result = read("sepa_mt940_dk.sta")
    assert result.kept["description"].to_list() == [
        "Grund nicht spezifiziert Reject aus SEPA-Ueberweisungsauftrag",
        "SEPA-Ueberweisungsauftrag Datei mit 0000005 Zahlungen",
        "Hausverwaltung Schmidt Miete Maerz 2026 Wohnung 3 links Ggf.Meldevorschriften beachten",
        "SEPA-UEBERW/STORNO",
    ]
    assert result.kept["merchant"].to_list() == [None, None, "Hausverwaltung Schmidt", None]
    assert result.kept["amount"].to_list() == [300.0, -500.25, -850.0, 500.25]


def test_triodos_sub_fields_marked_with_a_greater_than_sign():
    result = read("triodos.sta")
    assert result.kept["description"].to_list() == [
        "ALGEMENE TUSSENREKENING KOSTEN VAN 01-01-2026 TOT EN MET 31-03-2026",
        "HUUR KANTOOR - MRT 2026",
    ]


def test_details_in_ns_lines_where_a_bank_writes_no_86():
    """Sberbank Hungary's :NS: sub-fields with words are the description; the account
    numbers and references beside them, and the statement's own :NS: header, are not."""
    result = read("sberbank_ns.sta")
    assert result.kept["description"].to_list() == [
        "Tranzakciós illeték: 7.21HUF ERGO Versicherung AG",
        "Tranz. illeték: 10.38HUF ERGO Eletbiztosito Zrt.",
    ]
    assert result.kept["amount"].to_list() == [-2402.0, -3460.0]
    assert set(result.kept["currency"]) == {"HUF"}


def test_camt053_account_numbered_by_another_scheme_than_iban():
    """``Acct/Id/Othr/Id`` is the account where a bank gives no ``Acct/Id/IBAN``."""
    result = read("camt053_othr_account.xml")
    assert result.kept["account_id"].to_list() == ["NL26VAYB8060476890"]
    assert result.kept["description"].to_list() == ["NAME NAME Invoice 2026-0042"]


def test_camt053_without_an_xml_declaration_or_extension_is_told_by_its_content(tmp_path):
    """Some banks' downloads (OCA's sample among them) start at ``<Document`` and carry no
    extension: the load still tells a CAMT.053 statement by its namespace."""
    text = (FIXTURES / "camt053_othr_account.xml").read_text(encoding="utf-8")
    bare = tmp_path / "test-camt053"
    bare.write_text(text[text.index("<Document") :], encoding="utf-8")
    result = scan_transactions(bare)
    assert result.notes[0].format == "camt053"
    assert result.kept["account_id"].to_list() == ["NL26VAYB8060476890"]
