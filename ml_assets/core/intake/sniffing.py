"""What a table-shaped bank file does not say about itself, read from its text: the CSV field
separator and the format of its dates (the text encoding: ``text_encoding``; the decimal
mark: ``amount_text``).

Each guess is made from the head of one file (a folder of downloads from several banks mixes
conventions), and each can be set instead (raw_transactions.delimiter, date_format).
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections import Counter
from typing import NamedTuple

from ml_assets.core.intake.records import iso_date, parse_date_text
from ml_assets.core.intake.times_of_day import day_format, format_time, split_time, time_written

# currencies of countries whose banks write the month first as often as the day: no sign of
# a day-first bank (a Canadian export's "06/10/2017" is June 10th)
MONTH_FIRST_CURRENCIES = frozenset({"USD", "CAD"})

# "~" last: HDFC's card statements are split by it, and a text holding one ("Paid ~ thanks")
# loses a tie to every other separator
DELIMITERS = (",", ";", "\t", "|", "~")
# strftime formats tried on a date column; the order breaks no tie (see sniff_date_format).
# %b reads a month's full name too (records.parse_date_text), so no %B twin is tried
DATE_FORMATS = (
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%m/%d/%y",
    "%d/%m/%y",
    "%d.%m.%Y",
    "%d.%m.%y",
    "%Y/%m/%d",
    "%Y.%m.%d.",  # Hungarian banks' (Erste, OTP)
    "%Y.%m.%d",
    "%Y%m%d",
    "%Y:%m:%d",  # Danske Bank Lithuania's "2012:03:01"
    "%Y %m %d",  # Bank Pocztowy's "2019 10 11"
    "%d-%m-%Y",
    "%m-%d-%Y",
    # HomeBank's "04-03-25", in the order its user chose: two-digit years read a third way,
    # year first, which a statement's span of days tells from the others (see _ranked)
    "%d-%m-%y",
    "%m-%d-%y",
    "%y-%m-%d",
    "%d-%b-%Y",
    "%d-%b-%y",
    "%d %b %Y",
    "%d %b %y",  # Woolworths Money's "19 Oct 15"
    "%d%b%Y",  # HSBC India's "24Jan2025"
    "%d%b%y",
    "%b %d, %Y",
    "%d. %b %Y",  # German's "3. März 2024"
    "%d %b %Y %H:%M:%S",
    "%d %b %Y. %H:%M:%S",  # Satispay's "24 lug 2024. 02:59:45"
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%y %H:%M",
    "%d/%m/%Y %H:%M",
)
# a date with the time of day after it (Bangkok Bank's "22 May 2025 21:27"): each format of a
# day alone, with the hours and minutes, and with the seconds. (A format of a day alone reads
# such dates too, whose time is written on some rows alone: see _strptime and _score)
DATE_FORMATS += tuple(
    timed
    for day in DATE_FORMATS
    if "%H" not in day
    for timed in (f"{day} %H:%M", f"{day} %H:%M:%S")
    if timed not in DATE_FORMATS
)


def _named_month(fmt: str) -> bool:
    return "%b" in fmt or "%B" in fmt


def day_first(fmt: str) -> bool:
    """Whether a date format writes the day before the month ("%d/%m/%Y", "%d %b %y")."""
    return fmt.find("%d") < fmt.find("%m") or _named_month(fmt)


_DAY_FIRST = {f for f in DATE_FORMATS if day_first(f)}


def sniff_delimiter(lines: list[str]) -> str:
    """The separator that splits the most lines into one width of three fields or more (a
    table's header and rows), else of two: a wrong separator splits lines by chance, into
    widths that vary with the text (a comma in a semicolon file's "Kartenzahlung, REWE,
    Berlin") or into two (one decimal comma, a preamble's "Saldo;66.331,90;EUR"). Of as many
    lines, the wider split wins; ties go to the comma."""
    best, best_score = ",", (False, 0, 0)
    for delimiter in DELIMITERS:
        score = _table_width(lines, delimiter)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _table_width(lines: list[str], delimiter: str) -> tuple[bool, int, int]:
    """(three fields or more, lines, fields) of the width ``delimiter`` splits the most lines
    into, widths of three fields or more first."""
    widths = Counter(len(row) for row in csv.reader(lines, delimiter=delimiter) if len(row) > 1)
    return max(
        ((width > 2, count, width) for width, count in widths.items()), default=(False, 0, 0)
    )


def sniff_date_format(
    values: list[str], day_first_hint: bool = False
) -> tuple[str | None, list[str], str]:
    """(format, the others that read as many values, why) for a column of date texts; None
    when ISO dates (the default) read most of them or no format does. Of formats reading the
    same number of values (03/01/2026 is March 1st or January 3rd), the one giving a span of
    days under half the other's wins (a statement covers weeks, not years; dates years apart
    read about as far both ways, and say nothing), then the one that keeps the rows in
    order, then ``day_first_hint`` (a European file)."""
    # a value without a digit is no date in any format: a pending row's "Pending", a footer
    texts = [v.strip() for v in values if isinstance(v, str) and any(map(str.isdigit, v))]
    if not texts:
        return None, [], "no date values"
    iso = sum(_parses_iso(t) for t in texts)
    if iso * 2 > len(texts):
        return None, [], f"ISO dates ({iso} of {len(texts)} values)"
    scored = _ranked(
        [s for fmt in DATE_FORMATS if (s := _score(texts, fmt, day_first_hint)) is not None]
    )
    if not scored or -scored[0][0] * 2 <= len(texts):
        yearless = ", which write no year" if all(map(_yearless, texts)) else ""
        why = f"no known date format reads most of {len(texts)} values like {texts[0]!r}"
        return None, [], why + yearless
    best = scored[0]
    rivals = _other_days(best, [s for s in scored[1:] if s[0] == best[0]])
    ties = [s[-1] for s in rivals]
    why = f"reads {-best[0]} of {len(texts)} values"
    if ties:
        reason = _tie_break(best, rivals[0]) or "the file's conventions"
        why += f"; {', '.join(ties)} read{'s' if len(ties) == 1 else ''} them too ({reason})"
    return best[-1], ties, why


def _other_days(best: tuple, rivals: list[tuple]) -> list[tuple]:
    """The rivals (_score tuples, best first) that read other days than ``best``, one per
    format of a day: a format with a time of day or without one reads the same days."""
    seen = {day_format(best[-1])}
    kept = []
    for rival in rivals:
        if (day := day_format(rival[-1])) not in seen:
            seen.add(day)
            kept.append(rival)
    return kept


class SwappedOrder(NamedTuple):
    """A date format that reads the same dates with the day and month the other way round."""

    rival: str  # the other order's format
    settled_by: str | None  # what in the dates chose the first: a shorter span, the rows' order
    example: str  # a date both read ("06/12/2021")


def swapped_order(values: list, fmt: str, ties: list[str]) -> SwappedOrder | None:
    """Where ``fmt`` and one of its ``ties`` (as sniff_date_format returns them) read every
    date with the day and month the other way round: that format, what in the dates chose
    ``fmt`` (None where nothing in them did, only the day_first_hint or the order formats
    are tried in), and a date both read."""
    rival = next((t for t in ties if day_first(t) != day_first(fmt)), None)
    if rival is None:
        return None
    texts = [v.strip() for v in values if isinstance(v, str) and any(map(str.isdigit, v))]
    chosen, other = _score(texts, fmt, False), _score(texts, rival, False)
    if chosen is None or other is None:
        return None
    example = next(t for t in texts if _strptime(t, fmt) and _strptime(t, rival))
    return SwappedOrder(rival, _tie_break(chosen, other), example)


def _score(texts: list[str], fmt: str, day_first_hint: bool) -> tuple | None:
    """How well ``fmt`` reads ``texts``, smaller first: (-values read, span in days, out of
    order, against the hint, -values read as written, fmt); None where it reads none. A
    value is read as written where it writes the time of day as ``fmt`` does (or neither
    writes one): of formats reading the same days, the one writing the time as the values
    do is chosen."""
    read = [(t, d) for t in texts if (d := _strptime(t, fmt)) is not None]
    if not read:
        return None
    days = [d for _, d in read]
    ordered = days == sorted(days) or days == sorted(days, reverse=True)
    span = (max(days) - min(days)).days
    time = format_time(fmt)
    as_written = sum(time_written(t) == time for t, _ in read)
    against_hint = (fmt in _DAY_FIRST) != day_first_hint
    return (-len(days), span, not ordered, against_hint, -as_written, fmt)


def _ranked(scored: list[tuple]) -> list[tuple]:
    """_score tuples, best first: the most values read; of those, a span of days far longer
    than the shortest (see _shorter) last, then the rows' order, the hint, the span."""
    if not scored:
        return scored
    most = min(s[0] for s in scored)
    shortest = min(s[1] for s in scored if s[0] == most)

    def rank(s: tuple) -> tuple:
        return (s[0], _shorter(shortest, s[1]), s[2], s[3], s[1], s[4], s[5])

    return sorted(scored, key=rank)


def _shorter(span: int, other: int) -> bool:
    """Whether a span of days is short enough beside another to tell which reading is the
    statement's: under half of it."""
    return span * 2 < other


def _tie_break(best: tuple, rival: tuple) -> str | None:
    """What in the dates puts ``best`` ahead of ``rival`` (two _score tuples reading as many
    values), or None where nothing in them does."""
    if _shorter(best[1], rival[1]):
        return f"a span of {best[1]} days against {rival[1]}"
    if best[2] < rival[2]:
        return "the rows stay in date order"
    return None


def _yearless(text: str) -> bool:
    """A day and a month alone ("4月30日", "30/04"): no format dates it to a year."""
    numbers = re.findall(r"\d+", text)
    return len(numbers) == 2 and all(len(n) <= 2 for n in numbers)


def _parses_iso(text: str) -> bool:
    return iso_date(text) is not None


# the years a bank statement's dates fall in: "11111111" (a registry code) is no 1111-11-11
_YEARS = range(1950, 2101)


def _strptime(text: str, fmt: str) -> dt.date | None:
    """The day ``fmt`` reads in ``text``; a format without a time of day reads the date of a
    value with one after it ("12-01-2025 16:28:29"), which one column may write on some rows
    alone."""
    if text.isdigit() and len(text) != 8:  # a number or an id, not a date ("2024111" is both)
        return None
    if ":" in text and ":" not in fmt:
        text, time = split_time(text)
        if time is None:
            return None
    # (a time's colon, a month's name: a text without the one a format has, or with the one
    # it has not, never reads; told here without strptime, each format being tried on each
    # value of every column a layout is guessed from)
    if (":" in text) != (":" in fmt) or _named_month(fmt) != any(map(str.isalpha, text)):
        return None
    try:
        day = parse_date_text(text, fmt).date()
    except ValueError:
        return None
    return day if day.year in _YEARS else None
