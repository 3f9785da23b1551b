"""OFX amounts written with a decimal comma and dots between the thousands.

OFX lets an amount's decimal mark be a point or a comma and forbids separating thousands
(OFX 2.2, 3.2.9.1), so a comma in a TRNAMT is always the decimal mark. Brazilian banks
(Santander) nonetheless write thousands the local way, ``2.750,40`` and ``-1.234.567,89``,
in files whose other amounts read ``-2,48``. Once a file's amounts show a decimal comma, its
dots are that file's thousands separators: ``grouped_amount`` reads them so, and leaves every
amount whose dots cannot group thousands to the standard's reading (``4.50``: a decimal point,
which OFX allows).

Santander also writes ``6000.000,00`` and ``-5800.000,00``, the millions not separated from
the thousands (``IRREGULAR``). These are read as 6000000.00: before a decimal comma a dot
can only be a thousands separator, and a separator left out changes no digit, so no other
number is written there. The file's reader says so in a warning, naming the lines. A dot
with three digits after it, no decimal comma, and four digits or more before it
(``1234.500``) reads two ways (1234.5 by the standard, 1234500 by the file's own habit) and
is an error naming both.
"""

from __future__ import annotations

import re

# sign, the digits before the first dot, the groups of three after each dot, the decimal
# comma's fraction
_DOT_GROUPED = re.compile(r"([+-]?)(\d+)((?:\.\d{3})+)(?:,(\d*))?")
_REGULAR_LEAD = re.compile(r"[1-9]\d{0,2}")  # a grouped number's first one to three digits


def shows_decimal_comma(text: str | None) -> bool:
    """Whether a TRNAMT's text is written with a decimal comma: a comma that no point
    follows ("-2,48", "2.750,40"; not "1,234.56")."""
    text = (text or "").strip()
    return "," in text and text.rfind(",") > text.rfind(".")


def is_irregularly_grouped(text: str | None) -> bool:
    """Whether a decimal-comma file's amount groups only its last thousands ("6000.000,00"),
    read as grouped all the same (see ``grouped_amount``)."""
    found = _DOT_GROUPED.fullmatch((text or "").strip())
    return bool(found and _read_as_grouped(found) and not _REGULAR_LEAD.fullmatch(found[2]))


def _read_as_grouped(found: re.Match) -> bool:
    """Whether dots that each have three digits after them are thousands separators: before
    a decimal comma, or more than one of them, they can be nothing else."""
    return found.group(4) is not None or found.group(3).count(".") > 1


def grouped_amount(text: str) -> str:
    """The TRNAMT ``text`` of a file whose amounts use a decimal comma, as the standard
    writes it: dots that group thousands dropped ("-1.234.567,89" -> "-1234567,89"). Text
    without dots is returned unchanged, and so is text whose dots cannot group thousands
    ("4.50", "0.500": a decimal point, as OFX allows). Raises ValueError, saying why, where a
    dot groups thousands only under one of two readings ("1234.500") or stands before a
    decimal comma without grouping thousands ("6000.00,00")."""
    stripped = text.strip()
    if "." not in stripped:
        return text
    found = _DOT_GROUPED.fullmatch(stripped)
    if found is None:
        if "," in stripped:
            raise ValueError(
                "this file's amounts use a decimal comma, and a '.' before it can only separate "
                "thousands, with three digits after each '.'"
            )
        return text  # a decimal point, the only way the dot reads
    sign, lead, groups, fraction = found.groups()
    if not _read_as_grouped(found) and not _REGULAR_LEAD.fullmatch(lead):
        if lead.startswith("0"):
            return text  # "0.500": no grouped number starts with a zero
        raise ValueError(
            f"it reads as {lead}.{groups[1:]} with a decimal point, or as {lead}{groups[1:]} "
            "with the '.' separating thousands, as this file's other amounts, which use a "
            "decimal comma, do; check the amount on the bank's statement"
        )
    return f"{sign}{lead}{groups.replace('.', '')}" + (f",{fraction}" if fraction else "")
