"""What a statement says about its own rows, and whether the rows agree: opening and closing
balances (in a preamble, or as balance lines among the rows), totals rows, and a running
balance column. None of these is a transaction; each is counted in the file's notes.

A running balance is the bank's own check: each row's balance is the previous one plus its
amount. A row whose balance does not follow is flagged with its line (a row is missing before
it, or the export is out of order), never dropped; an exact repeat of a row with the same
balance is an export glitch, dropped as a duplicate and counted. A closing balance that the
opening balance and the rows do not reach means rows are missing: a warning with the amounts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ml_assets.core.intake.amount_text import amount_or_none
from ml_assets.core.intake.row_status import status_kind

_BALANCE = re.compile(
    r"(?i)\b(beginning|opening|starting|previous|prior|ending|closing|new|current|ledger)\s+"
    r"balance\b|\bbalance\s+(brought|carried)\s+forward\b|\bbalance\s+[bc]/f\b|\b(anfangs|end|beginn?|eind)saldo\b|\b(alter|neuer)?\s*kontostand\b|"
    r"\bsolde\s+(initial|final|de\s+d[ée]but|de\s+fin|au)\b|\b(ancien|nouveau)\s+solde\b|"
    r"\bsaldo\s+(contabile\s+)?(iniziale|finale|inicial|final|anterior|zum|per|am|vom|ko[nń]cowe|"
    r"pocz[aą]tkowe)\b|"
    r"\burspr[üu]nglicher\s+saldo\b|\blikutis\s+(prad|pabaig)\w*|"
    r"\bskyldig\s+beløp\s+fra\s+forrige\b|\b(inngående|utgående)\s+saldo\b|"
    r"\bbalance\s+at\s+(the\s+)?(start|beginning|end)\s+of\b|"
    r"\b(alg|lõpp)saldo\b"  # (Swedbank Estonia's opening and closing balance)
)
_CLOSING = re.compile(
    r"(?i)ending|closing|current|\bnew\b|ledger|endsaldo|eindsaldo|neuer|final|fin|kontostand$|"
    r"nouveau|carried|\bc/f\b|\bend\s+of\b|pabaig|lõppsaldo"
)
_OPENING = re.compile(
    r"(?i)beginning|opening|starting|previous|prior|anfang|beginsaldo|alter|initial|iniziale|inicial|"
    r"anterior|ancien|d[ée]but|urspr|prad|"
    r"forrige|inngående|pocz[aą]tkowe|"
    r"brought|\bb/f\b|\b(start|beginning)\s+of\b|algsaldo"
)
# (Chinese banks' "合计金额", "人民币合计": the sum, of one currency)
_TOTAL = re.compile(
    r"(?i)^\s*((total|totals|sum|summe|gesamt|totaal|totale|grand total)\b|\w{0,4}[合总]计)"
)
# a cell that alone says its line sums one side (Stanbic's "Debits" and "Credits" lines below
# the rows, the figure where the date goes)
_TOTAL_CELL = re.compile(r"(?i)\s*((total\s+)?(debits|credits)|totals?)\s*:?\s*")
# a dated row with an amount is a balance or turnover line only where its whole text is a
# phrase no shop is named (Swedbank's "Likutis pradžiai", "Apyvarta", BancoPosta's
# "|SALDO FINALE", a bar before or after it): "New Balance" sells shoes, "Total" fuel,
# "TOTAL WINE & MORE" wine
_DATED_BALANCE = re.compile(
    r"(?i)[\s|]*((opening|closing|beginning|ending|starting)\s+balance|balance\s+(brought|"
    r"carried)\s+forward|likutis\s+(pradžiai|pabaigai)|(anfangs|end)saldo|saldo\s+(contabile\s+)?(iniziale|"
    r"finale|inicial|final|anterior)|solde\s+(initial|final)|(ancien|nouveau)\s+solde|"
    r"skyldig\s+beløp\s+fra\s+forrige\s+faktura|(inngående|utgående)\s+saldo|(alg|lõpp)saldo)"
    r"[\s|]*:?[\s|]*"
)
_DATED_TOTAL = re.compile(r"(?i)\s*(turnover|apyvarta|umsatz\s+gesamt|käive)\s*:?\s*")
# an amount with two decimals inside text, not part of a date ("31/01/2026 1 234,56 €")
_AMOUNT_IN_TEXT = re.compile(r"(?<![\d/.,])[-+]?\d{1,3}(?:[ .,'\u00a0]\d{3})*[.,]\d{2}(?![\d/.])")
CENTS = 100


@dataclass(frozen=True)
class Balance:
    kind: str  # "opening" | "closing"
    amount: float
    line: int


@dataclass(frozen=True)
class BalanceBreak:
    line: int
    posted_date: str
    found: float
    expected: float
    previous_line: int

    def describe(self, where: str, unit: str = "line") -> str:
        """``where``: the file and this row's line (or spreadsheet row), as errors name it."""
        return (
            f"{where}: running balance {self.found:,.2f} does not follow from {unit} "
            f"{self.previous_line} and this row's amount (expected {self.expected:,.2f}, "
            f"{self.found - self.expected:+,.2f}): a row missing between them, or rows out of order"
        )


