"""Statement dialects the standards' examples do not show, each read the documented way
(``inspect`` writes the settings, the load reads the file with them, every row accounted
for): OFX whose NAME is MEMO cut at 32 characters (US banks), OFX whose closing tags a
program rewrote, Berlin Group (NextGenPSD2) transaction documents with structured remittance,
card payments described only by ``additionalInformation`` and the account named once for the
document, camt.052 in Windows-1252 without an XML declaration (German FinTS), and a camt
entry of 0.00. The files are written here in each layout, not copied."""

from __future__ import annotations

import json

from ml_assets.core.intake.bank_formats import ZERO_AMOUNT_NOTICE
from ml_assets.core.intake.camt053 import iter_camt053
from ml_assets.core.intake.ingest import scan_transactions
from tests.test_issuer_csv_layouts import loaded

OFX_HEADER = (
    "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\n"
    "CHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n"
)


def _ofx(transactions: str) -> str:
    return (
        OFX_HEADER + "<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>0<STMTRS><CURDEF>USD\n"
        "<BANKACCTFROM><BANKID>123456789<ACCTID>55501<ACCTTYPE>CHECKING</BANKACCTFROM>\n"
        "<BANKTRANLIST><DTSTART>20260401<DTEND>20260410\n"
        f"{transactions}"
        "</BANKTRANLIST><LEDGERBAL><BALAMT>100.00<DTASOF>20260410</LEDGERBAL></STMTRS>\n"
        "</STMTTRNRS></BANKMSGSRSV1></OFX>\n"
    )


def _stmttrn(fitid: str, amount: str, name: str, memo: str) -> str:
    return (
        f"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260405<TRNAMT>{amount}<FITID>{fitid}\n"
        f"<NAME>{name}\n<MEMO>{memo}\n</STMTTRN>\n"
    )


def test_an_ofx_name_cut_from_the_memo_is_said_once(tmp_path, capsys):
    """US banks write MEMO's first 32 characters as NAME: the description is MEMO, once,
    also where the two differ in case or spacing or say the same; a NAME that is not MEMO's
    beginning stays in front of it."""
    path = tmp_path / "checking.ofx"
    path.write_text(
        _ofx(
            _stmttrn("1", "-34.51", "AUTOMATIC WITHDRAWAL, ELECTRIC", "AUTOMATIC WITHDRAWAL, "
                     "ELECTRIC BILL WEB(S )")
            + _stmttrn("2", "-1500.00", "Check Paid #0000001001", "Check Paid #0000001001")
            + _stmttrn("3", "-27.68", "DEBIT CARD PURCHASE  AMAZON MKTP", "Debit Card Purchase "
                       "Amazon Mktplace Pmts")
            + _stmttrn("4", "-9.90", "STARBUCKS", "STORE 12345 SEATTLE WA")
        )
    )  # fmt: skip
    _, _, result, _ = loaded(path, capsys)
    assert result.kept["description"].to_list() == [
        "AUTOMATIC WITHDRAWAL, ELECTRIC BILL WEB(S )",
        "Check Paid #0000001001",
        "Debit Card Purchase Amazon Mktplace Pmts",
        "STARBUCKS STORE 12345 SEATTLE WA",
    ]


def _nested_closing_tags(fitid: str, amount: str, name: str, memo: str) -> str:
    """An OFX 1 transaction as a program that parsed it as XML writes it back: each element
    closed after everything that follows it."""
    return (
        f"<STMTTRN>\n <TRNTYPE>DEBIT\n  <DTPOSTED>20131124000000.000[-7:MST]\n"
        f"   <TRNAMT>{amount}\n    <FITID>{fitid}\n     <NAME>{name}\n      <MEMO>{memo}\n"
        "      </MEMO>\n     </NAME>\n    </FITID>\n   </TRNAMT>\n  </DTPOSTED>\n"
        " </TRNTYPE>\n</STMTTRN>\n"
    )


