"""MT940, MT942 and QIF as real downloads write them: German purpose sub-fields cut where the
bank chose, Volksbank's references repeated in the purpose, MT942 interim reports and
statements that end with an available balance, ING batches without a counterparty, entries
with no details but a type code, Quicken investment accounts, and QIF dates written year
first. Every file is written by its test, in the layout of the bank's own downloads; rows in
= kept + quarantined + counted lines on every file."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_path, report

HEAD = ":20:STARTUMSE\n:25:87052000/123456789\n:28C:00001/001\n:60F:C260301EUR1000,00\n"


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def read(path: Path, counted: int = 0):
    """The file's scan: every row kept or quarantined, ``counted`` lines not transactions."""
    result = scan_transactions(path)
    assert result.kept.height + result.quarantined.height == result.rows_in
    assert sum(len(notes.statement_lines) for notes in result.notes) == counted
    return result


def test_german_purpose_sub_fields_join_with_a_space_where_the_bank_ended_one_short(tmp_path):
    """A sub-field of 27 characters was cut where it filled up (ENDABRECHN + UNG); a shorter
    one ended where the bank chose (Apple Pay + DATUM), unless a number runs on across the
    two. Keywords and references (EREF+, KREF+, MREF+, CRED+, and Volksbank's IBAN: and
    BIC: in the text) are left out of the purpose."""
    entries = [
        ":61:2603020302DR20,00N033NONREF",
        ":86:177?00ONLINE-UEBERWEISUNG?109310?20SVWZ+Apple Pay?21DATUM 05.03.2026, 9.05 UHR"
        "?221.TAN 002153?30NTSBDEB1XXX?31DE12345678901234567890?32Max Mustermann",
        ":61:2603030303DR12,35N109NONREF",
        ":86:109?00SEPA-LASTSCHR.?20EREF+A1.200080779.400143254?21KREF+SEPA-DA20200601221740"
        "?22MREF+20852HW2723821 CRED+DE?2341EON00000129793 SVWZ+SONST?24IGE GRUENDE: ZUR ENDABRECHN"
        "?25UNG KUNDENNUMMER 202227?26779?32TESTEREL",
        ":61:2603040304CR80,00NMSCNONREF",
        ":86:166?00UEBERWEISUNG?10931?20SVWZ+Musical Emilio CD\n?21IBAN: DE835?2200105179219844"
        "142 BIC: SBCR\n?23DE66 ?30SBCRDE66?31DE83500105179219844142?32Antonio Sueto",
    ]
    path = write(
        tmp_path / "umsaetze.sta", HEAD + "\n".join(entries) + "\n:62F:C260304EUR1047,65\n-\n"
    )
    result = read(path)
    assert result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "Max Mustermann Apple Pay DATUM 05.03.2026, 9.05 UHR 1.TAN 002153",
        "TESTEREL SONSTIGE GRUENDE: ZUR ENDABRECHNUNG KUNDENNUMMER 202227779",
        "Antonio Sueto Musical Emilio CD",
    ]
    assert result.kept["merchant"].to_list() == ["Max Mustermann", "TESTEREL", "Antonio Sueto"]


MT942 = """:20:STARTDISPE
:25:12345678/0012345678
:28C:00000/001
:34F:EURD0,
:34F:EURC0,
:13D:2603051032+0100
:61:2603050305DR12,34NDDTNONREF
:86:105?00SEPA-BASISLASTSCHRIFT?20SVWZ+Netflix Abo?32Netflix International B.V.
"""


def test_an_mt942_report_and_a_statement_ending_in_an_available_balance_are_complete(tmp_path):
    """MT942 has no closing balance: its sums (:90D:, :90C:) end it; a statement whose last
    entry is followed by an available balance (:64:, :65F:) is complete too. A file that
    stops inside its last entry is still a cut-off download."""
    report_942 = write(tmp_path / "vormerkposten.sta", MT942 + ":90D:1EUR12,34\n:90C:0EUR0,\n")
    result = read(report_942)
    assert result.kept["description"].to_list() == ["Netflix International B.V. Netflix Abo"]
    assert result.kept["amount"].to_list() == [-12.34]
    forward = HEAD + (
        ":61:2603040304CR230,00N051NONREF\n"
        ":86:166?00GUTSCHRIFT?20SVWZ+Strom Abschlag?32EWE VERTRIEB GmbH\n"
        ":65F:C260305EUR1230,00\n"
    )
    result = read(write(tmp_path / "olb.sta", forward))
    assert result.kept["description"].to_list() == ["EWE VERTRIEB GmbH Strom Abschlag"]
    cut = read(write(tmp_path / "cut.sta", MT942))
    assert cut.kept.height == 0 and dict(cut.reasons) == {"truncated_file": 1}


def test_an_ing_batch_without_a_counterparty_is_described_by_its_remittance_text(tmp_path):
    """ING writes a batch (/PREF/, its reference) with no /CNTP/: the text is the /REMI/, as
    where /CNTP/ is present; the batch reference names no merchant."""
    text = (
        ":20:P140220000000001\n:25:NL77INGB0574908765EUR\n:28C:0000\n:60F:C140219EUR662,23\n"
        ":61:1402200220D1,57NTRFPREF//00000000001006\n/TRCD/00200/\n"
        ":86:/PREF/M000000003333333//REMI/USTD//TOTAAL 1 VZ/\n"
        ":61:1402200220C1,45NDDTPREF//00000000001008\n/TRCD/01000/\n"
        ":86:/PREF/M000000001111111/\n/CSID/\nNL32ZZZ999999991234\n/\n/REMI/USTD//\n"
        "TOTAAL 1 POSTEN/\n:62F:C140220EUR662,11\n-\n"
    )
    result = read(write(tmp_path / "ing.940", text))
    assert result.kept["description"].to_list() == ["TOTAAL 1 VZ", "TOTAAL 1 POSTEN"]
    assert result.kept["merchant"].to_list() == [None, None]


