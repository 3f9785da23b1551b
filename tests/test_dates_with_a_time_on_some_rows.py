"""A date column that writes the time of day on some rows and not on others (Kotak's savings
CSV: "08-02-2025" above "12-02-2025 16:28:29") reads every row: the date format chosen reads
the day with or without a time after it, in 24 hours or with AM/PM. The file is written here
in the bank's layout, with invented rows."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.records import parse_date_text
from ml_assets.core.intake.sniffing import sniff_date_format
from tests.test_issuer_csv_layouts import loaded

KOTAK_STATEMENT = (
    '"",,Account Statement\r\n'
    "A N OTHER\r\n"
    '"1 INVENTED ROAD ",,,,Account No.,XXXXXXXX9876\r\n'
    '"NAGPUR ",,,,Period,From 01/03/2025 To 31/03/2025\r\n'
    "India,,,,Currency,INR\r\n"
    '""\r\n'
    "Sl. No.,Transaction Date,Value Date,Description,Chq / Ref No.,Amount,Dr / Cr,Balance,"
    "Dr / Cr\r\n"
    '1,03-03-2025,03-03-2025,NEFT INVENTED WORKS PAYROLL,NEFTINW-0101,"40,000.00",CR,'
    '"50,000.00",CR\r\n'
    '2,05-03-2025,05-03-2025,UPI/TEA HOUSE/901/tea,UPI-0102,30.00,DR,"49,970.00",CR\r\n'
    "3,14-03-2025 16:28:29,14-03-2025,UPI/PAPER MART/902/UPI,UPI-0103,120.00,DR,"
    '"49,850.00",CR\r\n'
    '4,17-03-2025 09:01:10,18-03-2025,UPI/CITY BUS/903/ticket,UPI-0104,"1,200.00",DR,'
    '"48,650.00",CR\r\n'
)


def test_a_kotak_statement_whose_later_dates_carry_a_time_reads_every_row(tmp_path, capsys):
    export = tmp_path / "kotak.csv"
    export.write_bytes(KOTAK_STATEMENT.encode())
    _, section, result, _ = loaded(export, capsys)
    assert section["date_format"] == "%d-%m-%Y"
    # (the day of the payment, not the value date a day later)
    assert section["column_map"]["Transaction Date"] == "posted_date"
    assert result.quarantined.height == 0
    assert result.kept["posted_date"].to_list() == [
        "2025-03-03",
        "2025-03-05",
        "2025-03-14",
        "2025-03-17",
    ]
    assert result.kept["amount"].to_list() == [40000.0, -30.0, -120.0, -1200.0]


@pytest.mark.parametrize(
    ("dates", "expected"),
    [
        # as many rows with a time as without: the day's format reads them all
        (["03-03-2025", "05-03-2025", "14-03-2025 16:28:29", "17-03-2025 09:01"], "%d-%m-%Y"),
        (["03/03/2025 4:28 PM", "05/03/2025 11:02 AM", "14/03/2025"], "%d/%m/%Y"),
        # most rows with seconds, one without: the day's format reads them all
        (["03.03.2025 16:28:29", "05.03.2025 09:01:10", "14.03.2025"], "%d.%m.%Y"),
        # every row with a time: the format writes it as the rows do
        (
            ["03.03.2025 16:28:29", "05.03.2025 09:01:10", "14.03.2025 10:00:00"],
            "%d.%m.%Y %H:%M:%S",
        ),
    ],
)
def test_a_column_with_a_time_on_some_rows_has_one_format(dates, expected):
    assert sniff_date_format(dates)[0] == expected
    read = [parse_date_text(text, expected).date().isoformat() for text in dates]
    assert [day[8:] for day in read] == ["03", "05", "14", "17"][: len(dates)]


def test_the_time_of_day_after_a_date_is_kept_where_it_is_read():
    assert str(parse_date_text("14-03-2025 4:05 PM", "%d-%m-%Y")) == "2025-03-14 16:05:00"
    assert str(parse_date_text("14-03-2025", "%d-%m-%Y %H:%M:%S")) == "2025-03-14 00:00:00"


@pytest.mark.parametrize("text", ["14-03-2025 25:10", "14-03-2025 13:10 PM", "14-03-2025 10"])
def test_a_date_followed_by_no_time_of_day_is_not_read(text):
    with pytest.raises(ValueError):
        parse_date_text(text, "%d-%m-%Y")
