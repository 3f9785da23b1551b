"""Dates that write no year: a statement's "03/02" or "3月2日", a month and a day alone.

China Merchants Bank's card statement names its month only in the title above the table
("招商银行信用卡对账单（个人消费卡账户 2024年01月）"). Each of its dates is of that year, or of
the year before where its month comes after the statement's (December's rows in January's
statement). Such a table's dates are written in ISO with the title's year before any layout
is guessed or any row read, so inspect and the load read the same days; a row keeps its
bytes as the file writes them. A file that writes no year anywhere (Mobile Suica's history)
is refused, saying so (``layout_refusal``): no date_format can give a year.

A month and a day are read month first, as the Chinese and Japanese statements that name
their month as "YYYY年MM月" write them; a column where a first number is above 12 is left
as it is (and refused as not read).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator
from typing import NamedTuple

from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES, header_names

# a month and a day: "03/02", "3-2", "3月2日" (never with a dot: "3.20" is an amount too)
_MONTH_DAY = re.compile(r"\s*(\d{1,2})\s*(?:[/-]\s*(\d{1,2})|月\s*(\d{1,2})\s*日)\s*")
_TITLE_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月")
# the share of a column's filled cells below the header that must be a month and a day (a
# footer's words may stand in it too)
_DATED_SHARE = 0.8


def month_day(value: object) -> tuple[int, int] | None:
    """(month, day) of a cell that writes a date without a year ("03/02", "3月2日"), else
    None."""
    found = _MONTH_DAY.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        return None
    month, day = int(found.group(1)), int(found.group(2) or found.group(3))
    return (month, day) if 1 <= month <= 12 and 1 <= day <= 31 else None


def yearless_share(values: list) -> float:
    """The share of a column's filled cells that are a month and a day alone."""
    filled = [v for v in values if str(v if v is not None else "").strip()]
    return sum(month_day(v) is not None for v in filled) / len(filled) if filled else 0.0


class StatementMonth(NamedTuple):
    """The year and month a title above a table names, and the columns dated by it."""

    year: int
    month: int
    line: int  # the title's
    title: str
    columns: tuple[str, ...]  # the header's names of the yearless date columns

    def year_of(self, month: int) -> int:
        """The year of a date in ``month``: the title's, or the year before for a month after
        the statement's."""
        return self.year - 1 if month > self.month else self.year

    def describe(self, unit: str = "line") -> str:
        columns = ", ".join(repr(c) for c in self.columns)
        month = dt.date(2000, self.month, 1).strftime("%B")
        return (
            f"{self.year}, from the title {self.title!r} ({unit} {self.line}): {columns} "
            f"write{'s' if len(self.columns) == 1 else ''} no year; a date of a month after "
            f"{month} is of {self.year - 1}"
        )


def dated_by_title(rows: Iterator[CellRow]) -> tuple[Iterator[CellRow], StatementMonth | None]:
    """The rows, the yearless dates below a header dated by the year and month a title above
    it names (see the module's docstring); and that month, or None where no title names one
    over such dates (the rows then unchanged)."""
    rows = iter(rows)
    head = list(itertools.islice(rows, HEADER_SEARCH_LINES))
    found = _statement_month(head)
    if found is None:
        return itertools.chain(head, rows), None
    month, below, positions = found
    body = (_dated(row, positions, month) for row in itertools.chain(head[below:], rows))
    return itertools.chain(head[:below], body), month


def _statement_month(head: list[CellRow]) -> tuple[StatementMonth, int, list[int]] | None:
    """The title's month, the index in ``head`` of the first row below the header, and the
    positions of the yearless date columns; None where there is no such title or column."""
    readable = [(i, r) for i, r in enumerate(head) if not isinstance(r.cells, SchemaError)]
    for at, (_, row) in enumerate(readable):
        cells = (str(c if c is not None else "").strip() for c in row.cells)
        filled = list(dict.fromkeys(c for c in cells if c))  # (merged cells: one text)
        title = _TITLE_MONTH.search(" ".join(filled)) if len(filled) <= 2 else None
        if title is None or not 1 <= int(title.group(2)) <= 12:
            continue
        following = readable[at + 1 :]
        header = next(
            (k for k, (_, r) in enumerate(following[1:], 1) if _any_month_day(r.cells)), None
        )
        if header is None or _any_month_day(following[header - 1][1].cells):
            return None
        names = header_names(following[header - 1][1].cells)
        body = [r.cells for _, r in following[header:]]
        positions = [
            p
            for p in range(len(names))
            if yearless_share([c[p] for c in body if p < len(c)]) >= _DATED_SHARE
        ]
        if not positions:
            return None
        text = " ".join(filled)
        columns = tuple(names[p] for p in positions)
        month = StatementMonth(int(title.group(1)), int(title.group(2)), row.line, text, columns)
        return month, following[header][0], positions
    return None


def _any_month_day(cells: list) -> bool:
    return any(month_day(c) is not None for c in cells)


def _dated(row: CellRow, positions: list[int], month: StatementMonth) -> CellRow:
    """The row with each yearless date of the ``positions`` written in ISO with its year (a
    day no calendar has, "02/30", left as written: quarantined as no date)."""
    if isinstance(row.cells, SchemaError):
        return row
    cells = list(row.cells)
    for position in positions:
        found = month_day(cells[position]) if position < len(cells) else None
        if found is None:
            continue
        with_year = (month.year_of(found[0]), *found)
        try:
            cells[position] = dt.date(*with_year).isoformat()
        except ValueError:
            continue
    return row._replace(cells=cells)
