"""MT940 and QIF as more banks and programs write them: German sub-fields with no purpose, or
a purpose that is only a number; ING's Inside Business Payments tags (/BENM/, /ORDP/,
/BUSP/); a FinTS/HBCI dump whose lines are joined by ``@@``; a :61: reference longer than
SWIFT's 16 characters with a long second line; soft hyphens in the text; a 0.00 notice; a
file read as MT940 from which no entry can be read; QIF dates with a year written as the
years since 1900 and the payee run on after the date. Rows in = kept + quarantined (+ counted)
on every file.

Every file is written here, a few lines in the layout of a real export: Sparkasse's SEPA
reversals and batches (WoLpH/mt940's ``betterplace`` test files), ING's Inside Business
Payments example (libmt94x's ``ibp-structured-ing-provided-example.txt``), a FinTS MT942 of
the day's entries (myflow's ``pending.sta``), SNS's charges (SharpMT940's
``sns_transactions.txt``) and a web-banking QIF (GnuCash's ``web.qif`` test file)."""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.ingest import SchemaError, scan_transactions
from ml_assets.core.intake.mt940_exports import iter_mt940

_HEADER = ":20:STARTUMS\n:25:50880050/0194774600888\n:28C:00004/00001\n:60F:C070903EUR1000,00\n"


def statement(tmp_path: Path, entries: str, name: str = "umsaetze.sta", closing: str = "") -> Path:
    """An MT940 file of one statement with these entries (:61: and :86: lines)."""
    path = tmp_path / name
    path.write_text(_HEADER + entries + (closing or ":62F:C070904EUR1000,00\n") + "-\n")
    return path


def read(path: Path):
    """The file's scan, every row kept or quarantined."""
    result = scan_transactions(path)
    assert result.kept.height + result.quarantined.height == result.rows_in
    return result


def warnings_of(result) -> list[str]:
    return [warning for notes in result.notes for warning in notes.warnings]


def test_german_details_without_a_purpose_are_read_from_the_posting_text(tmp_path):
    """A Sparkasse reversal writes ?00 (posting text) and ?10 (primanota) and no ?20-?29
    purpose: the entry is described by the posting text, after the other party's name where
    ?32 gives one; the file's other entries are read too."""
    path = statement(
        tmp_path,
        ":61:0709040904DR12,50NMSCNONREF\n:86:116?00SEPA-UEBERW/STORNO?100399\n"
        ":61:0709040904DR7,50NMSCNONREF\n:86:116?00SEPA-UEBERW/STORNO?100399?32Max Mustermann\n"
        ":61:0709040904CR20,00NMSCNONREF\n:86:166?00GUTSCHRIFT?20SVWZ+Miete Maerz?32Anna Berg\n",
    )
    result = read(path)
    assert result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "SEPA-UEBERW/STORNO",
        "Max Mustermann SEPA-UEBERW/STORNO",
        "Anna Berg Miete Maerz",
    ]
    assert result.kept["merchant"].to_list() == [None, "Max Mustermann", "Anna Berg"]
    assert result.kept["amount"].to_list() == [-12.5, -7.5, 20.0]


def test_no_shape_of_details_stops_the_file(tmp_path):
    """Whatever an entry's :86: holds, it is one row (kept, or quarantined on its own) and
    the entry after it is read."""
    shapes = [
        "116?00SEPA-UEBERW/STORNO?100399",
        "116?00",
        "106?10?20",
        "000?32",
        "/BENM/",
        "/BENM/\n/",
        "/ORDP///REMI/",
        "/REMI///",
        "?",
        "\u00ad",
    ]
    for number, shape in enumerate(shapes):
        path = statement(
            tmp_path,
            f":61:0709040904DR1,00NMSCNONREF\n:86:{shape}\n"
            ":61:0709040904CR1,00NMSCNONREF\n:86:Rueckgabe\n",
            name=f"shape_{number}.sta",
        )
        result = read(path)
        assert result.rows_in == 2, shape
        assert "Rueckgabe" in result.kept["description"].to_list(), shape


def test_german_purpose_of_a_number_only_is_led_by_the_posting_text(tmp_path):
    """A batch (SAMMLER) or a closing (ABSCHLUSS) whose purpose is only its number is
    described by the posting text with the number; a purpose of words stays as it is."""
    path = statement(
        tmp_path,
        ":61:0709040904DR250,00NMSCNONREF\n:86:079?00SAMMLER?109800?200904059001\n"
        ":61:0709040904DR3,10NMSCNONREF\n:86:805?00ABSCHLUSS?10000?20 0,00\n"
        ":61:0709040904DR9,99NMSCNONREF\n:86:805?00ENTGELT?20Kontofuehrung Maerz\n",
    )
    result = read(path)
    assert result.kept["description"].to_list() == [
        "SAMMLER 0904059001",
        "ABSCHLUSS 0,00",
        "Kontofuehrung Maerz",
    ]


