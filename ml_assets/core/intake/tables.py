"""Tables in bank files (CSV, spreadsheets): where the header is, what lies above it, how the
file writes amounts and dates, and each row below the header as a record keyed by its names.

Banks put things above the header: an account summary with opening and closing balances, a
title in merged cells, the account number. The header is the first line within
HEADER_SEARCH_LINES that gives the required fields through the file's column mapping
(``header_line`` sets it; 0 for a file without one, whose columns are then named 1, 2, 3, ...);
the lines above it are the preamble: counted and read for balances, never rows. The decimal
mark and the date format, when not set, are read from the first SNIFF_ROWS rows below it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ml_assets.core.intake.amount_text import sniff_decimal
from ml_assets.core.intake.csv_exports import CellRow, ColumnMapping, fitting_presets
from ml_assets.core.intake.export_settings import ExportSettings
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.row_widths import (
    common_width,
    empty,
    filled,
    short_widths,
    spills_over,
)
from ml_assets.core.intake.sniffing import sniff_date_format
from ml_assets.core.intake.statements import (
    CONTINUATION_LINE,
    REPEATED_HEADER,
    SECTION_LINE,
    says_balance,
)

HEADER_SEARCH_LINES = 50
SNIFF_ROWS = 200
AMOUNT_FIELDS = ("amount", "debit", "credit", "balance")
Record = tuple[int, dict | SchemaError, bytes]


@dataclass
class TableHead:
    """What was found above and at the top of a table, and how its rows are read."""

    header: list[str] = field(default_factory=list)
    line: int | None = None  # the header's line or row; 0: the file has none; None: empty file
    preamble: list[tuple[int, list]] = field(default_factory=list)  # (line, cells) above it
    columns: dict[str, str] = field(default_factory=dict)  # their column -> ours
    date_format: str | None = None
    decimal: str = "."
    sniffed: dict[str, str] = field(default_factory=dict)  # setting -> how it was decided


def read_table(
    where: str,
    rows: Iterator[CellRow],
    mapping: ColumnMapping,
    settings: ExportSettings,
    *,
    delimiter: str | None = None,
    unit: str = "line",
    pad: bool = False,
) -> tuple[TableHead, Iterator[Record]]:
    """The table's head and its records. ``where`` names the file (and sheet) in errors;
    ``unit`` is "line" (CSV) or "row" (spreadsheets, whose short rows are ``pad``-ded)."""
    rows = iter(rows)
    limit = max(HEADER_SEARCH_LINES, settings.header_line or 0)
    head: list[CellRow] = []
    for row in rows:
        head.append(row)
        if row.line >= limit:
            break
    cells = [r for r in head if not isinstance(r.cells, SchemaError)]
    if not cells:  # an empty file, or one whose every line is unreadable: rows to quarantine
        return TableHead(), _records(where, [], itertools.chain(head, rows), unit, pad)
    index = _header_index(where, head, mapping, settings.header_line, unit)
    if settings.header_line == 0:
        width = max(len(r.cells) for r in cells)
        header, body = [str(i + 1) for i in range(width)], head[:]
        mapping.check(where, header, 1, " (header_line: 0 names the columns 1, 2, 3, ...)", unit)
        table = TableHead(header, 0)
    else:
        header = header_names(head[index].cells)
        body = head[index + 1 :]
        preamble = [(r.line, r.cells) for r in head[:index] if not isinstance(r.cells, SchemaError)]
        table = TableHead(header, head[index].line, preamble)
    body += list(itertools.islice(rows, max(SNIFF_ROWS - len(body), 0)))
    narrowest = common_width(body, header, mapping.columns(header)) or len(header)
    spills = not pad and spills_over(body, header)
    header = header + _named_beyond(header, mapping.column_map)
    table.header = header
    table.columns = mapping.columns(header)
    _sniff(table, body, mapping, settings, delimiter)
    short = short_widths(header, table.columns)
    texts = frozenset(
        i for i, name in enumerate(header) if table.columns.get(name) == "description"
    )
    records = _records(
        where, header, itertools.chain(body, rows), unit, pad, narrowest, spills, short, texts
    )
    return table, records


def _named_beyond(header: list[str], column_map: dict[str, str]) -> list[str]:
    """Names for cells right of the header's last name that column_map maps by position
    ("column 4", where M&S Bank writes a payment's "CR" after an unnamed cell)."""
    positions = [
        int(found.group(1))
        for name in column_map
        if (found := re.fullmatch(r"column (\d+)", name)) and int(found.group(1)) > len(header)
    ]
    return [position_name(i) for i in range(len(header) + 1, max(positions, default=0) + 1)]


def position_name(position: int) -> str:
    """The name of a column its header leaves unnamed, by its 1-based position ("column 4"):
    how column_map names it."""
    return f"column {position}"


def header_names(cells: list) -> list[str]:
    """Header names: stripped (and of a byte-order mark), an empty one (a merged cell) named
    by its position, a repeated one numbered, so no column hides another."""
    names: list[str] = []
    for position, cell in enumerate(cells, start=1):
        name = str(cell if cell is not None else "").strip().lstrip("\ufeff")
        name = name or position_name(position)
        while name in names:
            name = f"{name} ({position})"
        names.append(name)
    while names and names[-1] == position_name(len(names)):
        names.pop()  # a trailing delimiter, or empty cells right of the table
    return names


def _header_index(
    where: str, head: list[CellRow], mapping: ColumnMapping, header_line: int | None, unit: str
) -> int:
    """The position in ``head`` of the header row, or raise naming what was searched."""
    if header_line == 0:
        return -1
    rows = [(i, r) for i, r in enumerate(head) if not isinstance(r.cells, SchemaError)]
    if header_line is not None:
        chosen = next((i for i, r in rows if r.line == header_line), None)
        if chosen is None:
            raise SchemaError(
                f"{where}: raw_transactions.header_line is {header_line}, but {unit} "
                f"{header_line} is blank or past the end; set it to the {unit} that holds the "
                "column names (or leave it out to find it)",
                "bad_header",
            )
        mapping.check(where, header_names(head[chosen].cells), header_line, unit=unit)
        return chosen
    for i, row in rows:
        if not mapping.problems(header_names(row.cells)):
            return i
    # none fits: report the likeliest header (one that fits a preset, else the widest
    # all-text row), and what to set
    fitting = [(i, r) for i, r in rows if fitting_presets(header_names(r.cells))]
    i, row = fitting[0] if fitting else max(rows, key=lambda ir: (_text_cells(ir[1].cells), -ir[0]))
    also = (
        ""
        if fitting
        else f"; no {unit} of the first {HEADER_SEARCH_LINES} gives them: set "
        f"raw_transactions.header_line to the {unit} holding the column names, or 0 for a "
        "file without one (its columns are then named 1, 2, 3, ... in column_map)"
    )
    mapping.check(where, header_names(row.cells), row.line, also, unit)
    return i  # (check raised: a row that fits was returned above)


def _text_cells(cells: list) -> int:
    """How header-like a row is: its non-empty cells, if none is a number or a date."""
    values = [c for c in cells if not empty(c)]
    if any(isinstance(c, int | float | dt.date) or _numeric(str(c)) for c in values):
        return 0
    return len(values)


def _numeric(text: str) -> bool:
    return any(ch.isdigit() for ch in text) and not any(ch.isalpha() for ch in text)


def _sniff(
    table: TableHead,
    body: list[CellRow],
    mapping: ColumnMapping,
    settings: ExportSettings,
    delimiter: str | None,
) -> None:
    """The decimal mark and date format the table's rows are read with: as set, else the
    preset's, else read from the values of the first rows (see core.sniffing, core.amount_text)."""
    layout = mapping.layout
    sources = {ours: theirs for theirs, ours in table.columns.items()}
    amount_columns = [sources[f] for f in AMOUNT_FIELDS if f in sources]
    amount_columns += list(layout.debit_credit or ()) if layout else []
    positions = {name: i for i, name in enumerate(table.header)}
    texts = _column_texts(body, positions, amount_columns)
    if settings.decimal != "auto":
        table.decimal = settings.decimal
    elif layout is not None:
        table.decimal = "."  # the presets are US layouts
    else:
        table.decimal, table.sniffed["decimal"] = sniff_decimal(texts, delimiter)
    date_format = settings.date_format or (layout.date_format if layout else None)
    if date_format is None and "posted_date" in sources:
        dates = _column_texts(body, positions, [sources["posted_date"]])
        date_format, _, why = sniff_date_format(dates, day_first_hint=table.decimal == ",")
        table.sniffed["date_format"] = why
    table.date_format = date_format


def _column_texts(body: list[CellRow], positions: dict[str, int], columns: list[str]) -> list:
    found = []
    for row in body:
        if isinstance(row.cells, SchemaError):
            continue
        for column in columns:
            at = positions.get(column)
            if at is not None and at < len(row.cells) and isinstance(row.cells[at], str):
                found.append(row.cells[at])
    return found


def _records(
    where: str,
    header: list[str],
    rows: Iterator[CellRow],
    unit: str,
    pad: bool,
    narrowest: int | None = None,
    spills: bool = False,
    short: frozenset[int] = frozenset(),
    texts: frozenset[int] = frozenset(),
) -> Iterator[Record]:
    """Each row as {header name: cell}. In a CSV a row of another width is malformed (a
    truncated last line when it is short and unterminated), unless the file's rows share a
    narrower width (``narrowest``: the cells right of it are blank), the row is of a width
    that leaves off no field it must hold (``short``, see row_widths.short_widths: read with the cells
    right of it blank) or the rows spill their last column's text over more cells
    (``spills``: joined); a trailing empty cell (a trailing delimiter) is tolerated. A spreadsheet's short rows are padded, extra cells named. A CSV
    line that only continues the row above (OCBC's ``,,UBER EATS HELP.UBER``: its first cell
    empty, one cell of words, or any one cell of a text column ``texts``: TMB's terminal line
    ``,16 11 2023 46130803``) is joined to that row's cell and counted."""
    held: list = []  # the last row, and the lines continuing it: yielded once the next comes
    for row in rows:
        values = [] if isinstance(row.cells, SchemaError) else list(row.cells)
        if held and not pad and _continues(values, len(header), texts):
            line, record, raw = held[0]
            at = next(i for i, v in enumerate(values) if filled(v))
            name = header[at]
            record[name] = f"{str(record.get(name) or '').rstrip()} {str(values[at]).strip()}"
            held[0] = (line, record, raw + b"\n" + row.raw)
            held.append((row.line, {CONTINUATION_LINE: values[at]}, row.raw))
            continue
        yield from held
        held = []
        if spills and len(values) > len(header):  # (see row_widths.spills_over)
            last = [str(v).strip() for v in values[len(header) - 1 :] if filled(v)]
            values = [*values[: len(header) - 1], " ".join(last)]
        found = _row_record(where, header, row, values, pad, narrowest, short, texts)
        if isinstance(found[1], dict) and SECTION_LINE not in found[1]:
            held = [found]
        else:
            yield found
    yield from held


def _continues(values: list, width: int, texts: frozenset[int]) -> bool:
    """Whether a CSV line continues the row above: its first cell empty, one cell inside the
    header's width, nothing else; a cell of words, or whatever a text column holds (a date
    and a terminal's number go on a card payment's text: no row is a text alone)."""
    at = [i for i, v in enumerate(values) if filled(v)]
    if len(at) != 1 or at[0] == 0 or at[0] >= width:
        return False
    text = str(values[at[0]])
    return at[0] in texts or sum(map(str.isalpha, text)) > 0


def _header_again(names: list[str], header: list[str]) -> bool:
    """Whether a line is the header written again: the same names, or (a second table of the
    same columns below the first, Discount Bank's booked list under its pending one) all but
    one name in five the same; a transaction holds its figures where the header has names."""
    same = sum(a == b for a, b in zip(names, header, strict=False))
    return names == header or (len(header) >= 5 and same >= 0.8 * len(header))


def _row_record(
    where: str,
    header: list[str],
    row: CellRow,
    values: list,
    pad: bool,
    narrowest: int | None = None,
    short: frozenset[int] = frozenset(),
    texts: frozenset[int] = frozenset(),
) -> Record:
    """One line as {header name: cell}, a counted section title, or the error. A CSV line
    may leave off the cells right of ``narrowest`` (those column_map names by position), and
    a whole line those of a ``short`` width."""
    if isinstance(row.cells, SchemaError):
        return row.line, row.cells, row.raw
    while len(values) > len(header) and empty(values[-1]):
        values.pop()
    # (a title in merged cells is read into each of them: the same words, one title; or its
    # one cell right of an empty first one, outside the text's columns: ICICI's legend under
    # its table, written in its serial number's column)
    cells_at = [i for i, v in enumerate(values) if filled(v)]
    alone = values and all(not filled(v) or v == values[0] for v in values[1:])
    if not alone and len(cells_at) == 1 and cells_at[0] not in texts:
        alone, text = True, str(values[cells_at[0]]).strip()
    else:
        text = str(values[0]).strip() if alone else ""
    letters = sum(map(str.isalpha, text)) > sum(map(str.isdigit, text))
    if text and letters and len(header) > 1 and not row.unterminated:
        # words in the first cell alone (a digit among more letters: an address), no amount:
        # a section's title ("Posted Transactions", a sheet's "Liste Ihrer Konten") or a
        # footer's disclaimer, counted as such rather than quarantined (a date alone there
        # still is)
        return row.line, {SECTION_LINE: text}, row.raw
    if _header_again(header_names(values)[: len(header)], header):
        return row.line, {REPEATED_HEADER: values[0]}, row.raw
    narrower = narrowest is not None and narrowest <= len(values) < len(header)
    # (a balance stated on a short line below the table is read as the balance line it is)
    stated = len(values) < len(header) and says_balance(values)
    if pad or narrower or stated or (len(values) in short and not row.unterminated):
        values += [""] * (len(header) - len(values))
        names = header + [position_name(i + 1) for i in range(len(header), len(values))]
        return row.line, dict(zip(names, values, strict=True)), row.raw
    if len(values) != len(header):
        truncated = row.unterminated and len(values) < len(header)
        error = SchemaError(
            f"{where}:{row.line}: {'truncated last line: ' if truncated else ''}"
            f"expected {len(header)} columns ({', '.join(header)}), found {len(values)}",
            "truncated_line" if truncated else "malformed_csv",
        )
        return row.line, error, row.raw
    return row.line, dict(zip(header, values, strict=True)), row.raw
