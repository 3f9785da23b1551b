"""What inspect says a file is, and what a folder's skipped files are: a JSON document of a
shape not read is said to be a JSON document (not JSONL by its extension); a camt.052 account
report or camt.054 notification, read by the camt053 reader, is named as the message it is;
a statement of a format no reader takes (Norma 43) in a folder is skipped with its own
refusal, not sent to renaming it or to raw_transactions.format. Each file is a small
reproduction with invented names and amounts."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.export_formats import skipped_files, skipped_notes
from ml_assets.core.intake.inspect_export import inspect_file, inspect_path, report
from tests.test_unread_statement_formats import NORMA43

ENTRY = """<Acct><Id><IBAN>NL20INGB0001234567</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">45.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2026-03-05</Dt></BookgDt><ValDt><Dt>2026-03-05</Dt></ValDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Bakkerij Zon</Nm></Cdtr></RltdPties>
<RmtInf><Ustrd>brood en taart</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>"""


def _camt(message: str, root: str, block: str) -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.{message}.001.02">\n'
        f"<{root}><GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-03-12T08:00:00</CreDtTm></GrpHdr>\n"
        f"<{block}><Id>S1</Id><CreDtTm>2026-03-12T08:00:00</CreDtTm>\n{ENTRY}\n"
        f"</{block}></{root}></Document>\n"
    )


@pytest.mark.parametrize(
    ("message", "root", "block", "said"),
    [
        ("052", "BkToCstmrAcctRpt", "Rpt", "camt053: a camt.052 account report"),
        ("054", "BkToCstmrDbtCdtNtfctn", "Ntfctn", "camt053: a camt.054 debit/credit notification"),
        ("053", "BkToCstmrStmt", "Stmt", "camt053"),
    ],
)
def test_a_camt_message_is_named_as_the_message_it_is(tmp_path, message, root, block, said):
    export = tmp_path / "konto.xml"
    export.write_text(_camt(message, root, block))
    found = inspect_file(export)
    assert ("format", f"{said} (by the extension .xml)") in found.facts
    assert found.result.kept["amount"].to_list() == [-45.50]


def test_a_json_document_of_a_shape_not_read_is_said_to_be_a_json_document(tmp_path):
    export = tmp_path / "transaction.json"
    export.write_text(
        '{\n  "transactionId": "T-1",\n  "bookingDate": "2026-03-05",\n'
        '  "amount": {"currency": "EUR", "amount": "-45.50"}\n}\n'
    )
    found = inspect_file(export)
    assert "a JSON document of a shape not read" in found.error
    assert found.facts == [("format", "a JSON document of a shape not read (by its content)")]


def test_a_folder_names_the_statement_format_it_skips(tmp_path):
    """Beside an export it reads, a Norma 43 file is skipped with what to load instead, and a
    notes file with the general advice."""
    (tmp_path / "checking.csv").write_text(
        "Date,Description,Amount\n2026-03-05,Bakery Sunrise,-4.50\n2026-03-06,Kiosk,-2.00\n"
    )
    (tmp_path / "extracto.txt").write_text(NORMA43)
    (tmp_path / "notes.md").write_text("my exports\n")
    notes = skipped_notes(tmp_path, skipped_files(tmp_path, "auto"))
    assert notes[0].startswith("extracto.txt: a Norma 43")
    assert "csb2format extracto.txt extracto.ofx" in notes[0]
    assert "rename" not in notes[0] and "raw_transactions.format" not in notes[0]
    assert notes[1].startswith("1 file(s) the load does not read") and "notes.md" in notes[1]
    text = report(tmp_path, inspect_path(tmp_path))
    assert "# skipped: extracto.txt: a Norma 43" in text
    assert "# skipped: 1 file(s) the load does not read" in text
