"""CSV exports: presets for the layouts card issuers and banks hand out (their columns, date
format, sign convention and encoding), the column mapping of one file with a header check that
names the missing column, the header found and the preset that fits, and the file's lines read
one by one with bounded memory.

A preset is a starting point: ``column_map`` and ``date_format`` in params override its
entries. Issuer columns such as ``Category`` and ``Type`` become the ``category`` and
``transaction_type`` labels. Where the header is (banks put summaries above it) is decided by
core.tables, with the mapping here.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ml_assets.core.intake.column_names import MONEY_IN, MONEY_OUT, balance_column, money_way
from ml_assets.core.intake.money_words import BY_WORDS, way_by_words
from ml_assets.core.intake.records import SchemaError, open_binary, parse_amount

# The longest physical line (and field) read, in characters. csv's default field limit (131072)
# made one long field crash a whole load; a longer line than this is skipped and quarantined
# with its line number, so memory stays bounded whatever a file holds.
MAX_LINE_CHARS = 4 * 1024 * 1024
REQUIRED_COLUMNS = ("posted_date", "amount", "description")  # transaction_id can be derived


@dataclass(frozen=True)
class CsvPreset:
    """One issuer layout: their column -> ours, and how to read it."""

    about: str
    columns: dict[str, str]
    date_format: str
    spending: str = "negative"  # the sign a purchase has in the file; ours is negative
    encoding: str = "utf-8-sig"  # utf-8 that tolerates the byte-order mark some exports start with
    debit_credit: tuple[str, str] | None = None  # two unsigned columns instead of one amount
    required: tuple[str, ...] = field(default=())  # their columns a header must have to fit

    def __post_init__(self) -> None:
        if not self.required:
            needed = [src for src, ours in self.columns.items() if ours in REQUIRED_COLUMNS]
            object.__setattr__(self, "required", (*needed, *(self.debit_credit or ())))


CSV_PRESETS: dict[str, CsvPreset] = {
    "card_activity": CsvPreset(
        about="card activity download: Transaction Date, Post Date, Description, Category, "
        "Type, Amount, Memo; US dates; purchases negative",
        columns={
            "Post Date": "posted_date",
            "Description": "description",
            "Category": "category",
            "Type": "transaction_type",
            "Amount": "amount",
        },
        date_format="%m/%d/%Y",
    ),
    "card_activity_positive": CsvPreset(
        about="card activity download: Date, Description, Amount; US dates; purchases "
        "positive, payments negative",
        columns={"Date": "posted_date", "Description": "description", "Amount": "amount"},
        date_format="%m/%d/%Y",
        spending="positive",
    ),
    "card_debit_credit": CsvPreset(
        about="card activity download: Transaction Date, Posted Date, Card No., Description, "
        "Category, Debit, Credit; ISO dates; unsigned debit and credit columns",
        columns={
            "Posted Date": "posted_date",
            "Card No.": "account_id",
            "Description": "description",
            "Category": "category",
        },
        date_format="%Y-%m-%d",
        debit_credit=("Debit", "Credit"),
    ),
    "checking_activity": CsvPreset(
        about="checking account download: Details, Posting Date, Description, Amount, Type, "
        "Balance, Check or Slip #; US dates; debits negative",
        columns={
            "Posting Date": "posted_date",
            "Description": "description",
            "Amount": "amount",
            "Type": "transaction_type",
            "Balance": "balance",
        },
        date_format="%m/%d/%Y",
    ),
}


def preset(name: str | None) -> CsvPreset | None:
    if name is None:
        return None
    if name not in CSV_PRESETS:
        raise SchemaError(f"unknown csv_preset {name!r}; known: {', '.join(CSV_PRESETS)}")
    return CSV_PRESETS[name]


def fitting_presets(header: list[str]) -> list[str]:
    """The presets whose required columns the header has."""
    return [name for name, p in CSV_PRESETS.items() if set(p.required) <= set(header)]


@dataclass(frozen=True)
class ColumnMapping:
    """Their column -> ours for one file: a preset's columns with ``column_map`` over them,
    and a running-balance column nobody mapped (it only checks rows, never changes one)."""

    chosen: str | None = None
    column_map: dict[str, str] = field(default_factory=dict)
    require_id: bool = False

    @property
    def layout(self) -> CsvPreset | None:
        return preset(self.chosen)

    def columns(self, header: list[str]) -> dict[str, str]:
        layout = self.layout
        mapping = {**(layout.columns if layout else {}), **self.column_map}
        if "balance" not in mapping.values() and (found := balance_column(header, set(mapping))):
            mapping[found] = "balance"
        return mapping

    def problems(self, header: list[str]) -> list[str]:
        """Why the header cannot give every required field ([] when it can)."""
        layout = self.layout
        problems = []
        if layout is not None:
            missing = [c for c in layout.required if c not in header]
            if missing:
                problems.append(f"csv_preset {self.chosen!r} needs columns {missing}")
        found = set(header)
        mapping = {**(layout.columns if layout else {}), **self.column_map}
        targets = {ours for src, ours in mapping.items() if src in found} | (found - set(mapping))
        if (layout is not None and layout.debit_credit) or targets & {"debit", "credit"}:
            targets.add("amount")
        for name in (*REQUIRED_COLUMNS, *(["transaction_id"] if self.require_id else [])):
            if name in targets:
                continue
            sources = [src for src, ours in self.column_map.items() if ours == name]
            if sources:
                problems.append(f"column_map maps {sources[0]!r} -> {name!r}, not in the header")
            elif layout is None:
                problems.append(f"no column gives {name!r}")  # (a preset's are named above)
        return problems

    def check(
        self, path: Path | str, header: list[str], line: int = 1, also: str = "", unit: str = "line"
    ) -> None:
        """Raise, naming the mapped column, the header found and the preset that fits, when
        the header cannot give every required field (one clear error, not a quarantined file)."""
        problems = self.problems(header)
        if not problems:
            return
        fits = [name for name in fitting_presets(header) if name != self.chosen]
        hint = (
            f"the header fits csv_preset: {fits[0]} ({CSV_PRESETS[fits[0]].about})"
            if fits
            else "set raw_transactions.column_map (your column -> ours) or a csv_preset "
            f"({', '.join(CSV_PRESETS)})"
        )
        place = f"{path}:{line}" if unit == "line" else f"{path} {unit} {line}"
        raise SchemaError(
            f"{place}: {'; '.join(problems)}; header: {header}; {hint}{also}", "bad_header"
        )


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def signed_amount(
    record: dict,
    layout: CsvPreset | None,
    spending: str | None,
    where: str,
    neutral_way: int | None = None,
) -> float | str | None:
    """The amount in our convention (purchases negative): from two unsigned debit and credit
    columns (a preset's, or mapped to ``debit`` / ``credit``), from an unsigned amount and a
    column mapped to ``direction`` (``neutral_way`` the sign of a row whose direction cell
    says neither way, as core.neutral_rows reads it), or the amount column flipped when the
    file lists purchases as positive (``spending``, else the preset's), or each unsigned amount
    by its row's words (``spending: by_words``: money in where they say a refund, a return or
    a repayment, else a purchase)."""
    columns = layout.debit_credit if layout is not None and layout.debit_credit else None
    if columns is None and ("debit" in record or "credit" in record):
        columns = ("debit", "credit")
    if columns is not None:
        debit, credit = (record.get(c) for c in columns)
        if _blank(debit) and _blank(credit):
            return None  # reported as a missing amount
        debit_value = 0.0 if _blank(debit) else parse_amount(debit, where, columns[0])
        credit_value = 0.0 if _blank(credit) else parse_amount(credit, where, columns[1])
        return credit_value - abs(debit_value)
    amount = record.get("amount")
    # a blank direction cell (a column that marks only credits: M&S Bank's "CR") leaves the
    # amount to the file's sign, as the rows without a mark are read
    if "direction" in record and not _blank(amount) and not _blank(record["direction"]):
        amount = parse_amount(amount, where)
        return _directed(amount, record["direction"], where, neutral_way)
    if purchases_positive(layout, spending) and not _blank(amount):
        return -parse_amount(amount, where)
    if spending == BY_WORDS and not _blank(amount):
        way = way_by_words(str(record.get("description") or ""))
        return (1 if way == 1 else -1) * abs(parse_amount(amount, where))
    return amount


def purchases_positive(layout: CsvPreset | None, spending: str | None) -> bool:
    """Whether the file lists purchases as positive amounts (``spending``, else the preset's)."""
    return (spending or (layout.spending if layout else "negative")) == "positive"


def direction_sign(direction: object) -> int | None:
    """-1 for a direction word of money out ("Af", "Debit", "D", "借 Dr"), +1 for money in,
    else None."""
    return money_way(direction)


def _directed(amount: float, direction: object, where: str, neutral_way: int | None) -> float:
    """An unsigned amount signed by its direction column ("Af"/"Bij", "Debit"/"Credit"), or
    by ``neutral_way`` where the column says neither."""
    sign = direction_sign(direction) or neutral_way
    if sign is not None:
        return sign * abs(amount)
    raise SchemaError(
        f"{where}: the direction column says {direction!r}, neither money out "
        f"({', '.join(sorted(MONEY_OUT))}) nor in ({', '.join(sorted(MONEY_IN))}); fix the row, "
        "or map another column to direction in raw_transactions.column_map",
        "bad_amount",
        "amount",
    )


class CellRow(NamedTuple):
    """One row of a table-shaped file: its line (or spreadsheet row), its cells or the error
    that stopped reading them, its raw bytes, and whether it is an unterminated last line."""

    line: int
    cells: list | SchemaError
    raw: bytes
    unterminated: bool = False


class _BoundedLines:
    """Physical lines of a text stream, none longer than MAX_LINE_CHARS: a longer one is
    skipped (its number kept for the quarantine) and replaced by an empty line, which csv
    ignores. ``unterminated``: the last line read had no newline (an interrupted write)."""

    def __init__(self, handle: io.TextIOBase):
        self.handle = handle
        self.number = 0
        self.too_long: list[tuple[int, str]] = []
        self.unterminated = False

    def __iter__(self) -> Iterator[str]:
        limit = MAX_LINE_CHARS
        while line := self.handle.readline(limit + 1):
            self.number += 1
            if len(line) > limit and not line.endswith("\n"):
                preview = line[:2000]
                while (rest := self.handle.readline(limit)) and not rest.endswith("\n"):
                    pass  # drop the rest of the line without holding it
                self.too_long.append((self.number, preview))
                yield "\n"
                continue
            self.unterminated = not line.endswith("\n")
            yield line

    def take_too_long(self) -> list[tuple[int, str]]:
        found, self.too_long = self.too_long, []
        return found


def head_lines(path: Path, encoding: str, count: int = 60) -> list[str]:
    """The first ``count`` lines (each cut at 64 Ki characters), for sniffing."""
    with io.TextIOWrapper(
        open_binary(path), encoding=encoding, errors="replace", newline=""
    ) as handle:
        lines = iter(lambda: handle.readline(65536), "")
        return [line for _, line in zip(range(count), lines, strict=False)]


_RULE = re.compile(r"[*=_~-]*")


def is_rule_line(cells: list) -> bool:
    """A line of no transaction: blank, or a rule drawn with ``*``, ``-``, ``=``, ``_`` or
    ``~`` in its cells (HDFC's row of asterisks under its header)."""
    texts = [str(c).strip() for c in cells]
    return all(_RULE.fullmatch(t) for t in texts)


def iter_csv_rows(path: Path, encoding: str, delimiter: str = ",") -> Iterator[CellRow]:
    """Every non-blank CSV row with its line, one bad row never hiding the next: undecodable
    bytes, an over-long line and a broken quote are each reported with their line."""
    csv.field_size_limit(MAX_LINE_CHARS)
    with io.TextIOWrapper(
        open_binary(path), encoding=encoding, errors="surrogateescape", newline=""
    ) as handle:
        lines = _BoundedLines(handle)
        reader = csv.reader(iter(lines), delimiter=delimiter)
        while True:
            try:
                values = next(reader)
                error = None
            except StopIteration:
                values, error = None, None
            except csv.Error as err:
                values, error = None, err
            yield from _too_long_rows(path, lines)
            if error is not None:
                at_end = lines.unterminated
                yield CellRow(
                    reader.line_num,
                    SchemaError(
                        f"{path}:{reader.line_num}: {'truncated' if at_end else 'malformed'} "
                        f"CSV ({error})",
                        "truncated_line" if at_end else "malformed_csv",
                    ),
                    b"",
                    at_end,
                )
                continue
            if values is None:
                return
            if is_rule_line(values):
                continue  # a blank line (or one skipped for its length, reported above)
            raw = delimiter.join(values)
            raw_bytes = raw.encode("utf-8", errors="surrogateescape")
            try:
                raw.encode("utf-8")
            except UnicodeEncodeError:
                values = SchemaError(
                    f"{path}:{reader.line_num}: not valid {encoding} (set "
                    "raw_transactions.encoding, e.g. cp1252 or cp932, to the bank's; "
                    f"`python -m ml_assets inspect {path}` names it)",
                    "invalid_utf8",
                )
            yield CellRow(reader.line_num, values, raw_bytes, lines.unterminated)


def _too_long_rows(path: Path, lines: _BoundedLines) -> Iterator[CellRow]:
    for number, preview in lines.take_too_long():
        yield CellRow(
            number,
            SchemaError(
                f"{path}:{number}: line longer than {MAX_LINE_CHARS} characters (skipped "
                "unread; a field this long is not a transaction)",
                "line_too_long",
            ),
            preview.encode("utf-8", errors="surrogateescape"),
        )
