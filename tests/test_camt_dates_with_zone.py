"""camt dates written as XML Schema's xs:date with a time zone, which camt's ISODate allows
("2017-04-01+02:00", "2025-03-04Z"; Raiffeisen Switzerland writes it on every entry): each
entry is read on the day as written, the zone never moving it. The statement is written here
in that layout, not copied."""

from __future__ import annotations

from ml_assets.core.intake.camt_entries import camt_day
from ml_assets.core.intake.ingest import scan_transactions

_ENTRY = """
      <Ntry>
        <Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>{way}</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><Dt>{booked}</Dt></BookgDt><ValDt><Dt>{value}</Dt></ValDt>
        <AcctSvcrRef>{ref}</AcctSvcrRef>
        <AddtlNtryInf>{text}</AddtlNtryInf>
      </Ntry>"""


def _statement(entries: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2025-03-05T08:00:00.000+01:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>STMT-1</Id><CreDtTm>2025-03-05T08:00:00.000+01:00</CreDtTm>
      <Acct><Id><IBAN>CH9300000000000000000</IBAN></Id></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="CHF">300.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2025-02-28+01:00</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="CHF">1195.60</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2025-03-04+01:00</Dt></Dt></Bal>{entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>
"""


def test_dates_with_a_zone_are_read_on_the_day_written(tmp_path):
    """Three entries dated "+01:00", "-05:00" and "Z": all kept, each on its own day (a
    shift to UTC would move the first to the day before), the balances adding up."""
    entries = "".join(
        _ENTRY.format(amount=a, way=w, booked=b, value=v, ref=r, text=t)
        for a, w, b, v, r, t in (
            ("24.40", "DBIT", "2025-03-01+01:00", "2025-03-03+01:00", "R1", "Panetteria Sole"),
            ("1000.00", "CRDT", "2025-03-02-05:00", "2025-03-02-05:00", "R2", "Stipendio Ruota"),
            ("80.00", "DBIT", "2025-03-04Z", "2025-03-04Z", "R3", "Elettrica Valle"),
        )
    )
    path = tmp_path / "statement.xml"
    path.write_text(_statement(entries), encoding="utf-8")
    result = scan_transactions(path)
    assert result.quarantined.height == 0 and result.rows_in == 3
    assert result.kept["posted_date"].to_list() == ["2025-03-01", "2025-03-02", "2025-03-04"]
    assert result.kept["amount"].to_list() == [-24.4, 1000.0, -80.0]
    assert [w for notes in result.notes for w in notes.warnings] == []


def test_a_value_date_with_a_zone_dates_an_entry_without_a_booking_date(tmp_path):
    entry = _ENTRY.format(
        amount="895.60", way="CRDT", booked="", value="2025-03-03+02:00", ref="R9", text="Rimborso"
    ).replace("<BookgDt><Dt></Dt></BookgDt>", "")
    path = tmp_path / "statement.xml"
    path.write_text(_statement(entry), encoding="utf-8")
    result = scan_transactions(path)
    assert result.kept["posted_date"].to_list() == ["2025-03-03"]


def test_camt_day_drops_only_a_dates_zone():
    assert camt_day("2017-04-01+02:00") == "2017-04-01"
    assert camt_day("2025-03-04Z") == "2025-03-04"
    assert camt_day("2025-03-04") == "2025-03-04"
    # a date and time keeps its time: the date is read before it, as written
    assert camt_day("2025-03-01T00:30:00+01:00") == "2025-03-01T00:30:00+01:00"
    assert camt_day("2025-13-45+01:00") == "2025-13-45"  # (then refused as no date, as before)
    assert camt_day(None) is None
