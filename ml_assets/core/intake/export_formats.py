"""Which format an export file is, and which files of a folder are exports: by extension
(optionally ``.gz``), or by content where the extension hides one: a statement (MT940, OFX,
ISO 20022) in a file of another extension, told by how it begins, and a text table (CSV)
saved as a spreadsheet or ``.txt``, told by a header a layout fits. A statement of a format
no reader takes (``unread_statements``) is no export, whatever its name."""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

from ml_assets.core.intake.csv_exports import head_lines, iter_csv_rows
from ml_assets.core.intake.html_tables import looks_like_html
from ml_assets.core.intake.layout_guess import guess_layout
from ml_assets.core.intake.records import SchemaError, open_binary
from ml_assets.core.intake.sniffing import sniff_delimiter
from ml_assets.core.intake.text_encoding import detect_encoding
from ml_assets.core.intake.unread_statements import unread_statement
from ml_assets.core.intake.xml_sheets import is_spreadsheet_xml, looks_like_spreadsheet_xml

_SUFFIX_FORMAT = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",  # or a JSON document: told apart by the content (core.json_documents)
    ".csv": "csv",
    ".tsv": "csv",
    ".tab": "csv",  # tab-separated (ABN AMRO's TXT*.TAB downloads): its delimiter sniffed
    ".ssv": "csv",  # semicolon-separated (hledger): its delimiter sniffed as any CSV's
    ".parquet": "parquet",
    ".ofx": "ofx",
    ".qfx": "ofx",  # Quicken's OFX
    ".qbo": "ofx",  # QuickBooks Web Connect: OFX too
    ".xml": "camt053",
    ".sta": "mt940",
    ".mt940": "mt940",
    ".940": "mt940",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".xls": "xlsx",  # the old Excel format: read by its bytes (core.intake.spreadsheets)
    ".ods": "xlsx",  # OpenDocument: a spreadsheet too
    ".qif": "qif",
}


FORMATS = ("auto", "jsonl", "csv", "parquet", "ofx", "camt053", "mt940", "xlsx", "qif")


def list_input_files(path: Path, fmt: str) -> list[Path]:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist; point raw_transactions.path (or batch_predictions.source) "
            "at an export file or a folder of them"
        )
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and format_of(p, fmt, strict=False))
    if not files:
        raise FileNotFoundError(
            f"{path}: no export files found (format={fmt}; by extension: "
            f"{', '.join(sorted(_SUFFIX_FORMAT))}, optionally .gz)"
        )
    return files


def format_of(path: Path, fmt: str, strict: bool = True) -> str | None:
    """The format ``fmt`` names, or for ``auto`` the one the extension names, unless the
    content is another: a statement in a file of no export extension or of another
    statement format's (an OFX file saved as .xml, CAMT's extension: see
    statement_by_content), a text table in a spreadsheet's or a .txt file (see
    table_by_content). A statement format no reader takes (Norma 43, CODA, BAI2: see
    unread_statements) is none, and with ``strict`` an error naming it."""
    if fmt != "auto":
        return fmt
    found = format_by_extension(path)
    if found in (None, "camt053") and is_spreadsheet_xml(path):
        return "xlsx"  # Excel's XML Spreadsheet 2003, named .xml or nothing
    if found in (None, "csv", "xlsx") and (unread := unread_statement(path)) is not None:
        if strict:
            raise SchemaError(f"{path}: {unread.refusal(path)}")
        return None
    if found is None or found == "xlsx":
        found = statement_by_content(path) or table_by_content(path) or found
    elif found in STATEMENT_SIGNS:
        found = statement_by_content(path) or found
    if found is None and strict:
        raise SchemaError(
            f"{path}: cannot tell the format from the extension; set raw_transactions.format"
        )
    return found


