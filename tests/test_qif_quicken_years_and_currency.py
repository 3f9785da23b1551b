"""Quicken's years and QIF's missing currency. Quicken writes the year after its apostrophe in
two columns, 2000-2009 as a space and one digit (``8/31' 0``): those dates are read, with and
without ``date_format``. QIF has no currency field: inspect says the rows are read as USD
unless ``currency`` is set, as it says of a CSV without a currency, and names what in the file
points to a bank outside the US. Files are small reproductions with invented payees."""

from __future__ import annotations

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_currency import unstated_currency
from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.qif import iter_qif

QUICKEN_2000S = (
    "!Type:Bank \r\n"
    "D12/28' 9\r\nT-45.50\r\nPBakery Sunrise\r\nLGroceries\r\n^\r\n"
    "D1/ 4' 0\r\nT1,200.00\r\nPGarage Velt Payroll\r\nLSalary\r\n^\r\n"
    "D3/ 7' 5\r\nT-19.99\r\nPCorner Books\r\n^\r\n"
    "D2/14'10\r\nT-60.00\r\nPFlower Hut\r\n^\r\n"
)


def test_quicken_years_2000_to_2009_are_read(tmp_path):
    export = tmp_path / "checking.qif"
    export.write_bytes(QUICKEN_2000S.encode("ascii"))
    result = scan_transactions(export)
    assert result.quarantined.height == 0
    kept = result.kept
    assert kept["posted_date"].to_list() == ["2009-12-28", "2000-01-04", "2005-03-07", "2010-02-14"]
    assert kept["amount"].to_list() == [-45.50, 1200.00, -19.99, -60.00]
    assert kept["description"].to_list() == [
        "Bakery Sunrise",
        "Garage Velt Payroll",
        "Corner Books",
        "Flower Hut",
    ]


def test_quicken_years_read_with_a_date_format(tmp_path):
    """A ``date_format`` with a two-digit year reads Quicken's one-digit 2000s too."""
    export = tmp_path / "checking.qif"
    export.write_bytes(QUICKEN_2000S.encode("ascii"))
    rows = list(iter_qif(export, date_format="%m/%d/%y"))
    assert [record["posted_date"] for _, record, _ in rows] == [
        "2009-12-28",
        "2000-01-04",
        "2005-03-07",
        "2010-02-14",
    ]


def test_inspect_says_a_qif_file_is_read_as_usd(tmp_path):
    export = tmp_path / "checking.qif"
    export.write_bytes(QUICKEN_2000S.encode("ascii"))
    facts = dict(inspect_file(export).facts)
    assert facts["currency"] == unstated_currency("none in the file (QIF has no currency)")
    assert "USD unless raw_transactions.currency says so" in facts["currency"]
    assert "currency: EUR" in facts["currency"]


def test_inspect_names_a_european_banks_signs_in_a_qif_file(tmp_path):
    """Day-first dates and decimal commas (a French bank's download) are named as signs of an
    account outside the US; the currency set in the settings is then the rows'."""
    export = tmp_path / "banque.qif"
    export.write_text(
        "!Type:Bank\n"
        "D05/03/2026\nT-45,50\nPBoulangerie du Soleil\nMCB 04/03\n^\n"
        "D17/03/2026\nT1.250,00\nPGarage Velt SARL\nMVIR SALAIRE MARS\n^\n"
        "D28/03/2026\nT-19,99\nPLibrairie du Coin\n^\n"
    )
    facts = dict(inspect_file(export).facts)
    assert "USD unless raw_transactions.currency says so" in facts["currency"]
    assert "its day-first dates and its decimal commas are not a US bank's" in facts["currency"]
    kept = scan_transactions(export, currency="EUR").kept
    assert kept["currency"].to_list() == ["EUR", "EUR", "EUR"]
    assert kept["amount"].to_list() == [-45.50, 1250.00, -19.99]


def test_a_csv_without_a_currency_says_it_in_the_same_words(tmp_path):
    export = tmp_path / "activity.csv"
    export.write_text(
        "Posting Date,Description,Amount\n03/05/2026,BAKERY SUNRISE,-45.50\n"
        "03/10/2026,GARAGE VELT PAYROLL,1200.00\n03/12/2026,CORNER BOOKS,-19.99\n"
    )
    assert dict(inspect_file(export).facts)["currency"] == unstated_currency()
