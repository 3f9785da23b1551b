"""A spreadsheet header written on two rows: a group name merged over the columns it splits
("Monto" over "Cargos | Abonos", "Оборот" over "Дебет | Кредит"), the other names beside it
on the first row (or merged down over both). The columns' own names are the second row's
under the group, the first row's elsewhere: one header row as the table reader takes it.

Told by the cells alone (merges read as a value with blanks beside it, or down over the rows
they cover): both rows words only; on the second, names only under a name followed by blank
cells (the group), two at least under one group, and elsewhere nothing or the name above; on
the first, a name of its own beside the group. A title over the whole table has no name
beside it; a preamble of labels and values has no group over two names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.records import SchemaError


def _filled(cell: object) -> bool:
    return cell is not None and str(cell).strip() != ""


def _words(cells: list) -> bool:
    """Whether a row's filled cells are all names (no number, no date), two at least."""
    filled = [c for c in cells if _filled(c)]
    return len(filled) >= 2 and all(
        isinstance(c, str) and any(ch.isalpha() for ch in c) for c in filled
    )


def _groups(top: list) -> dict[int, int]:
    """Each column under a group name (a name followed by blank cells) -> the group's first."""
    found: dict[int, int] = {}
    for first, cell in enumerate(top):
        if not _filled(cell) or first + 1 >= len(top) or _filled(top[first + 1]):
            continue
        found[first] = first
        after = first + 1
        while after < len(top) and not _filled(top[after]):
            found[after] = first
            after += 1
    return found


def two_row_names(top: list, below: list) -> list | None:
    """The header's names where ``below`` splits ``top``'s group names (see the module), else
    None."""
    if not (_words(top) and _words(below)):
        return None
    width = max(len(top), len(below))
    top = [*top, *[""] * (width - len(top))]
    below = [*below, *[""] * (width - len(below))]
    groups = _groups(top)
    split: dict[int, int] = {}  # group -> its names below
    for column, cell in enumerate(below):
        if not _filled(cell):
            continue
        if column in groups:
            split[groups[column]] = split.get(groups[column], 0) + 1
        elif str(cell).strip() != str(top[column]).strip():
            return None  # a name of its own under one of the first row's: no two-row header
    beside = [c for c, cell in enumerate(top) if _filled(cell) and c not in groups]
    if not beside or max(split.values(), default=0) < 2:
        return None
    return [below[c] if _filled(below[c]) else top[c] for c in range(width)]


def joined_header(rows: Iterator[CellRow], reach: int) -> Iterator[CellRow]:
    """The rows, the first two-row header within the first ``reach`` rows read as one row
    (the first's number, the second row's names under the group): the second is part of the
    header, not a row of the table."""
    rows = iter(rows)
    above: CellRow | None = None
    for row in rows:
        usable = not isinstance(row.cells, SchemaError)
        names = (
            two_row_names(list(above.cells), list(row.cells))
            if above is not None and usable
            else None
        )
        if names is not None:
            yield CellRow(above.line, names, above.raw)
            yield from rows
            return
        if above is not None:
            yield above
        if row.line > reach:
            yield row
            yield from rows
            return
        above = row if usable else None
        if not usable:
            yield row
    if above is not None:
        yield above