def test_an_ofx_rewritten_with_nested_closing_tags_is_read_with_a_warning(tmp_path):
    """OFX 1 writes no closing tag for an element that holds a value: without them the
    rewritten file's transactions nest as the bank wrote them, said in the warnings."""
    path = tmp_path / "amex.ofx"
    path.write_text(
        "<OFX>\n<CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>0\n<CCSTMTRS><CURDEF>USD\n"
        "<CCACCTFROM><ACCTID>379700001111222\n</ACCTID></CCACCTFROM>\n<BANKTRANLIST>\n"
        + _nested_closing_tags("320133280255184014", "-143.94", "PRUNE NEW YORK", "RESTAURANT")
        + _nested_closing_tags("320133290268683266", "-28.05", "UNION MARKET", "GROCERY STORE")
        + "</BANKTRANLIST>\n</CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1>\n</OFX>\n"
    )
    result = scan_transactions(path)
    assert result.rows_in == 2 == result.kept.height
    assert result.kept["amount"].to_list() == [-143.94, -28.05]
    assert result.kept["description"].to_list() == [
        "PRUNE NEW YORK RESTAURANT",
        "UNION MARKET GROCERY STORE",
    ]
    assert set(result.kept["account_id"]) == {"379700001111222"}
    (warning,) = result.notes[0].warnings
    assert "closing tags are nested wrongly" in warning and "OFX 1 (SGML)" in warning


def test_an_ofx_whose_aggregates_do_not_nest_names_its_tags_not_the_bank(tmp_path):
    """An aggregate closed before its contents end does not nest however the file is read:
    the file's tags are malformed, which downloading it again does not mend."""
    path = tmp_path / "rewritten.ofx"
    path.write_text(
        _ofx(_stmttrn("1", "-5.00", "COFFEE", "SHOP")).replace(
            "</BANKACCTFROM>", "</BANKACCTFROM></STMTTRNRS>"
        )
    )
    result = scan_transactions(path)
    assert result.rows_in == 1 == result.quarantined.height
    detail = result.quarantined["detail"][0]
    assert str(path) in detail and "tags are malformed" in detail
    assert "re-download" not in detail and "as the bank gave it" in detail


def test_berlin_group_remittance_forms_card_texts_and_the_documents_account(tmp_path, capsys):
    """A structured remittance (a string, an object's reference, an array) is the text as
    the unstructured one is; a card payment with only additionalInformation is described by
    it, and additionalInformation beside a remittance text is not said again; the document's
    account is every row's account_id."""
    booked = [
        {"transactionId": "t1", "bookingDate": "2026-01-10", "debtorName": "Hans Mustermann",
         "transactionAmount": {"amount": "50.00", "currency": "EUR"},
         "remittanceInformationStructured": "Bestellung 1234"},
        {"transactionId": "t2", "bookingDate": "2026-01-11", "creditorName": "Stadtwerke",
         "transactionAmount": {"amount": "-12.30", "currency": "EUR"},
         "remittanceInformationStructured": {"reference": "RF18539007547034",
                                             "referenceType": "SCOR"}},
        {"transactionId": "t3", "bookingDate": "2026-01-12",
         "transactionAmount": {"amount": "-7.00", "currency": "EUR"},
         "additionalInformation": "KARTENZAHLUNG REWE SAGT DANKE"},
        {"transactionId": "t4", "bookingDate": "2026-01-13", "creditorName": "Vodafone GmbH",
         "transactionAmount": {"amount": "-39.99", "currency": "EUR"},
         "remittanceInformationUnstructured": "Kundennr 123",
         "additionalInformation": "LASTSCHRIFT Vodafone GmbH Kundennr 123"},
        {"transactionId": "t5", "bookingDate": "2026-01-14", "creditorName": "Finanzamt",
         "transactionAmount": {"amount": "-100.00", "currency": "EUR"},
         "remittanceInformationStructuredArray": [{"reference": "StNr 12/345"}]},
    ]  # fmt: skip
    path = tmp_path / "transactions.json"
    path.write_text(
        json.dumps(
            {"account": {"iban": "DE89370400440532013000", "currency": "EUR"},
             "transactions": {"booked": booked, "pending": []}},
            indent=1,
        )
    )  # fmt: skip
    _, section, result, _ = loaded(path, capsys)
    assert section["column_map"]["remittanceInformationStructured"] == "description"
    assert result.rows_in == 5 == result.kept.height
    assert result.kept["description"].to_list() == [
        "Hans Mustermann Bestellung 1234",
        "Stadtwerke RF18539007547034",
        "KARTENZAHLUNG REWE SAGT DANKE",
        "Vodafone GmbH Kundennr 123",
        "Finanzamt StNr 12/345",
    ]
    assert set(result.kept["account_id"]) == {"DE89370400440532013000"}