def says_balance(cells: list) -> bool:
    """Whether a line's words state an opening or closing balance (Kotak's "Closing
    balance","as on 31/01/2025   INR 36,893.13" below its table)."""
    return bool(_BALANCE.search(" ".join(str(c) for c in cells if isinstance(c, str))))


def balance_in(cells: list, decimal: str, line: int) -> Balance | None:
    """An opening or closing balance stated on one line of text ("Beginning balance as of
    01/01/2026,,1,234.56", "Kontostand vom 31.01.2026:;1.234,56 EUR"), or None."""
    text = " ".join(str(c) for c in cells if isinstance(c, str))
    found = _BALANCE.search(text)
    if not found:
        return None
    amounts = [n for c in cells if (n := amount_or_none(c, decimal)) is not None]
    if not amounts:  # "Solde au 31/01/2026 1 234,56 €": the amount inside the words
        amounts = [
            n
            for m in _AMOUNT_IN_TEXT.findall(text)
            if (n := amount_or_none(m, decimal)) is not None
        ]
    if not amounts:
        return None
    return Balance(_kind(found.group(0)), amounts[-1], line)


def _kind(words: str) -> str:
    """ "opening" or "closing", as a balance's words say."""
    return "opening" if _OPENING.search(words) and not _CLOSING.search(words) else "closing"


def balance_in_its_column(record: dict, decimal: str, line: int) -> Balance | None:
    """A line whose one filled cell is a figure under a column named for the period's balance
    (Venmo's "Beginning Balance" above its rows, "Ending Balance" below them), or None.
    ``record`` is in the file's own column names."""
    filled = [(str(k), v) for k, v in record.items() if v is not None and str(v).strip()]
    if len(filled) != 1:
        return None
    ((name, value),) = filled
    found = _BALANCE.search(name)
    amount = amount_or_none(value, decimal) if found else None
    if amount is None:
        return None
    return Balance(_kind(found.group(0)), amount, line)


# the keys a table line that is no row is read under: a section's title among the rows, and a
# line continuing the row above (its text already joined to that row)
SECTION_LINE, CONTINUATION_LINE = "_section_line", "_continuation_line"
# the header written again below a section title (Sense Bank's account, then each card)
REPEATED_HEADER = "_repeated_header"


