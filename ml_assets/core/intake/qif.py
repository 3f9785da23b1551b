"""Quicken Interchange Format (QIF), as Quicken, Microsoft Money and many banks' "download for
Quicken" buttons write it: ``!Type:Bank`` (or CCard, Cash, Oth A, Oth L) and records of one
field per line (D date, T amount, P payee, M memo, L category, N number, C cleared, A address,
S/E/$ split lines), each ended by ``^``; ``!Account`` blocks name the account that follows.

Read by this small parser rather than a library: quiffen, the maintained QIF package on PyPI
(4.0), deletes every character of an amount but digits, "." and "-" (so "1.234,56" becomes
1.23456 and "12,50" 1250, silently), parses dates with dateutil's guessing parser (which fills
a missing year or day from today's date instead of failing), and stops the whole file at the
first bad record without a line number. Here each record is read on its own with its line; a
bad one is quarantined and the next is read. Amounts go through the CSV path's decimal
handling; dates are month-first as Quicken (US) writes them ("1/ 5'26": the apostrophe marks
a year 2000+) unless the file's own dates show day-first (a day above 12 in the first place),
or ``date_format`` says.

Ids are derived (QIF has none; ``N`` is a check number). ``L`` is the category label, unless
it names a transfer account (``[Savings]``). Lists of categories, classes, memorized
transactions and investment records are not bank transactions: they are counted, not rows.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.intake.records import SchemaError, open_binary
from ml_assets.core.intake.sniffing import normalize_amount, sniff_decimal

Row = tuple[int, dict | SchemaError, bytes]
TRANSACTION_SECTIONS = ("type:bank", "type:ccard", "type:cash", "type:oth a", "type:oth l")
_DATE = re.compile(r"^(\d{1,4})[/.\-](\d{1,2})(['/.\-])(\d{2,4})$")


@dataclass
class QifRecord:
    line: int  # of its first field
    section: str  # the !Type it is under, lower case ("type:bank")
    account: str | None
    fields: list[tuple[int, str, str]] = field(default_factory=list)  # (line, code, value)

    def first(self, code: str) -> tuple[int, str] | None:
        return next(((n, v) for n, c, v in self.fields if c == code), None)

    def raw(self) -> bytes:
        text = "\n".join(c + v for _, c, v in self.fields) + "\n^"
        return text.encode("utf-8", errors="surrogateescape")


def qif_records(text: str) -> Iterator[QifRecord]:
    """Every record with its section and account, in file order."""
    section, account, in_account = "type:bank", None, False
    record: QifRecord | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip()
        if not line.strip():
            continue
        if line.startswith(("!", "^")) and record is not None:
            # a header ends a record too: some programs write "!Account", its N and T lines,
            # then "!Type:Bank" with no "^" between, which would fold the account's lines
            # into the first transaction
            if in_account:
                name = record.first("N")
                account = name[1].strip() if name else account
            else:
                yield record
            record = None
        if line.startswith("!"):
            header = line[1:].strip().lower()
            if header.startswith(("option:", "clear:")):
                continue
            in_account = header == "account"
            if not in_account:
                section = header
            continue
        if line.startswith("^"):
            continue
        if record is None:
            record = QifRecord(number, section, account)
        record.fields.append((number, line[0], line[1:]))
    if record is not None and not in_account:
        yield record  # a last record without its "^" (a cut file): read, not lost


def iter_qif(
    path: Path,
    encoding: str = "utf-8-sig",
    date_format: str | None = None,
    decimal: str = "auto",
    skipped: list[tuple[int, str]] | None = None,
    warnings: list[str] | None = None,
) -> Iterator[Row]:
    """(line, record in our names or the error, raw bytes) per transaction record; records
    of other sections go to ``skipped`` as (line, section). A file whose every date reads both
    ways is read month-first, with a warning in ``warnings``."""
    records = _transaction_records(path, encoding, skipped)
    dates = [d[1] for r in records if (d := r.first("D"))]
    day_first = _day_first(dates)
    if warnings is not None and date_format is None and date_order(dates) is None and not day_first:
        warnings.append(
            f"{path}: every date reads both day-first and month-first (like {dates[0]!r}): read "
            "month-first, as Quicken (US) writes them; set raw_transactions.date_format (e.g. "
            "'%d/%m/%Y') if this bank writes the day first"
        )
    if decimal == "auto":
        amounts = [a[1] for r in records if (a := r.first("T") or r.first("U"))]
        decimal, _ = sniff_decimal(amounts)
    for record in records:
        yield record.line, _transaction(path, record, day_first, date_format, decimal), record.raw()


def _is_transaction(record: QifRecord, skipped: list[tuple[int, str]] | None) -> bool:
    if record.section in TRANSACTION_SECTIONS:
        return True
    if skipped is not None:
        skipped.append((record.line, f"QIF !{record.section} record"))
    return False


def _transaction(
    path: Path, record: QifRecord, day_first: bool, date_format: str | None, decimal: str
) -> dict | SchemaError:
    text = "\n".join(v for _, _, v in record.fields)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return SchemaError(
            f"{path}:{record.line}: not valid UTF-8 (set raw_transactions.encoding, e.g. "
            "cp1252, as Quicken for Windows writes)",
            "invalid_utf8",
        )
    out: dict = {"account_id": record.account}
    if found := record.first("D"):
        line, value = found
        try:
            out["posted_date"] = _date(value, day_first, date_format).isoformat()
        except ValueError:
            order = date_format or ("day first" if day_first else "month first, as Quicken (US)")
            return SchemaError(
                f"{path}:{line}: QIF date D{value!r} is not a date ({order}); fix the record, "
                "or set raw_transactions.date_format (e.g. '%d/%m/%Y') if the file writes "
                "dates another way",
                "bad_date",
                "posted_date",
            )
    if found := record.first("T") or record.first("U"):
        line, value = found
        try:
            out["amount"] = normalize_amount(value, decimal, f"{path}:{line}")
        except SchemaError as err:
            return err
    payee, memo = (record.first(c) for c in ("P", "M"))
    words = [f[1].strip() for f in (payee, memo) if f and f[1].strip()]
    out["description"] = " ".join(words) or None
    if (category := record.first("L")) and not category[1].startswith("["):
        out["category"] = category[1].strip() or None
    return out


def _transaction_records(
    path: Path, encoding: str, skipped: list[tuple[int, str]] | None = None
) -> list[QifRecord]:
    with open_binary(path) as handle:
        text = handle.read().decode(encoding, errors="surrogateescape")
    return [r for r in qif_records(text) if _is_transaction(r, skipped)]


def file_dates(path: Path, encoding: str) -> list[str]:
    """The D fields of a file's transactions, as written."""
    return [d[1] for r in _transaction_records(path, encoding) if (d := r.first("D"))]


