"""Quicken opens each account of a QIF file with its opening balance: payee "Opening
Balance", category the account itself. It is counted as the account's opening balance, never
read as a transaction (nor dropped unsaid). The file is written here as Quicken writes one,
with invented accounts and amounts."""

from __future__ import annotations

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file

QUICKEN = (
    "!Account\nNEveryday Checking\nTBank\n^\n"
    "!Type:Bank \nD6/ 1' 6\nU1,211.45\nT1,211.45\nCX\nPOpening Balance\nL[Everyday Checking]\n^\n"
    "D6/ 3' 6\nT-42.10\nPBakery Sunrise\nLFood\n^\n"
    "D6/ 5' 6\nT-100.00\nPOpening Balance\nL[Holiday Savings]\n^\n"
    "!Account\nNHoliday Savings\nTBank\n^\n"
    "!Type:Bank \nD6/ 1' 6\nT0.00\nPOpening Balance\nL[Holiday Savings]\n^\n"
    "D6/ 5' 6\nT100.00\nPTransfer from checking\nL[Everyday Checking]\n^\n"
)


def test_each_accounts_opening_balance_is_counted_not_a_row(tmp_path):
    export = tmp_path / "quicken.qif"
    export.write_text(QUICKEN)
    result = scan_transactions(export)
    kept = result.kept
    # (a payee "Opening Balance" moving money to another account is a transfer: a row)
    assert kept["description"].to_list() == [
        "Bakery Sunrise",
        "Opening Balance",
        "Transfer from checking",
    ]
    assert kept["amount"].to_list() == [-42.10, -100.0, 100.0]
    notes = result.notes[0]
    assert [kind for _, kind in notes.statement_lines] == ["opening balance", "opening balance"]
    assert [(b.kind, b.amount) for b in notes.balances] == [("opening", 1211.45), ("opening", 0.0)]
    assert result.rows_in == 3 and result.quarantined.height == 0


def test_inspect_shows_the_opening_balances(tmp_path):
    export = tmp_path / "quicken.qif"
    export.write_text(QUICKEN)
    facts = dict(inspect_file(export).facts)
    assert facts["balances"] == "opening 1,211.45 (line 6), opening 0.00 (line 28)"
    assert "opening balance line 6" in facts["not transactions"]


def test_a_single_account_export_without_an_account_block(tmp_path):
    """Quicken's export of one account writes no !Account block: its first record's
    bracketed category is the account it opens."""
    export = tmp_path / "checking.qif"
    export.write_text(
        "!Type:Bank\nD01/01/2026\nT250.00\nPOpening Balance\nL[Checking]\n^\n"
        "D01/04/2026\nT-12.50\nPKiosk Nord\n^\n"
    )
    result = scan_transactions(export)
    assert result.kept["description"].to_list() == ["Kiosk Nord"]
    assert [(b.kind, b.amount) for b in result.notes[0].balances] == [("opening", 250.0)]