def statement_line(record: dict) -> str | None:
    """ "balance" for a balance line among the rows (no amount or no date, words like
    "Beginning balance"; or a dated row whose whole text is such a phrase, as Swedbank's
    "Likutis pradžiai"), "total" for a totals row (no date, "Total"), "turnover" for a dated
    row whose whole text is "Apyvarta" or "Turnover", "pending transaction" for a row whose
    date cell or status column says it is not booked yet (M&S Bank's "Pending", Revolut's
    State), "closed trade" for one whose status says it closed unpaid (Alipay's 交易关闭,
    not counted as spending), "neutral move" for a move between the user's own accounts that
    a payment app's bill marks neither income nor spending (see core.neutral_rows),
    "section title" for a title among the rows (Schwab's "Posted Transactions"), "page
    footer" for a line of words without a digit and no date or amount (ING Romania's
    signatures below each page), else None. ``record`` is in our names; a balance's or a
    total's words count in any of its cells, a field of ours or not."""
    if record.get(SECTION_LINE) is not None:
        return "section title"
    if record.get(CONTINUATION_LINE) is not None:
        return "continuation line"
    if record.get(REPEATED_HEADER) is not None:
        return "repeated header"
    amounts = [record.get(k) for k in ("amount", "debit", "credit")]
    texts = [
        v for v in (record.get("posted_date"), record.get("description")) if isinstance(v, str)
    ]
    # words where an amount goes: Targobank's sheet writes "Saldo zum 10.11.2025:" in its
    # debit column beside the balance
    texts += [a for a in amounts if isinstance(a, str) and sum(map(str.isalpha, a)) > 2]
    blank = all(a is None or (isinstance(a, str) and not a.strip()) for a in amounts)
    date = record.get("posted_date")
    undated = date is None or (isinstance(date, str) and not any(ch.isdigit() for ch in date))
    # (undated, its figure may stand in an amount column: "Balance at start of period,,,,+300")
    if (blank or undated) and any(_BALANCE.search(t) for t in texts):
        return "balance"
    cells = [v for v in record.values() if isinstance(v, str)]
    if (undated or blank) and any(_BALANCE.search(v) for v in cells):
        return "balance"  # (its words in a column of no field of ours: BCR's "Saldo Final")
    if (kind := status_kind(record)) is not None:
        return kind
    if undated and any(_TOTAL.match(t) for t in texts):
        return "total"
    if undated and any(_TOTAL.match(v) for v in cells):
        return "total"  # (its words in a column of no field of ours: Fineco's "Totale movimenti")
    if blank and any(isinstance(v, str) and _TOTAL_CELL.fullmatch(v) for v in record.values()):
        return "total"  # (no amount where a row has one: no transaction to lose)
    description = record.get("description")
    if isinstance(description, str) and _DATED_BALANCE.fullmatch(description):
        return "balance"
    if isinstance(description, str) and _DATED_TOTAL.fullmatch(description):
        return "turnover"  # (one direction's sum, as Swedbank gives one per D and K: unchecked)
    if blank and date in (None, "") and _words_alone(record):
        return "page footer"  # (ING Romania's signatures and branch below each page's rows)
    return None


def _words_alone(record: dict) -> bool:
    """Whether a line's filled cells are words without a digit (names, a branch, a title):
    no date, no figure, no reference a transaction would have."""
    filled = [str(v).strip() for v in record.values() if v is not None and str(v).strip()]
    return bool(filled) and not any(ch.isdigit() for text in filled for ch in text)


