"""A .txt statement printed to fixed-width columns (a bank's card account report under ruled
lines) is refused with advice that helps: what the file is and what to download instead, not
to rename it to .csv, which reads nothing. The report is written here in that layout (Cyrillic
in cp1251, as the bank writes it), not copied."""

from __future__ import annotations

from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.printed_reports import looks_printed

_REPORT = """\
                                   B A N K   O F   T E S T
                                   ОТЧЕТ ПО СЧЕТУ КАРТЫ

ОТЧЕТ СОСТАВЛЕН ЗА ПЕРИОД               ДАТА СОСТАВЛЕНИЯ ОТЧЕТА       СТРАНИЦА
        01ФЕВ25 - 28ФЕВ25                             28ФЕВ25              001

ОСТАТОК НА НАЧАЛО ПЕРИОДА:                                                 150.00
--------------------+-----+-----+-------+--------------------------+---------------+----------
     ТИП КАРТЫ      |ДАТА |ДАТА |  №    |   МЕСТО СОВЕРШЕНИЯ       |   СУММА       |  СУММА
--------------------+-----+-----+-------+--------------------------+---------------+----------
ОСНОВНАЯ            03ФЕВ 04ФЕВ25 104233 KAFE ZVEZDA            RUR        420.00      420.00
                                            TVER         RUS
ОСНОВНАЯ            09ФЕВ 10ФЕВ25 118901 APTEKA LUCH            RUR        188.50      188.50
                                            TVER         RUS
--------------------+-----+-----+-------+--------------------------+---------------+----------
ОСТАТОК НА КОНЕЦ ПЕРИОДА:                                                 -458.50
"""


def test_a_printed_report_is_refused_with_what_to_download(tmp_path):
    path = tmp_path / "card_report.txt"
    path.write_bytes(_REPORT.replace("\n", "\r\n").encode("cp1251"))
    found = inspect_file(path)
    assert found.error is not None
    assert "printed statement laid out in fixed-width columns" in found.error
    assert "rename" not in found.error and "CSV" in found.error


def test_other_text_keeps_the_advice_to_try_it_as_csv(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text(
        "Paid the plumber 120.00 on Monday and the electrician 80.00 on Friday.\n"
        "Remember to download the March statement.\n"
        "Rent goes up in April.\n"
        "Ask the bank about the card fee of 2.50.\n"
        "Nothing else to note.\n",
        encoding="utf-8",
    )
    found = inspect_file(path)
    assert found.error is not None and "rename it to .csv" in found.error


def test_fixed_width_columns_without_rules_read_as_printed():
    lines = [
        "DATE        DESCRIPTION                 AMOUNT",
        "03.02.2025  KAFE ZVEZDA                 -42.00",
        "04.02.2025  APTEKA LUCH                 -18.85",
        "05.02.2025  SALARY                     2100.00",
        "06.02.2025  TRAM TICKET                  -2.40",
    ]
    assert looks_printed(lines)
    assert not looks_printed(["a,b,c", "1,2.00,x", "2,3.00,y", "3,4.00,z", "4,5.00,w"])
