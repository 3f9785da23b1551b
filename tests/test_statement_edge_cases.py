"""Statement files as banks and browsers really leave them: cut off mid-download, a byte-order
mark before the header, a bill payment's PAYEE, a transaction in another currency, MT940
details wrapped at a hyphen, CAMT.053 amounts beside instructed amounts and charges, batches
and reference placeholders, a prefixed namespace, MT940 saved as .txt. Rows in = kept +
quarantined on every file, and every value read is checked."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_path, report

OFX_HEADER = (
    "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\n"
    "CHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n"
)
SIGNON = (
    "<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260131"
    "<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>"
)


def ofx_transaction(fitid: int, amount: str, name: str, extra: str = "") -> str:
    return (
        f"<STMTTRN>\r\n<TRNTYPE>DEBIT\r\n<DTPOSTED>202601{fitid:02d}\r\n<TRNAMT>{amount}\r\n"
        f"<FITID>{fitid}\r\n{name}{extra}\r\n</STMTTRN>\r\n"
    )


def ofx_file(transactions: list[str]) -> str:
    return (
        f"{OFX_HEADER}<OFX>\r\n{SIGNON}\r\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0"
        "<SEVERITY>INFO</STATUS><STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>1<ACCTID>9"
        "<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n<BANKTRANLIST><DTSTART>20260101<DTEND>20260131\r\n"
        + "".join(transactions)
        + "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1>\r\n</OFX>\r\n"
    )


def test_an_ofx_cut_off_keeps_what_came_before_and_quarantines_the_rest(tmp_path):
    whole = ofx_file([ofx_transaction(n, f"-{n}.00", f"<NAME>SHOP {n}") for n in range(1, 6)])
    cut = whole.index("<STMTTRN>", whole.index("<FITID>3"))
    between = tmp_path / "between.ofx"
    between.write_text(whole[:cut])
    inside = tmp_path / "inside.ofx"
    inside.write_text(whole[: whole.index("<FITID>4")])
    for path in (between, inside):
        result = scan_transactions(path)
        assert result.kept["amount"].to_list() == [-1.0, -2.0, -3.0]
        assert result.rows_in == 4 and dict(result.reasons) == {"truncated_file": 1}
        detail = result.quarantined["detail"][0]
        assert str(path) in detail and "cut-off download" in detail and "re-download" in detail
    complete = tmp_path / "complete.ofx"
    complete.write_text(whole)
    read = scan_transactions(complete)
    assert read.rows_in == 5 == read.kept.height


def test_a_cut_off_file_stops_the_load_however_small_its_share(tmp_path):
    from ml_assets.core.intake.partitions import days_between
    from ml_assets.core.intake.quarantine import quarantine_verdict
    from ml_assets.core.intake.raw_days import export_days, files_split
    from ml_assets.core.params import RawTransactionsParams

    whole = ofx_file([ofx_transaction(n, f"-{n}.00", f"<NAME>SHOP {n}") for n in range(1, 29)])
    path = tmp_path / "checking.ofx"
    path.write_text(whole[: whole.index("<STMTTRN>", whole.index("<FITID>27"))])  # 27 read
    settings = RawTransactionsParams(source="files", path=str(tmp_path))
    files = {path.name: path}
    days = sorted(export_days(files, settings))
    split = files_split(files, settings, days_between(days[0], days[-1]))
    stop = quarantine_verdict(split, 0.6, settings.quarantine_min_day_rows)  # 1 of 28: 3.6 %
    assert stop.startswith("raw_transactions: export checking.ofx is cut off: ")
    assert "re-download" in stop and "(its other 27 rows read)" in stop


def test_ofx_bom_blank_line_payee_aggregate_and_a_transaction_in_another_currency(tmp_path):
    payee = "<PAYEE><NAME>PACIFIC GAS AND ELECTRIC<ADDR1>PO BOX 1<CITY>SACRAMENTO<STATE>CA"
    payee += "<POSTALCODE>95899<PHONE>8007435000</PAYEE><MEMO>ACCT 1234-5"
    pounds = "<CURRENCY><CURRATE>1.27<CURSYM>GBP</CURRENCY>"
    path = tmp_path / "bill_pay.ofx"
    text = ofx_file(
        [
            ofx_transaction(1, "-89.99", payee),
            ofx_transaction(2, "-100.00", "<NAME>HARRODS LONDON", pounds),
        ]
    )
    path.write_bytes(b"\xef\xbb\xbf\r\n" + text.encode())
    result = scan_transactions(path)
    assert result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "PACIFIC GAS AND ELECTRIC ACCT 1234-5",
        "HARRODS LONDON",
    ]
    assert result.kept["currency"].to_list() == ["USD", "GBP"]


MT940_HEAD = [":20:STARTUMSE", ":25:37040044/0532013000", ":28C:00001/001", ":60F:C260101EUR100,00"]
FREE_TEXT = "PAYPAL EUROPE S.A.R.L. ET CIE S.C.A. 1034567890 PP.1234.PP ABONNEMENT SPOTIFY"
MT940_ENTRIES = [
    ":61:2601050105DR12,50NMSCNONREF",
    ":86:106?00KARTENZAHLUNG?109310?20SVWZ+2026-01",
    "-05T18:22 Debitk.1 REWE SAGT DANKE?32REWE Markt GmbH",
    ":61:2601060106DR20,00NMSCNONREF",
    f":86:{FREE_TEXT[:61]}",  # cut at 65 characters, inside "ABONNEMENT"
    FREE_TEXT[61:],
]


def test_mt940_details_wrapped_at_a_hyphen_or_inside_a_word_stay_whole_and_a_cut_file_says_so(
    tmp_path,
):
    whole = tmp_path / "umsaetze.sta"
    whole.write_bytes(
        "\r\n".join([*MT940_HEAD, *MT940_ENTRIES, ":62F:C260106EUR67,50", "-"]).encode()
    )
    result = scan_transactions(whole)
    assert result.rows_in == 2 and result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "REWE Markt GmbH 2026-01-05T18:22 Debitk.1 REWE SAGT DANKE",
        FREE_TEXT,
    ]
    cut = tmp_path / "cut.sta"
    cut.write_bytes("\r\n".join([*MT940_HEAD, *MT940_ENTRIES]).encode())
    result = scan_transactions(cut)
    assert result.kept["amount"].to_list() == [-12.5]
    assert result.rows_in == 2 and reasons(result) == {8: "truncated_file"}


def reasons(result) -> dict[int, str]:
    return dict(zip(result.quarantined["line"], result.quarantined["reason"], strict=True))


CAMT = """<?xml version="1.0" encoding="UTF-8"?>
<{p}Document xmlns{colon}{prefix}="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<{p}BkToCstmrStmt><{p}Stmt><{p}Id>1</{p}Id>
<{p}Acct><{p}Id><{p}IBAN>DE89370400440532013000</{p}IBAN></{p}Id></{p}Acct>
{entries}
</{p}Stmt></{p}BkToCstmrStmt></{p}Document>
"""


def camt_entry(amount, sign, reference, details, reversal=False) -> str:
    flag = "<RvslInd>true</RvslInd>" if reversal else ""
    return (
        f'<Ntry><Amt Ccy="EUR">{amount}</Amt><CdtDbtInd>{sign}</CdtDbtInd>{flag}'
        f"<BookgDt><Dt>2026-01-05</Dt></BookgDt><AcctSvcrRef>{reference}</AcctSvcrRef>"
        f"<NtryDtls>{details}</NtryDtls></Ntry>"
    )


def camt_detail(party: str, role: str, text: str, own: str = "", end: str = "NOTPROVIDED") -> str:
    return (
        f"<TxDtls><Refs><EndToEndId>{end}</EndToEndId></Refs>{own}"
        f"<RltdPties><{role}><Nm>{party}</Nm></{role}></RltdPties>"
        f"<RmtInf><Ustrd>{text}</Ustrd></RmtInf></TxDtls>"
    )


def write_camt(path: Path, entries: list[str], prefix: str = "") -> Path:
    p = f"{prefix}:" if prefix else ""
    body = "".join(entries)
    if prefix:  # every element of the document under the prefix
        body = body.replace("</", "\0").replace("<", f"<{p}").replace("\0", f"</{p}")
    colon = ":" if prefix else ""
    path.write_text(CAMT.format(p=p, colon=colon, prefix=prefix, entries=body))
    return path


def test_camt053_amounts_signs_parties_and_ids_as_iso_20022_places_them(tmp_path):
    abroad = (  # the instructed amount in dollars comes first; the account moved 28.63 EUR
        '<AmtDtls><InstdAmt><Amt Ccy="USD">31.05</Amt></InstdAmt>'
        '<TxAmt><Amt Ccy="EUR">28.63</Amt></TxAmt></AmtDtls>'
    )
    charges = '<Chrgs><Amt Ccy="EUR">15.00</Amt><CdtDbtInd>DBIT</CdtDbtInd></Chrgs>'
    batch_amounts = ['<AmtDtls><TxAmt><Amt Ccy="EUR">250.00</Amt></TxAmt></AmtDtls>'] * 2
    entries = [
        camt_entry("28.63", "DBIT", "R1", camt_detail("AMAZON.COM", "Cdtr", "ORDER 1", abroad)),
        camt_entry("1409.14", "CRDT", "R2", camt_detail("ACME INC", "Dbtr", "INVOICE", charges)),
        camt_entry(  # a returned direct debit: the money comes back from the creditor
            "39.90", "CRDT", "R3", camt_detail("FITNESS FIRST", "Cdtr", "RUECKLASTSCHRIFT"), True
        ),
        camt_entry(  # two identical transfers in one batch, EndToEndId not provided
            "500.00",
            "DBIT",
            "R4",
            "".join(camt_detail("KITA", "Cdtr", "BEITRAG", own) for own in batch_amounts),
        ),  # fmt: skip
        camt_entry(  # a batch booked as one sum whose details carry no amounts
            "300.00",
            "DBIT",
            "R5",
            camt_detail("A GMBH", "Cdtr", "RG 1") + camt_detail("B GMBH", "Cdtr", "RG 2"),
        ),  # fmt: skip
        camt_entry("5.00", "DBIT", "NONREF", camt_detail("KIOSK", "Cdtr", "KARTE")),
        camt_entry("5.00", "DBIT", "NONREF", camt_detail("BAECKER", "Cdtr", "KARTE")),
    ]
    for prefix in ("", "ns2"):
        result = scan_transactions(write_camt(tmp_path / f"camt{prefix}.xml", entries, prefix))
        assert result.rows_in == 8 and result.quarantined.height == 0, result.quarantined
        kept = result.kept
        assert kept["amount"].to_list() == [
            -28.63, 1409.14, 39.9, -250.0, -250.0, -300.0, -5.0, -5.0
        ]  # fmt: skip
        assert set(kept["currency"]) == {"EUR"}
        assert kept["merchant"].to_list() == [
            "AMAZON.COM", "ACME INC", "FITNESS FIRST", "KITA", "KITA", None, "KIOSK", "BAECKER"
        ]  # fmt: skip
        ids = kept["transaction_id"].to_list()
        assert ids[:6] == ["R1", "R2", "R3", "R4/0", "R4/1", "R5"]
        assert ids[6].startswith("d-") and ids[7].startswith("d-") and ids[6] != ids[7]


def balances(opening: str, closing: str) -> str:
    return "".join(
        f'<Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">{amount}</Amt>'
        f"<CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-0{day}</Dt></Dt></Bal>"
        for code, amount, day in (("OPBD", opening, 1), ("CLBD", closing, 9))
    )


def warnings_of(result) -> list[str]:
    return [w for notes in result.notes for w in notes.warnings]


def test_rows_that_do_not_reach_the_stated_closing_balance_are_warned(tmp_path):
    """CAMT.053 (OPBD/CLBD) and MT940 (:60F:/:62F:): the opening balance and the rows as read
    must reach the closing one; a gap names the statement, its line and the amount."""
    entries = [camt_entry("28.63", "DBIT", "R1", camt_detail("AMAZON", "Cdtr", "ORDER"))]
    path = write_camt(tmp_path / "camt.xml", entries)
    agreeing = path.read_text().replace("</Acct>", "</Acct>" + balances("100.00", "71.37"))
    path.write_text(agreeing)
    assert warnings_of(scan_transactions(path)) == []
    path.write_text(agreeing.replace("71.37", "61.37"))
    (gap,) = warnings_of(scan_transactions(path))
    assert f"{path}:" in gap and "statement 1" in gap and "-10.00 unaccounted" in gap
    mt940 = tmp_path / "umsaetze.sta"
    mt940.write_bytes(
        "\r\n".join([*MT940_HEAD, *MT940_ENTRIES, ":62F:C260106EUR67,50", "-"]).encode()
    )
    assert warnings_of(scan_transactions(mt940)) == []
    mt940.write_bytes(
        "\r\n".join([*MT940_HEAD, *MT940_ENTRIES, ":62F:C260106EUR77,50", "-"]).encode()
    )
    (gap,) = warnings_of(scan_transactions(mt940))
    assert f"{mt940}:11: statement STARTUMSE" in gap and "+10.00 unaccounted" in gap


def test_a_statement_named_txt_is_read_by_its_content_and_other_files_are_named(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    lines = [*MT940_HEAD, *MT940_ENTRIES, ":62F:C260106EUR67,50", "-"]
    (folder / "umsaetze_januar.txt").write_bytes("\r\n".join(lines).encode())
    (folder / "notes.md").write_text("downloaded on the 7th\n")
    result = scan_transactions(folder)
    assert result.rows_in == 2 and result.kept.height == 2
    inspections = inspect_path(folder)
    assert [found.fmt for found in inspections] == ["mt940"]
    text = report(folder, inspections)
    assert "mt940 (by its content)" in text
    assert "# skipped: 1 file(s) the load does not read" in text and "notes.md" in text


def test_a_broken_download_is_advised_to_be_downloaded_again(tmp_path):
    from ml_assets.core.intake.quarantine import quarantine_advice

    broken = pl.DataFrame({"reason": ["truncated_file", "unreadable_file"]})
    assert quarantine_advice(broken).startswith("Re-download the named files")
    mixed = pl.DataFrame({"reason": ["truncated_file", "bad_amount"]})
    assert "column_map" in quarantine_advice(mixed)


def test_inspect_says_nothing_of_ids_or_rows_of_a_file_it_could_not_read(tmp_path):
    path = tmp_path / "camt.xml"
    path.write_text('<?xml version="1.0"?>\n<Document><BkToCstmrStmt><Stmt>\n<Ntry>')
    text = report(path, inspect_path(path))
    assert "unreadable" not in text and "not a readable XML file" in text
    assert "ids:" not in text and "first rows" not in text and "1 in: 0 kept, 1 quarantined" in text
