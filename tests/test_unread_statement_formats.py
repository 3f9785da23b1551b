"""Statement formats no reader here takes (Norma 43, CODA, BAI2, TITO, CFONB 120, ESR/V11) are
told by their first records, whatever the file is named, and refused with the format's name and
what to load instead; never sent to a ``raw_transactions.format`` that has no value for them or
to renaming the file .csv. A folder's load skips them beside the exports it reads.

Each file is a small reproduction of the format's record layout (fixed-width fields at their
positions, the line ends banks write), with invented accounts, names and amounts."""

from __future__ import annotations

import pytest

from ml_assets.core.intake.export_formats import format_of, list_input_files, skipped_files
from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.unread_statements import unread_statement


def _fixed(*fields: str, width: int) -> str:
    line = "".join(fields)
    assert len(line) <= width, (len(line), line)
    return line.ljust(width)


# Norma 43: 11 account header, 22 movement, 23 its concept text, 33 account total, 88 file end
NORMA43 = "\r\n".join(
    _fixed(*fields, width=80)
    for fields in (
        ("11", "0081", "0123", "0001234567", "260301", "260331", "2", "00000000150000", "978",
         "3", "TALLERES VELT SL".ljust(26)),
        ("22", "    ", "0123", "260305", "260305", "12", "001", "1", "00000000004550",
         "0000004471", "".ljust(12), "".ljust(16)),
        ("23", "01", "COMPRA TARJ. PANADERIA SOL MADRID".ljust(38)),
        ("22", "    ", "0123", "260310", "260310", "02", "002", "2", "00000000120000",
         "0000000118", "".ljust(12), "".ljust(16)),
        ("23", "01", "TRANSFERENCIA DE TALLERES VELT SL".ljust(38), "FACTURA 118"),
        ("33", "0081", "0123", "0001234567", "00001", "00000000004550", "00001",
         "00000000120000", "2", "00000000265450", "978"),
        ("88", "9" * 18, "000006"),
    )
) + "\r\n"  # fmt: skip

# CODA 2: 0 header (zeros, DDMMYY, bank id, application 05), 1 old balance, 21/22/23 movement,
# 8 new balance, 9 trailer; 128 characters
CODA = "\r\n".join(
    _fixed(*fields, width=128)
    for fields in (
        ("0", "0000", "120326", "725", "05", " ", " " * 7, "0000000000", "BAKKERIJ ZONNESTRAAL BV".ljust(26),
         "KREDBEBB".ljust(11), "00412345678", " ", "00000", " " * 32, " " * 7, "2"),
        ("1", "2", "071", "BE68539007547034".ljust(34), "EUR", "0", "000000001234560", "110326",
         "BAKKERIJ ZONNESTRAAL BV".ljust(26), "Zichtrekening".ljust(35), "071"),
        ("21", "0001", "0000", "OL9412345JBBOEUBCTOBA", "1", "000000000045500", "120326",
         "00150000", "0", "Bestelling 4471 taart verjaardag".ljust(53), "120326", "071", "0", "0", " ", "0"),
        ("23", "0001", "0000", "BE71096123456769".ljust(37), "GARAGE VELT".ljust(35)),
        ("8", "071", "BE68539007547034".ljust(34), "EUR", "0", "000000001189060", "120326"),
        ("9", " " * 15, "000004", "000000000045500", "000000000000000", " " * 75, "2"),
    )
) + "\r\n"  # fmt: skip

BAI2 = (
    "01,021000021,BAKERYSUN,260312,0800,1,80,1,2/\n"
    "02,BAKERYSUN,021000021,1,260311,2400,USD,2/\n"
    "03,000123456789,USD,010,150000,,,015,265450,,/\n"
    "16,475,4550,Z,0000001471,,CHECK 1471 GARAGE VELT/\n"
    "16,165,120000,Z,0000000118,,ACH CREDIT FEESTZAAL INVOICE 118/\n"
    "49,540000,4/\n"
    "98,540000,1,6/\n"
    "99,540000,1,8/\n"
)

# TITO: T00 basic record (322 characters), T10 transaction, T11 its message
TITO = "\r\n".join(
    (
        _fixed("T00322100FI4947300010490012603012603312603120800", width=322),
        _fixed("T10188000001260312473047AB0001260312260312260312", "5710KORTTIOSTO".ljust(35),
               "-000000000000004550 KLEIPOMO AURINKO OY", width=188),
        _fixed("T1106100LASKU 118", width=61),
    )
) + "\r\n"  # fmt: skip

# CFONB 120: 01 old balance, 04 movement, 05 its complement, 07 new balance (the amount's last
# character codes its last digit and sign)
CFONB120 = "\n".join(
    _fixed(*fields, width=120)
    for fields in (
        ("01", "30004", "    ", "01234", "EUR", "2", " ", "00012345678", "  ", "010326", " " * 50,
         "0000000015000{"),
        ("04", "30004", "0512", "01234", "EUR", "2", " ", "00012345678", "B1", "050326", "  ",
         "050326", "CB BOULANGERIE DU SOLEIL".ljust(31), "0000000", "0", " ", "0000000000455}"),
        ("05", "30004", "0512", "01234", "EUR", "2", " ", "00012345678", "B1", "050326", "   ",
         "LIB", "CARTE 4471 PARIS"),
        ("07", "30004", "    ", "01234", "EUR", "2", " ", "00012345678", "  ", "310326", " " * 50,
         "0000000014545{"),
    )
) + "\n"  # fmt: skip

