"""How wide a table's rows are against its header: a bank that leaves off a row's empty
trailing cells (Swedbank's, ABC's), one that spreads its last column's text over more cells
(Livebank's), and what a cell that holds nothing is."""

from __future__ import annotations

from collections import Counter

from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.records import SchemaError


def empty(cell: object) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def filled(cell: object) -> bool:
    return not empty(cell)


def spills_over(body: list[CellRow], header: list[str]) -> bool:
    """Whether the bank spreads its last column's text over more cells (Livebank's
    "Umsatztext", a quoted cell per line of the text): most rows are wider than the header,
    and every cell beyond it holds words (or a bare number). Such a row's cells from the last
    column on are that column's text, joined."""
    rows = [trimmed(r.cells) for r in body if not isinstance(r.cells, SchemaError)]
    wider = [cells[len(header) :] for cells in rows if len(cells) > len(header)]
    if len(header) < 2 or len(wider) < 2 or len(wider) < 0.8 * len(rows):
        return False
    cells = [str(c).strip() for extra in wider for c in extra if filled(c)]
    # words, or a bare number among them (a postcode); never an amount or a date
    return all(any(map(str.isalpha, c)) or c.isdigit() for c in cells)


def common_width(body: list[CellRow], header: list[str], columns: dict[str, str]) -> int | None:
    """The width most rows share where it is narrower than the header and the names right of
    it are mapped to nothing (Swedbank's export leaves off its trailing empty cells): rows
    that wide are read with those cells blank. None where the rows are as wide as the header,
    or vary: a row short by a lost delimiter stays malformed."""
    widths = Counter(
        len(trimmed(r.cells)) for r in body if not isinstance(r.cells, SchemaError) and r.cells
    )
    if not widths:
        return None
    width, count = widths.most_common(1)[0]
    if width >= len(header) or count < 0.8 * sum(widths.values()) or count < 2:
        return None
    return None if any(name in columns for name in header[width:]) else width


# fields a row must hold in its own cells: a row that leaves one off is malformed, not short
_HELD_FIELDS = frozenset(
    {"posted_date", "amount", "debit", "credit", "direction", "currency", "transaction_id",
     "account_id"}
)  # fmt: skip


def short_widths(header: list[str], columns: dict[str, str]) -> frozenset[int]:
    """The widths a row may have under the header's and still be read, the cells right of it
    blank (ABC's rows leave off their empty trailing cells, the others are full width): those
    whose missing cells are mapped to nothing, to the running balance or to a label, or to a
    part of the text where another part is left. A row that leaves off a date, an amount or
    another held field stays malformed."""
    texts = [i for i, name in enumerate(header) if columns.get(name) == "description"]
    widths = set()
    for width in range(1, len(header)):
        missing = {columns.get(name) for name in header[width:]}
        if missing & _HELD_FIELDS or ("description" in missing and not texts[0] < width):
            continue
        widths.add(width)
    return frozenset(widths)


def trimmed(cells: list) -> list:
    """The cells without the empty ones at the end of the line."""
    end = len(cells)
    while end and empty(cells[end - 1]):
        end -= 1
    return cells[:end]
