"""The dates of a QIF file: which order its dates are written in, and each read in it.

Quicken (US) writes dates month-first ("1/ 5'26", "8/31' 0": the apostrophe marks a year 2000+,
written in two columns, 2000-2009 as a space and one digit); a file's own dates show day-first
(a day above 12 in the first place), or year-first (two-digit years, "13/08/15", where some
date reads no other way and every date reads that way); where they show nothing, dotted dates
are European (day first), the rest Quicken's. A three-digit year counts
from 1900 ("099" is 1999), and text after a date that starts with a letter is not read as part
of it. A date that does not read in the file's order is an error naming the ``date_format``
that reads it, where another order does.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from ml_assets.core.intake.records import SchemaError

# first, second, the separator before the last (Quicken's apostrophe marks a year 2000+), last;
# text after the date that starts with a letter is no part of it (a web-banking export writes
# the payee on: "03/25/099Share Withdrawal"), a digit or mark after it is
_DATE = re.compile(r"^(\d{1,4})[/.\-](\d{1,2})(['/.\-])(\d{1,4})(?:[^\W\d_].*)?$")
ORDERS = ("month", "day", "year")  # which part comes first


def date_order(dates: list[str]) -> str | None:
    """ "day", "month" or "year": which comes first, where the dates show it: the dates
    that read one way only among day and month first (13/1 is day-first, 1/13 month-first;
    13/45 is no date at all) say which, unless some date reads in neither way that says (or
    dotted dates, which are European, suggest) and every date reads year first (13/08/15,
    13/3/3: 2013-03-03); None: no such date, or a tie. Dates with a four-digit year first
    (2026-01-05) say nothing."""
    return "year" if _only_year_first(dates, _day_or_month(dates)) else _shown_order(dates)


def reading_order(dates: list[str]) -> str:
    """The order a file's dates are read in: ``date_order``'s, else ``_day_or_month``'s."""
    return date_order(dates) or _day_or_month(dates)


def date_warnings(path: Path, dates: list[str], order: str) -> list[str]:
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


def bad_date_error(
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
    years = [qif_date(d, order, None).year for d in dates if _reads(d, order)]
    return max(years) - min(years) if years else 0


def _reads(value: str, order: str) -> bool:
    try:
        qif_date(value, order, None)
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
    return _DATE.match(_unpadded(value))


# Quicken writes the year after its apostrophe in two columns, a year 2000-2009 as a space and
# one digit ("8/31' 0", "1/ 4' 5"), as it pads a day or month ("1/ 5'26")
_ONE_DIGIT_YEAR = re.compile(r"'(\d)(?!\d)")


def _unpadded(value: str) -> str:
    """The date without Quicken's padding: "1/ 4' 5" as "1/4'05"."""
    return _ONE_DIGIT_YEAR.sub(r"'0\1", value.replace(" ", ""))


def qif_date(value: str, order: str, date_format: str | None) -> dt.date:
    """The date as written, its parts read in ``order`` ("day", "month" or "year" first);
    a four-digit year first (2026-01-05) is read so in any order."""
    if date_format:
        return dt.datetime.strptime(_unpadded(value).replace("'", "/"), date_format).date()
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
