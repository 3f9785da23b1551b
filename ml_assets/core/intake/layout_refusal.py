"""Why no layout fits a table, for the error ``inspect`` raises: the line (a spreadsheet's row)
whose names come closest to a date, an amount and a text, what they give and which is
missing, or which named column holds values not read as what its name says, one of them
shown, and what to set."""

from __future__ import annotations

import datetime as dt

from ml_assets.core.intake.column_values import column, date_share, number_share, numbers
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.layout_guess import columns_by_name
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES, header_names


def closest_header(rows: list[CellRow], unit: str = "line") -> str:
    """For an error where no layout is found: the line (``unit``: "row" in a spreadsheet)
    whose names give the most of a date, an amount and a description, what they give and
    which is missing, or which named column holds values not read as what its name says
    (one of them shown) and what to set ("" if no line names any)."""
    best: tuple[int, int, dict[str, str]] = (0, 0, {})
    for row in rows:
        if row.line > HEADER_SEARCH_LINES:
            break
        if isinstance(row.cells, SchemaError):
            continue
        columns = columns_by_name(header_names(row.cells))
        found = {t: o for t, o in columns.items() if o in _REQUIRED_PARTS}
        if len({_REQUIRED_PARTS[o] for o in found.values()}) > len(
            {_REQUIRED_PARTS[o] for o in best[2].values()}
        ):
            best = (len(found), row.line, found)
    count, line, found = best
    if not count:
        return ""
    given = ", ".join(f"{theirs} -> {ours}" for theirs, ours in found.items())
    missing = [f for f in ("posted_date", "amount", "description") if f not in found.values()]
    missing = [f for f in missing if f != "amount" or not {"debit", "credit"} & set(found.values())]
    if missing:
        return f" ({unit} {line} names {given}; no name there gives {' or '.join(missing)})"
    # a named column whose values are not what its name says was dropped: which, and why
    header = next(header_names(r.cells) for r in rows if r.line == line)
    body = [r for r in rows if r.line > line and not isinstance(r.cells, SchemaError)]
    said = "; ".join(_unread(found, header, body)) or "not every one of them holds such values"
    return f" ({unit} {line} names {given}, but {said})"


# the fields a table must give, and which each column that gives one stands for
_REQUIRED_PARTS = {
    "posted_date": "posted_date",
    "amount": "amount",
    "debit": "amount",
    "credit": "amount",
    "description": "description",
}
# formats a date column may write that the sniffed ones do not read, named in the advice
_DATE_FORMATS = ("%d %b %y", "%Y:%m:%d", "%b %d %Y", "%b %d, %Y")


def _unread(found: dict[str, str], header: list[str], body: list[CellRow]) -> list[str]:
    """Why named date and amount columns were not taken: their names, a value that does not
    read as what the name says, and what to set."""
    said = []
    unread: list[tuple[str, object]] = []  # amount columns, with a value that does not read
    for theirs, ours in found.items():
        # (a "Pending" in a date column is a pending row's mark, not how the dates read)
        values = [
            v
            for v in column(body, header.index(theirs))
            if any(ch.isdigit() for ch in str(v)) or ours != "posted_date"
        ]
        values = [v for v in values if str(v).strip()]
        if ours == "posted_date" and values and date_share(values) < 0.5:
            example = next((v for v in values if date_share([v]) < 1), values[0])
            fits = next((f for f in _DATE_FORMATS if all(_reads_as(v, f) for v in values)), None)
            said.append(
                f"column {theirs!r} holds dates not read, e.g. {str(example).strip()!r}: set "
                "raw_transactions.date_format to "
                + (f"'{fits}'" if fits else "the strftime pattern it writes (like '%d.%m.%Y')")
            )
        elif ours in ("amount", "debit", "credit") and values and number_share(values) < 0.5:
            read = zip(values, numbers(values), strict=True)
            unread.append((theirs, next((v for v, n in read if n is None), values[0])))
    if unread:
        names = ", ".join(repr(theirs) for theirs, _ in unread)
        said.append(
            f"{'columns' if len(unread) > 1 else 'column'} {names} hold amounts not read, e.g. "
            f"{str(unread[0][1]).strip()!r}: map a column of plain amounts in "
            "raw_transactions.column_map, or set decimal if it writes a decimal comma"
        )
    return said


def _reads_as(value: object, date_format: str) -> bool:
    try:
        dt.datetime.strptime(str(value).strip(), date_format)
    except ValueError:
        return False
    return True
