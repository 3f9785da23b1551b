"""What a bank file does not say about itself, read from its bytes: the text encoding, the CSV
field separator, the decimal mark of its amounts and the format of its dates; and amounts
written the way banks write them ("2,474.74", "1.234,56", "12,50-", "€ 3,20") made plain.

Each guess is made from the head of one file (a folder of downloads from several banks mixes
conventions), and each can be set instead (raw_transactions.encoding, delimiter, decimal,
date_format). An amount that contradicts the file's decimal mark is an error naming the value,
never a silent factor of 100.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections import Counter
from typing import NamedTuple

from ml_assets.core.intake.records import SchemaError, iso_date, parse_amount

DELIMITERS = (",", ";", "\t", "|")
# strftime formats tried on a date column; the order breaks no tie (see sniff_date_format)
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
    "%d-%m-%Y",
    "%m-%d-%Y",
    "%d-%b-%Y",
    "%d-%b-%y",
    "%d %b %Y",
    "%d %b %y",  # Woolworths Money's "19 Oct 15"
    "%b %d, %Y",
    "%d %B %Y",
    "%B %d, %Y",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%y %H:%M",
    "%d/%m/%Y %H:%M",
)


def day_first(fmt: str) -> bool:
    """Whether a date format writes the day before the month ("%d/%m/%Y", "%d %b %y")."""
    return fmt.find("%d") < fmt.find("%m") or "%b" in fmt or "%B" in fmt


_DAY_FIRST = {f for f in DATE_FORMATS if day_first(f)}


def detect_encoding(head: bytes) -> tuple[str, str]:
    """(encoding, why) of a text file from its first bytes: a byte-order mark, else UTF-8 when
    the bytes decode as UTF-8; else, when they read as Western text, cp1257 where the detector
    finds Baltic text and its letters are there (see _spells_baltic), cp1250 where it finds
    Central European text and that text's letters are there (see _central_european_letters),
    else cp1252 (what US and Western European banks write); else the legacy code page of another script (Japanese,
    Chinese, Korean, Cyrillic, Central European, Greek) that ``charset_normalizer`` finds,
    else cp1252."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", "UTF-8 with a byte-order mark"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", "UTF-16 (byte-order mark)"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start >= len(head) - 3:  # a character cut by the end of the sample
            return "utf-8", "valid UTF-8"
        line = head.count(b"\n", 0, err.start) + 1
        byte = head[err.start : err.start + 1].hex()
        where = f"not UTF-8 (byte 0x{byte} on line {line})"
        if _reads_as_western(head):
            other = _other_european(head)
            if other and other[0] == "cp1257" and _spells_baltic(head):
                return "cp1257", (
                    f"{where}; Windows-1257, {other[1]} text (its ė, ų, š, ž read as ë, ø, ð, þ "
                    "in Windows-1252)"
                )
            if other and other[0] == "cp1250" and (letters := _central_european_letters(head)):
                return "cp1250", (
                    f"{where}; Windows-1250, {other[1]} text (its {', '.join(letters)} read as "
                    f"{', '.join(_as_cp1252(letters))} in Windows-1252)"
                )
            if other:  # a hint, not a choice: the detector says so of some Italian text too
                page, language = other
                return "cp1252", (
                    f"{where}; Windows-1252, though charset_normalizer reads it as {language} in "
                    f"{page}: if letters look wrong ('è' for 'č', 'ø' for 'ř' or 'ų'), set "
                    f"encoding: {page} and write column_map's names as they read in it"
                )
            return "cp1252", f"{where}; Windows-1252"
        other = _other_code_page(head)
        if other:
            return other, f"{where}; {other}, not Western text (charset_normalizer)"
        return "cp1252", f"{where}; Windows-1252 (no code page reads it as text)"
    if head.isascii():
        return "utf-8", "ASCII"
    return "utf-8", "valid UTF-8"


# the legacy code pages of the scripts bank exports are written in beside Western European;
# the detector is asked only among these (unrestricted, it calls some cp1252 files mac_roman)
_OTHER_CODE_PAGES = ("cp932", "gb18030", "big5", "cp949", "cp1251", "cp1250", "cp1253")
# cp1252's rarer symbols (0x82-0x9f, less the quotes, dashes, ellipsis and bullet Western text
# is typeset with): what Japanese or Chinese bytes read as cp1252 turn into
_CP1252_SYMBOLS = set(bytes(range(0x82, 0xA0)).decode("cp1252", errors="ignore")) - set(
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u2022\u2122"
)