# ESR/V11 type 3: transaction code, participant number, 27-digit reference, amount in
# centimes, postal reference, three dates, microfilm number, reject code, reserve, fees; 999
# closes the list with its total
ESR = "\r\n".join(
    _fixed(*fields, width=100)
    for fields in (
        ("002", "010001628", "000000000000000000000047115", "0000004550", "0000000001",
         "260310", "260311", "260312", "000000001", "0", " " * 9, "0000"),
        ("002", "010001628", "000000000000000000000047123", "0000120000", "0000000002",
         "260310", "260311", "260312", "000000002", "0", " " * 9, "0000"),
        ("999", "010001628", "9" * 27, "000000124550", "000000000002", "260312", "0" * 9),
    )
) + "\r\n"  # fmt: skip

FORMATS = [
    ("extracto_marzo.n43", NORMA43, "Norma 43"),
    ("extracto_marzo.txt", NORMA43, "Norma 43"),
    ("CODA_20260312.cod", CODA, "CODA"),
    ("coda_0312.txt", CODA, "CODA"),
    ("statement.bai", BAI2, "BAI2"),
    ("bai_statement.txt", BAI2, "BAI2"),
    ("tiliote_260312.TO", TITO, "TITO"),
    ("releve_mars.cfo", CFONB120, "CFONB 120"),
    ("releve_mars.txt", CFONB120, "CFONB 120"),
    ("esr_credits.V11", ESR, "ESR/BVR (V11)"),
]


# what each refusal says to load instead
INSTEAD = {
    "Norma 43": "csb2format",
    "CODA": "camt.053 (XML), which Belgian banks offer",
    "BAI2": "camt.053 (XML), OFX or CSV",
    "TITO": "the 'XT' file that replaces TITO",
    "CFONB 120": "OFX, QIF or CSV",
    "ESR/BVR (V11)": "load the account's statement instead",
}


@pytest.mark.parametrize(("name", "content", "format_name"), FORMATS)
def test_an_unread_statement_format_is_refused_by_its_name(tmp_path, name, content, format_name):
    """inspect and the load both name the format and say what to load instead; neither sends
    the user to a raw_transactions.format value that does not exist or to renaming it .csv."""
    export = tmp_path / name
    export.write_bytes(content.encode("latin-1"))
    found = inspect_file(export)
    assert found.result is None and format_name in found.error
    assert "raw_transactions.format" not in found.error and "rename" not in found.error
    assert INSTEAD[format_name] in found.error
    with pytest.raises(SchemaError, match=format_name.replace("(", r"\(").replace(")", r"\)")):
        scan_transactions(export)


def test_norma43_advice_names_the_converter_with_the_file(tmp_path):
    """The Norma 43 refusal names a converter to OFX, with the file's own name."""
    export = tmp_path / "extracto_marzo.n43"
    export.write_bytes(NORMA43.encode("latin-1"))
    assert "csb2format extracto_marzo.n43 extracto_marzo.ofx" in inspect_file(export).error


def test_a_statement_named_csv_is_refused_by_its_content(tmp_path):
    """A Norma 43 file renamed .csv (as the old advice said) is still told by its records."""
    export = tmp_path / "extracto.csv"
    export.write_text(NORMA43)
    assert format_of(export, "auto", strict=False) is None
    with pytest.raises(SchemaError, match="Norma 43"):
        format_of(export, "auto")


def test_a_folder_reads_its_exports_and_skips_unread_statements(tmp_path):
    """Beside an MT940 export, the statements no reader takes are skipped, not read as
    tables."""
    (tmp_path / "checking.sta").write_text(
        ":20:STMT1\n:25:NL20INGB0001234567\n:28C:1/1\n:60F:C260301EUR100,00\n"
        ":61:2603050305D45,50NTRFNONREF\n:86:Bakery Sunrise\n"
        ":61:2603100310C1200,00NTRFNONREF\n:86:Garage Velt payroll\n:62F:C260310EUR1254,50\n-\n"
    )
    (tmp_path / "extracto.txt").write_text(NORMA43)
    (tmp_path / "coda.txt").write_text(CODA)
    (tmp_path / "statement.bai").write_text(BAI2)
    assert [p.name for p in list_input_files(tmp_path, "auto")] == ["checking.sta"]
    assert [p.name for p in skipped_files(tmp_path, "auto")] == [
        "coda.txt",
        "extracto.txt",
        "statement.bai",
    ]
    assert scan_transactions(tmp_path).kept.height == 2


@pytest.mark.parametrize(
    "content",
    [
        # a headerless CSV whose first column is the day of the month
        "01,260312,0800,GROCER,-12.50\n02,260313,0900,PAYROLL,1200.00\n",
        "01,021000021,BAKERY,260312,0800,1\n02,BAKERY,1,260311\n",  # no record ends with "/"
        "11 March 2026,Opening balance,1500.00\n22 March 2026,GROCER,-12.50\n",
        "0020100016280000\n",  # too short for an ESR record
    ],
)
def test_other_text_is_no_unread_statement(tmp_path, content):
    export = tmp_path / "export.txt"
    export.write_text(content)
    assert unread_statement(export) is None
