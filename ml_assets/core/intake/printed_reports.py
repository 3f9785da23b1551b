"""Text files that are a statement printed to fixed-width columns, not a table of delimited
values: a bank's "report" download (Sberbank's card account report), a statement saved from a
mainframe or a print preview. Their columns are told by position on the line, often under
ruled lines (``-----+-----``), and a row's text runs on under it; no delimiter splits them, so
renaming such a file to .csv reads nothing. What helps is the bank's data export instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from ml_assets.core.intake.records import open_binary
from ml_assets.core.intake.text_encoding import detect_encoding

PRINTED_REPORT_ADVICE = (
    "a printed statement laid out in fixed-width columns (a report to read or print, not a "
    "table of delimited values), which no reader here takes and renaming will not make "
    "readable: download the account's transactions from the bank as CSV, Excel (.xlsx), OFX "
    "or camt.053 (XML) instead"
)

_HEAD_BYTES = 1 << 16
# a ruled line of a printed report: dashes, equals signs, underscores, with crossings (+, |)
# or drawn with box-drawing characters (U+2500-U+257F), at least this long
_RULE = re.compile(r"[-=_+|*~\u2500-\u257f ]{20,}")
# text, a run of three or more spaces, text: columns aligned by position
_GAP = re.compile(r"\S {3,}\S")
# an amount with two decimals (10000.00, 1 234,56): what a statement's lines hold
_AMOUNT = re.compile(r"\d[.,]\d{2}(?!\d)")


def looks_printed(lines: list[str]) -> bool:
    """Whether text lines are a statement printed to fixed-width columns: ruled lines or most
    lines split into columns by runs of spaces, and amounts on several lines. Meant for text
    that no delimiter splits into a table (a delimited file has neither shape)."""
    filled = [line.rstrip() for line in lines if line.strip()]
    if len(filled) < 5 or sum(1 for line in filled if _AMOUNT.search(line)) < 2:
        return False
    ruled = any(
        _RULE.fullmatch(line.strip()) and sum(ch != " " for ch in line) >= 20 for line in filled
    )
    aligned = sum(1 for line in filled if _GAP.search(line.strip())) / len(filled)
    return ruled or aligned >= 0.5


def printed_report(path: Path) -> bool:
    """Whether the text file at ``path`` is a printed statement (see looks_printed), read
    from its first 64 KiB in the encoding its bytes tell."""
    try:
        with open_binary(path) as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    if b"\x00" in head:
        return False
    text = head.decode(detect_encoding(head)[0], errors="replace")
    return looks_printed(text.splitlines())