def _reads_as_western(head: bytes) -> bool:
    """Whether ``head`` decodes as cp1252 into text whose letters are mostly ASCII (accents
    here and there, not words of them: Cyrillic or CJK bytes read as cp1252 give those) and
    few of its rarer symbols."""
    # the five bytes cp1252 leaves undefined count as symbols: frequent in Japanese text, a
    # stray one in a Western file
    text = head.decode("cp1252", errors="replace")
    letters = [c for c in text if c.isalpha()]
    accented = sum(not c.isascii() for c in letters)
    beyond = [c for c in text if not c.isascii()]
    symbols = sum(c in _CP1252_SYMBOLS or c == "\ufffd" for c in beyond)
    return accented <= 0.3 * max(len(letters), 1) and symbols <= max(3, 0.2 * len(beyond))


# the European code pages whose text mostly reads as cp1252 too ("Datum zaúètování",
# "Paslaugø"), the shared letters alike, their own as other accents; and their languages
_OTHER_EUROPEAN = {
    "cp1250": ("Czech", "Slovak", "Polish", "Hungarian", "Slovene", "Croatian"),
    "cp1257": ("Lithuanian", "Latvian", "Estonian"),
}


def _other_european(head: bytes) -> tuple[str, str] | None:
    """(code page, language) where ``head`` reads best in one of those code pages and one of
    its languages (asked between it and cp1252 alone, the detector prefers cp1250 for German
    or Dutch text as well: their letters are the same in both). Wrong for some Italian,
    Spanish and Portuguese text, so only a hint."""
    from charset_normalizer import from_bytes

    for page, languages in _OTHER_EUROPEAN.items():
        best = from_bytes(head, cp_isolation=["cp1252", page]).best()
        if best is not None and best.encoding == page and best.language in languages:
            return page, best.language
    return None


# Lithuanian and Latvian letters cp1257 writes where cp1252 has ë, ø, û, ð and þ: letters
# Western text spells few words with (Dutch "België", Danish "ø", French "août"), seldom two
# of them in one file, and never a third of its accented letters
_BALTIC_LETTERS = "ėųūšžĖŲŪŠŽ"


def _spells_baltic(head: bytes) -> bool:
    """Whether ``head`` read as cp1257 has two or more of the Baltic letters above, and they
    make a third or more of its accented letters: the Italian, Spanish or Czech text the
    detector also calls Lithuanian has none of them, or one ('ø' for Czech 'ř')."""
    text = head.decode("cp1257", errors="replace")
    accented = [c for c in text if c.isalpha() and not c.isascii()]
    baltic = [c for c in accented if c in _BALTIC_LETTERS]
    return len({c.lower() for c in baltic}) >= 2 and 3 * len(baltic) >= len(accented)


# the letters of Central European languages cp1250 writes where cp1252 has another character,
# and the š and ž both share (which Western text seldom spells with)
_CENTRAL_EUROPEAN_LETTERS = frozenset(
    c
    for c in bytes(range(0x80, 0x100)).decode("cp1250", errors="ignore")
    if c.isalpha() and c.encode("cp1250") != c.encode("cp1252", errors="ignore")
) | set("šžŠŽ")


def _central_european_letters(head: bytes) -> list[str]:
    """The Central European letters (see above) that ``head`` read as cp1250 spells inside
    its words, where two or more of them do, else none: Italian text, which the detector
    calls Czech or Croatian at times, ends its words with the accents (più, città, è) that
    cp1250 reads as ů, ŕ, č; Czech spells its letters mid-word (účtu, Měna, Původní)."""
    text = head.decode("cp1250", errors="replace").lower()
    inside = {
        c
        for c, after in zip(text, text[1:], strict=False)
        if c in _CENTRAL_EUROPEAN_LETTERS and after.isalpha()
    }
    return sorted(inside, key=text.index) if len(inside) >= 2 else []


def _as_cp1252(letters: list[str]) -> list[str]:
    return [c.encode("cp1250").decode("cp1252", errors="replace") for c in letters]


