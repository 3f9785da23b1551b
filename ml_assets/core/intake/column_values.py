"""What a table's column holds, read off its cells: the share that are dates or amounts,
whether it holds money or codes or a running balance, how many different values. ``inspect``
guesses a layout from these (``layout_guess``); the load never guesses.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re

from ml_assets.core.intake.amount_text import amount_or_none, sniff_decimal
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.records import parse_date_text
from ml_assets.core.intake.sniffing import sniff_date_format


def cell(row: CellRow, position: int) -> object:
    """A row's cell, "" where the row is shorter."""
    return row.cells[position] if position < len(row.cells) else ""


def votes_on_columns(row: CellRow) -> bool:
    """Whether a row says anything of what its columns hold: more than one filled cell (a
    footnote below the table, one cell, does not)."""
    return sum(1 for c in row.cells if str(c).strip()) > 1


def column(rows: list[CellRow], position: int) -> list:
    """A column's cells, of the rows long enough to hold one."""
    return [r.cells[position] for r in rows if position < len(r.cells)]


def excel_serial(value: object) -> bool:
    """A whole number of days between 1954 and 2119 as Excel counts them: a date typed into a
    General cell of a spreadsheet (46029: 2026-01-06); no amount or id sits in a date column
    that way."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and float(value).is_integer()
        and 20_000 <= value <= 80_000
    )


def serial_share(values: list) -> float:
    """The share of a column's filled cells that are Excel serial days (number cells: a CSV's
    text never is one)."""
    filled = [v for v in values if v is not None and str(v).strip()]
    return sum(map(excel_serial, filled)) / len(filled) if filled else 0.0


def date_share(values: list) -> float:
    """The share of a column's filled cells that are dates in its sniffed format."""
    texts = [v for v in values if isinstance(v, str) and v.strip()]
    dates = [v for v in values if isinstance(v, dt.date)]
    if not texts and not dates:
        return 0.0
    fmt, _, why = sniff_date_format(texts) if texts else (None, [], "")
    readable = len(dates)
    if texts and (fmt is not None or why.startswith("ISO")):
        readable += sum(1 for t in texts if _reads(t, fmt))
    return readable / (len(texts) + len(dates))


def _reads(text: str, fmt: str | None) -> bool:
    try:
        if fmt is None:
            dt.date.fromisoformat(text.strip()[:10])
        else:
            parse_date_text(text.strip(), fmt)
    except ValueError:
        return False
    return True


def number_share(values: list) -> float:
    """The share of a column's filled cells that are amounts in its sniffed decimal mark."""
    present = [v for v in values if v not in (None, "")]
    if not present:
        return 0.0
    return sum(1 for n in numbers(present) if n is not None) / len(present)


def numbers(values: list) -> list[float | None]:
    """Each cell's amount in the column's sniffed decimal mark ("-12,50" in a decimal-comma
    column), None where it holds none."""
    decimal, _ = sniff_decimal([v for v in values if isinstance(v, str)])
    return [amount_or_none(v, decimal) for v in values]


def runs_with(body: list[CellRow], balance: int, amount: int) -> bool:
    """Whether column ``balance`` moves from row to row by column ``amount``'s values: a
    running balance (before or after each booking, rows in either order; ASN Bank's headerless
    CSV puts the balance before the amount), not the amount."""
    pairs = list(
        zip(
            numbers([cell(r, balance) for r in body]),
            numbers([cell(r, amount) for r in body]),
            strict=True,
        )
    )
    steps = list(itertools.pairwise(pairs))
    if len(steps) < 2 or any(None in p for step in steps for p in step):
        return False
    moves = sum(
        any(abs(abs(b2 - b1) - abs(a)) < 0.005 for a in (a1, a2)) and b2 != b1
        for (b1, a1), (b2, a2) in steps
    )
    return moves >= 0.8 * len(steps)


def balance_pair(body: list[CellRow], amounts: list[int]) -> set[int]:
    """Of the columns of amounts, two that are the balance before and after each row (ABN
    AMRO's headerless download: start balance, end balance, ..., amount): one is the other
    plus a third column on most rows (a bank's sample may be edited by hand), that third
    never zero, and the balances chain (a row's balance after is the next row's before) on at
    least half the steps. Empty where no two are. A gross, a fee and a net (the fee often
    zero) are no such pair."""
    values = {i: numbers([cell(r, i) for r in body]) for i in amounts}
    for after, before, amount in itertools.permutations(amounts, 3):
        rows = list(zip(values[after], values[before], values[amount], strict=True))
        if len(rows) < 2 or any(None in row or not row[2] for row in rows):
            continue
        adds_up = sum(abs(a - (b + m)) < 0.005 for a, b, m in rows)
        if adds_up >= 0.8 * len(rows) and _chains(rows):
            return {after, before}
    return set()


def _chains(rows: list[tuple]) -> bool:
    """Whether one row's balance after is the next one's before, oldest or newest first, on
    at least half the steps."""
    steps = list(itertools.pairwise(rows))
    linked = sum(abs(r1[0] - r2[1]) < 0.005 or abs(r2[0] - r1[1]) < 0.005 for r1, r2 in steps)
    return linked * 2 >= len(steps)