def format_by_extension(path: Path) -> str | None:
    suffixes = [x.lower() for x in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":  # export.jsonl.gz, export.csv.gz
        suffixes = suffixes[:-1]
    return _SUFFIX_FORMAT.get(suffixes[-1] if suffixes else "")


_STATEMENT_STARTS = (  # how each statement format's files begin, whatever they are named
    # MT940: its SWIFT block or :20:, or lines of the bank's own first (ABN AMRO's "ABNANL2A"
    # and "940", ING's "0000 01INGBNL2A...", Rabobank's ":940:"), then a line starting :20:
    # and a later one starting with the opening balance (:60F: or :60M:): no CSV or QIF has
    (re.compile(rb"\{1:|:20:|(.*\n)*?:20:.*\n(.*\n)*?:60[FM]:"), "mt940"),
    # OFX: its SGML header, or the XML declaration before its <?OFX?> (QuickBooks' .qbo)
    (re.compile(rb"(<\?xml[^>]*>\s*)?(OFXHEADER|<\?OFX|<OFX>)", re.IGNORECASE), "ofx"),
    # ISO 20022: a camt.053 statement, camt.052 account report or camt.054 notification
    (
        re.compile(rb"(<\?xml[^>]*>\s*)?<(\w+:)?Document[^>]*camt\.05[234]", re.IGNORECASE),
        "camt053",
    ),
)


# what in a statement's first bytes tells its format (as _STATEMENT_STARTS reads them)
STATEMENT_SIGNS = {
    "mt940": "SWIFT MT940 records (:20:, :60F:)",
    "ofx": "an OFX header or <OFX> root",
    "camt053": "an ISO 20022 camt.052/053/054 <Document>",
}


# the ISO 20022 messages the camt053 format reads, by their number in the namespace
CAMT_MESSAGES = {
    "052": "camt.052 account report",
    "053": "camt.053 statement",
    "054": "camt.054 debit/credit notification",
}
_CAMT_NAMESPACE = re.compile(rb"camt\.(05[234])", re.IGNORECASE)


def camt_message(path: Path) -> str | None:
    """Which ISO 20022 message an XML file is ("052", "053" or "054"), told by the first
    namespace in its first 4 KB that names one; None for any other file."""
    try:
        with open_binary(path) as handle:
            head = handle.read(4096)
    except OSError:
        return None
    found = _CAMT_NAMESPACE.search(head)
    return found.group(1).decode() if found else None


def statement_by_content(path: Path) -> str | None:
    """The statement format a file of another extension holds (banks save MT940 as .txt or
    .dat, OFX downloads arrive without one), told by how its first 2 KB begin; None for
    anything else."""
    if not path.is_file() or path.name.startswith("."):
        return None
    try:
        with path.open("rb") as handle:
            head = handle.read(2048).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return None
    return next((fmt for start, fmt in _STATEMENT_STARTS if start.match(head)), None)


# extensions banks give text tables too: a CSV saved as ".xls" (Swedbank) or ".xlsx", a
# "delimited .txt" (HDFC)
TEXT_TABLE_SUFFIXES = (".xls", ".xlsx", ".txt")


_TABLE_SAMPLE_ROWS = 60  # rows a text table's layout is guessed from (as inspect's header search)


def content_kind(path: Path) -> str:
    """What a file's first bytes are: "ole2" (the old Excel format), "zip" (an .xlsx),
    "html" (a web page, which many banks save as .xls), "spreadsheet xml" (Excel's XML
    Spreadsheet 2003), "binary", or "text"."""
    try:
        with open_binary(path) as handle:
            head = handle.read(4096)
    except OSError:
        return "binary"
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "ole2"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if looks_like_html(head):
        return "html"
    if looks_like_spreadsheet_xml(head):
        return "spreadsheet xml"
    return "binary" if b"\x00" in head else "text"


def table_by_content(path: Path) -> str | None:
    """ "csv" for a spreadsheet's or a .txt file (TEXT_TABLE_SUFFIXES) whose content is text
    lines of delimited values under a header a layout fits (a date, an amount and a text):
    the extension said otherwise, the bytes say CSV. None for anything else (a README.txt,
    a real .xls), so a folder's other files stay unread."""
    suffixes = [x.lower() for x in path.suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes = suffixes[:-1]
    if not suffixes or suffixes[-1] not in TEXT_TABLE_SUFFIXES or not path.is_file():
        return None
    stat = path.stat()
    return "csv" if _holds_text_table(path, stat.st_size, stat.st_mtime_ns) else None


@functools.lru_cache(maxsize=256)  # (a folder's listing, its scan and inspect ask each file)
def _holds_text_table(path: Path, size: int, modified: int) -> bool:
    """Whether the text at ``path`` is a table with a header a layout fits; ``size`` and
    ``modified`` key the cache to the file's version."""
    if path.name.startswith(".") or content_kind(path) != "text":
        return False
    with open_binary(path) as handle:
        encoding = detect_encoding(handle.read(1 << 16))[0]
    delimiter = sniff_delimiter(head_lines(path, encoding))
    rows = iter_csv_rows(path, encoding, delimiter)
    try:
        guess = guess_layout(list(itertools.islice(rows, _TABLE_SAMPLE_ROWS)))
    finally:
        rows.close()
    return guess is not None and guess.line > 0


def skipped_files(path: Path, fmt: str) -> list[Path]:
    """The files of a folder the load does not read: no export extension, no statement inside."""
    if not path.is_dir():
        return []
    read = set(list_input_files(path, fmt))
    return sorted(p for p in path.rglob("*") if p.is_file() and p not in read)


_SHOWN_SKIPPED = 5  # skipped files named, of each kind


def skipped_notes(folder: Path, skipped: list[Path]) -> list[str]:
    """What the load and inspect say of a folder's ``skipped`` files: each statement of a
    format no reader takes, by name with what to load instead (see unread_statements); the
    others counted and named, with what to do if one is an export."""
    refused = {p: found for p in skipped if (found := unread_statement(p)) is not None}
    others = [p for p in skipped if p not in refused]
    notes = [
        f"{p.relative_to(folder)}: {found.refusal(p)}"
        for p, found in list(refused.items())[:_SHOWN_SKIPPED]
    ]
    if len(refused) > _SHOWN_SKIPPED:
        notes.append(f"{len(refused) - _SHOWN_SKIPPED} more statement(s) of formats not read")
    if others:
        names = ", ".join(str(p.relative_to(folder)) for p in others[:_SHOWN_SKIPPED])
        more = f" and {len(others) - _SHOWN_SKIPPED} more" if len(others) > _SHOWN_SKIPPED else ""
        notes.append(
            f"{len(others)} file(s) the load does not read (no export's extension, no "
            f"statement or table of transactions inside): {names}{more}; rename an export to "
            "its format's extension or set raw_transactions.format"
        )
    return notes
