"""What the spreadsheet readers share: a number cell as the table reader takes it, a cell
merged down over several rows read in each of them, and a
workbook's sheets by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def sheet_number(value: float | str) -> object:
    """A number cell's value: a whole number an int (a card's last four digits ``4417``,
    not ``4417.0``), else the float; text that is no number stays text."""
    try:
        number = float(value)
    except ValueError:
        return value
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def sheets_by_name(sheets: Iterable[Any], name_of: str, what: str) -> dict[str, Any]:
    """Each sheet element by its name (attribute ``name_of``; "SheetN" where it has none).
    Raises ValueError naming ``what`` (the format) where there is no sheet."""
    found = {sheet.get(name_of) or f"Sheet{i}": sheet for i, sheet in enumerate(sheets, 1)}
    if not found:
        raise ValueError(f"{what} with no sheet in it")
    return found


def filled_down(rows: Iterable[tuple[tuple, dict[int, int]]]) -> Iterator[tuple]:
    """Each row's values, a cell merged down over the rows below it (a bank's date cell
    spanning the day's bookings) read in each row it covers, as a person reads it. A row
    comes with its merges: {column (0-based): how many rows below the cell covers}. Only the
    merge's first column is filled: a cell merged across stays blank beside its value (a
    title over the table, a name over two columns)."""
    carried: dict[int, tuple[object, int]] = {}  # column -> (value, rows still covered)
    for values, downs in rows:
        cells = list(values)
        for column, (value, left) in list(carried.items()):
            cells.extend([None] * (column + 1 - len(cells)))
            if cells[column] is None or cells[column] == "":
                cells[column] = value
            if left > 1:
                carried[column] = (value, left - 1)
            else:
                del carried[column]
        for column, below in downs.items():
            if below > 0 and column < len(cells) and cells[column] not in (None, ""):
                carried[column] = (cells[column], below)
        yield tuple(cells)


def downs_by_row(merges: Iterable[tuple[int, int, int]]) -> dict[int, dict[int, int]]:
    """Merged ranges as (first row, last row, first column), 0-based and inclusive, by their
    first row: {row: {column: rows below it covered}}, the vertical ones only."""
    found: dict[int, dict[int, int]] = {}
    for first, last, column in merges:
        if last > first:
            found.setdefault(first, {})[column] = last - first
    return found