def test_ing_inside_business_payments_tags_give_the_party_and_the_text(tmp_path):
    """ING's IBP export: /BENM/ and /ORDP/ hold account/BIC/name/address as /CNTP/ does,
    tags are led by ``//`` and a /REMI/ with an empty sub-code (``///``) holds the text; a
    batch's /BUSP/ (a business purpose) is its text only where nothing else describes it."""
    path = tmp_path / "ing_ibp.940"
    path.write_text(
        ":20:ING\n:25:0654321789\n:28C:21\n:60F:C120127EUR26,10\n"
        ":61:120130D2,56N036EREF\n"
        ":86:/BENM/NL38INGB0654321789/INGBNL2A/ING Bank NV inzake EBW PP///ERE\n"
        "F/EV1551551REP180112T1544//REMI///EV1551551REP180112T1544/\n"
        ":61:120130C5,00N078NONREF\n"
        ":86:/ORDP/NL12RABO0123456789/RABONL2U/J. de Vries/Amsterdam//REMI//\n"
        "/Huur maart/\n"
        ":61:120130D2,57N036PREF\n"
        ":86:/BUSP/Verzamel Eurobetaling///PREF/M000000002222222//REMI///TOTAA\n"
        "L 1 POSTEN/\n"
        ":61:120130D1,00N036PREF\n"
        ":86:/BUSP/Verzamel Eurobetaling///PREF/M000000003333333/\n"
        ":62F:C120130EUR24,97\n-\n"
    )
    result = read(path)
    assert result.quarantined.height == 0
    assert result.kept["description"].to_list() == [
        "ING Bank NV inzake EBW PP EV1551551REP180112T1544",
        "J. de Vries Huur maart",
        "TOTAAL 1 POSTEN",
        "Verzamel Eurobetaling",
    ]
    assert result.kept["merchant"].to_list() == [
        "ING Bank NV inzake EBW PP",
        "J. de Vries",
        None,
        None,
    ]
    assert warnings_of(result) == []


def test_a_fints_dump_with_at_signs_between_its_lines_is_read(tmp_path):
    """FinTS/HBCI carries an MT942 with ``@@`` in place of line breaks; its floor limit
    (``:34F:EUR 0,00``, a blank mark) gives the currency, as there is no balance."""
    path = tmp_path / "pending.sta"
    path.write_text(
        "@@:20:STARTUMS@@:25:72090900/9876543219@@:28C:0@@:34F:EUR 999999999999,99"
        "@@:13:1604202255@@:61:160421D0,02NMSCKREF+@@:86:177?00EURO-Ueberweisung?10804"
        "?20SVWZ+Black TAN1:113040@@?32Florian Breunig@@:90D:1EUR0,02@@:90C:0EUR0,00\n"
    )
    result = read(path)
    assert result.rows_in == 1 and result.quarantined.height == 0
    row = result.kept.row(0, named=True)
    assert (row["amount"], row["currency"]) == (-0.02, "EUR")
    assert row["description"] == "Florian Breunig Black TAN1:113040"


def test_a_file_read_as_mt940_with_no_entry_never_passes_as_nothing(tmp_path):
    """Entries joined by a separator the reader does not know are one quarantined row naming
    the file and what it holds; a statement of balances only (a day with no movement) is a
    warning."""
    joined = tmp_path / "joined.sta"
    joined.write_text(":20:X##:25:123##:60F:C200101EUR10,00##:61:200101D1,00NMSCNONREF##-\n")
    result = read(joined)
    assert result.rows_in == 1 and result.kept.height == 0
    message = result.quarantined.row(0, named=True)["detail"]
    assert message.startswith(f"{joined}:1: no MT940 entry read: ':61:' occurs 1 time(s)")
    empty = statement(tmp_path, "", name="quiet_day.sta", closing=":62F:C070904EUR1000,00\n")
    quiet = read(empty)
    assert quiet.rows_in == 0
    assert warnings_of(quiet) == [
        f"{empty}: 1 MT940 statement(s) (:20: on line 1) and no entry (:61:): balances only, "
        "no row read"
    ]


