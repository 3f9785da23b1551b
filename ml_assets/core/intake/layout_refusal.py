"""Why no layout fits a table, for the error ``inspect`` raises: the line (a spreadsheet's row)
whose names come closest to a date, an amount and a text, what they give and which is
missing, or which named column holds values not read as what its name says, one of them
shown, and what to set; for a file without a header, the column of dates no format reads;
for dates that write no year, that no setting gives one; for a file of one line, the
settings that would read it, to confirm; for a list of trades (a price and a quantity on
each row), that it is no bank statement."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from ml_assets.core.intake.column_names import field_of, normalized
from ml_assets.core.intake.column_values import (
    cell,
    column,
    date_share,
    money_like,
    number_share,
    numbers,
)
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.layout_by_name import columns_by_name
from ml_assets.core.intake.other_delimiters import delimiter_advice
from ml_assets.core.intake.records import SchemaError, parse_date_text
from ml_assets.core.intake.sniffing import day_first, sniff_date_format
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES, header_names
from ml_assets.core.intake.yearless_dates import month_day, yearless_share

# the names of a trade list's price and quantity columns (an exchange's or a broker's), and of
# the traded value (price times quantity), whose columns a bank statement never has together
_PRICE_NAMES = frozenset({"price", "unit price", "avg price", "average price", "价格", "成交价",
                          "成交价格", "成交均价", "单价", "kurs"})  # fmt: skip
_QUANTITY_NAMES = frozenset({"quantity", "qty", "shares", "units", "数量", "成交数量", "成交量",
                             "stueck", "anzahl"})  # fmt: skip
_TRADED_VALUE_NAMES = ("成交额", "成交金额", "交易额", "total", "amount", "value")


def trade_list_error(file: Path, rows: list[CellRow], unit: str = "line") -> SchemaError | None:
    """The error for a list of trades (a header within the first lines naming a price and a
    quantity: Huobi's "价格", "数量"): its rows are trades, no payments, and a unit price is
    never a row's amount. None for any other table."""
    for row in rows:
        if row.line > HEADER_SEARCH_LINES:
            break
        if isinstance(row.cells, SchemaError):
            continue
        names = {normalized(n): n for n in header_names(row.cells)}
        price = next((names[k] for k in names if k in _PRICE_NAMES), None)
        quantity = next((names[k] for k in names if k in _QUANTITY_NAMES), None)
        if price is None or quantity is None:
            continue
        value = next((names[k] for k in _TRADED_VALUE_NAMES if k in names), None)
        advice = (
            f"; if its traded values are money moving in or out of an account, map {value!r} "
            "-> amount (never the price) in raw_transactions.column_map"
            if value
            else ""
        )
        return SchemaError(
            f"{file}: {unit} {row.line} names a price ({price!r}) and a quantity ({quantity!r}): "
            f"a list of trades (an exchange's or a broker's), not a bank statement, and not "
            f"read{advice}",
            "bad_header",
        )
    return None


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
        parse_date_text(str(value).strip(), date_format)
    except ValueError:
        return False
    return True


def no_layout_error(file: Path, rows: list, unit: str) -> SchemaError:
    """The error for a table no layout fits (``unit``: "row" in a spreadsheet, whose rows
    are numbered): the line whose names come closest, or what the values of a file without
    a header read as; for a file of one line, which columns to map."""
    read = [r for r in rows if not isinstance(r.cells, SchemaError)]
    if len(read) == 1 and (one_line := _one_line_map(read[0])):
        return SchemaError(
            f"{file}: the file holds one {unit}, without a header: {one_line}", "bad_header"
        )
    if read and not any(any(ch.isdigit() for ch in str(c)) for r in read for c in r.cells):
        shown = [" ".join(str(c).strip() for c in r.cells if str(c).strip()) for r in read[:3]]
        return SchemaError(
            f"{file}: no transactions in this export: its {len(read)} {unit}(s) hold words "
            f"alone ({shown}), no date or amount; export a period with transactions",
            "bad_header",
        )
    if (history := _balance_history(read, unit)) is not None:
        return SchemaError(f"{file}: {history}", "bad_header")
    if (yearless := _yearless_dates(read, unit)) is not None:
        return SchemaError(f"{file}: {yearless}", "bad_date")
    why = closest_header(rows, unit) or _values_unread(read)
    other = delimiter_advice(file, rows) if unit == "line" else ""
    return SchemaError(
        f"{file}: no header line found in the first rows that gives a date, an amount and a "
        f"description, and the values give none either{why}{other}; "
        f"{'else ' if other else ''}set raw_transactions.header_line and column_map by hand "
        "(see the README's 'Your own data')",
        "bad_header",
    )


# words in a column name that say it holds a balance (ING's "Boeksaldo", "Valutair saldo")
_BALANCE_WORDS = ("balance", "saldo", "solde", "kontostand", "残高", "余额")


def _balance_history(rows: list[CellRow], unit: str) -> str | None:
    """For a header of a date and balances alone (ING's daily "Datum", "Boeksaldo",
    "Valutair saldo"): that the file is a balance history, no list of transactions; else
    None."""
    for row in rows[:HEADER_SEARCH_LINES]:
        names = [n for n in header_names(row.cells) if str(n).strip()]
        dated = [n for n in names if field_of(n) == "posted_date"]
        others = [n for n in names if n not in dated]
        if (
            dated
            and others
            and all(any(w in normalized(n) for w in _BALANCE_WORDS) for n in others)
        ):
            return (
                f"{unit} {row.line} names a date ({dated[0]!r}) and balances alone "
                f"({', '.join(repr(n) for n in others)}): a history of the account's balance, "
                "no transactions; export the account's transactions (its statement or "
                "transaction list) instead"
            )
    return None


# the share of a column's values with a digit that, written without a year, make it a column
# of such dates
_YEARLESS_SHARE = 0.8


def _yearless_dates(rows: list[CellRow], unit: str) -> str | None:
    """For a table whose dates write no year ("10/28"; no title above it names the year:
    see yearless_dates): the column, one date, that no date_format can give a year, and what
    to do instead; else None."""
    width = max((len(r.cells) for r in rows), default=0)
    for position in range(width):
        # (a header's name above them holds no digit)
        values = [v for v in column(rows, position) if any(map(str.isdigit, str(v)))]
        if len(values) < 2 or yearless_share(values) < _YEARLESS_SHARE:
            continue
        first = next(r for r in rows if month_day(cell(r, position)) is not None)
        above = [r for r in rows if r.line < first.line]
        name = str(cell(above[-1], position)).strip() if above else ""
        named = repr(name) if name else str(position + 1)
        columns = columns_by_name(header_names(above[-1].cells)) if above else {}
        given = ""
        if columns.get(name) == "posted_date":  # (what its names give, as of any header)
            mapped = ", ".join(f"{theirs} -> {ours}" for theirs, ours in columns.items())
            given = f"{unit} {above[-1].line} names {mapped}, but "
        return (
            f"{given}column {named} holds dates without a year ({unit} {first.line}: "
            f"{str(cell(first, position)).strip()!r}), and no title above the table names the "
            "statement's month as 'YYYY年MM月': no date_format can give a year (there is no "
            "setting for one); export the statement with dates that write the year, or write "
            "the year into each date (as 'YYYY/MM/DD') and load that copy"
        )
    return None


# a value shaped as a date (day, month as a number or a name, year) that no format may read:
# "10-Nov-9", whose one-digit year no strftime pattern reads
_DATE_SHAPE = re.compile(r"\d{1,4}[-/. ](?:[A-Za-z]{3,9}|\d{1,2})[-/. ]\d{1,4}")


def _values_unread(rows: list) -> str:
    """For a file without a header: the column whose values look like dates too few of which
    a date format reads for a date column (four in five), one unread shown ("" where there
    is none)."""
    width = max((len(r.cells) for r in rows), default=0)
    for position in range(width):
        values = [str(v).strip() for v in column(rows, position) if str(v).strip()]
        if values and all(_DATE_SHAPE.fullmatch(v) for v in values) and date_share(values) < 0.8:
            example = next(v for v in values if date_share([v]) < 1)
            return (
                f" (column {position + 1} holds dates no date format reads, e.g. {example!r}: "
                "save the export with two- or four-digit years, or convert that column)"
            )
    return ""


def _one_line_map(row: CellRow) -> str | None:
    """For a file of one row without a header: which of its cells read as a date, an amount
    and a text (spaced words first, the longest), and the settings that read it; None where
    the row has not each of them."""
    cells = [str(c).strip() if not isinstance(c, dt.date) else c for c in row.cells]
    filled = [(i, c) for i, c in enumerate(cells) if str(c).strip()]
    date = next((i for i, c in filled if date_share([c]) == 1), None)
    amount = next(
        (i for i, c in filled if i != date and number_share([c]) == 1 and money_like([c])), None
    )
    worded = [(i, str(c)) for i, c in filled if i not in (date, amount) and _worded(str(c))]
    if date is None or amount is None or not worded:
        return None
    text = max(worded, key=lambda ic: (" " in ic[1], len(ic[1])))[0]
    parts = dict(sorted({date: "posted_date", amount: "amount", text: "description"}.items()))
    shown = ", ".join(
        f"column {i + 1} ({str(cells[i])[:40]!r}) as {ours}" for i, ours in parts.items()
    )
    mapping = ", ".join(f"'{i + 1}': {ours}" for i, ours in parts.items())
    dated = _one_date_format(str(cells[date]))
    return (
        f"its values read {shown}; one row is too few to tell a layout from, so confirm them "
        f"and set raw_transactions.header_line: 0, column_map: {{{mapping}}}{dated} (and "
        "spending: positive if a purchase is written positive)"
    )


def _one_date_format(text: str) -> str:
    """The date_format advice for one date: the format that reads it, or, where it reads
    with the day or the month first (10/01/2025), both and what each reads, since one date
    does not tell which the bank writes ("" where it is ISO or no format reads it)."""
    date_format, ties, _ = sniff_date_format([text])
    if date_format is None:
        return ""
    rival = next((t for t in ties if day_first(t) != day_first(date_format)), None)
    if rival is None:
        return f" and date_format: {date_format!r}"
    readings = " or ".join(
        f"{f!r} ({parse_date_text(text, f).date()}, {order} first)"
        for f, order in sorted(
            ((f, "day" if day_first(f) else "month") for f in (date_format, rival)),
            key=lambda fo: fo[1],
        )
    )
    return (
        f" and date_format: {readings}, whichever the bank writes: {text!r} reads both ways "
        "and one date does not tell"
    )


def _worded(text: str) -> bool:
    return sum(c.isalpha() for c in text) >= 2
