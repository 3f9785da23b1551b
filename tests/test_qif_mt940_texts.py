"""The text of QIF records and MT940 entries that carry less than a payee and a purpose:
a QIF transfer or quick cash entry with no payee or memo (as qifparse's test files write
them), and a German bank's unstructured ``:86:`` details led by the business code 999 and
a Primanota number (the Kreissparkasse Köln MT940 example's layout). Every file is written
here, a few lines in the real layout; rows in = kept + quarantined on every file."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.ingest import scan_transactions
from tests.test_mt940_qif_dialects import read, statement


def test_qif_records_without_payee_are_described_by_their_transfer_or_address(tmp_path):
    """The category is the label: a category-only record is never described by it, and is
    quarantined saying why; a transfer names its account, an address gives a text."""
    path = tmp_path / "cash.qif"
    path.write_text(
        "!Type:Cash\n"
        "D23/10/2013\nT-6.50\nLfood:lunch\n^\n"
        "D11/10/2013\nT31.00\nL[My Cc]\n^\n"
        "D12/10/2013\nT-48.00\nAvia Roma\nA44100, Ferrara\nLfood:dinner\n^\n"
        "D13/10/2013\nT-2.00\nPBakery\nLfood:bread\n^\n"
    )
    result = scan_transactions(path)
    assert result.kept.height + result.quarantined.height == result.rows_in == 4
    kept = result.kept.select("posted_date", "amount", "description", "category").rows()
    assert kept == [
        ("2013-10-11", 31.0, "Transfer [My Cc]", None),
        ("2013-10-12", -48.0, "via Roma 44100, Ferrara", "food:dinner"),
        ("2013-10-13", -2.0, "Bakery", "food:bread"),
    ]
    (detail,) = result.quarantined["detail"].to_list()
    assert "cash.qif:2:" in detail and "only its category (L 'food:lunch')" in detail


def test_mt940_unstructured_details_drop_business_code_999_and_primanota(tmp_path):
    path = statement(
        tmp_path,
        ":61:0709040904DR6800,NCHK16703074\n:86:999PN5477SCHECK-NR. 0000016703074\n"
        ":61:0709040904DR620,3NSTON\n:86:999PN0911DAUERAUFTR.NR. 14\n"
        ":61:0709040904CR20,00NMSCNONREF\n:86:166?00GUTSCHRIFT?20SVWZ+Miete Maerz?32Anna Berg\n"
        ":61:0709040904DR5,00NMSCNONREF\n:86:9990 KARTE 1234 REWE\n",
    )
    result = read(path)
    assert result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "SCHECK-NR. 0000016703074",
        "DAUERAUFTR.NR. 14",
        "Anna Berg Miete Maerz",
        "9990 KARTE 1234 REWE",  # (a number that is no business code stays the text's)
    ]


def test_mt940_details_of_only_the_code_999_read_by_their_references(tmp_path: Path):
    path = statement(tmp_path, ":61:0709040904DR12,00NMSCRENT MARCH\n:86:999PN0911\n")
    result = read(path)
    assert result.kept["description"].to_list() == ["RENT MARCH"]
