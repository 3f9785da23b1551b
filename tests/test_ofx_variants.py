"""OFX as banks other than the spec's examples make it: an investment account's statement
(its cash moves are bank transactions, its trades are not), files without their OFX header,
and a transaction whose FITID is empty. Rows in = kept + quarantined, and what is not a
transaction is counted, on every file.

The fixtures under ``fixtures/ofx_variants`` mirror real exports' structure (Fidelity's and a
broker's INVSTMTRS, Ally's headerless SGML, American Express's headerless card statement,
Capital One's XML without ``<?xml?>``); ``nationwide_empty_tags.ofx`` is ofxparse's
``tests/fixtures/ofx-v102-empty-tags.ofx`` unchanged (https://github.com/jseutter/ofxparse,
MIT license)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ml_assets.core.intake.bank_formats import iter_ofx
from ml_assets.core.intake.ingest import scan_transactions

FIXTURES = Path(__file__).parent / "fixtures" / "ofx_variants"


def test_an_investment_statements_cash_moves_are_rows_and_its_trades_are_counted():
    """Each INVBANKTRAN's STMTTRN is a row of the brokerage account (a card purchase, a
    check, a deposit); BUYMF, INCOME and REINVEST between them are not transactions."""
    path = FIXTURES / "brokerage_cash.ofx"
    result = scan_transactions(path, with_origin=True)
    assert result.rows_in == 3 == result.kept.height and result.quarantined.height == 0
    kept = result.kept
    assert kept["amount"].to_list() == [-27.68, -1500.0, 115.83]
    assert kept["transaction_id"].to_list() == [
        "Z1234567:C0001",
        "Z1234567:C0002",
        "Z1234567:C0003",
    ]
    assert set(kept["account_id"]) == {"Z1234567"} and set(kept["currency"]) == {"USD"}
    assert kept["posted_date"].to_list() == ["2026-03-02", "2026-03-04", "2026-03-06"]
    # NAME is MEMO cut short: the text is said once
    assert kept["description"][0] == "DEBIT CARD PURCHASE CORNER GROCERY SPRINGFIELD"
    assert kept["_line"].to_list() == [40, 74, 100]  # each row's own <STMTTRN>
    assert result.notes[0].metadata()["not_transactions"] == {
        "OFX investment BUYMF": 1,
        "OFX investment INCOME": 1,
        "OFX investment REINVEST": 1,
    }
    skipped: list[tuple[int, str]] = []
    assert len(list(iter_ofx(path, skipped))) == 3
    assert skipped == [
        (54, "OFX investment BUYMF"),
        (84, "OFX investment INCOME"),
        (109, "OFX investment REINVEST"),
    ]


@pytest.mark.parametrize(
    ("name", "account", "amounts"),
    [
        ("headerless_sgml.qfx", "23456", [-55.0, -1000.0]),  # Ally: SGML from <OFX> on
        ("headerless_cp1252.ofx", "379700001111222", [-143.94, -28.05]),  # Amex, Windows-1252
        ("no_xml_declaration.qfx", "9876", [0.01, -100.0]),  # Capital One: <?OFX?>, no <?xml?>
    ],
)
def test_ofx_without_its_header_is_read(name, account, amounts):
    result = scan_transactions(FIXTURES / name)
    assert result.rows_in == len(amounts) == result.kept.height
    assert result.kept["amount"].to_list() == amounts
    assert set(result.kept["account_id"]) == {account}
    assert all(i.startswith(f"{account}:") for i in result.kept["transaction_id"])


def test_headerless_ofx_text_errors_and_a_file_that_is_not_ofx(tmp_path):
    """Without a header the charset is UTF-8 where the bytes are, else Windows-1252; XML with
    no processing instruction at all is read too. A broken body is one unreadable row at its
    line; a file that is no OFX keeps the library's complaint."""
    card = scan_transactions(FIXTURES / "headerless_cp1252.ofx")
    assert card.kept["description"][0] == "CAFÉ PRUNE NEW YORK 7101466 RESTAURANT"
    bare = tmp_path / "bare.qfx"
    bare.write_text((FIXTURES / "no_xml_declaration.qfx").read_text().split("\n", 1)[1])
    assert scan_transactions(bare).kept["amount"].to_list() == [0.01, -100.0]
    broken = tmp_path / "broken.qfx"
    text = (FIXTURES / "headerless_sgml.qfx").read_text()
    broken.write_text(text.replace("Check 23400</NAME>", "Check 23400</NAME>&"))
    result = scan_transactions(broken)
    assert dict(result.reasons) == {"unreadable_file": 1} and result.rows_in == 1
    assert result.quarantined["line"][0] == 66  # the <NAME> the stray text follows
    assert "Tail text '&'" in result.quarantined["detail"][0]
    page = tmp_path / "statement.ofx"  # a bank's login page saved in place of the download
    page.write_text("<!DOCTYPE html>\n<html><body>Your session has expired</body></html>\n")
    result = scan_transactions(page)
    assert dict(result.reasons) == {"unreadable_file": 1}
    detail = result.quarantined["detail"][0]
    assert str(page) in detail and "OFXHeaderError" in detail and "re-download" in detail


def test_a_headered_files_broken_body_is_named_at_its_line(tmp_path):
    """ofxtools counts its positions from <OFX>, after the header's nine lines."""
    path = tmp_path / "broken.ofx"
    text = (FIXTURES / "brokerage_cash.ofx").read_text()
    path.write_text(text.replace("</CURRENCY>", "</CURRENCY>&"))
    result = scan_transactions(path)
    assert dict(result.reasons) == {"unreadable_file": 1}
    assert result.quarantined["line"][0] == 50  # the first </CURRENCY>


@pytest.mark.parametrize("transaction_ids", ["auto", "derived"])
def test_an_empty_fitid_is_no_id_and_the_row_gets_a_derived_one(transaction_ids):
    """Nationwide writes <FITID></FITID>, its elements out of the spec's order and TRNTYPE
    'Credit': the row is read, its id derived (as a CAMT.053 entry with NONREF)."""
    path = FIXTURES / "nationwide_empty_tags.ofx"
    result = scan_transactions(path, transaction_ids=transaction_ids)
    assert result.rows_in == 1 == result.kept.height
    row = result.kept.row(0, named=True)
    assert row["transaction_id"].startswith("d-")
    assert (row["account_id"], row["posted_date"], row["amount"]) == (
        "12345678",
        "2018-05-07",
        12.34,
    )
    assert (row["currency"], row["description"]) == ("AUD", "CBA:Transfer")
    required = scan_transactions(path, transaction_ids="column")
    assert dict(required.reasons) == {"missing_field": 1}
    assert required.quarantined["field"][0] == "transaction_id"