def test_an_entry_without_details_is_named_by_its_type_code(tmp_path):
    """A charge or interest entry often has no :86: and no reference: its SWIFT type code
    names it as a statement prints it. A bank's own code (N037) names nothing: the entry
    stays quarantined, saying what it lacks."""
    entries = [
        ":61:2603020302DR4,50NCHGNONREF",
        ":61:2603030303CR1,25FINTNONREF",
        ":61:2603040304CR200,00S103NONREF",
        ":61:2603050305DR9,99N037NONREF",
    ]
    path = write(
        tmp_path / "gebuehren.sta", HEAD + "\n".join(entries) + "\n:62F:C260305EUR1186,76\n-\n"
    )
    result = read(path)
    assert result.kept["description"].to_list() == [
        "Charges",
        "Interest",
        "Customer transfer (SWIFT MT103)",
    ]
    assert result.kept["amount"].to_list() == [-4.5, 1.25, 200.0]
    assert result.kept["merchant"].to_list() == [None] * 3
    (detail,) = result.quarantined["detail"]
    assert detail.startswith(f"{path}:8: required field 'description' is missing: ")
    assert "no :86: details" in detail and "'N037' names no kind of transaction" in detail


INVESTMENT = """!Type:Invst
D8/25/93
NShrsIn
Yibm4
I11.260
Q88.81
T1,000.00
MOpening
^
D8/25/93
NBuyX
Yibm4
I11.030
Q9.066
T100.00
L[CHECKING]
$100.00
^
D9/1/93
NBuy
YACME
I10.00
Q5
O1.00
T51.00
^
D9/2/93
NSell
YACME
T60.00
^
D9/3/93
NDiv
YACME
T2.50
^
D9/4/93
NXOut
T100.00
L[CHECKING]
^
D9/5/93
NFrobnicate
T1.00
^
"""


def test_a_quicken_investment_account_reads_what_moves_its_cash(tmp_path):
    """A Buy, Sell, dividend or transfer out moves the account's cash: a row, signed by its
    action and named by it and the security. Shares moved in (ShrsIn) and a purchase paid
    from the checking account (BuyX, a row of that account's export) are counted; an action
    Quicken does not write is quarantined, naming its line."""
    path = write(tmp_path / "brokerage.qif", INVESTMENT)
    result = read(path, counted=2)
    assert result.kept["description"].to_list() == [
        "Buy ACME",
        "Sell ACME",
        "Dividend ACME",
        "Transfer out",
    ]
    assert result.kept["amount"].to_list() == [-51.0, 60.0, 2.5, -100.0]
    assert result.kept["posted_date"].to_list() == [
        "1993-09-01",
        "1993-09-02",
        "1993-09-03",
        "1993-09-04",
    ]
    assert [line for line, _ in result.notes[0].statement_lines] == [2, 10]
    (detail,) = result.quarantined["detail"]
    assert detail.startswith(f"{path}:43: QIF investment action N'Frobnicate' is not one")
    found = inspect_path(path)
    assert found[0].error is None
    assert "not transactions: 2: QIF investment ShrsIn" in report(path, found)


YEAR_FIRST = """!Type:Bank
D13/08/12
T-1,000.00
PDelta PC
^
D13/08/15
T-75.46
PWalts Drugs
^
D13/3/3
T-379.00
PEpic Technologies
^
"""


def test_qif_dates_written_year_first_are_read_so_and_inspect_says_it(tmp_path):
    """13/3/3 reads no way but year first, and 13/08/12 reads that way too: every date is
    read year/month/day, with a warning, and inspect names the order. A date no order
    reads names what would; a file whose dates read every way stays month-first."""
    path = write(tmp_path / "checking.qif", YEAR_FIRST)
    result = read(path)
    assert result.kept["posted_date"].to_list() == ["2013-08-12", "2013-08-15", "2013-03-03"]
    (warning,) = result.notes[0].warnings
    assert "'13/3/3' read only year first" in warning
    assert "dates:           year first" in report(path, inspect_path(path))

    typo = YEAR_FIRST.replace("D13/08/12", "D1/5/26").replace("D13/08/15", "D2/7/26")
    typo = write(tmp_path / "typo.qif", typo.replace("D13/3/3", "D45/1/26"))
    result = read(typo)
    assert result.kept["posted_date"].to_list() == ["2026-01-05", "2026-02-07"]
    (detail,) = result.quarantined["detail"]
    assert "D'45/1/26' is not a date (month first, as Quicken (US))" in detail
    assert "it reads year first: set raw_transactions.date_format to '%y/%m/%d'" in detail

    day_first = YEAR_FIRST.replace("D13/08/12", "D28/02/26").replace("D13/08/15", "D3/30/26")
    result = read(write(tmp_path / "mixed.qif", day_first.replace("D13/3/3", "D13/3/26")))
    (detail,) = result.quarantined["detail"]
    assert "D'3/30/26' is not a date (day first)" in detail
    assert "it reads month first: set raw_transactions.date_format to '%m/%d/%y'" in detail
