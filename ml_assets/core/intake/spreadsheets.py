"""Spreadsheet exports: XLSX and XLSM read with openpyxl in read-only mode, the old Excel
format (.xls) with xlrd (``legacy_sheets``), Excel's XML Spreadsheet 2003 (``xml_sheets``),
OpenDocument (.ods, ``ods_sheets``), a web page saved as one (``html_tables``: a sheet per table), each told by its bytes, not its name (banks name one the other). Rows stream with their row numbers (what errors name), cells keep their types
(a date cell is a date, a number a number: no format to guess), and a merged cell reads as its
value in the first cell with blanks beside it, so a merged title above the header is a preamble
line and a header cell merged over two columns leaves the second one unnamed; a cell merged
down (a day's date over its bookings) reads as its value in every row it covers. Formulas read as
the values Excel saved.

The sheet is ``sheet`` when set, else the first whose first rows hold a header that fits; the
other sheets whose header fits too are named (``sheets_also_fitting``), as the load's warning
and inspect's fact, never dropped unseen. A file neither reader can open is one quarantined row (``unreadable_file``), as for other
formats.
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ml_assets.core.intake.csv_exports import CellRow, is_rule_line
from ml_assets.core.intake.html_tables import HtmlBook, looks_like_html
from ml_assets.core.intake.legacy_sheets import LegacyBook, looks_like_legacy_excel
from ml_assets.core.intake.ods_sheets import OdsBook, looks_like_ods
from ml_assets.core.intake.records import SchemaError, file_head
from ml_assets.core.intake.sheet_values import downs_by_row, filled_down
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES
from ml_assets.core.intake.two_row_headers import joined_header
from ml_assets.core.intake.xlsx_merges import xlsx_merges
from ml_assets.core.intake.xml_sheets import XmlBook, looks_like_spreadsheet_xml


class _XlsxBook:
    """An .xlsx/.xlsm workbook as the reader takes a book (as ``LegacyBook``). Raises
    ValueError where openpyxl cannot read the file."""

    def __init__(self, path: Path):
        from openpyxl import load_workbook
        from openpyxl.utils.exceptions import InvalidFileException

        try:
            # from its bytes: openpyxl refuses a name it does not know (an .xlsx named .xls)
            self._data = path.read_bytes()
            self._book = load_workbook(io.BytesIO(self._data), read_only=True, data_only=True)
        except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as err:
            raise ValueError(f"{type(err).__name__}: {err}") from err
        self.sheetnames = self._book.sheetnames

    def _sheet(self, name: str):
        sheet = self._book[name]
        # some writers store a wrong used range (A1:A1); read-only mode trusts it unless reset
        sheet.reset_dimensions()
        return sheet

    def values(self, name: str) -> Iterator[tuple]:
        sheet = self._sheet(name)
        downs = downs_by_row(xlsx_merges(self._data, name))
        rows = sheet.iter_rows(values_only=True)
        yield from filled_down((row, downs.get(i, {})) for i, row in enumerate(rows))

    def number_formats(self, name: str, columns: list[int], below: int, limit: int) -> list[str]:
        found = []
        for row in self._sheet(name).iter_rows(min_row=below + 1, max_row=below + limit):
            for index in columns:
                cell = row[index] if index < len(row) else None
                if cell is not None and isinstance(cell.value, int | float):
                    found.append(str(cell.number_format))
        return found

    def close(self) -> None:
        self._book.close()


Book = LegacyBook | HtmlBook | XmlBook | OdsBook | _XlsxBook


# how each kind's file begins, its reader, and what inspect calls it; else an .xlsx (a zip)
_KINDS = (
    (looks_like_legacy_excel, LegacyBook, "the old Excel format (BIFF)"),
    (looks_like_spreadsheet_xml, XmlBook, "Excel's XML Spreadsheet 2003"),
    (looks_like_ods, OdsBook, "an OpenDocument spreadsheet"),
    (looks_like_html, HtmlBook, "an HTML page's table"),
)


def _kind(path: Path) -> tuple[type[Book], str]:
    """The reader of a spreadsheet export and what it is, told by its first bytes."""
    head = file_head(path)
    found = next(((book, said) for looks, book, said in _KINDS if looks(head)), None)
    return found or (_XlsxBook, "an Excel workbook (Office Open XML)")


def _open_book(path: Path) -> Book:
    return _kind(path)[0](path)


def spreadsheet_kind(path: Path) -> str:
    """What a spreadsheet export is, told by its bytes (as the reader opens it)."""
    return _kind(path)[1]


def _cell(value: object) -> object:
    """A cell as the table reader takes it: a date for a date at midnight, text stripped of
    nothing (coercion strips), numbers as they are, "" for an empty cell."""
    if value is None:
        return ""
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date()
    if isinstance(value, bool):
        return str(value)
    return value


def _rows(values: Iterator[tuple]) -> Iterator[CellRow]:
    """A sheet's rows as the table reader takes them, a header on two rows read as one (see
    two_row_headers)."""
    return joined_header(_cell_rows(values), HEADER_SEARCH_LINES)


def _cell_rows(values: Iterator[tuple]) -> Iterator[CellRow]:
    for number, row in enumerate(values, start=1):
        cells = [_cell(v) for v in row]
        if is_rule_line(cells):  # blank, or a rule of asterisks or dashes
            continue
        raw = ",".join(str(c) for c in cells).encode("utf-8", errors="replace")
        yield CellRow(number, cells, raw)


def open_sheet(
    path: Path, sheet: str | None, fits: Callable[[list[CellRow]], bool]
) -> tuple[str | None, Iterator[CellRow]]:
    """(the sheet's name, its rows), or (None, one unreadable_file row). Without ``sheet``,
    the first sheet whose first rows ``fits`` (see _first_fitting)."""
    try:
        book = _open_book(path)
    except ValueError as err:
        error = SchemaError(
            f"{path}:1: not a readable spreadsheet ({err}); re-download it, or export the "
            "statement as CSV",
            "unreadable_file",
        )
        return None, _one(CellRow(1, error, b""))
    if sheet is not None and sheet not in book.sheetnames:
        book.close()
        raise SchemaError(
            f"{path}: no sheet {sheet!r}; the sheets are {book.sheetnames}: set "
            "raw_transactions.sheet to one of them",
            "bad_header",
        )
    chosen = sheet or _first_fitting(book, fits)
    return chosen, _closing(book, _rows(book.values(chosen)))


def _first_fitting(book: Book, fits: Callable[[list[CellRow]], bool]) -> str:
    """The first sheet whose rows in the header search's reach fit (a header a layout takes),
    else the first sheet (whose header search then says what is missing). A web page's title
    or layout table comes before its statement's."""
    for name in book.sheetnames:
        head = itertools.takewhile(
            lambda r: r.line <= HEADER_SEARCH_LINES, _rows(book.values(name))
        )
        if fits(list(head)):
            return name
    return book.sheetnames[0]


@dataclass(frozen=True)
class OtherSheet:
    """A sheet besides the one read whose header fits too: its name, its header's row, and
    the rows below it (first, last, how many hold anything)."""

    name: str
    header: int
    first: int
    last: int
    count: int

    def describe(self) -> str:
        span = f"row {self.first}" if self.first == self.last else f"rows {self.first}-{self.last}"
        return (
            f"sheet {self.name!r} also has a header that fits (row {self.header}), "
            f"{self.count} row(s) below it ({span}): NOT read"
        )


def sheets_also_fitting(
    path: Path, chosen: str, fits: Callable[[list[CellRow]], bool]
) -> list[OtherSheet]:
    """The workbook's other sheets whose first rows ``fits`` too (a sheet per month, per card,
    for foreign charges), in workbook order: the reader takes one sheet, and says so of these
    rather than drop their rows unseen."""
    try:
        book = _open_book(path)
    except ValueError:
        return []
    try:
        found = []
        for name in book.sheetnames:
            rows = list(_rows(book.values(name))) if name != chosen else []
            head = [r for r in rows if r.line <= HEADER_SEARCH_LINES]
            if not head or not fits(head):
                continue
            # the header: the row that makes the first rows fit
            header = next(r.line for k, r in enumerate(head, 1) if fits(head[:k]))
            below = [r.line for r in rows if r.line > header]
            if below:
                found.append(OtherSheet(name, header, below[0], below[-1], len(below)))
        return found
    finally:
        book.close()


def _one(row: CellRow) -> Iterator[CellRow]:
    yield row


def _closing(book: Book, rows: Iterator[CellRow]) -> Iterator[CellRow]:
    try:
        yield from rows
    finally:
        book.close()


def number_formats(
    path: Path, sheet: str, columns: list[int], below: int, limit: int = 200
) -> list[str]:
    """The number formats of ``columns`` (0-based) in the rows below row ``below``: where a
    spreadsheet writes its currency (``£#,##0.00``, ``#,##0.00 [$€-407]``) when the cells hold
    bare numbers."""
    book = _open_book(path)
    try:
        return book.number_formats(sheet, columns, below, limit)
    finally:
        book.close()
