"""A small OFX 1 (SGML) bank statement written by a test: a Brazilian bank's header and
layout (one statement, BRL, time zones in the dates), with the transactions the test gives."""

from __future__ import annotations

from pathlib import Path

HEADER = (
    "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\n"
    "CHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n"
)


def ofx_statement(
    path: Path, rows: list[tuple[str, str, str, str]], account: str = "55554444"
) -> Path:
    """``path`` written as one checking statement of ``account`` holding ``rows`` of
    (YYYYMMDD, TRNAMT as written, FITID, MEMO), one STMTTRN of 7 lines each from line 15."""
    transactions = "".join(
        f"<STMTTRN>\n<TRNTYPE>{'DEBIT' if amount.startswith('-') else 'CREDIT'}\n"
        f"<DTPOSTED>{day}000000[-3:GMT]\n<TRNAMT>{amount}\n<FITID>{fitid}\n<MEMO>{memo}\n"
        "</STMTTRN>\n"
        for day, amount, fitid, memo in rows
    )
    path.write_text(
        f"{HEADER}<OFX>\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS>"
        "<DTSERVER>20240430120000[-3:BRT]<LANGUAGE>POR</SONRS></SIGNONMSGSRSV1>\n"
        "<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\n"
        f"<STMTRS><CURDEF>BRL<BANKACCTFROM><BANKID>336<ACCTID>{account}<ACCTTYPE>CHECKING"
        "</BANKACCTFROM>\n<BANKTRANLIST><DTSTART>20240401<DTEND>20240430\n"
        f"{transactions}</BANKTRANLIST><LEDGERBAL><BALAMT>100,00<DTASOF>20240430</LEDGERBAL>"
        "</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n",
        encoding="ascii",
    )
    return path
