"""A time of day written after a date ("12-01-2025 16:28:29", "03/02/2025 4:28 PM"), told
apart from the date: one column of a bank's export may write it on some rows and not on
others (Kotak's "Transaction Date"), so a date format reads the day whether its rows write
the time or not."""

from __future__ import annotations

import datetime as dt
import functools
import re

# hours and minutes, maybe seconds (and their fraction), maybe AM/PM, at the end of a value
# and set off from the date by spaces or ISO's "T"
_TIME_AFTER = re.compile(
    r"(?P<day>.*?\S)(?:\s+|T)(?P<hour>\d{1,2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:[.,]\d{1,6})?)?(?:\s*(?P<half>[AaPp])\.?\s?[Mm]\.?)?\s*"
)
# a format's own time of day, at its end: "%d %b %Y %H:%M", "%d %b %Y. %H:%M:%S"
_FORMAT_TIME = re.compile(
    r"(?P<day>.*?\S)\s+%[HI]:%M(?P<second>:%S(?:\.%f)?)?(?:\s*(?P<half>%p))?\s*"
)


@functools.lru_cache(maxsize=8192)
def split_time(text: str) -> tuple[str, dt.time | None]:
    """(the date's text, the time of day written after it), or (``text``, None) where no
    valid time of day ends it (an hour of 24 or more, a 13 o'clock PM, is none)."""
    found = _TIME_AFTER.fullmatch(text)
    if found is None:
        return text, None
    hour, minute = int(found["hour"]), int(found["minute"])
    second = int(found["second"] or 0)
    if found["half"]:
        if not 1 <= hour <= 12:
            return text, None
        hour = hour % 12 + (12 if found["half"] in "Pp" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return text, None
    return found["day"], dt.time(hour, minute, second)


@functools.lru_cache(maxsize=256)
def day_format(date_format: str) -> str:
    """``date_format`` without the time of day at its end ("%d %b %Y %H:%M" -> "%d %b %Y");
    a format that writes none unchanged."""
    found = _FORMAT_TIME.fullmatch(date_format)
    return found["day"] if found else date_format


@functools.lru_cache(maxsize=8192)
def time_written(text: str) -> tuple[bool, bool] | None:
    """How the time of day after a date is written: (with seconds, with AM/PM), or None
    where ``text`` writes none."""
    if split_time(text)[1] is None:
        return None
    found = _TIME_AFTER.fullmatch(text)
    return found["second"] is not None, found["half"] is not None


@functools.lru_cache(maxsize=256)
def format_time(date_format: str) -> tuple[bool, bool] | None:
    """How a date format writes the time of day at its end, as time_written says it, or
    None where it writes none."""
    found = _FORMAT_TIME.fullmatch(date_format)
    if found is None:
        return None
    return found["second"] is not None, found["half"] is not None
