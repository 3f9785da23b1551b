"""CSV exports as banks write them, read with no hand edit: an account summary above the
header, running balances, Windows-1252 and CRLF, thousands separators, European files
(semicolons or tabs, decimal commas, DD.MM.YYYY) and a file without a header line. Each
fixture in tests/fixtures/banks/ carries a planted defect; errors name the file, the line and
what to set."""

from __future__ import annotations

from pathlib import Path

import pytest

from ml_assets.core.intake.amount_text import normalize_amount, sniff_decimal
from ml_assets.core.intake.ingest import SchemaError, scan_transactions
from ml_assets.core.intake.sniffing import sniff_date_format

BANKS = Path(__file__).parent / "fixtures" / "banks"
STMT = BANKS / "stmt.csv"  # a US checking download: summary block, running balance, cp1252
OBSERVED = {  # the settings of the issue: column_map, date_format, encoding
    "column_map": {"Date": "posted_date", "Description": "description", "Amount": "amount"},
    "date_format": "%m/%d/%Y",
    "encoding": "cp1252",
}


def reasons_by_line(result) -> dict[int, str]:
    return dict(zip(result.quarantined["line"], result.quarantined["reason"], strict=True))


def test_the_header_is_found_below_an_account_summary():
    """Planted: an exact repeat of a row with its running balance (line 13), a balance that
    jumps (line 17: a row missing before it), a date that does not exist (line 18)."""
    result = scan_transactions(STMT, files=[STMT], **OBSERVED)
    (notes,) = result.notes
    assert (notes.header_line, notes.preamble_lines, notes.balance_column) == (7, 6, "Running Bal.")
    assert notes.statement_lines == [(8, "balance")]  # "Beginning balance as of": not a row
    assert (
        result.rows_in == 12 == result.kept.height + result.quarantined.height + result.duplicates
    )
    assert (result.kept.height, result.duplicates) == (10, 1)
    assert reasons_by_line(result) == {18: "bad_date"}
    assert dict(notes.duplicates_same_balance) == {"2026-01-05": 1}
    first = result.kept.row(0, named=True)
    assert (first["posted_date"], first["amount"]) == ("2026-01-02", 2474.74)  # "2,474.74"
    assert "CAFÉ DE FLORE NEW YORK NY" in result.kept["description"].to_list()
    assert "Zelle payment to JOHN’S LANDSCAPING Conf# h7x2k9" in result.kept["description"]


def test_two_identical_coffees_with_moving_balances_stay_two():
    result = scan_transactions(STMT, files=[STMT], **OBSERVED)
    coffees = result.kept.filter(result.kept["description"].str.starts_with("STARBUCKS"))
    assert coffees.height == 2 and coffees["transaction_id"].n_unique() == 2


def test_a_balance_that_jumps_is_flagged_with_its_line_and_the_gap_warned():
    (notes,) = scan_transactions(STMT, files=[STMT], **OBSERVED).notes
    (jump,) = notes.breaks  # the quarantined check (line 18) still moves the balance
    assert (jump.line, jump.previous_line, jump.found, jump.expected) == (17, 16, 2360.65, 2460.65)
    assert [(b.kind, b.amount, b.line) for b in notes.balances] == [
        ("opening", 1234.56, 2),
        ("closing", 2210.70, 5),
    ]
    assert any("stmt.csv:17: running balance 2,360.65" in w for w in notes.warnings)
    (gap,) = [w for w in notes.warnings if "unaccounted" in w]
    assert "closing balance is 2,210.70 (line 5): -350.00 unaccounted" in gap
    assert "among the 1 quarantined rows" in gap


