"""SWIFT MT940 statements (banks' "MT940" or "SWIFT" download), read by the ``mt940`` library
one entry at a time: each ``:61:`` line with its details, so one bad entry is quarantined and
the rest are read; a download cut off part-way keeps its entries before the cut (see
``bank_formats`` for the row shape both statement readers share). An MT942 report (the
day's entries so far, ending with their sums instead of a closing balance) is read the same
way. MT940 has no reliable id: its rows get derived ids (see ingest).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.bank_formats import ZERO_AMOUNT_NOTICE, Row, cut_off
from ml_assets.core.intake.mt940_details import entry_text, no_text_error
from ml_assets.core.intake.mt940_entries import (
    ENTRY_ERRORS,
    entry_error,
    parse_entry,
    with_decimal_comma,
)
from ml_assets.core.intake.records import SchemaError, open_binary
from ml_assets.core.intake.statements import balance_gap

# what follows a statement's last entry: its closing balance (:62F:/:62M:), the available
# balances (:64:, :65:; some banks write :65F:), an MT942 report's sums of debits and credits
# (:90D:, :90C:; MT942 has no closing balance), the next statement, the block's end
_MT940_STATEMENT_END = (":62", ":64", ":65", ":90D:", ":90C:", ":20:", "-}")


def iter_mt940(
    path: Path,
    encoding: str | None = None,
    skipped: list[tuple[int, str]] | None = None,
    warnings: list[str] | None = None,
) -> Iterator[Row]:
    """Each ``:61:`` statement line with its ``:86:`` details (or a bank's ``:NS:`` in their
    place), parsed by ``mt940`` on its own (with its statement's header) so one bad line is
    quarantined instead of failing the file. The text is read in ``encoding`` where set, else
    as ``_mt940_text`` tells; where that is Windows-1252 in place of UTF-8 and the file holds
    a byte Windows-1252 has no character for, every entry is quarantined instead
    (``_not_windows_1252``). A FinTS/HBCI dump's ``@@`` line separators are line breaks, and
    its lines are numbered so. The day is the entry (booking) date, the value date when there
    is none. An entry of 0.00 moves no money (a bank's notice: "mobile payment is no longer
    possible", or a fee summary's continuation) and goes to ``skipped`` as (line, "zero-amount
    notice") where that list is given. A statement whose opening balance (:60F:) and entries
    as read do not reach its closing balance (:62F:) is appended to ``warnings``. A file with
    no entry at all is never read as nothing: see ``_no_entries``."""
    with open_binary(path) as handle:
        data = handle.read()
    text, used = _mt940_text(data, encoding)
    text = _fints_lines(text)
    # a code page guessed wrong garbles every entry's letters, not only the one it failed on
    wrong = _not_windows_1252(data) if encoding is None and used == "cp1252" else None
    statements = _mt940_balances(text)
    starts = [statement["line"] for statement in statements]
    entries = 0
    for row in _mt940_rows(path, text, used, wrong):
        entries += 1
        statement = statements[max(bisect.bisect_right(starts, row[0]) - 1, 0)] if starts else {}
        if isinstance(row[1], dict):
            statement["total"] = statement.get("total", 0.0) + row[1]["amount"]
            if row[1]["amount"] == 0 and skipped is not None:
                skipped.append((row[0], ZERO_AMOUNT_NOTICE))
                continue
        else:
            statement["unread"] = statement.get("unread", 0) + 1
        yield row
    if not entries:
        yield from _no_entries(path, text, statements, warnings)
    for statement in statements if warnings is not None else []:
        if "opening" in statement and "closing" in statement:
            gap = balance_gap(
                f"{path}:{statement['closing_line']}: statement {statement['id']}",
                statement["opening"],
                statement.get("total", 0.0),
                statement["closing"],
                statement.get("unread", 0),
            )
            if gap:
                warnings.append(gap)


def _mt940_text(data: bytes, encoding: str | None) -> tuple[str, str]:
    """The file's text and the encoding it was read in: the one set; else UTF-8 where the
    bytes are UTF-8 (text in another encoding seldom is); else Windows-1252, a superset of the
    Latin-1 banks also write (the same letters, and its own characters where Latin-1 has C1
    controls). A byte the encoding has no character for stays a surrogate, and its entry is
    quarantined (``_mt940_not_text``) instead of read as some other letter."""
    if encoding is None:
        try:
            return data.decode("utf-8").removeprefix("\ufeff"), "utf-8"
        except UnicodeDecodeError:
            encoding = "cp1252"
    return data.decode(encoding, errors="surrogateescape").removeprefix("\ufeff"), encoding


# a FinTS/HBCI dump (MT940 or MT942 as the banking protocol carries it) separates its lines
# with "@@" in place of line breaks: @@:20:STARTUMS@@:25:...@@:61:...
_FINTS_SEPARATOR = re.compile(r"@@\r?\n?")
_FINTS_TAG = re.compile(r"@@:(20|25|28C?|60[FM]|61|86):")


def _fints_lines(text: str) -> str:
    """The text with a FinTS dump's ``@@`` separators as line breaks; other text as it is."""
    return _FINTS_SEPARATOR.sub("\n", text) if _FINTS_TAG.search(text) else text


def _no_entries(
    path: Path, text: str, statements: list[dict], warnings: list[str] | None
) -> Iterator[Row]:
    """What a file read as MT940 with no entry (a line starting with :61:) says: statements
    with balances only (a day with no movement) are a warning; anything else is one
    quarantined row naming what the file holds instead, so that a file read as nothing never
    passes as an empty day."""
    found = text.count(":61:")
    if statements and not found:
        if warnings is not None:
            lines = ", ".join(str(statement["line"]) for statement in statements[:5])
            warnings.append(
                f"{path}: {len(statements)} MT940 statement(s) (:20: on line {lines}) and no "
                "entry (:61:): balances only, no row read"
            )
        return
    if found:
        what = (
            f"':61:' occurs {found} time(s) but never at a line's start: the lines are "
            "joined by some other separator; write each tag on a line of its own"
        )
    elif not text.strip():
        what = "the file is empty; re-download it from the bank"
    else:
        first = text.strip().splitlines()[0][:60]
        what = (
            f"no line starts with :20: or :61: (the first reads {first!r}); set "
            "raw_transactions.format if the file is not MT940, or re-download it from the bank"
        )
    error = SchemaError(f"{path}:1: no MT940 entry read: {what}", "unreadable_file")
    yield 1, error, text[:2000].encode("utf-8", errors="surrogateescape")


# the five bytes Windows-1252 has no character for
_CP1252_UNDEFINED = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")


def _not_windows_1252(data: bytes) -> str | None:
    """Why no entry of a file that is not UTF-8 is read as Windows-1252: a byte it has no
    character for shows the file is in another code page (a Hungarian bank's cp852 reads
    "tutal s" for "átutalás" there, and its "ü" is that byte), whose letters would be kept
    wrong in every entry, not only in the one holding the byte; None where there is no such
    byte. Telling a stray byte in Western text from another code page's letters is no sure
    guess on a statement's few words: the bank's encoding, set, decides."""
    found = _CP1252_UNDEFINED.search(data)
    if found is None:
        return None
    line = data.count(b"\n", 0, found.start()) + 1
    return (
        f"entry not read: the file is not UTF-8, and Windows-1252 has no character for its "
        f"byte 0x{found.group()[0]:02X} on line {line}, so it is in another code page and "
        "every entry's letters would read wrong; set raw_transactions.encoding to the bank's "
        "(cp852 or cp1250 for Central European banks, cp1251 for Cyrillic), or to cp1252 "
        "where the other entries read right (then only the entry holding that byte is "
        "quarantined)"
    )


# no bank writes these as text: C1 controls (Latin-1's reading of Windows-1252's dashes and
# quotes, or a file converted to UTF-8 twice) and surrogates (bytes the encoding lacks)
_NOT_TEXT = re.compile("[\x80-\x9f\ud800-\udfff]")


def _mt940_not_text(where: str, record: dict, encoding: str) -> SchemaError | None:
    """The error for an entry whose values hold such a character: the wrong encoding."""
    for value in record.values():
        found = _NOT_TEXT.search(value) if isinstance(value, str) else None
        if found:
            code = ord(found.group())
            what = f"byte 0x{code - 0xDC00:02X}" if code >= 0xD800 else f"U+{code:04X}"
            return SchemaError(
                f"{where}: {what} is not text in {encoding}: set raw_transactions.encoding to "
                "the bank's (e.g. cp1252, latin-1 or utf-8)",
                "invalid_utf8",
            )
    return None


_MT940_BALANCE = re.compile(r":6([02])[FM]:([CD])\d{6}[A-Z]{3}(\d+(?:[,.]\d*)?)")


def _mt940_balances(text: str) -> list[dict]:
    """Per statement (from its :20: line): its ``line``, ``id`` and, where stated and
    readable, its ``opening`` and ``closing`` balance (signed) and the ``closing_line``."""
    statements: list[dict] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(":20:"):
            statements.append({"line": number, "id": line[4:].strip()})
        found = _MT940_BALANCE.match(line)
        if found and statements:
            amount = float(found.group(3).replace(",", ".")) * (-1 if found.group(2) == "D" else 1)
            kind = "opening" if found.group(1) == "0" else "closing"
            statements[-1].setdefault(kind, amount)
            if kind == "closing":
                statements[-1]["closing"], statements[-1]["closing_line"] = amount, number
    return statements


def _mt940_rows(path: Path, text: str, encoding: str, wrong: str | None) -> Iterator[Row]:
    """Each entry's row; every entry read is quarantined with ``wrong`` where it is set (the
    file's code page is not the one it was read in)."""
    cut = _mt940cut_off(text)
    for line, header, block in _mt940_blocks(text):
        raw = block.encode(encoding, errors="surrogateescape")  # the bytes as in the file
        if line == cut:
            yield (
                line,
                cut_off(
                    f"{path}:{line}", "in or after this entry, with no closing balance (:62F:)"
                ),
                raw,
            )
            continue
        try:
            parsed, data = parse_entry(header + with_decimal_comma(block))
            amount, currency = float(data["amount"].amount), data["amount"].currency
        except ENTRY_ERRORS as err:
            yield line, entry_error(f"{path}:{line}", err, block), raw
            continue
        try:
            described = entry_text(data)
        except _DETAILS_ERRORS as err:
            yield line, _details_error(f"{path}:{line}", err), raw
            continue
        record = {
            "account_id": parsed.data.get("account_identification"),
            "posted_date": data.get("entry_date") or data.get("date"),
            "amount": amount,
            "currency": currency,
            **described,
        }
        yield line, _mt940_record_or_error(f"{path}:{line}", record, data, encoding, wrong), raw


def _mt940_record_or_error(
    where: str, record: dict, data: dict, encoding: str, wrong: str | None
) -> dict | SchemaError:
    """The entry's record, or why it is quarantined: the file's code page is not the one it
    was read in (``wrong``), a value holds no text in it, or nothing describes the entry."""
    if wrong:
        return SchemaError(f"{where}: {wrong}", "invalid_utf8")
    error = _mt940_not_text(where, record, encoding)
    if error is None and record["description"] is None:
        error = no_text_error(where, data)
    return error or record


# what reading a :86: shape no bank was seen to write may raise: that entry alone is
# quarantined, never the file
_DETAILS_ERRORS = (ValueError, KeyError, IndexError, TypeError, AttributeError)


def _details_error(where: str, err: Exception) -> SchemaError:
    return SchemaError(
        f"{where}: MT940 :86: details not readable ({type(err).__name__}: {err}); the entry "
        "is quarantined: fix its :86: line, or report the shape to be read",
        "bad_mt940",
    )


def _mt940_blocks(text: str) -> Iterator[tuple[int, str, str]]:
    """(line of the :61:, its statement's header lines, the :61: and its detail lines)."""
    header: list[str] = []
    block: list[str] = []
    start = 0
    in_header = False

    def flush() -> Iterator[tuple[int, str, str]]:
        if block:
            yield start, "\n".join(header) + "\n", "\n".join(block) + "\n"
            block.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(":20:"):
            yield from flush()
            header, in_header = [line], True
        elif line.startswith(":61:"):
            yield from flush()
            in_header, start = False, number
            block.append(line)
        elif _ends_statement(line):
            yield from flush()
            in_header = False
        elif in_header and not line.startswith(":28"):
            # no row reads the statement number (:28C:), which some banks leave blank (Zenith
            # Bank writes " /1"): the library would fail every entry on it
            header.append(line)
        elif block:
            block.append(line)
    yield from flush()


def _ends_statement(line: str) -> bool:
    """A closing balance, the next statement, or the block's end (``-`` alone, or ``-}``); a
    wrapped :86: line may start with a hyphen (a timestamp wrapped at its dash)."""
    return line.startswith(_MT940_STATEMENT_END) or line.rstrip() == "-"


def _mt940cut_off(text: str) -> int | None:
    """The line of the last :61: when nothing closes its statement after it (an MT940
    statement ends with its closing balance, :62:, an MT942 report with its sums, :90D: and
    :90C:): a download cut off there, or inside that entry."""
    lines = text.splitlines()
    last = max((n for n, line in enumerate(lines) if line.startswith(":61:")), default=None)
    if last is None or any(_ends_statement(line) for line in lines[last + 1 :]):
        return None
    return last + 1
