"""ISO 20022 cash-management files as public samples show them: camt.054 notifications
(PostFinance's ESR credits, the Finnish banks' sample), a camt.052 report with a pending
pre-notice, PostFinance reusing one AcctSvcrRef for two entries, a charges entry with no
text, a batch whose only text is its file id, and text wrapped over lines or holding soft
hyphens. Every file is written by the test, a few entries in the standard's layout."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.camt053 import iter_camt053
from ml_assets.core.intake.export_formats import format_of
from ml_assets.core.intake.ingest import scan_transactions

ROOTS = {"053": ("BkToCstmrStmt", "Stmt"), "052": ("BkToCstmrAcctRpt", "Rpt")}
ROOTS["054"] = ("BkToCstmrDbtCdtNtfctn", "Ntfctn")


def camt(kind: str, entries: list[str], version: str = "04") -> str:
    """A camt.05x document of one block (statement, report or notification) of entries."""
    root, block = ROOTS[kind]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.{kind}.001.{version}">\n'
        f"<{root}><GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-04-24T21:00:00</CreDtTm></GrpHdr>\n"
        f"<{block}><Id>B1</Id>\n"
        "<Acct><Id><IBAN>CH2909000000250094239</IBAN></Id><Ccy>CHF</Ccy></Acct>\n"
        + "\n".join(entries)
        + f"\n</{block}></{root}>\n</Document>\n"
    )


def entry(amount: str, sign: str, inner: str, status: str = "<Sts>BOOK</Sts>") -> str:
    return (
        f'<Ntry><Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>{sign}</CdtDbtInd>{status}'
        f"<BookgDt><Dt>2026-04-24</Dt></BookgDt>{inner}</Ntry>"
    )


def credit(name: str, text: str) -> str:
    return (
        f"<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>{name}</Nm></Dbtr></RltdPties>"
        f"<RmtInf><Ustrd>{text}</Ustrd></RmtInf></TxDtls></NtryDtls>"
    )


def code(family: str, sub_family: str, proprietary: str = "") -> str:
    found = f"<Prtry><Cd>{proprietary}</Cd></Prtry>" if proprietary else ""
    return (
        f"<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>{family}</Cd>"
        f"<SubFmlyCd>{sub_family}</SubFmlyCd></Fmly></Domn>{found}</BkTxCd>"
    )


def read(path: Path):
    """The scan of ``path``: every row kept, quarantined or a dropped duplicate."""
    result = scan_transactions(path)
    assert result.kept.height + result.quarantined.height + result.duplicates == result.rows_in
    return result


def test_a_camt054_notification_is_read_like_a_statement_by_extension_and_content(tmp_path):
    """camt.054's notifications (``Ntfctn``) hold entries as statements do: one row per
    detail, the account's IBAN, no balances and so no balance warning. A camt.052, .053 or
    .054 without an extension is told by its content."""
    entries = [
        entry("250.00", "CRDT", "<AcctSvcrRef>N-1</AcctSvcrRef>" + credit("Maria", "Rg 4711")),
        entry("147.00", "DBIT", "<AcctSvcrRef>N-2</AcctSvcrRef>" + credit("X", "ASR")),
    ]
    text = camt("054", entries)
    for name in ("notification.xml", "notification"):
        path = tmp_path / name
        path.write_text(text)
        assert format_of(path, "auto") == "camt053"
        result = read(path)
        assert result.quarantined.height == 0
        assert result.kept["amount"].to_list() == [250.0, -147.0]
        assert result.kept["description"][0] == "Maria Rg 4711"
        assert result.kept["transaction_id"].to_list() == ["N-1", "N-2"]
        assert set(result.kept["account_id"]) == {"CH2909000000250094239"}
        assert [w for notes in result.notes for w in notes.warnings] == []
    report = tmp_path / "report"
    report.write_text(camt("052", entries))
    assert format_of(report, "auto") == "camt053"


def test_a_bank_reference_reused_by_two_entries_keeps_both_and_a_repeat_download_dedups(
    tmp_path,
):
    """PostFinance gives two different credits the same AcctSvcrRef: both are kept, told
    apart by their NtryRef (or, without one, by derived ids); the same file downloaded twice
    adds no rows."""
    shared = "<AcctSvcrRef>07582000303KBMSU</AcctSvcrRef>"
    with_entry_refs = [
        entry("1537.00", "CRDT", f"<NtryRef>014295803</NtryRef>{shared}" + credit("A", "ESR")),
        entry("1692.22", "CRDT", f"<NtryRef>CH7730000001</NtryRef>{shared}" + credit("B", "Gs")),
    ]
    without = [
        entry("1537.00", "CRDT", shared + credit("A", "ESR")),
        entry("1692.22", "CRDT", shared + credit("B", "Gs")),
    ]
    for name, entries in (("with_ntryref", with_entry_refs), ("without", without)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "camt_1.xml").write_text(camt("053", entries))
        (folder / "camt_2.xml").write_text(camt("053", entries))
        single = read(folder / "camt_1.xml")
        assert single.quarantined.height == 0
        assert single.kept["amount"].to_list() == [1537.0, 1692.22]
        ids = single.kept["transaction_id"].to_list()
        assert len(set(ids)) == 2
        if name == "with_ntryref":
            assert ids == ["07582000303KBMSU/014295803", "07582000303KBMSU/CH7730000001"]
        both = read(folder)
        assert both.kept.height == 2 and both.duplicates == 2 and both.quarantined.height == 0
    # one entry written twice in a file under one reference is still one entry
    repeated = tmp_path / "repeated.xml"
    repeated.write_text(camt("053", [with_entry_refs[0]] * 2))
    result = read(repeated)
    assert result.kept["transaction_id"].to_list() == ["07582000303KBMSU"]
    assert result.duplicates == 1


def test_pending_and_information_entries_are_counted_not_kept(tmp_path):
    """A camt.052 pre-notice (``PDNG``, or ``<Sts><Cd>PDNG</Cd></Sts>`` from .001.08) is
    booked later, in the camt.053: kept, it would be counted twice. Pending and
    information (``INFO``) entries are counted as lines that are not transactions."""
    booked = entry("100.00", "CRDT", credit("DEBTOR", "RENT"))
    pending = entry("2120.00", "CRDT", credit("DEBTOR NAME", "INVOICE 1"), "<Sts>PDNG</Sts>")
    coded = entry("5.00", "DBIT", credit("SHOP", "CARD"), "<Sts><Cd>PDNG</Cd></Sts>")
    info = entry("0.00", "CRDT", credit("BANK", "NOTICE"), "<Sts>INFO</Sts>")
    path = tmp_path / "report.xml"
    path.write_text(camt("052", [booked, pending, info], "02"))
    newer = tmp_path / "report_08.xml"
    newer.write_text(camt("052", [coded, booked], "08"))
    skipped: list[tuple[int, str]] = []
    rows = list(iter_camt053(path, skipped))
    assert [record["description"] for _, record, _ in rows] == ["DEBTOR RENT"]
    assert [kind for _, kind in skipped] == ["pending transaction", "information entry"]
    assert read(path).kept["description"].to_list() == ["DEBTOR RENT"]
    assert read(newer).kept["amount"].to_list() == [100.0]
    warnings: list[str] = []  # a caller that counts no lines hears of them
    assert len(list(iter_camt053(newer, warnings=warnings))) == 1
    assert warnings == [f"{newer}: entries not booked, not read as transactions: "
                        "1 pending transaction(s)"]  # fmt: skip


def test_an_entry_without_text_is_described_by_its_bank_transaction_code(tmp_path):
    """A charge names no creditor and has no text: its transaction code in words, with the
    one party it names. A batch whose only text is the id of its file is described by its
    code, the id only where the code says nothing; a SWIFT type given as the proprietary
    code (NCHG) is read too."""
    only_debtor = "<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>SEB</Nm></Dbtr></RltdPties></TxDtls>"
    batch = "<NtryDtls><Btch><MsgId>BANKFILEID998765</MsgId><NbOfTxs>2</NbOfTxs></Btch>"
    entries = [
        entry("200.00", "DBIT", "<AcctSvcrRef>C1</AcctSvcrRef>" + code("CCRD", "CHRG")
              + only_debtor + "</NtryDtls>"),
        entry("2000.00", "CRDT", "<AcctSvcrRef>C2</AcctSvcrRef>" + code("RCDT", "DMCT")
              + batch + "</NtryDtls>"),
        entry("3.50", "DBIT", "<AcctSvcrRef>C3</AcctSvcrRef>" + code("NTAV", "NTAV", "NCHG+808")),
        entry("500.00", "CRDT", "<AcctSvcrRef>C4</AcctSvcrRef>" + code("NTAV", "NTAV")
              + batch + "</NtryDtls>"),
    ]  # fmt: skip
    path = tmp_path / "statement.xml"
    path.write_text(camt("053", entries))
    result = read(path)
    assert result.quarantined.height == 0, result.quarantined["detail"].to_list()
    assert result.kept["description"].to_list() == [
        "card charges SEB",
        "received credit transfer",
        "Charges",
        "BANKFILEID998765",
    ]
    assert result.kept["merchant"].to_list() == [None] * 4


def test_line_breaks_and_soft_hyphens_are_not_kept_in_descriptions(tmp_path):
    """Banks wrap AddtlNtryInf and remittance text over lines and write soft hyphens
    (U+00AD) into dates: one line of text, whitespace runs one space, soft hyphens gone."""
    wrapped = "<AddtlNtryInf>Acquisto MIGROS\n    31.03.2017/13:30</AddtlNtryInf>"
    entries = [
        entry("158.50", "DBIT", "<AcctSvcrRef>W1</AcctSvcrRef>" + wrapped),
        entry("12.00", "DBIT", "<AcctSvcrRef>W2</AcctSvcrRef>" + credit("ING", "10\xad06\xad2010 TMG")),
    ]  # fmt: skip
    path = tmp_path / "wrapped.xml"
    path.write_text(camt("053", entries), encoding="utf-8")
    assert read(path).kept["description"].to_list() == [
        "Acquisto MIGROS 31.03.2017/13:30",
        "10062010 TMG",  # (the debtor of a debit is the account holder: no party)
    ]


def test_abn_amros_tab_download_is_a_table_by_its_extension():
    """ABN AMRO names its tab-separated downloads TXT<date>.TAB: read as CSV, the delimiter
    sniffed."""
    assert format_of(Path("TXT260424123456.TAB"), "auto") == "csv"
