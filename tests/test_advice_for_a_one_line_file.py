"""A file of one line without a header is refused with the settings that would read it; where
its one date reads with the day or the month first (HSBC India's card CSV: "10/01/2025"),
the advice names both formats and the day each reads, not one order silently. The file is
written here in the bank's layout, with an invented row."""

from __future__ import annotations

from tests.test_inspect_export import inspect


def test_a_one_line_file_whose_date_reads_both_ways_is_advised_both_formats(tmp_path, capsys):
    export = tmp_path / "card.csv"
    export.write_text('10/01/2025,INVENTED ONLINE PAYMENT 09/01/2025 1234  ,"12,345.67"\r\n')
    code, out, _ = inspect(export, capsys)
    assert code != 0
    assert (
        "date_format: '%d/%m/%Y' (2025-01-10, day first) or '%m/%d/%Y' (2025-10-01, month "
        "first), whichever the bank writes: '10/01/2025' reads both ways" in " ".join(out.split())
    )


def test_a_one_line_file_whose_date_reads_one_way_is_advised_that_format(tmp_path, capsys):
    export = tmp_path / "card.csv"
    export.write_text('25/01/2025,INVENTED ONLINE PAYMENT 24/01/2025 1234  ,"12,345.67"\r\n')
    code, out, _ = inspect(export, capsys)
    assert code != 0
    assert "date_format: '%d/%m/%Y' (and spending" in " ".join(out.split())
