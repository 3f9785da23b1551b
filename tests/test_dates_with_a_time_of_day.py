"""A date column whose cells carry the time of day after the date (Bangkok Bank's "22 May
2025 21:27") reads as the dates of a format the project already knows, with hours and
minutes (and seconds) after them; a month's name reads written short or in full, whichever
the first rows chose. The file is written here in the bank's layout, with invented rows."""

from __future__ import annotations

from ml_assets.core.intake.records import parse_date_text
from ml_assets.core.intake.sniffing import sniff_date_format
from tests.test_issuer_csv_layouts import loaded


def test_a_bangkok_bank_statement_with_times_reads(tmp_path, capsys):
    export = tmp_path / "bkk-statement.csv"
    export.write_text(
        'Account Nickname,"",Ledger Balance,"8,100.00",\r\n'
        'Account Number,"987-6-543210",Available Balance,"8,100.00",\r\n'
        "\r\n"
        ",,\r\n"
        '"Be1st Card Number","9876-54xx-xxxx-3210",\r\n'
        "\r\n"
        ",Date,Description,Debit,Credit,Balance,Channel,\r\n"
        '" ","14 Apr 2026 18:22","Payment for Goods /Services","400.00","","8,100.00","MOB",\r\n'
        '" ","12 Apr 2026 08:05","Cash Withdrawal - BBL ATM","1,500.00","","8,500.00","ATM",\r\n'
        '" ","10 Apr 2026 10:30","Transfer","","10,000.00","10,000.00","MOB",\r\n'
        '\t\t,\t\t,"Total","1,900.00","10,000.00",\t\t,\t\t,\r\n',
        encoding="utf-8",
    )
    out, section, result, counted = loaded(export, capsys)
    assert section["date_format"] == "%d %b %Y %H:%M"
    assert result.kept["posted_date"].to_list() == ["2026-04-14", "2026-04-12", "2026-04-10"]
    assert result.kept["amount"].to_list() == [-400.0, -1500.0, 10000.0]
    assert counted == 1 and result.quarantined.height == 0


def test_every_known_date_format_reads_with_a_time_after_it():
    """Day first or month first, dotted, slashed, ISO-like or with a month's name: the time
    of day after the date, with or without seconds, leaves the date to read."""
    for dates, expected in (
        (["13/04/2026 09:15", "14/04/2026 17:40"], "%d/%m/%Y %H:%M"),
        (["2026/04/13 09:15:02", "2026/04/14 17:40:59"], "%Y/%m/%d %H:%M:%S"),
        (["13-Apr-2026 09:15", "14-Apr-2026 17:40"], "%d-%b-%Y %H:%M"),
        (["04-13-2026 09:15", "04-14-2026 17:40"], "%m-%d-%Y %H:%M"),
    ):
        assert sniff_date_format(dates)[0] == expected, dates


def test_a_month_name_reads_written_short_or_in_full():
    """Dates whose first rows all fall in May tell no short month name from a full one: the
    format chosen reads a later "Mar" and "March" alike (and a month of another language)."""
    fmt = sniff_date_format(["22 May 2025", "23 May 2025"])[0]
    later = ("3 Mar 2025", "3 March 2025", "3 Sept 2025", "24 lug 2025")
    read = [parse_date_text(text, fmt).date().isoformat() for text in later]
    assert read == ["2025-03-03", "2025-03-03", "2025-09-03", "2025-07-24"]


def test_a_statement_whose_sampled_rows_fall_in_may_reads_its_march_rows(tmp_path, capsys):
    """The date format is sniffed from a file's first rows; a long statement's rows after them
    in another month read all the same."""
    export = tmp_path / "statement.csv"
    may = [f"{day} May 2026,Bakery Sunrise {i},-4.{i % 90 + 10}" for i, day in
           enumerate(list(range(31, 0, -1)) * 9)]  # fmt: skip
    march = ["30 Mar 2026,Garage Velt,1200.00", "2 March 2026,Tram pass,-55.00"]
    export.write_text("Date,Description,Amount\n" + "\n".join(may + march) + "\n")
    _, _, result, _ = loaded(export, capsys)
    assert result.quarantined.height == 0
    assert result.kept["posted_date"].to_list()[-2:] == ["2026-03-30", "2026-03-02"]
