"""CSV exports: line-by-line reading with bounded memory, and presets for the layouts card
issuers and banks hand out (their columns, date format, sign convention and encoding), with a
header check that names the missing column, the header found and the preset that fits.

A preset is a starting point: ``column_map`` and ``date_format`` in params override its
entries. Issuer columns such as ``Category`` and ``Type`` become the ``category`` and
``transaction_type`` labels.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.records import SchemaError, open_binary, parse_amount

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


def check_header(
    path: Path,
    header: list[str],
    column_map: dict[str, str],
    chosen: str | None,
    require_id: bool,
) -> None:
    """Raise, naming the mapped column, the header found and the preset that fits, when the
    header cannot give every required field (one clear error instead of a quarantined file)."""
    layout = preset(chosen)
    problems = []
    if layout is not None:
        missing = [c for c in layout.required if c not in header]
        if missing:
            problems.append(f"csv_preset {chosen!r} needs columns {missing}")
    found = set(header)
    mapping = {**(layout.columns if layout else {}), **column_map}
    targets = {ours for src, ours in mapping.items() if src in found} | (found - set(mapping))
    if layout is not None and layout.debit_credit:
        targets.add("amount")
    for name in (*REQUIRED_COLUMNS, *(["transaction_id"] if require_id else [])):
        if name in targets:
            continue
        sources = [src for src, ours in column_map.items() if ours == name]
        if sources:
            problems.append(f"column_map maps {sources[0]!r} -> {name!r}, not in the header")
        elif layout is None:
            problems.append(f"no column gives {name!r}")  # (a preset's are named above)
    if not problems:
        return
    fits = [name for name in fitting_presets(header) if name != chosen]
    hint = (
        f"the header fits csv_preset: {fits[0]} ({CSV_PRESETS[fits[0]].about})"
        if fits
        else "set raw_transactions.column_map (your column -> ours) or a csv_preset "
        f"({', '.join(CSV_PRESETS)})"
    )
    raise SchemaError(f"{path}:1: {'; '.join(problems)}; header: {header}; {hint}", "bad_header")


def signed_amount(record: dict, layout: CsvPreset, where: str) -> float | str | None:
    """The amount in our convention (purchases negative) from a preset's columns."""
    if layout.debit_credit:
        debit_col, credit_col = layout.debit_credit
        debit, credit = (record.get(c) or "" for c in layout.debit_credit)
        if not debit.strip() and not credit.strip():
            return None  # reported as a missing amount
        debit_value = parse_amount(debit, where, debit_col) if debit.strip() else 0.0
        credit_value = parse_amount(credit, where, credit_col) if credit.strip() else 0.0
        return credit_value - abs(debit_value)
    amount = record.get("amount")
    if layout.spending == "positive" and isinstance(amount, str) and amount.strip():
        return -parse_amount(amount, where)
    return amount


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


def iter_csv(
    path: Path,
    encoding: str = "utf-8-sig",
    on_header: Callable[[list[str]], None] | None = None,
) -> Iterator[tuple[int, dict | SchemaError, bytes]]:
    """CSV rows as strings (coercion names the field), one bad row never hiding the next:
    undecodable bytes, a wrong number of columns, an over-long line and a truncated last line
    are each reported with their line. Extra trailing empty columns (a trailing comma) are
    dropped. ``on_header`` sees the header first and may raise."""
    csv.field_size_limit(MAX_LINE_CHARS)
    with io.TextIOWrapper(
        open_binary(path), encoding=encoding, errors="surrogateescape", newline=""
    ) as handle:
        lines = _BoundedLines(handle)
        reader = csv.reader(iter(lines))
        header = next(reader, None)
        if header is None:
            return
        header = [h.strip() for h in header]
        if on_header is not None:
            on_header(header)
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
                yield (
                    reader.line_num,
                    SchemaError(
                        f"{path}:{reader.line_num}: {'truncated' if at_end else 'malformed'} "
                        f"CSV ({error})",
                        "truncated_line" if at_end else "malformed_csv",
                    ),
                    b"",
                )
                continue
            if values is None:
                return
            if not values:
                continue  # a blank line (or one skipped for its length, reported above)
            yield _csv_row(path, reader.line_num, header, values, lines.unterminated, encoding)


def _too_long_rows(path: Path, lines: _BoundedLines) -> Iterator[tuple[int, SchemaError, bytes]]:
    for number, preview in lines.take_too_long():
        yield (
            number,
            SchemaError(
                f"{path}:{number}: line longer than {MAX_LINE_CHARS} characters (skipped "
                "unread; a field this long is not a transaction)",
                "line_too_long",
            ),
            preview.encode("utf-8", errors="surrogateescape"),
        )


def _csv_row(
    path: Path, number: int, header: list[str], values: list[str], last: bool, encoding: str
) -> tuple[int, dict | SchemaError, bytes]:
    raw = ",".join(values)
    raw_bytes = raw.encode("utf-8", errors="surrogateescape")
    while len(values) > len(header) and not values[-1].strip():
        values = values[:-1]  # a trailing comma
    if len(values) != len(header):
        truncated = last and len(values) < len(header)
        return (
            number,
            SchemaError(
                f"{path}:{number}: {'truncated last line: ' if truncated else ''}expected "
                f"{len(header)} columns ({', '.join(header)}), found {len(values)}",
                "truncated_line" if truncated else "malformed_csv",
            ),
            raw_bytes,
        )
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        return (
            number,
            SchemaError(
                f"{path}:{number}: not valid {encoding} (set raw_transactions.encoding, "
                "e.g. cp1252, if the bank writes another)",
                "invalid_utf8",
            ),
            raw_bytes,
        )
    return number, dict(zip(header, values, strict=True)), raw_bytes