def test_a_long_reference_with_supplementary_details_on_the_next_line_is_read(tmp_path):
    """SNS writes a reference longer than SWIFT's 16 characters and, with no :86:, the text
    on the :61:'s second line, longer than 34 characters."""
    path = statement(
        tmp_path,
        ":61:0709040904DR20,00NCHGSupplementaryDetails2\nVisa Annual Charge (Notice no 86 code!)\n",
        closing=":62F:C070904EUR980,00\n",
    )
    result = read(path)
    assert result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [-20.0]
    assert result.kept["description"].to_list() == ["Visa Annual Charge (Notice no 86 code!)"]


def test_soft_hyphens_and_line_breaks_are_no_part_of_the_text(tmp_path):
    """ING writes soft hyphens (U+00AD) inside dates: dropped, as in CAMT; lines join with
    one space."""
    path = statement(
        tmp_path,
        ":61:0709040904DR1,11NGTNONREF\n:86:ING iDEAL\n10\u00ad06\u00ad2010  15:32\nTMG TANGO\n",
        closing=":62F:C070904EUR998,89\n",
    )
    result = read(path)
    assert result.kept["description"].to_list() == ["ING iDEAL 10062010 15:32 TMG TANGO"]


def test_a_zero_amount_notice_is_counted_not_a_transaction(tmp_path):
    """SNS tells of a blocked phone payment with a 0.00 entry: it moves no money, so it is
    counted as a zero-amount notice where the caller collects such lines, never lost."""
    path = statement(
        tmp_path,
        ":61:0709040904DR5,00NMSCNONREF\n:86:Albert Heijn 1370\n"
        ":61:0709040904C0,00NDIVNONREF\n"
        ":86:Mobiel betalen is vanaf nu niet meer mogelijk voor J JANSEN\n",
        closing=":62F:C070904EUR995,00\n",
    )
    counted: list[tuple[int, str]] = []
    warnings: list[str] = []
    rows = list(iter_mt940(path, skipped=counted, warnings=warnings))
    assert [row[1]["description"] for row in rows] == ["Albert Heijn 1370"]
    assert counted == [(7, "zero-amount notice")]
    assert warnings == []
    assert len(list(iter_mt940(path))) == 2  # no list to count in: the notice stays a row


def test_qif_years_since_1900_and_a_payee_after_the_date_are_read(tmp_path):
    """A Y2K-era web-banking QIF writes the year as C's years since 1900 (099, 100) and runs
    the payee on after it; a time after the date (digits) is no such text and stays
    quarantined, naming the line."""
    path = tmp_path / "web.qif"
    path.write_text(
        "!Type:Bank\n"
        "D03/25/099Share Withdrawal\nT-99.99\nPShare Withdrawal\n^\n"
        "D12/31/100Point of Sale Transaction\nT-12.50\nPPoint of Sale Transaction\n^\n"
        "D03/26/99 10:30\nT-1.00\nPCheck\n^\n"
    )
    result = read(path)
    assert result.kept["posted_date"].to_list() == ["1999-03-25", "2000-12-31"]
    assert result.kept["description"].to_list() == [
        "Share Withdrawal",
        "Point of Sale Transaction",
    ]
    (error,) = result.quarantined["detail"].to_list()
    assert error.startswith(f"{path}:10: QIF date D'03/26/99 10:30' is not a date")


def test_an_entry_whose_details_cannot_be_read_is_quarantined_alone(tmp_path, monkeypatch):
    """Reading the text of an entry that fails in a way no bank was seen to cause names the
    entry's line and quarantines it; the file's other entries are read."""
    from ml_assets.core.intake import mt940_exports

    def fails_on_one(data: dict) -> dict:
        if "Kaputt" in str(data.get("transaction_details")):
            raise IndexError("list index out of range")
        return {"description": str(data["transaction_details"]), "merchant": None}

    monkeypatch.setattr(mt940_exports, "entry_text", fails_on_one)
    path = statement(
        tmp_path,
        ":61:0709040904DR1,00NMSCNONREF\n:86:Kaputt\n:61:0709040904CR1,00NMSCNONREF\n:86:Heil\n",
    )
    rows = list(iter_mt940(path))
    error, kept = rows[0][1], rows[1][1]
    assert isinstance(error, SchemaError) and error.reason == "bad_mt940"
    assert str(error).startswith(f"{path}:5: MT940 :86: details not readable (IndexError")
    assert kept["description"] == "Heil"