# a time of day ("06:50 PM", "14:37:05"): a column of them is never a transaction's text
_TIME_OF_DAY = re.compile(r"\d{1,2}:\d{2}(:\d{2})?\s*([ap]\.?m\.?)?", re.IGNORECASE)


def times_of_day(values: list) -> bool:
    """Whether most of a column's filled cells are times of day (or datetime.time cells)."""
    filled = [v for v in values if str(v).strip()]
    times = [v for v in filled if isinstance(v, dt.time) or _TIME_OF_DAY.fullmatch(str(v).strip())]
    return bool(filled) and len(times) * 2 > len(filled)


# ISO 4217 codes a currency column writes (the common ones: a column of them is the currency)
_ISO_CODES = frozenset(
    (
        "EUR",
        "USD",
        "GBP",
        "CHF",
        "CAD",
        "AUD",
        "NZD",
        "SEK",
        "NOK",
        "DKK",
        "PLN",
        "CZK",
        "HUF",
        "RON",
        "BGN",
        "JPY",
        "CNY",
        "HKD",
        "SGD",
        "INR",
        "ZAR",
        "MXN",
        "BRL",
        "RUB",
        "TRY",
        "ILS",
        "KRW",
        "THB",
    )
)


def currency_codes(values: list) -> bool:
    codes = {str(v).strip() for v in values if str(v).strip()}
    return bool(codes) and codes <= _ISO_CODES


def money_like(values: list) -> bool:
    """Whether a numeric column holds money (signs or decimals), not a count or a code."""
    texts = [str(v) for v in values]
    return any(t.strip().startswith("-") or "." in t or "," in t for t in texts)


def all_zero(values: list) -> bool:
    """Whether a column's amounts are all zero (ICICI's "Intl.Amount" on a card of purchases
    at home): no row's amount."""
    found = [n for n in numbers(values) if n is not None]
    return bool(found) and not any(found)


def filled_amounts(rows: list[CellRow], position: int) -> list[bool]:
    """Per row, whether column ``position`` holds an amount other than zero (or words): a
    debit or credit column writes "0" or "0.00" on the other side's rows as often as it
    leaves them blank (SunTrust's, HDFC's)."""
    cells = [cell(r, position) for r in rows]
    return [bool(str(c).strip()) and n != 0 for c, n in zip(cells, numbers(cells), strict=True)]


def credit_side(rows: list[CellRow], balance: int, one: int, other: int) -> int | None:
    """Which of two unsigned amount columns is the money in, by a running balance (column
    ``balance``): ``one`` where each row's balance is the previous one plus ``one`` less
    ``other`` (rows oldest or newest first), ``other`` where the reverse holds, None where
    neither holds on at least half the steps."""
    balances = numbers([cell(r, balance) for r in rows])
    ins = [abs(n or 0.0) for n in numbers([cell(r, one) for r in rows])]
    outs = [abs(n or 0.0) for n in numbers([cell(r, other) for r in rows])]
    moves = [a - b for a, b in zip(ins, outs, strict=True)]
    steps = len(rows) - 1
    if steps < 1 or None in balances:
        return None
    hits = {}
    for side, sign in ((one, 1), (other, -1)):
        oldest_first = sum(
            abs(balances[i] - balances[i - 1] - sign * moves[i]) < 0.005
            for i in range(1, len(rows))
        )
        newest_first = sum(
            abs(balances[i - 1] - balances[i] - sign * moves[i - 1]) < 0.005
            for i in range(1, len(rows))
        )
        hits[side] = max(oldest_first, newest_first)
    best = max(hits, key=hits.get)
    return best if hits[best] * 2 >= steps and hits[best] > min(hits.values()) else None


# an IBAN (spaces taken out), and an account number: digits with separators, no letters
_IBAN = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9]{10,30}")


def account_numbers(values: list) -> bool:
    """Whether most of a column's filled cells are IBANs or account numbers ("123456789/1234"):
    the other party's account, no name to read or to group a merchant's rows by."""
    filled = [re.sub(r"\s", "", str(v)).upper() for v in values if str(v).strip()]
    accounts = [
        v
        for v in filled
        if _IBAN.fullmatch(v) or (sum(map(str.isdigit, v)) >= 6 and not any(map(str.isalpha, v)))
    ]
    return bool(filled) and len(accounts) >= 0.8 * len(filled)


def written_apart(values: list) -> bool:
    """Whether a column's dates are written with separators ("2024-01-02 08:30:00") or are
    date cells, not digits alone ("20240102", or a transaction number "2024010100000001"
    that merely starts with a date)."""
    filled = [v for v in values if str(v).strip()]
    apart = [v for v in filled if isinstance(v, dt.date) or not str(v).strip().isdigit()]
    return bool(filled) and len(apart) * 2 > len(filled)


def distinct(rows: list[CellRow], position: int) -> int:
    return len({str(v).strip() for v in column(rows, position) if str(v).strip()})


def spaced(rows: list[CellRow], position: int) -> bool:
    """Whether most of a column's filled cells are words with a space between them: a
    description or a name, not a code, an id or an IBAN."""
    filled = [str(v).strip() for v in column(rows, position) if str(v).strip()]
    return bool(filled) and sum(" " in v for v in filled) * 2 > len(filled)
