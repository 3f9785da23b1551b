"""What inspect reads off a file that does not say it, checked on small files written here in
the layouts of real exports (FinPension, Woolworths Money, Danske Bank Lithuania, Monefy,
Lloyds): the decimal mark from the amounts, dates with a two-digit year or colons, the Baltic
code page, dates that read both ways, and the currency the account numbers point to. Each file
goes through ``inspect``, then the load with the settings it printed."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.amount_text import sniff_decimal
from ml_assets.core.intake.sniffing import sniff_date_format
from ml_assets.core.intake.text_encoding import detect_encoding
from tests.test_issuer_csv_layouts import loaded


def test_amounts_with_more_than_three_decimals_read_a_decimal_point_in_a_semicolon_file(
    tmp_path, capsys
):
    """FinPension's amounts ("1000.000000", "1.0000000000"): a '.' followed by other than
    three digits is no thousands separator, whatever the ';' between the fields suggests."""
    export = tmp_path / "finpension.csv"
    export.write_text(
        "Date;Description;Amount;Balance\n"
        "2023-01-01;Deposit;1000.000000;1000.000000\n"
        "2023-05-01;Fee;-5.000000;995.000000\n"
        "2023-06-01;Interest;2.0000000000;997.000000\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert "decimal point" in out and "decimal" not in section
    assert result.kept["amount"].to_list() == [1000.0, -5.0, 2.0]
    assert result.quarantined.height == 0
    # thousands and decimal commas read as before: "1.234" is ambiguous, so ';' decides
    assert sniff_decimal(["1.234,56", "-4,85"], ";")[0] == ","
    assert sniff_decimal(["1.234", "12.345"], ";")[0] == ","
    assert sniff_decimal(["2,474.74", "1.5000"], ";")[0] == "."
    assert sniff_decimal(["0.500", "1000.000"], ";")[0] == "."  # no thousands group fits


@pytest.mark.parametrize(
    ("header", "rows", "dates"),
    [
        (  # Woolworths Money: day, English month, two-digit year
            "Date,Status,Description,Credit,Debit",
            ["19 Oct 15,Processed,WOOLWORTHS MELBOURNE,,54.73", "11 Sep 15,Processed,REFUND,3.14,"],
            ["2015-10-19", "2015-09-11"],
        ),
        (  # Danske Bank Lithuania: year, month and day between colons
            "Date,Description,Amount",
            ["2012:03:01,Komisiniai mokesciai,-7.80", "2012:03:06,Mokejimo operacija,-0.46"],
            ["2012-03-01", "2012-03-06"],
        ),
    ],
)
def test_dates_with_a_two_digit_year_or_colons_are_read(tmp_path, capsys, header, rows, dates):
    export = tmp_path / "export.csv"
    export.write_text(header + "\n" + "\n".join(rows) + "\n")
    _, _, result, _ = loaded(export, capsys)
    assert result.kept["posted_date"].to_list() == dates


def test_dates_without_a_year_are_named_as_such():
    """JA Bank's "4月30日" has no year: no format dates it, and the reason says why."""
    fmt, _, why = sniff_date_format(["4月30日", "5月1日", "5月2日"])
    assert fmt is None and "write no year" in why


def test_baltic_and_central_european_text_is_read_in_its_code_page(tmp_path, capsys):
    """Danske Bank Lithuania writes cp1257: its ė, ų, š and ž would read as Windows-1252's
    ë, ø, ð and þ ("Mokëjimo"). Czech text is read in cp1250, Italian text stays
    Windows-1252 (its accents are no Central European letters)."""
    export = tmp_path / "danske.csv"
    export.write_bytes(
        (
            "Data;Aprašymas;Suma\n"
            "2026-03-01;Paslaugų ir komisinių pajamos už pervedimus;-20,00\n"
            "2026-03-02;Mokestis už lėšų įskaitymo administravimą;-1,50\n"
            "2026-03-03;Mokėjimo nurodymas, siuntėjas ACME LLC;1500,00\n"
        ).encode("cp1257")
    )
    out, section, result, _ = loaded(export, capsys)
    assert section["encoding"] == "cp1257" and "Windows-1257, Lithuanian text" in out
    assert result.kept["description"].to_list()[2] == "Mokėjimo nurodymas, siuntėjas ACME LLC"
    czech = "Datum zaúčtování;Název protiúčtu;Částka\n2026/05/02;ALBERT ŘEPY PRAHA;-245,00\n"
    czech += "2026/05/03;LÉKÁRNA U ČESKÉHO LVA, mzda květen, nákup potravin;-89,90\n"
    encoding, why = detect_encoding(czech.encode("cp1250"))
    assert encoding == "cp1250", why
    italian = "Data;Descrizione;Importo\n02/05/2026;Città Più caffè perché è già là;-12,00\n"
    assert detect_encoding(italian.encode("cp1252"))[0] == "cp1252"


# dates whose day and month both read as a month, with the same span and order either way
_BOTH_WAYS = ["06/12/2021", "06/12/2021", "07/11/2021"]


