"""Quicken Interchange Format (QIF), as Quicken, Microsoft Money and many banks' "download for
Quicken" buttons write it: ``!Type:Bank`` (or CCard, Cash, Oth A, Oth L) and records of one
field per line (D date, T amount, P payee, M memo, L category, N number, C cleared, A address,
S/E/$ split lines), each ended by ``^``; ``!Account`` blocks name the account that follows.

``!Type:Invst`` (a brokerage account) is read by what its records do to the account's cash:
a Buy, Sell, dividend, interest, fee or transfer in or out is a row, described by its action
and security ("Buy ACME"); a record that moves shares only (ShrsIn, a reinvested dividend, a
split) or whose cash is another account's (BuyX pays from the ``L[Checking]`` account, whose
own export holds that payment) is counted, not a row.

Read by this small parser rather than a library: quiffen, the maintained QIF package on PyPI
(4.0), deletes every character of an amount but digits, "." and "-" (so "1.234,56" becomes
1.23456 and "12,50" 1250, silently), parses dates with dateutil's guessing parser (which fills
a missing year or day from today's date instead of failing), and stops the whole file at the
first bad record without a line number. Here each record is read on its own with its line; a
bad one is quarantined and the next is read. Amounts go through the CSV path's decimal
handling; dates are month-first as Quicken (US) writes them ("1/ 5'26": the apostrophe marks
a year 2000+) unless the file's own dates show day-first (a day above 12 in the first place),
or year-first (two-digit years, "13/08/15", where some date reads no other way and every
date reads that way), or ``date_format`` says. A three-digit year counts from 1900 ("099" is
1999), and text after a date that starts with a letter is not read as part of it.

Ids are derived (QIF has none; ``N`` is a check number). ``L`` is the category label, unless
it names a transfer account (``[Savings]``). The text is the payee and the memo; a record with
neither (a transfer, a quick cash entry) is described as "Transfer [Savings]" or by its
address lines, never by its category (see ``_undescribed``). Lists of categories, classes, memorized
transactions are not bank transactions: they are counted, not rows.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.intake.amount_text import normalize_amount, sniff_decimal
from ml_assets.core.intake.records import SchemaError, open_binary

Row = tuple[int, dict | SchemaError, bytes]
TRANSACTION_SECTIONS = ("type:bank", "type:ccard", "type:cash", "type:oth a", "type:oth l")
INVESTMENT_SECTION = "type:invst"
# first, second, the separator before the last (Quicken's apostrophe marks a year 2000+), last;
# text after the date that starts with a letter is no part of it (a web-banking export writes
# the payee on: "03/25/099Share Withdrawal"), a digit or mark after it is
_DATE = re.compile(r"^(\d{1,4})[/.\-](\d{1,2})(['/.\-])(\d{1,4})(?:[^\W\d_].*)?$")
ORDERS = ("month", "day", "year")  # which part comes first


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
    of other sections, and investment records that move no cash of the account's, go to
    ``skipped`` as (line, what they are). A file whose every date reads both ways is read
    month-first, with a warning in ``warnings``; one read year-first says so there too."""
    records = _transaction_records(path, encoding, skipped)
    dates = [d[1] for r in records if (d := r.first("D"))]
    order = _reading_order(dates)
    if warnings is not None and date_format is None and dates:
        warnings += _date_warnings(path, dates, order)
    if decimal == "auto":
        amounts = [a[1] for r in records if (a := r.first("T") or r.first("U"))]
        decimal, _ = sniff_decimal(amounts)
    for record in records:
        if record.section == INVESTMENT_SECTION:
            counted = _counted_investment(record)
            if counted is not None:
                if skipped is not None:
                    skipped.append((record.line, counted))
                continue
        yield record.line, _transaction(path, record, order, date_format, decimal), record.raw()


