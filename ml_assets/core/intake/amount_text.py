"""Amounts as banks write them: the decimal mark a file's amounts use, read from the values
only one reading fits, and an amount text ("2,474.74", "1.234,56", "12,50-", "€ 3,20",
"100.00 CR") made a plain number. The mark can be set instead (raw_transactions.decimal). An
amount that contradicts the file's decimal mark is an error naming the value, never a silent
factor of 100.
"""

from __future__ import annotations

import re
from collections import Counter

from ml_assets.core.intake.records import ISO_4217, SchemaError, parse_amount

# a currency code before or after the figures ("CNY 123.18", "CNY13.50", "12,50 EUR"); only
# ISO 4217's codes are taken (see _code_of), never a "CR" or "DR" mark
_CURRENCY = re.compile(r"^([A-Za-z]{3})\s*(?=[-+(.,\d$€£¥])|(?<=[\d.)-])\s*([A-Za-z]{3})$")


# currency signs, spaces and apostrophes (Swiss thousands) around an amount's figures; "円"
# and "元" are written after them ("1,504円"), and a Japanese file's backslash is the yen
# sign (0x5C, which Shift JIS shows as ¥: Mobile Suica's "\1,350")
_SYMBOLS = str.maketrans({c: "" for c in "$€£¥￥₹円元\\\u00a0\u202f '’"})


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


def _code_of(found: re.Match) -> str | None:
    """The ISO 4217 code _CURRENCY matched, or None where its letters are none."""
    code = (found.group(1) or found.group(2)).upper()
    return code if code in ISO_4217 else None


def amount_currency(value: object) -> str | None:
    """The ISO 4217 code an amount text writes before or after its figures ("CNY 123.18",
    "12,50 EUR"), else None: the row's own currency, where a file writes it in the amount."""
    if not isinstance(value, str):
        return None
    found = _CURRENCY.search(value.translate(_BIDI_MARKS).strip())
    return None if found is None else _code_of(found)


# a note in parentheses after an amount (JD's "131.77(已退款89.84)", a partial refund;
# CMB's "8,000.00(CN)", where it was spent): words, never the figures of an accounting
# negative "(12.00)" nor a credit or debit mark "(CR)"
_NOTE = re.compile(r"(?<=\d)\s*[(（](?![CD]R[)）])[^()（）]*[^\W\d_][^()（）]*[)）]$", re.I)


def amount_note(value: object) -> str | None:
    """The note in parentheses an amount text ends with (see _NOTE), else None: the amount
    is the figures before it, and the note is dropped."""
    if not isinstance(value, str):
        return None
    found = _NOTE.search(value.strip())
    return found.group().strip() if found else None


def _bare(text: str) -> str:
    """The digits, separators and sign of an amount: currency codes and symbols, spaces and
    apostrophes (Swiss thousands) gone; a trailing minus, CR/DR suffix or parentheses kept."""
    text = _NOTE.sub("", text.translate(_BIDI_MARKS).strip())
    text = _ARABIC_SIGN.sub("", text)  # "د.ا." (Jordanian dinar), "ر.س." (Saudi riyal)
    text = _CURRENCY.sub(lambda m: "" if _code_of(m) else m.group(), text.strip())
    text = text.translate(_SYMBOLS).replace("\u2212", "-")
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
