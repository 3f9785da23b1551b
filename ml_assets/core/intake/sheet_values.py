"""What the spreadsheet readers share: a number cell as the table reader takes it, and a
workbook's sheets by name."""

from __future__ import annotations

from collections.abc import Iterable
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