def test_days_reads_the_observed_download_and_a_partial_params_file_gets_tiny(
    tmp_path, capsys, monkeypatch
):
    """The issue's report: `days` exited 2 (the summary's first line read as the header), and
    TXN_PARAMS_PROFILE=tiny stopped a partial params file ("unknown profile 'tiny'")."""
    from ml_assets.__main__ import main

    params = tmp_path / "my-params.yaml"
    params.write_text(
        f"raw_transactions:\n  source: files\n  path: {STMT}\n"
        "  column_map: {Date: posted_date, Description: description, Amount: amount}\n"
        '  date_format: "%m/%d/%Y"\n  encoding: cp1252\n'
    )
    monkeypatch.setenv("TXN_PARAMS_PROFILE", "tiny")
    assert main(["days", "--params", str(params)]) == 0
    assert capsys.readouterr().out.strip() == "2026-01-02...2026-01-30"


def test_a_summary_without_a_header_names_the_file_and_what_to_set():
    path = BANKS / "summary_no_header.csv"
    with pytest.raises(SchemaError) as caught:
        scan_transactions(path, files=[path], **{**OBSERVED, "encoding": None})
    message = str(caught.value)
    assert f"{path}:1: column_map maps 'Date' -> 'posted_date', not in the header" in message
    assert "no line of the first 50 gives them" in message
    assert "raw_transactions.header_line" in message and "0 for a file without one" in message


def test_header_line_overrides_and_zero_reads_a_file_without_one(tmp_path):
    path = BANKS / "summary_no_header.csv"
    with pytest.raises(SchemaError, match=r"header_line is 3, but line 4 is|column_map maps"):
        scan_transactions(path, files=[path], header_line=3, **{**OBSERVED, "encoding": None})
    headerless = tmp_path / "Checking1.csv"
    headerless.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[4:]))
    positions = {"1": "posted_date", "2": "description", "3": "amount"}
    result = scan_transactions(headerless, column_map=positions, header_line=0)
    assert result.kept["amount"].to_list() == [2474.74, -4.85, -42.10]
    assert result.notes[0].header_line == 0


GIRO = BANKS / "Umsaetze_Girokonto.csv"
GIRO_COLUMNS = {
    "Buchungstag": "posted_date",
    "Auftraggeber / Begünstigter": "description",
    "Verwendungszweck": "description",
    "Betrag (EUR)": "amount",
}


def test_a_german_export_is_sniffed_semicolons_decimal_commas_and_dates():
    """Delimiter, decimal mark and DD.MM.YYYY read from the file; planted: "-12.50" in a
    decimal-comma file (line 12), which must not become -1250."""
    result = scan_transactions(GIRO, column_map=GIRO_COLUMNS, encoding="cp1252")
    (notes,) = result.notes
    assert notes.settings["delimiter"] == ";" and notes.settings["decimal"] == ","
    assert notes.settings["date_format"] == "%d.%m.%Y" and notes.header_line == 7
    assert result.kept["amount"].to_list() == [3250.0, -47.83, -86.0, -1234.56, 312.16]
    assert result.kept["posted_date"][0] == "2026-01-02"
    assert result.kept["description"][2] == "Stadtwerke München ABSCHLAG STROM JANUAR"
    assert result.kept["merchant"][2] == "Stadtwerke München"  # the payee: the split's merchant
    assert reasons_by_line(result) == {12: "bad_amount"}
    detail = result.quarantined["detail"][0]
    assert f"{GIRO}:12: field 'amount' '-12.50'" in detail and "raw_transactions.decimal" in detail
    assert [(b.kind, b.amount, b.line) for b in notes.balances] == [("closing", 4719.97, 5)]


def test_tabs_and_settings_that_override_the_sniffing(tmp_path):
    text = GIRO.read_bytes().decode("cp1252").replace('";"', '"\t"').replace('";', '"\t')
    tabbed = tmp_path / "export.tsv"
    tabbed.write_text(text, encoding="utf-8")
    result = scan_transactions(tabbed, column_map=GIRO_COLUMNS)
    assert result.notes[0].settings["delimiter"] == "\t" and result.kept.height == 5
    forced = scan_transactions(tabbed, column_map=GIRO_COLUMNS, decimal=".")
    assert dict(forced.reasons) == {"bad_amount": 5}  # "3.250,00" is not a decimal-point amount
    assert "decimal mark '.'" in forced.quarantined["detail"][0]