def date_order(dates: list[str]) -> str | None:
    """ "day" or "month" where the dates that read one way only say which comes first (13/1
    is day-first, 1/13 month-first; 13/45 is no date at all), or None: no such date, or a tie.
    Dates with the year first (2026-01-05) say nothing."""
    parts = [m.groups() for d in dates if (m := _DATE.match(d.replace(" ", "")))]
    short = [(int(a), int(b)) for a, b, _, _ in parts if len(a) <= 2]
    day_first = sum(1 for a, b in short if 12 < a <= 31 and b <= 12)
    month_first = sum(1 for a, b in short if a <= 12 and 12 < b <= 31)
    if day_first == month_first:
        return None
    return "day" if day_first > month_first else "month"


def day_first_format(dates: list[str]) -> str | None:
    """The ``date_format`` that reads these dates day-first (``%d/%m/%Y``, ``%d.%m.%y``, ...),
    or None where they are not written day, month, year with one separator."""
    parts = [m.groups() for d in dates if (m := _DATE.match(d.replace(" ", "")))]
    if not parts or any(len(a) > 2 for a, _, _, _ in parts):
        return None
    separators = {s for _, _, s, _ in parts} - {"'"}
    years = {len(y) for _, _, _, y in parts}
    if len(separators) > 1 or len(years) > 1:
        return None
    separator = separators.pop() if separators else "/"  # 5/1'26 reads as 5/1/26
    return f"%d{separator}%m{separator}%{'Y' if years == {4} else 'y'}"


def _day_first(dates: list[str]) -> bool:
    """Whether the file writes the day first: as its unambiguous dates say; without any,
    dotted dates are European, the rest Quicken's (US)."""
    order = date_order(dates)
    if order is not None:
        return order == "day"
    return any("." in d for d in dates)


def _date(value: str, day_first: bool, date_format: str | None) -> dt.date:
    cleaned = value.replace(" ", "")  # Quicken pads a day or month with a space: "1/ 5'26"
    if date_format:
        return dt.datetime.strptime(cleaned.replace("'", "/"), date_format).date()
    found = _DATE.match(cleaned)
    if not found:
        raise ValueError(value)
    first, second, separator, year_text = found.groups()
    if len(first) == 4:  # 2026-01-05
        return dt.date(int(first), int(second), int(year_text))
    year = int(year_text)
    if len(year_text) == 2:  # the apostrophe is Quicken's mark of a year 2000+
        year += 2000 if separator == "'" or year < 70 else 1900
    month, day = (int(second), int(first)) if day_first else (int(first), int(second))
    return dt.date(year, month, day)