def _other_code_page(head: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(head, cp_isolation=list(_OTHER_CODE_PAGES)).best()
    return best.encoding if best is not None else None


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


_CURRENCY = re.compile(
    r"(?i)^(usd|eur|gbp|chf|cad|aud|sek|nok|dkk|pln|czk|jpy)\s*|\s*(usd|eur|gbp|chf|cad|aud|sek|nok|dkk|pln|czk|jpy)$"
)
_SYMBOLS = str.maketrans({c: "" for c in "$€£¥₹\u00a0\u202f '’"})
# the one digit group a thousands separator is followed by, and the groups before it: "1.234"
# and "12,345" read both ways, "1.2345", "0.500", "1000.000" and "1.234.567" one way only
_THOUSANDS_GROUP = re.compile(r"[1-9]\d{0,2}")
# Indian grouping (lakh, crore): two-digit groups before the last three, "1,25,000" and
# "12,50,00,000"; written with commas, so only where the decimal mark is the point
LAKH_GROUPED = re.compile(r"[1-9]\d?(,\d{2})+,\d{3}")


# right-to-left and other direction marks an export writes around an amount in Arabic script
_BIDI_MARKS = str.maketrans(
    dict.fromkeys(
        map(ord, "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    )
)
# a currency sign of Arabic letters with dots, before or after the amount (a letter before
# each dot, so a lone decimal point is never taken; the letters' range leaves out the
# Arabic-Indic digits, which are the amount: "١٢.٥٠")
_ARABIC_SIGN = re.compile(r"^(?:[\u0621-\u064a]+\.)+|(?:[\u0621-\u064a]+\.)+$")


def _bare(text: str) -> str:
    """The digits, separators and sign of an amount: currency codes and symbols, spaces and
    apostrophes (Swiss thousands) gone; a trailing minus, CR/DR suffix or parentheses kept."""
    text = text.translate(_BIDI_MARKS).strip()
    text = _ARABIC_SIGN.sub("", text)  # "د.ا." (Jordanian dinar), "ر.س." (Saudi riyal)
    text = _CURRENCY.sub("", text.strip()).translate(_SYMBOLS).replace("\u2212", "-")
    return text.lstrip("+")


def amount_mark(value: object) -> int | None:
    """+1 for an amount the bank marks a credit ("100.00 CR"), -1 for one it marks a debit
    ("12.50 DR"), else None. The mark says which way the money went whatever sign convention
    the file's other amounts follow (a card statement's purchases are unmarked and positive)."""
    if not isinstance(value, str):
        return None
    upper = _bare(value).upper()
    if upper.endswith("CR"):
        return 1
    if upper.endswith("DR"):
        return -1
    return None


def sniff_decimal(values: list[str], delimiter: str | None = None) -> tuple[str, str]:
    """(decimal mark, why) from amount texts: the mark of the values only one reading fits
    ("1.234,56", "12,50", "1000.000000" vs "2,474.74", "4.85"; see only_decimal_mark).
    Without any, a semicolon-separated file is taken as European (its comma is free for
    decimals), anything else as using a point."""
    votes: Counter = Counter()
    values = [v for v in values if isinstance(v, str) and v.strip()]
    for value in values:
        mark = only_decimal_mark(value)
        if mark is not None:
            votes[mark] += 1
    if votes:
        mark, count = votes.most_common(1)[0]
        example = "1.234,56" if mark == "," else "2,474.74"
        return mark, f"{count} of {len(values)} amounts read only one way (like {example})"
    if delimiter == ";":
        return ",", "no amount decides; a semicolon-separated file, so a decimal comma"
    return ".", "no amount decides; a decimal point"


def only_decimal_mark(value: str) -> str | None:
    """The decimal mark an amount text can only be read with, or None where it reads both
    ways ("1,234", "1.234") or is no amount. A thousands separator is followed by exactly
    three digits and comes after one to three digits (no leading zero), so a mark followed by
    any other number of digits ("12,50", "1000.000000"), or after "0" or four digits or more
    ("0.500", "1000,000"), or after the other mark ("1.234,56"), is the decimal mark; a mark
    written twice ("1.234.567") separates thousands."""
    bare = _bare(value).strip("()").rstrip("-").removesuffix("CR").removesuffix("DR").strip()
    bare = bare.removeprefix("-")
    if not re.fullmatch(r"\d[\d.,]*\d|\d", bare) or ",," in bare or ".." in bare:
        return None
    marks = [c for c in bare if c in ".,"]
    if not marks:
        return None
    last = marks[-1]
    other = "," if last == "." else "."
    if marks.count(last) > 1:  # thousands: "1.234.567", and the decimal is the other mark
        return other if _grouped(bare, last) and other not in bare else None
    whole, fraction = bare.split(last)
    if other in whole:
        return last if _grouped(whole, other) else None
    if len(fraction) != 3 or not _THOUSANDS_GROUP.fullmatch(whole):
        return last
    return None


def _grouped(text: str, separator: str) -> bool:
    """Whether ``text`` is digits grouped in threes by ``separator`` ("1.234.567"), or by
    commas in the Indian way ("1,25,000")."""
    if separator == "," and LAKH_GROUPED.fullmatch(text):
        return True
    first, *groups = text.split(separator)
    return bool(_THOUSANDS_GROUP.fullmatch(first)) and all(
        len(g) == 3 and g.isdigit() for g in groups
    )


def normalize_amount(
    value: object, decimal: str, where: str, field: str = "amount", column: str | None = None
) -> object:
    """A plain "-1234.56" from an amount as banks write it, for parse_amount; non-text values
    pass through. A separator that cannot be a thousands separator under ``decimal`` (the
    "12.50" of a decimal-comma file) raises, naming the value, the file's ``column`` (by
    default ``field``, ours, which the quarantine files it under) and the setting."""
    named = column or field
    if not isinstance(value, str):
        return value
    text = _bare(value)
    if not text:
        return value
    negative = False
    if text.startswith("(") and text.endswith(")"):
        text, negative = text[1:-1], True
    upper = text.upper()
    if upper.endswith(("CR", "DR")):  # "12.50 DR": a debit
        text, negative = text[:-2].strip(), negative or upper.endswith("DR")
    if text.endswith("-"):  # "12,50-": German statements put the sign last
        text, negative = text[:-1], True
    if text.startswith("-"):
        text, negative = text[1:], not negative
    thousands = "." if decimal == "," else ","
    whole, _, fraction = text.partition(decimal)
    grouped = re.fullmatch(rf"\d{{1,3}}(\{thousands}\d{{3}})+", whole) or (
        decimal == "." and LAKH_GROUPED.fullmatch(whole)
    )
    if thousands in whole and not grouped:
        raise SchemaError(
            f"{where}: field {named!r} {value!r}: the {thousands!r} is not a thousands "
            f"separator where the decimal mark is {decimal!r}; fix the row, or set "
            f"raw_transactions.decimal if the file uses {thousands!r} for decimals",
            "bad_amount",
            field,
        )
    plain = whole.replace(thousands, "") + ("." + fraction if fraction else "")
    if not re.fullmatch(r"\d+(\.\d+)?|\.\d+", plain):
        raise SchemaError(
            f"{where}: field {named!r} is not a number: {value!r} (read with the decimal mark "
            f"{decimal!r}; set raw_transactions.decimal if the file uses another)",
            "bad_amount",
            field,
        )
    return ("-" if negative else "") + plain


def amount_or_none(value: object, decimal: str) -> float | None:
    """The number a cell holds, or None (for what is a number only sometimes: a running
    balance, a stated total, a guess from values). Never fails a row."""
    try:
        return parse_amount(normalize_amount(value, decimal, ""), "")
    except SchemaError:
        return None


def sniff_date_format(
    values: list[str], day_first_hint: bool = False
) -> tuple[str | None, list[str], str]:
    """(format, the others that read as many values, why) for a column of date texts; None
    when ISO dates (the default) read most of them or no format does. Of formats reading the
    same number of values (03/01/2026 is March 1st or January 3rd), the one giving the
    shortest span of days wins (a statement covers weeks, not years), then the one that keeps
    the rows in order, then ``day_first_hint`` (a European file)."""
    # a value without a digit is no date in any format: a pending row's "Pending", a footer
    texts = [v.strip() for v in values if isinstance(v, str) and any(map(str.isdigit, v))]
    if not texts:
        return None, [], "no date values"
    iso = sum(_parses_iso(t) for t in texts)
    if iso * 2 > len(texts):
        return None, [], f"ISO dates ({iso} of {len(texts)} values)"
    scored = sorted(
        score for fmt in DATE_FORMATS if (score := _score(texts, fmt, day_first_hint)) is not None
    )
    if not scored or -scored[0][0] * 2 <= len(texts):
        yearless = ", which write no year" if all(map(_yearless, texts)) else ""
        why = f"no known date format reads most of {len(texts)} values like {texts[0]!r}"
        return None, [], why + yearless
    best = scored[0]
    rivals = [s for s in scored[1:] if s[0] == best[0]]
    ties = [s[4] for s in rivals]
    why = f"reads {-best[0]} of {len(texts)} values"
    if ties:
        reason = _tie_break(best, rivals[0]) or "the file's conventions"
        why += f"; {', '.join(ties)} read{'s' if len(ties) == 1 else ''} them too ({reason})"
    return best[4], ties, why


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
    order, against the hint, fmt); None where it reads none."""
    days = [d for t in texts if (d := _strptime(t, fmt)) is not None]
    if not days:
        return None
    ordered = days == sorted(days) or days == sorted(days, reverse=True)
    span = (max(days) - min(days)).days
    return (-len(days), span, not ordered, (fmt in _DAY_FIRST) != day_first_hint, fmt)


def _tie_break(best: tuple, rival: tuple) -> str | None:
    """What in the dates puts ``best`` ahead of ``rival`` (two _score tuples reading as many
    values), or None where nothing in them does."""
    if best[1] < rival[1]:
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
    if text.isdigit() and len(text) != 8:  # a number or an id, not a date ("2024111" is both)
        return None
    try:
        day = dt.datetime.strptime(text, fmt).date()
    except ValueError:
        return None
    return day if day.year in _YEARS else None
