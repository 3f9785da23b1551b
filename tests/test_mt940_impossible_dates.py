"""An MT940 ``:61:`` whose layout reads but whose value or entry date is no calendar day (month
13, 31 April) is quarantined quoting the line and naming the date, not with the date library's
bare complaint; the statement's other entries are read. A small reproduction, invented names."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.ingest import scan_transactions


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (":61:2613050305D10,00NTRFNONREF", "its value date 261305 (YYMMDD) is no calendar date (month 13)"),
        (":61:2604310305D10,00NTRFNONREF", "its value date 260431 (YYMMDD) is no calendar date (day 31 of month 4)"),
        (":61:2603051405D10,00NTRFNONREF", "its entry date 1405 (MMDD) is no calendar date (month 14)"),
    ],
)  # fmt: skip
def test_an_entry_with_an_impossible_date_is_quarantined_quoting_its_line(tmp_path, entry, said):
    export = tmp_path / "bad_month.sta"
    export.write_text(
        ":20:STMT1\n:25:NL20INGB0001234567\n:28C:1/1\n:60F:C260301EUR100,00\n"
        f"{entry}\n:86:Bakkerij Zon brood\n"
        ":61:2603060306D5,00NTRFNONREF\n:86:Garage Velt\n:62F:C260306EUR85,00\n-\n"
    )
    result = scan_transactions(export)
    assert result.kept["posted_date"].to_list() == ["2026-03-06"]
    assert result.kept["amount"].to_list() == [-5.00]
    (detail,) = result.quarantined["detail"].to_list()
    assert detail == (
        f"{export}:5: MT940 :61: line {entry!r} not readable: {said}; fix the line or ask the "
        "bank for a corrected export"
    )