@dataclass
class ExportNotes:
    """One export's facts beyond its rows, for the metadata and the warnings."""

    source: str
    format: str
    header_line: int | None = None
    preamble_lines: int = 0
    balances: list[Balance] = field(default_factory=list)
    # what is not a transaction, counted, never a row: (line, kind)
    statement_lines: list[tuple[int, str]] = field(default_factory=list)
    totals: list[tuple[int, float]] = field(default_factory=list)
    balance_column: str | None = None
    duplicates_same_balance: Counter = field(default_factory=Counter)  # by posted day
    breaks: list[BalanceBreak] = field(default_factory=list)
    balance_steps: int = 0  # consecutive rows whose balances were compared
    balance_runs: bool = True  # whether that column is a running balance (checked) at all
    warnings: list[str] = field(default_factory=list)
    place: str = "{source}:{line}"  # how a line is named ("{source} sheet 'X' row {line}")
    unit: str = "line"  # or "row" (spreadsheets)
    settings: dict[str, object] = field(default_factory=dict)  # what the file was read with
    sniffed: dict[str, str] = field(default_factory=dict)  # how the guessed ones were decided

    def where(self, line: int) -> str:
        return self.place.format(source=self.source, line=line)

    def opening(self) -> Balance | None:
        return next((b for b in self.balances if b.kind == "opening"), None)

    def closing(self) -> Balance | None:
        return next((b for b in reversed(self.balances) if b.kind == "closing"), None)

    def metadata(self) -> dict:
        opening, closing = self.opening(), self.closing()
        return {
            "source": self.source,
            "format": self.format,
            "header_line": self.header_line,
            "preamble_lines": self.preamble_lines,
            "opening_balance": opening.amount if opening else None,
            "closing_balance": closing.amount if closing else None,
            "statement_lines": len(self.statement_lines),
            # by kind: "balance", "total", "pending transaction", "QIF !type:cat record", ...
            "not_transactions": dict(Counter(kind for _, kind in self.statement_lines)),
            "balance_column": self.balance_column,
            "duplicates_same_balance": sum(self.duplicates_same_balance.values()),
            "balance_breaks": [f"line {b.line}" for b in self.breaks[:20]],
            "warnings": len(self.warnings),
        }