def test_amounts_as_banks_write_them():
    assert normalize_amount("2,474.74", ".", "x") == "2474.74"
    assert normalize_amount("1.234,56", ",", "x") == "1234.56"
    assert normalize_amount("12,50-", ",", "x") == "-12.50"
    assert normalize_amount("(1,000.00)", ".", "x") == "-1000.00"
    assert normalize_amount("€ 3,20", ",", "x") == "3.20"
    assert normalize_amount("1'234.50 CHF", ".", "x") == "1234.50"
    assert normalize_amount("12.50 DR", ".", "x") == "-12.50"
    assert normalize_amount("1 089,00", ",", "x") == "1089.00"
    with pytest.raises(SchemaError, match="not a thousands separator"):
        normalize_amount("12,50", ".", "file.csv:3")
    assert sniff_decimal(["1.234,56", "-4,85", "1.234"])[0] == ","
    assert sniff_decimal(["2,474.74", "4.85"])[0] == "."
    assert sniff_decimal(["1,234"], ";")[0] == ","  # nothing decides: a semicolon file


def test_dates_are_sniffed_and_ambiguity_goes_to_the_shorter_span():
    assert sniff_date_format(["2026-03-01"])[0] is None  # ISO: the default
    assert sniff_date_format(["01.02.2026", "15.02.2026"])[0] == "%d.%m.%Y"
    fmt, ties, why = sniff_date_format(["03/01/2026", "03/02/2026", "03/09/2026"])
    assert fmt == "%m/%d/%Y" and "%d/%m/%Y" in ties and "span of 8 days" in why
    assert sniff_date_format(["03/01/2026", "03/02/2026"], day_first_hint=True)[0] == "%m/%d/%Y"
    assert sniff_date_format(["02/01/2026", "15/01/2026"])[0] == "%d/%m/%Y"


def test_the_asset_reports_repeats_and_balance_breaks(tmp_path):
    from tests.test_quarantine import _materialize_raw

    overrides = {
        "source": "files",
        "path": str(STMT),
        "max_quarantine_share": 0.2,
        **OBSERVED,
    }
    result = _materialize_raw(tmp_path, overrides, "2026-01-02", "2026-01-30")
    assert result.success
    metadata = result.asset_materializations_for_node("raw_transactions")[0].metadata
    values = {k: v.value for k, v in metadata.items()}
    assert (values["rows_in"], values["rows_kept"], values["rows_quarantined"]) == (12, 10, 1)
    assert values["duplicates_dropped"] == 1 and values["duplicates_same_balance"] == 1
    assert values["balance_breaks"] == 1
    (export,) = values["exports"]
    assert export["preamble_lines"] == 6 and export["balance_breaks"] == ["line 17"]
    assert (export["opening_balance"], export["closing_balance"]) == (1234.56, 2210.70)
    # the run's verdict; each day has its own too
    (check,) = [c for c in result.get_asset_check_evaluations() if c.partition is None]
    assert all(c.passed for c in result.get_asset_check_evaluations())
    assert check.passed  # rows in = kept + quarantined + duplicates, recounted from the files


def test_identical_rows_stay_two_where_the_balance_column_does_not_run(tmp_path):
    """A balance that stays put (the account's balance printed on every row) proves nothing:
    two identical coffees under it are two purchases, as without a balance column."""
    path = tmp_path / "activity.csv"
    path.write_text(
        "Date,Description,Amount,Balance\n"
        "03/01/2026,COFFEE,-4.85,500.00\n03/01/2026,COFFEE,-4.85,500.00\n"
        "03/02/2026,LUNCH,-12.00,500.00\n"
    )
    mapping = {"Date": "posted_date", "Description": "description", "Amount": "amount"}
    result = scan_transactions(path, column_map=mapping)
    assert (result.kept.height, result.duplicates) == (3, 0)
    assert result.kept["transaction_id"].n_unique() == 3
