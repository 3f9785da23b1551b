"""The old Excel format (BIFF ``.xls``, an OLE2 compound file), read with xlrd: what many banks
still send as their "Excel" download (Spanish, Indian and Chinese banks among them). Cells keep
their types as in an .xlsx: a date cell is a date (by its number format and the workbook's 1900
or 1904 epoch), a whole number an int (a card's last four digits are ``6688``, not ``6688.0``),
an error cell its text (``#N/A``); a merged cell reads as its value in the first cell with
blanks beside it, and in every row it covers where it is merged down."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.sheet_values import downs_by_row, filled_down, sheet_number

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the compound file's signature


def _unreadable() -> tuple[type[Exception], ...]:
    """What xlrd raises on a damaged or foreign compound file (a Word document named .xls)."""
    import xlrd
    from xlrd.compdoc import CompDocError

    return (xlrd.XLRDError, CompDocError, struct.error, AssertionError, IndexError, KeyError)


class _Quiet:
    """Where xlrd's notes go ("file size not 512 + multiple of sector size" of a file Excel
    opens as well): not to the user's terminal, where inspect prints its report."""

    def write(self, text: str) -> None:
        pass


_QUIET = _Quiet()


def looks_like_legacy_excel(head: bytes) -> bool:
    return head.startswith(_OLE2)


class LegacyBook:
    """An .xls workbook as the spreadsheet reader takes a book: its sheet names, each sheet's
    rows of values, the number formats of its cells. Raises ValueError where xlrd cannot read
    the file."""

    def __init__(self, path: Path):
        import xlrd  # (imported where a workbook is read, not with the graph)

        try:
            try:
                # formatting_info: the cells' number formats, where a bare number's currency is
                self._book = xlrd.open_workbook(
                    str(path), formatting_info=True, on_demand=True, logfile=_QUIET
                )
            except NotImplementedError:  # formatting before BIFF 8 (Excel 95) is not read
                self._book = xlrd.open_workbook(str(path), on_demand=True, logfile=_QUIET)
        except _unreadable() as err:
            raise ValueError(f"not an Excel workbook xlrd can read: {err}") from err
        self.sheetnames = self._book.sheet_names()

    def values(self, name: str) -> Iterator[tuple]:
        sheet = self._book.sheet_by_name(name)
        # (xlrd lists merges only with formatting_info: half-open row and column bounds)
        downs = downs_by_row((top, end - 1, left) for top, end, left, _ in sheet.merged_cells)
        rows = (tuple(self._value(cell) for cell in sheet.row(i)) for i in range(sheet.nrows))
        yield from filled_down((row, downs.get(i, {})) for i, row in enumerate(rows))

    def number_formats(self, name: str, columns: list[int], below: int, limit: int) -> list[str]:
        """The number formats of ``columns`` (0-based) of the number cells in the ``limit``
        rows below row ``below`` (1-based)."""
        import xlrd

        if not self._book.formatting_info:
            return []
        sheet = self._book.sheet_by_name(name)
        found = []
        for index in range(below, min(sheet.nrows, below + limit)):
            for column in columns:
                if column < sheet.ncols and sheet.cell_type(index, column) == xlrd.XL_CELL_NUMBER:
                    style = self._book.xf_list[sheet.cell_xf_index(index, column)]
                    found.append(self._book.format_map[style.format_key].format_str)
        return found

    def close(self) -> None:
        self._book.release_resources()

    def _value(self, cell) -> object:
        import xlrd

        kind, value = cell.ctype, cell.value
        if kind in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
            return None
        if kind == xlrd.XL_CELL_DATE:
            try:
                return xlrd.xldate_as_datetime(value, self._book.datemode)
            except (xlrd.xldate.XLDateError, OverflowError, ValueError):
                return value  # a number formatted as a date that is none: read as written
        if kind == xlrd.XL_CELL_NUMBER:
            return sheet_number(value)
        if kind == xlrd.XL_CELL_BOOLEAN:
            return bool(value)
        if kind == xlrd.XL_CELL_ERROR:
            return xlrd.error_text_from_code.get(value, "#ERROR")
        return value