def _date_warnings(path: Path, dates: list[str], order: str) -> list[str]:
    """What ``iter_qif`` says of the order it reads the dates in, where the dates do not
    show it beyond doubt: every date reads both ways, or only year-first reads them all."""
    if order == "year":
        shown = next(d for d in dates if not _reads(d, _day_or_month(dates)))
        return [
            f"{path}: dates such as {shown!r} read only year first (year/month/day): every "
            "date is read so; set raw_transactions.date_format if the bank writes another order"
        ]
    if date_order(dates) is None and order == "month":
        return [
            f"{path}: every date reads both day-first and month-first (like {dates[0]!r}): "
            "read month-first, as Quicken (US) writes them; set raw_transactions.date_format "
            "(e.g. '%d/%m/%Y') if this bank writes the day first"
        ]
    return []


def _is_transaction(record: QifRecord, skipped: list[tuple[int, str]] | None) -> bool:
    if record.section in TRANSACTION_SECTIONS or record.section == INVESTMENT_SECTION:
        return True
    if skipped is not None:
        skipped.append((record.line, f"QIF !{record.section} record"))
    return False


def _transaction(
    path: Path, record: QifRecord, order: str, date_format: str | None, decimal: str
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
            out["posted_date"] = _date(value, order, date_format).isoformat()
        except ValueError:
            return _bad_date(path, line, value, order, date_format)
    if found := record.first("T") or record.first("U"):
        line, value = found
        try:
            out["amount"] = normalize_amount(value, decimal, f"{path}:{line}")
        except SchemaError as err:
            return err
    payee, memo = (record.first(c) for c in ("P", "M"))
    words = [f[1].strip() for f in (payee, memo) if f and f[1].strip()]
    category = record.first("L")
    label = category[1].strip() if category else ""
    if label and not label.startswith("["):
        out["category"] = label
    out["description"] = " ".join(words) or None
    if record.section == INVESTMENT_SECTION:
        return _investment(path, record, out)
    if out["description"] is None:
        return _undescribed(path, record, out, label)
    return out


def _undescribed(path: Path, record: QifRecord, out: dict, label: str) -> dict | SchemaError:
    """A record with no payee or memo (Quicken writes transfers and quick cash entries so),
    described by what else it has. Its ``L`` category is its label, the answer the model is
    trained to give: the label never becomes its text too, or the model would read it back.
    A transfer has no label (its ``L[My Cc]`` names an account), so it is described by it:
    "Transfer [My Cc]"; any other record by its address lines (``A``); with none of them,
    it stays quarantined, saying why."""
    if label.startswith("["):
        out["description"] = f"Transfer {label}"
        return out
    address = [v.strip() for _, code, v in record.fields if code == "A" and v.strip()]
    if address:
        out["description"] = " ".join(address)
        return out
    if not label:
        return out  # (the load names the missing description)
    return SchemaError(
        f"{path}:{record.line}: required field 'description' is empty: the record has no "
        f"payee (P), memo (M) or address (A), only its category (L {label!r}), which is its "
        "label and is not read as its text too; add a payee or memo in Quicken and export "
        "again",
        "missing_field",
        "description",
    )


def _bad_date(
    path: Path, line: int, value: str, order: str, date_format: str | None
) -> SchemaError:
    """The error of a date that does not read in the file's order, with the ``date_format``
    that reads it where another order does."""
    read = f"date_format {date_format!r}" if date_format else _ORDER_NAMES[order]
    others = [o for o in ORDERS if (date_format or o != order) and _reads(value, o)]
    if others and (pattern := _order_format(value, others[0])):
        hint = (
            f"it reads {others[0]} first: set raw_transactions.date_format to {pattern!r} "
            "if the file writes every date that way, or fix the record"
        )
    else:
        hint = (
            "it reads as no date, day, month or year first: fix the record, or set "
            "raw_transactions.date_format if the file writes dates another way"
        )
    return SchemaError(
        f"{path}:{line}: QIF date D{value!r} is not a date ({read}); {hint}",
        "bad_date",
        "posted_date",
    )


# Quicken's investment actions that move the account's cash, as a statement names them, and
# the sign of their amount (T is written without one); Cash is signed as written
_CASH_ACTIONS = {
    "buy": ("Buy", -1), "sell": ("Sell", 1), "shtsell": ("Short sale", 1),
    "cvrshrt": ("Short cover", -1), "div": ("Dividend", 1), "intinc": ("Interest", 1),
    "cglong": ("Long-term capital gain", 1), "cgmid": ("Mid-term capital gain", 1),
    "cgshort": ("Short-term capital gain", 1), "rtrncap": ("Return of capital", 1),
    "miscinc": ("Income", 1), "miscexp": ("Expense", -1), "margint": ("Margin interest", -1),
    "xin": ("Transfer in", 1), "xout": ("Transfer out", -1), "cash": ("Cash", 0),
}  # fmt: skip
# actions that move shares only: added, removed, reinvested, split; or only remind
_SHARE_ACTIONS = {
    "shrsin", "shrsout", "reinvdiv", "reinvint", "reinvlg", "reinvmd", "reinvsh", "stksplit",
    "reminder", "grant", "vest", "exercise", "expire",
}  # fmt: skip
# a cash action with an X (BuyX, DivX) pays from or into another account (its L[...]), as do
# a retirement plan's contributions and withdrawals
_OTHER_ACCOUNT_ACTIONS = {f"{a}x" for a in _CASH_ACTIONS if a not in ("xin", "xout", "cash")}
_OTHER_ACCOUNT_ACTIONS |= {"contribx", "withdrwx"}


def _action(record: QifRecord) -> str:
    found = record.first("N")
    return found[1].strip() if found else ""


def _counted_investment(record: QifRecord) -> str | None:
    """What an investment record that moves none of the account's cash is, as counted; None
    for a record read as a row (or quarantined)."""
    action = _action(record)
    if action.lower() in _SHARE_ACTIONS:
        return f"QIF investment {action} (shares only, no cash)"
    if action.lower() in _OTHER_ACCOUNT_ACTIONS:
        return f"QIF investment {action} (cash of another account, read in its export)"
    return None


def _investment(path: Path, record: QifRecord, out: dict) -> dict | SchemaError:
    """The row of an investment record that moves the account's cash: its amount signed by
    the action, described by the action, the security (Y) and the payee and memo."""
    action, found = _action(record), record.first("N")
    line = found[0] if found else record.line
    known = _CASH_ACTIONS.get(action.lower())
    if known is None:
        return SchemaError(
            f"{path}:{line}: QIF investment action N{action!r} is not one Quicken writes "
            "(Buy, Sell, Div, IntInc, MiscExp, XIn, XOut, Cash; ShrsIn, ReinvDiv or BuyX, "
            "which move no cash of this account's), so its effect on the account's cash is "
            "unknown; fix the record",
            "unknown_action",
        )
    name, sign = known
    if sign and isinstance(out.get("amount"), str):  # a plain "-12.50" by now
        unsigned = out["amount"].lstrip("-")
        out["amount"] = f"-{unsigned}" if sign < 0 else unsigned
    security = record.first("Y")
    words = [name, security[1].strip() if security else "", out["description"] or ""]
    out["description"] = " ".join(w for w in words if w)
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
    """ "day", "month" or "year": which comes first, where the dates show it: the dates
    that read one way only among day and month first (13/1 is day-first, 1/13 month-first;
    13/45 is no date at all) say which, unless some date reads in neither way that says (or
    dotted dates, which are European, suggest) and every date reads year first (13/08/15,
    13/3/3: 2013-03-03); None: no such date, or a tie. Dates with a four-digit year first
    (2026-01-05) say nothing."""
    return "year" if _only_year_first(dates, _day_or_month(dates)) else _shown_order(dates)


def _reading_order(dates: list[str]) -> str:
    """The order a file's dates are read in: ``date_order``'s, else ``_day_or_month``'s."""
    return date_order(dates) or _day_or_month(dates)


def _day_or_month(dates: list[str]) -> str:
    """Day or month first: as the dates show; where they do not, dotted dates are European
    (day first), the rest Quicken's (US, month first)."""
    return _shown_order(dates) or ("day" if any("." in d for d in dates) else "month")


def _shown_order(dates: list[str]) -> str | None:
    """ "day" or "month" where the dates that read one way only of the two say which."""
    parts = [found.groups() for d in dates if (found := _parts(d))]
    short = [(int(a), int(b)) for a, b, _, _ in parts if len(a) <= 2]
    day_first = sum(1 for a, b in short if 12 < a <= 31 and b <= 12)
    month_first = sum(1 for a, b in short if a <= 12 and 12 < b <= 31)
    if day_first == month_first:
        return None
    return "day" if day_first > month_first else "month"


def _only_year_first(dates: list[str], order: str) -> bool:
    """Whether some date does not read in ``order`` and every date reads year first, over
    no more years than ``order`` reads them in: a typo (45/1/26) in a file of 1/5/26 reads
    year first too, but as dates 44 years apart."""
    if all(_reads(d, order) for d in dates) or not all(_reads(d, "year") for d in dates):
        return False
    return _year_span(dates, "year") <= _year_span(dates, order)


def _year_span(dates: list[str], order: str) -> int:
    years = [_date(d, order, None).year for d in dates if _reads(d, order)]
    return max(years) - min(years) if years else 0


def _reads(value: str, order: str) -> bool:
    try:
        _date(value, order, None)
    except ValueError:
        return False
    return True


def day_first_format(dates: list[str]) -> str | None:
    """The ``date_format`` that reads these dates day-first (``%d/%m/%Y``, ``%d.%m.%y``, ...),
    or None where they are not written day, month, year with one separator."""
    parts = [found.groups() for d in dates if (found := _parts(d))]
    if not parts or any(len(a) > 2 for a, _, _, _ in parts):
        return None
    separators = {s for _, _, s, _ in parts} - {"'"}
    years = {len(y) for _, _, _, y in parts}
    if len(separators) > 1 or len(years) > 1 or years == {3}:  # (no strptime code reads 099)
        return None
    separator = separators.pop() if separators else "/"  # 5/1'26 reads as 5/1/26
    return f"%d{separator}%m{separator}%{'Y' if years == {4} else 'y'}"


_ORDER_NAMES = {
    "day": "day first",
    "month": "month first, as Quicken (US)",
    "year": "year first",
}


def _order_format(value: str, order: str) -> str | None:
    """The ``date_format`` that reads ``value`` in ``order`` (``%y/%m/%d`` for 13/3/3)."""
    found = _parts(value)
    if found is None:
        return None
    first, _, separator, last = found.groups()
    separator = "/" if separator == "'" else separator  # the reader reads 5/1'26 as 5/1/26
    digits = len(first if order == "year" else last)
    if digits == 3:  # years since 1900: no strptime code reads them
        return None
    year = "%Y" if digits == 4 else "%y"
    fields = {"day": ("%d", "%m", year), "month": ("%m", "%d", year), "year": (year, "%m", "%d")}
    return separator.join(fields[order])


def _parts(value: str) -> re.Match | None:
    return _DATE.match(value.replace(" ", ""))  # Quicken pads a day or month: "1/ 5'26"


def _date(value: str, order: str, date_format: str | None) -> dt.date:
    """The date as written, its parts read in ``order`` ("day", "month" or "year" first);
    a four-digit year first (2026-01-05) is read so in any order."""
    if date_format:
        return dt.datetime.strptime(value.replace(" ", "").replace("'", "/"), date_format).date()
    found = _parts(value)
    if not found:
        raise ValueError(value)
    first, second, separator, last = found.groups()
    if len(first) == 4:  # 2026-01-05
        return dt.date(int(first), int(second), int(last))
    if order == "year":
        if len(first) != 2 or len(last) > 2 or separator == "'":  # ' marks the year last
            raise ValueError(value)
        return dt.date(_full_year(first, separator), int(second), int(last))
    if len(first) > 2 or len(last) not in (2, 3, 4):
        raise ValueError(value)
    month, day = (int(second), int(first)) if order == "day" else (int(first), int(second))
    return dt.date(_full_year(last, separator), month, day)


def _full_year(text: str, separator: str) -> int:
    """A year as written: four digits; two, with Quicken's apostrophe marking 2000+; or
    three, the years since 1900 (C's ``tm_year``) as Y2K-era web-banking exports write them:
    099 is 1999, 100 is 2000 (GnuCash's QIF import reads them so)."""
    year = int(text)
    if len(text) == 2:
        year += 2000 if separator == "'" or year < 70 else 1900
    elif len(text) == 3:
        year += 1900
    return year