def test_dates_that_read_both_ways_with_nothing_to_tell_are_month_first_to_confirm(
    tmp_path, capsys
):
    """Monefy's "06/12/2021" is June 12th or December 6th: an English header, a decimal point
    and a dollar currency point nowhere, so month first, said plainly, and written out with a
    comment that names both orders."""
    export = tmp_path / "monefy.csv"
    rows = [f"{d},Cash,Food,-{i + 1}.50,USD,Lunch {i}" for i, d in enumerate(_BOTH_WAYS)]
    export.write_text("date,account,category,amount,currency,description\n" + "\n".join(rows))
    out, section, result, _ = loaded(export, capsys)
    assert "AMBIGUOUS: every date reads both ways" in out
    assert "nothing in the file says which" in out
    assert "date_format: '%m/%d/%Y'  # confirm: every date reads both ways" in out
    assert "'%m/%d/%Y' is month first, '%d/%m/%Y' day first" in out
    assert section["date_format"] == "%m/%d/%Y"
    assert result.kept["posted_date"].to_list() == ["2021-06-12", "2021-06-12", "2021-07-11"]


@pytest.mark.parametrize(
    ("header", "row", "sign"),
    [
        ("Datum,Omschrijving,Bedrag", "{d},Albert Heijn {i},-{i}.50", "the column name 'Datum'"),
        ("Date;Description;Amount", "{d};Shop {i};-{i}.50", "the ';' separator"),
        ("Date,Description,Amount", '{d},Shop {i},"-{i},50"', "the decimal comma"),
        ("Date,Description,Amount", "{d},Shop {i},-£{i}.50", "the currency GBP"),
    ],
)
def test_dates_that_read_both_ways_are_day_first_where_the_file_points_to_europe(
    tmp_path, capsys, header, row, sign
):
    export = tmp_path / "export.csv"
    rows = [row.format(d=d, i=i + 1) for i, d in enumerate(_BOTH_WAYS)]
    export.write_text(header + "\n" + "\n".join(rows) + "\n")
    out, section, result, _ = loaded(export, capsys)
    assert f"read day first, as {sign}" in out
    assert "date_format: '%d/%m/%Y'  # confirm: every date reads both ways" in out
    assert section["date_format"] == "%d/%m/%Y"
    assert result.kept["posted_date"].to_list() == ["2021-12-06", "2021-12-06", "2021-11-07"]


def test_a_uk_sort_code_or_an_iban_gives_the_currency_to_confirm(tmp_path, capsys):
    """Lloyds writes no currency, but a sort code and "NON-GBP" fees; a Swiss statement names
    its IBAN above the header. inspect writes the currency with a comment; the load takes it
    from the settings."""
    lloyds = tmp_path / "lloyds.csv"
    lloyds.write_text(
        "Transaction Date,Transaction Type,Sort Code,Account Number,Transaction Description,"
        "Debit Amount,Credit Amount,Balance\n"
        "15/01/2024,DEB,'99-88-74,12345678,ACME STORE CD 1417,8.99,,2040.59\n"
        "12/01/2024,DEB,'99-88-74,12345678,NON-GBP TRANS FEE 2.75% CD 1417,4.79,,2049.58\n"
        "01/12/2023,FPI,'99-88-74,12345678,CLIENT CO LTD,,500.00,2054.37\n"
    )
    out, section, result, _ = loaded(lloyds, capsys)
    assert section["currency"] == "GBP" and "currency: GBP  # from the UK sort code 99-88-74" in out
    assert set(result.kept["currency"]) == {"GBP"}
    swiss = tmp_path / "kontoauszug.csv"
    swiss.write_text(
        "Kontoauszug;\nIBAN;CH93 0076 2011 6238 5295 7\n\n"
        "Date;Description;Amount;Balance\n"
        "02.01.2026;Migros Zuerich;-25.50;1974.50\n"
        "05.01.2026;Lohn ACME AG;5000.00;6974.50\n"
    )
    out, section, result, _ = loaded(swiss, capsys)
    assert section["currency"] == "CHF" and "the IBAN CH9300762011623852957" in out
    assert set(result.kept["currency"]) == {"CHF"}


def test_no_currency_or_several_leave_the_rows_in_dollars_with_a_warning(tmp_path, capsys):
    """IBANs of two currencies (a Swiss account paying into a German one) or an ISIN
    ("CH0012345678", no IBAN) point to no one currency: no currency in the settings, and the
    findings say the rows are dollars."""
    export = tmp_path / "mixed.csv"
    export.write_text(
        "Date,Description,Amount\n"
        "01/02/2026,Payment to DE89 3704 0044 0532 0130 00,-10.00\n"
        "01/03/2026,Payment to CH9300762011623852957,-20.00\n"
        "01/20/2026,Fund CH0012345678 bought,-5.00\n"
    )
    out, section, result, _ = loaded(export, capsys)
    assert "currency" not in section and "every row is read as USD" in out
    assert set(result.kept["currency"]) == {"USD"}
