"""Spreadsheet exports (XLSX, XLSM), read with openpyxl in read-only mode: rows stream with
their row numbers (what errors name), cells keep their types (a date cell is a date, a number
a float: no format to guess), and a merged cell reads as its value in the first cell with blanks
beside it, so a merged title above the header is a preamble line and a header cell merged
over two columns leaves the second one unnamed. Formulas read as the values Excel saved.

The sheet is ``sheet`` when set, else the first whose first rows hold a header that fits. A
file openpyxl cannot open is one quarantined row (``unreadable_file``), as for other formats.
"""

from __future__ import annotations

import datetime as dt
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES


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


def _rows(sheet) -> Iterator[CellRow]:
    for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
        cells = [_cell(v) for v in values]
        if not any(c != "" and not (isinstance(c, str) and not c.strip()) for c in cells):
            continue
        raw = ",".join(str(c) for c in cells).encode("utf-8", errors="replace")
        yield CellRow(number, cells, raw)


def open_sheet(
    path: Path, sheet: str | None, fits: Callable[[list], bool]
) -> tuple[str | None, Iterator[CellRow]]:
    """(the sheet's name, its rows), or (None, one unreadable_file row)."""
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as err:
        error = SchemaError(
            f"{path}:1: not a readable spreadsheet ({type(err).__name__}: {err}); re-download "
            "it, or export the statement as CSV",
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
    return chosen, _closing(book, _rows(_reset(book[chosen])))


def _reset(sheet):
    # some writers store a wrong used range (A1:A1); read-only mode trusts it unless reset
    sheet.reset_dimensions()
    return sheet


def _first_fitting(book, fits: Callable[[list], bool]) -> str:
    """The first sheet with a fitting header in its first rows, else the first sheet (whose
    header search then says what is missing)."""
    for name in book.sheetnames:
        for row in _rows(_reset(book[name])):
            if row.line > HEADER_SEARCH_LINES:
                break
            if fits(row.cells):
                return name
    return book.sheetnames[0]


def _one(row: CellRow) -> Iterator[CellRow]:
    yield row


def _closing(book, rows: Iterator[CellRow]) -> Iterator[CellRow]:
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
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True, data_only=True)
    try:
        found = []
        rows = _reset(book[sheet]).iter_rows(min_row=below + 1, max_row=below + limit)
        for row in rows:
            for index in columns:
                cell = row[index] if index < len(row) else None
                if cell is not None and isinstance(cell.value, int | float):
                    found.append(str(cell.number_format))
        return found
    finally:
        book.close()