def _camt052(entries: str, declaration: str = "") -> str:
    return (
        f'{declaration}<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02">'
        "<BkToCstmrAcctRpt><GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-01-13T14:56:57</CreDtTm>"
        "</GrpHdr><Rpt><Id>R1</Id><CreDtTm>2026-01-13T14:56:57</CreDtTm><Acct><Id>"
        "<IBAN>DE55120965970123456789</IBAN></Id><Ccy>EUR</Ccy></Acct>"
        f"{entries}</Rpt></BkToCstmrAcctRpt></Document>\n"
    )


def _entry(amount: str, text: str, party: str = "Bestattungshaus Müller") -> str:
    return (
        f'\n<Ntry><Amt Ccy="EUR">{amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>'
        "<BookgDt><Dt>2026-01-04</Dt></BookgDt><NtryDtls><TxDtls><RltdPties><Cdtr>"
        f"<Nm>{party}</Nm></Cdtr></RltdPties><RmtInf><Ustrd>{text}</Ustrd></RmtInf>"
        "</TxDtls></NtryDtls></Ntry>"
    )


def test_a_camt_in_windows_1252_without_a_declaration_is_read_as_such(tmp_path, capsys):
    """German FinTS camt.052 comes without an XML declaration and in Windows-1252: read so,
    said in the warnings, its umlauts as written."""
    path = tmp_path / "umsaetze.xml"
    path.write_bytes(
        _camt052(_entry("52.00", "Umbuchung für Bestattungsvorsorge")).encode("cp1252")
    )
    out, _, result, _ = loaded(path, capsys)
    assert result.kept["description"].to_list() == [
        "Bestattungshaus Müller Umbuchung für Bestattungsvorsorge"
    ]
    assert "read as Windows-1252 (cp1252)" in out


def test_a_camt_encoding_set_is_honoured_and_an_unreadable_one_names_the_setting(tmp_path):
    """raw_transactions.encoding is the text's encoding over the file's declaration; a file
    that reads neither as UTF-8 nor as Windows-1252 says to set it, not to download the same
    bytes again."""
    declared = tmp_path / "declared.xml"
    text = _camt052(_entry("52.00", "Überweisung"), '<?xml version="1.0" encoding="UTF-8"?>\n')
    declared.write_bytes(text.encode("latin-1"))
    rows = list(iter_camt053(declared, encoding="latin-1"))
    assert [record["description"] for _, record, _ in rows] == [
        "Bestattungshaus Müller Überweisung"
    ]
    broken = tmp_path / "broken.xml"
    broken.write_bytes(_camt052(_entry("52.00", "für")).replace("</Rpt>", "").encode("cp1252"))
    ((_, error, _),) = list(iter_camt053(broken))
    assert "not UTF-8" in str(error) and "raw_transactions.encoding" in str(error)
    assert "re-download" not in str(error)


def test_a_camt_entry_of_zero_is_a_notice_counted_not_a_row(tmp_path):
    """An entry of 0.00 moves no money: counted among the lines that are not transactions,
    as a pending entry is."""
    path = tmp_path / "report.xml"
    path.write_text(
        _camt052(
            _entry("52.00", "Miete Januar", "Hausverwaltung Schmidt")
            + _entry("0.00", "Ihr Mandat wurde geaendert", "Stadtwerke")
        ),
        encoding="utf-8",
    )
    result = scan_transactions(path)
    assert result.rows_in == 1 == result.kept.height
    assert result.kept["amount"].to_list() == [-52.0]
    (notes,) = result.notes
    assert [kind for _, kind in notes.statement_lines] == [ZERO_AMOUNT_NOTICE]
    assert notes.metadata()["not_transactions"] == {"zero-amount notice": 1}
    skipped: list[tuple[int, str]] = []
    assert len(list(iter_camt053(path, skipped))) == 1 and skipped == [(3, ZERO_AMOUNT_NOTICE)]
