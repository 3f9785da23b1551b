"""OFX amounts with a decimal comma and dots between the thousands (Santander Brasil's
``2.750,40``, ``-1.234.567,89`` and ``6000.000,00`` beside ``-2,48``): once a file's amounts
show a decimal comma, its dots group thousands; an amount whose dots read two ways is
quarantined saying both; a file without a decimal comma keeps the standard's reading."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.ofx_amounts import grouped_amount
from tests.ofx_statement_text import ofx_statement


def test_dots_group_thousands_where_the_files_amounts_use_a_decimal_comma(tmp_path):
    path = ofx_statement(
        tmp_path / "extrato.ofx",
        [
            ("20240402", "-3,15", "A1", "TARIFA PIX ENVIADO"),
            ("20240410", "4500.000,00", "A2", "PIX RECEBIDO FAROL LTDA"),
            ("20240411", "-4200.000,00", "A3", "PIX ENVIADO OLARIA SA"),
            ("20240415", "2.750,40", "A4", "TED RECEBIDA VENTURA ME"),
            ("20240420", "-1.234.567,89", "A5", "PAGAMENTO A FORNECEDORES"),
        ],
    )
    result = scan_transactions(path)
    assert result.rows_in == 5 == result.kept.height and result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [
        -3.15,
        4500000.0,
        -4200000.0,
        2750.4,
        -1234567.89,
    ]
    # the millions not separated from the thousands: read, and said, with the first line
    (warning,) = [w for w in result.notes[0].warnings if "last thousands" in w]
    assert "2 OFX amount(s)" in warning and "line 22: '4500.000,00'" in warning
    assert "read as 4500000.00" in warning


def test_dots_that_read_two_ways_or_no_way_are_quarantined_saying_why(tmp_path):
    path = ofx_statement(
        tmp_path / "extrato.ofx",
        [
            ("20240402", "-2,48", "B1", "TARIFA"),
            ("20240403", "4.500", "B2", "PIX RECEBIDO"),  # three digits: grouped, as the file
            ("20240404", "-4.50", "B3", "PIX ENVIADO"),  # two digits: only a decimal point
            ("20240405", "1234.500", "B4", "TED RECEBIDA"),  # 1234.5 or 1234500
            ("20240406", "-6000.00,00", "B5", "BOLETO"),  # a dot that groups nothing
        ],
    )
    result = scan_transactions(path)
    assert result.rows_in == 5 == result.kept.height + result.quarantined.height
    assert result.kept["amount"].to_list() == [-2.48, 4500.0, -4.5]
    quarantined = result.quarantined.sort("line")
    assert quarantined["reason"].to_list() == ["bad_amount", "bad_amount"]
    assert quarantined["line"].to_list() == [36, 43]
    two_ways, no_way = quarantined["detail"].to_list()
    assert "'1234.500'" in two_ways and "1234.500 with a decimal point" in two_ways
    assert "1234500 with the '.' separating thousands" in two_ways
    assert "'-6000.00,00' is not a number" in no_way and "three digits after each" in no_way


def test_a_file_without_a_decimal_comma_keeps_the_standards_decimal_point(tmp_path):
    """OFX writes no thousands separators: "-30.000" is thirty (Bank of America's three
    decimals) and "4.500" four and a half, where no amount of the file has a decimal comma."""
    path = ofx_statement(
        tmp_path / "statement.ofx",
        [("20240402", "-30.000", "C1", "PAYMENT"), ("20240403", "4.500", "C2", "DEPOSIT")],
    )
    result = scan_transactions(path)
    assert result.kept["amount"].to_list() == [-30.0, 4.5]
    assert not [w for w in result.notes[0].warnings if "thousands" in w]


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        ("-2,48", "-2,48"),
        ("2.750,40", "2750,40"),
        ("-1.234.567,89", "-1234567,89"),
        ("6000.000,00", "6000000,00"),
        ("1.234.567", "1234567"),
        ("4.50", "4.50"),
        ("0.500", "0.500"),
    ],
)
def test_grouped_amount_drops_only_dots_that_group_thousands(written, plain):
    assert grouped_amount(written) == plain
