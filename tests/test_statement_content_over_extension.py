"""A statement saved under another statement format's extension is read by its content: an OFX
file saved as .xml (CAMT's extension; OFX 2 is XML, and some banks' "Money/Quicken (XML)"
downloads are named so) is OFX, and inspect says the content decided; a CAMT.053 saved as .ofx
is CAMT. Each file is a small reproduction with invented names and amounts."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.export_formats import format_of
from ml_assets.core.intake.inspect_export import inspect_file

OFX2 = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>
<DTSERVER>20260312120000</DTSERVER><LANGUAGE>ENG</LANGUAGE></SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1</TRNUID><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>
<STMTRS><CURDEF>USD</CURDEF>
<BANKACCTFROM><BANKID>121000248</BANKID><ACCTID>000123456</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
<BANKTRANLIST><DTSTART>20260301</DTSTART><DTEND>20260312</DTEND>
<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20260305</DTPOSTED><TRNAMT>-45.50</TRNAMT><FITID>260305-1</FITID><NAME>BAKERY SUNRISE</NAME><MEMO>CARD 1234</MEMO></STMTTRN>
<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20260310</DTPOSTED><TRNAMT>1200.00</TRNAMT><FITID>260310-1</FITID><NAME>GARAGE VELT PAYROLL</NAME></STMTTRN>
</BANKTRANLIST>
<LEDGERBAL><BALAMT>2654.50</BALAMT><DTASOF>20260312</DTASOF></LEDGERBAL>
</STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
"""  # noqa: E501

OFX1 = (
    "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\n"
    "CHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n"
    "<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260312"
    "<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0"
    "<SEVERITY>INFO</STATUS><STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>000123456"
    "<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>20260301<DTEND>20260312\r\n"
    "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>-45.50<FITID>260305-1"
    "<NAME>BAKERY SUNRISE<MEMO>CARD 1234</STMTTRN>\r\n"
    "<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260310<TRNAMT>1200.00<FITID>260310-1"
    "<NAME>GARAGE VELT PAYROLL</STMTTRN>\r\n"
    "</BANKTRANLIST><LEDGERBAL><BALAMT>2654.50<DTASOF>20260312</LEDGERBAL></STMTRS>"
    "</STMTTRNRS></BANKMSGSRSV1></OFX>\r\n"
)

CAMT053 = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-03-12T08:00:00</CreDtTm></GrpHdr>
<Stmt><Id>S1</Id><CreDtTm>2026-03-12T08:00:00</CreDtTm>
<Acct><Id><IBAN>NL20INGB0001234567</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">45.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2026-03-05</Dt></BookgDt><ValDt><Dt>2026-03-05</Dt></ValDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Bakkerij Zon</Nm></Cdtr></RltdPties>
<RmtInf><Ustrd>brood en taart</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>
"""


@pytest.mark.parametrize("content", [OFX2, OFX1], ids=["ofx2-xml", "ofx1-sgml"])
def test_an_ofx_file_named_xml_is_read_as_ofx(tmp_path, content):
    """Both transactions are read, as the same bytes named .ofx give, and the format finding
    says the content, not the name, decided."""
    export = tmp_path / "statement.xml"
    export.write_bytes(content.encode("ascii"))
    found = inspect_file(export)
    assert found.error is None and found.fmt == "ofx"
    assert ("format", "ofx (by its content: an OFX header or <OFX> root, though named .xml)") in (
        found.facts
    )
    kept = found.result.kept
    assert found.result.quarantined.height == 0
    assert kept["posted_date"].to_list() == ["2026-03-05", "2026-03-10"]
    assert kept["amount"].to_list() == [-45.50, 1200.00]
    assert kept["currency"].to_list() == ["USD", "USD"]
    assert kept["description"].to_list() == ["BAKERY SUNRISE CARD 1234", "GARAGE VELT PAYROLL"]


def test_a_camt_statement_named_ofx_is_read_as_camt(tmp_path):
    export = tmp_path / "statement.ofx"
    export.write_text(CAMT053)
    assert format_of(export, "auto") == "camt053"
    found = inspect_file(export)
    assert found.result.kept["amount"].to_list() == [-45.50]


def test_a_camt_statement_named_xml_keeps_its_extension_finding(tmp_path):
    export = tmp_path / "statement.xml"
    export.write_text(CAMT053)
    found = inspect_file(export)
    assert ("format", "camt053 (by the extension .xml)") in found.facts
