"""Bank statement formats no reader here takes, told by their first records, so that a file of
one is refused with the format's name and what to load instead, not read as a table of garbage
rows or sent to a setting that has no value for it.

Each is a national or corporate format of fixed records, told apart by a record layout no CSV,
QIF or other export shares:

- Norma 43 (Cuaderno 43, AEB/CSB 43; Spain): a ``11`` header of the account, its period, a
  debit/credit code, a 14-digit balance, a numeric currency code; lines of at most 80
  characters, each starting with a record code (``22`` movement, ``23`` its text, ``33``, ``88``).
- CODA (Belgium): a ``0`` record of ``0000``, a DDMMYY date, the bank's id and application
  code ``05``, then the old balance's ``1`` record; lines of at most 128 characters.
- BAI2 (US cash management): ``01,`` sender, receiver, YYMMDD, HHMM, ending ``/``, then ``02,``.
- TITO (Finland, the statement that camt.053 "XT" files replace): ``T00322``, the 322-character
  basic record.
- CFONB 120 (France, "relevé de compte"): ``01`` bank code, branch code, ISO currency letters,
  the number of decimals; lines of at most 120 characters of record codes 01/04/05/07.
- ESR/BVR (Switzerland, "V11"): credits received by orange payment slip, not a statement:
  digit lines of a transaction code (``002``, ``112``...), the participant number and the
  27-digit reference.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple

from ml_assets.core.intake.records import open_binary


class UnreadStatement(NamedTuple):
    """A statement format no reader here takes: what the file is, and what to load instead
    (``{name}`` and ``{stem}`` in it stand for the file's name and its name's stem)."""

    what: str
    instead: str

    def refusal(self, path: Path) -> str:
        instead = self.instead.format(name=path.name, stem=path.stem)
        return f"{self.what}, which this project does not read: {instead}"


_HEAD_BYTES = 4096  # enough for the first records of every format below
_HEAD_LINES = 12


def _norma43(lines: list[str]) -> bool:
    header = re.compile(r"11\d{30}[12]\d{17}[0-3]")  # account, period, D/H, balance+currency, mode
    return bool(header.match(lines[0])) and _records(
        lines, ("11", "22", "23", "24", "33", "88"), 80
    )


def _coda(lines: list[str]) -> bool:
    header = re.compile(r"0{5}\d{6}[\d ]{3}05")  # zeros, DDMMYY, the bank's id, application 05
    return (
        bool(header.match(lines[0]))
        and len(lines) > 1
        and lines[1].startswith("1")
        and _records(lines, tuple("0123489"), 128)
    )


def _bai2(lines: list[str]) -> bool:
    header = re.compile(r"01,[^,]*,[^,]*,\d{6},\d{0,4},.*/\s*$")  # sender, receiver, date, time
    return bool(header.match(lines[0])) and any(line.startswith("02,") for line in lines[1:])


def _tito(lines: list[str]) -> bool:
    return bool(re.match(r"T00322\d", lines[0]))


def _cfonb120(lines: list[str]) -> bool:
    header = re.compile(r"01\d{5}.{4}\d{5}[A-Z]{3}\d")  # bank, (blank), branch, currency, decimals
    return bool(header.match(lines[0])) and _records(lines, ("01", "04", "05", "07"), 120)


# ESR type 3 transaction codes: ESR (0), ESR+ (1) or own (2) slips; credit, reversal, correction
_ESR_CODES = "|".join(f"{kind}{sign}{what}" for kind in "012" for sign in "01" for what in "258")
_ESR_RECORD = re.compile(rf"(?:{_ESR_CODES}|99[59])\d{{46}}[\d ]*$")  # code, participant, ref...


def _esr(lines: list[str]) -> bool:
    return all(_ESR_RECORD.match(line) for line in lines) and not lines[0].startswith("99")


def _records(lines: list[str], codes: tuple[str, ...], width: int) -> bool:
    """Whether every line starts with one of ``codes`` and is no wider than the format's
    fixed ``width`` (some banks cut each line's trailing blanks)."""
    return all(line.startswith(codes) and len(line) <= width for line in lines)


_FORMATS = (
    (
        _norma43,
        UnreadStatement(
            "a Norma 43 (Cuaderno 43, AEB/CSB 43) statement, the Spanish banks' format",
            "convert it to OFX with csb43's csb2format (pip install csb43, then csb2format "
            "{name} {stem}.ofx) and load the .ofx, or download the account's movements from the bank as Excel "
            "(.xlsx) or CSV, or as camt.053 (XML) where it offers that",
        ),
    ),
    (
        _coda,
        UnreadStatement(
            "a CODA statement, the Belgian banks' coded statement format",
            "download the same statement from the bank as camt.053 (XML), which Belgian banks "
            "offer beside CODA, or the account's movements as CSV",
        ),
    ),
    (
        _bai2,
        UnreadStatement(
            "a BAI2 (BTRS) cash management file, the US banks' treasury format",
            "ask the bank's cash management portal for the account's statement as camt.053 "
            "(XML), OFX or CSV",
        ),
    ),
    (
        _tito,
        UnreadStatement(
            "a TITO account statement (konekielinen tiliote), the Finnish banks' old format",
            "download the statement as camt.053 (XML, the 'XT' file that replaces TITO) or "
            "the account's transactions as CSV",
        ),
    ),
    (
        _cfonb120,
        UnreadStatement(
            "a CFONB 120 statement (relevé de compte), the French banks' format",
            "download the account's movements from the bank as OFX, QIF or CSV, or as "
            "camt.053 (XML) where it offers that",
        ),
    ),
    (
        _esr,
        UnreadStatement(
            "a Swiss ESR/BVR (V11) credit list (the payments received by payment slip, not an "
            "account statement)",
            "load the account's statement instead, as camt.053 (XML) or CSV from e-banking "
            "(the camt.054 notification that replaces V11 is read too)",
        ),
    ),
)


def unread_statement(path: Path) -> UnreadStatement | None:
    """The statement format no reader here takes that the file at ``path`` holds, told by
    its first records; None for any other file."""
    if not path.is_file() or path.name.startswith("."):
        return None
    stat = path.stat()
    return _unread_statement(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=256)  # (a folder's listing, its scan and inspect ask each file)
def _unread_statement(path: Path, size: int, modified: int) -> UnreadStatement | None:
    """``unread_statement`` of the file's version that ``size`` and ``modified`` key."""
    try:
        with open_binary(path) as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return None
    if b"\x00" in head:
        return None
    text = head.removeprefix(b"\xef\xbb\xbf").decode("latin-1")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if len(head) == _HEAD_BYTES and len(lines) > 1:
        lines = lines[:-1]  # (cut off where the head ends)
    lines = lines[:_HEAD_LINES]
    if not lines:
        return None
    return next((unread for looks, unread in _FORMATS if looks(lines)), None)