class RunningBalance:
    """The rows of one file in file order with their balances, checked against the amounts
    in whichever way the file runs (oldest or newest first; a card's balance may grow with
    purchases)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, str, int, int]] = []  # (line, day, amount, balance) in cents

    def add(self, line: int, posted_date: str, amount: float, balance: float) -> None:
        self.rows.append((line, posted_date, round(amount * CENTS), round(balance * CENTS)))

    def runs(self) -> bool:
        """Whether the column is a running balance: most steps follow from the amounts."""
        steps = self._steps(*self._orientation())
        return bool(steps) and sum(ok for _, ok in steps) * 2 >= len(steps)

    def constant(self) -> bool:
        """Whether the column holds one figure on every row while the amounts move."""
        return len({r[3] for r in self.rows}) == 1 and any(r[2] for r in self.rows)

    def sign(self) -> int:
        return self._orientation()[1] if self.rows else 1

    def _orientation(self) -> tuple[bool, int]:
        best, best_hits = (False, 1), -1
        for newest_first in (False, True):
            for sign in (1, -1):
                hits = sum(1 for _, ok in self._steps(newest_first, sign) if ok)
                if hits > best_hits:
                    best, best_hits = (newest_first, sign), hits
        return best

    def _steps(self, newest_first: bool, sign: int) -> list[tuple[int, bool]]:
        """(index of the row a step checks, whether it follows) for consecutive rows."""
        steps = []
        for i in range(1, len(self.rows)):
            older, newer = (i, i - 1) if newest_first else (i - 1, i)
            expected = self.rows[older][3] + sign * self.rows[newer][2]
            steps.append((newer, self.rows[newer][3] == expected))
        return steps

    def breaks(self) -> list[BalanceBreak]:
        if len(self.rows) < 2:
            return []
        newest_first, sign = self._orientation()
        found = []
        for index, ok in self._steps(newest_first, sign):
            if ok:
                continue
            older = index + 1 if newest_first else index - 1
            line, day, amount, balance = self.rows[index]
            expected = self.rows[older][3] + sign * amount
            found.append(
                BalanceBreak(line, day, balance / CENTS, expected / CENTS, self.rows[older][0])
            )
        return found


def check_balances(
    notes: ExportNotes,
    chain: RunningBalance,
    booked: list[tuple[int, float]],
    quarantined: list[int],
) -> None:
    """Flag running-balance breaks, and warn when a closing balance (or a totals row) is not
    what the opening balance and the rows (``booked``: line, amount) add up to; in a file of
    several statements, each opening and the closing after it frame the rows between them."""
    total = sum(amount for _, amount in booked)
    notes.balance_steps = max(len(chain.rows) - 1, 0)
    # a column that moves with the amounts on fewer than half the steps is no running balance
    # (csb43's initial balance on every row), or the amounts' sign or columns are wrong: one
    # word on it, not a "row missing" on every line
    # (without a balance column the chain holds only the balance lines, which the opening and
    # closing check reads)
    column = notes.balance_column is not None
    # (one step that does not follow is a row missing as likely as no running balance)
    notes.balance_runs = column and not chain.constant() and (len(chain.rows) < 3 or chain.runs())
    notes.breaks = chain.breaks() if notes.balance_runs else []
    if column and notes.balance_steps and not notes.balance_runs and not chain.constant():
        notes.warnings.append(
            f"{notes.source}: column {notes.balance_column!r} follows from the amounts on "
            f"fewer than half of its {notes.balance_steps} steps: not checked as a running "
            "balance; if it is one, check the amounts' sign and columns (spending, column_map)"
        )
    for found in notes.breaks[:5]:
        between = [q for q in quarantined if found.previous_line < q < found.line]
        also_here = f" (quarantined between them: {notes.unit} {between[0]})" if between else ""
        notes.warnings.append(found.describe(notes.where(found.line), notes.unit) + also_here)
    if len(notes.breaks) > 5:
        notes.warnings.append(
            f"{notes.source}: {len(notes.breaks) - 5} more running-balance breaks"
        )
    also = f", or among the {len(quarantined)} quarantined rows" if quarantined else ""
    opening, closing = notes.opening(), notes.closing()
    frames = [(opening, closing)] if opening is not None and closing is not None else []
    # (one statement: its balances may both stand in the preamble, above every row)
    several = sum(b.kind == "opening" for b in notes.balances) > 1  # (Swedbank's)
    if several:
        frames = _statement_frames(notes.balances)
    sign = chain.sign()
    for opening, closing in frames:
        rows = (
            sum(a for line, a in booked if opening.line < line < closing.line) if several else total
        )
        reached = opening.amount + sign * rows
        if round(reached * CENTS) != round(closing.amount * CENTS):
            notes.warnings.append(
                f"{notes.source}: opening balance {opening.amount:,.2f} ({notes.unit} {opening.line}) "
                f"{'+' if sign > 0 else '-'} the rows' amounts ({rows:+,.2f}) = {reached:,.2f}, "
                f"but the closing balance is {closing.amount:,.2f} ({notes.unit} {closing.line}): "
                f"{closing.amount - reached:+,.2f} unaccounted; rows are missing from the "
                f"export{also}"
            )
    for line, stated in notes.totals:
        if round(abs(stated) * CENTS) != round(abs(total) * CENTS):
            notes.warnings.append(
                f"{notes.where(line)}: the totals row says {stated:,.2f}, the rows add up to "
                f"{total:,.2f} ({abs(stated) - abs(total):+,.2f}): rows are missing{also}"
            )


def _statement_frames(balances: list[Balance]) -> list[tuple[Balance, Balance]]:
    """Each opening balance with the closing one after it, in file order."""
    frames, opening = [], None
    for found in sorted(balances, key=lambda b: b.line):
        if found.kind == "opening":
            opening = found
        elif opening is not None:
            frames.append((opening, found))
            opening = None
    return frames


def balance_gap(
    where: str, opening: float, total: float, closing: float, unread: int = 0
) -> str | None:
    """The warning when a statement's opening balance and its entries as read do not reach
    its closing balance (entries missing, or read with the wrong amount or sign); else None."""
    reached = opening + total
    if round(reached * CENTS) == round(closing * CENTS):
        return None
    also = f", or among its {unread} quarantined entries" if unread else ""
    return (
        f"{where}: opening balance {opening:,.2f} + the entries as read ({total:+,.2f}) = "
        f"{reached:,.2f}, but the closing balance is {closing:,.2f}: {closing - reached:+,.2f} "
        f"unaccounted; entries are missing from the statement or misread{also}"
    )
