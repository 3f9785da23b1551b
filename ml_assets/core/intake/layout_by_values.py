"""A table's columns by their values, for a header of names no list knows or a file without
one: the first column of dates, the first column of amounts that is neither a running balance
nor a balance before or after each row, the column of words (spaced words first, never times
of day) with the most different values, a column of ISO currency codes. Two amount columns
each filled where the other is blank are debit and credit; a column of debit/credit words
signs an amount column; a further text column joins the description where the mapped ones
are blank.
"""

from __future__ import annotations

import re

from ml_assets.core.intake.column_names import field_of, money_way, normalized
from ml_assets.core.intake.column_values import (
    balance_pair,
    cell,
    column,
    credit_side,
    currency_codes,
    date_share,
    distinct,
    filled_amounts,
    money_like,
    number_share,
    numbers,
    runs_with,
    spaced,
    times_of_day,
    votes_on_columns,
    written_apart,
)
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.guessed_layout import LayoutGuess
from ml_assets.core.intake.money_words import INCOME, SPENDING
from ml_assets.core.intake.statements import statement_line
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES, position_name

_NEITHER_SHARE = 0.1  # rows with neither a debit nor a credit (a null booking) a pair allows,
# one at least


def _complement(body: list[CellRow], amount: int, width: int, taken: set[int]) -> int | None:
    """A column of amounts filled on the rows where column ``amount`` is blank or zero (the
    credits beside Targobank's debits, Sumishin's 入金 beside its 出金, SunTrust's deposits
    beside a "0" debit), never on the same row; a few rows may have neither. Or None."""
    filled = filled_amounts(body, amount)
    if all(filled):
        return None
    for i in range(width):
        if i == amount or i in taken:
            continue
        other = filled_amounts(body, i)
        values = [v for v in column(body, i) if str(v).strip()]
        both = any(a and b for a, b in zip(filled, other, strict=True))
        neither = sum(not a and not b for a, b in zip(filled, other, strict=True))
        few_neither = neither <= max(1, _NEITHER_SHARE * len(body))
        if any(other) and not both and few_neither and number_share(values) == 1.0:
            return i
    return None


def _debit_first(
    body: list[CellRow], one: int, other: int, text: int, balances: list[int]
) -> tuple[int, int, str, int | None]:
    """(money out, money in, how it was told, the running balance that told it) of two
    complementary amount columns: the one with negative amounts is the money out; else a
    running balance (of ``balances``) that grows by one and falls by the other tells; else
    the one whose rows say they are income (column ``text``: "Gehalt", "Habenzinsen") more
    often than spending ("POS", "HOFER DANKT") is the money in; else the first is the money
    out (debit before credit, Soll before Haben), as assumed."""
    for debit, credit in ((one, other), (other, one)):
        if any(n is not None and n < 0 for n in numbers(column(body, debit))):
            return debit, credit, "the negative amounts are the debits", None
    by_words = _credit_by_words(body, one, other, text)
    for balance in balances:
        if (credit := credit_side(body, balance, one, other)) is not None:
            told = f"the running balance in column {balance + 1} follows them"
            if by_words is not None:  # (both pieces of evidence, said)
                agree = "agree" if by_words == credit else "say otherwise"
                told += f"; the rows that say they are income or spending {agree}"
            return (other if credit == one else one), credit, told, balance
    if by_words is not None:
        debit = other if by_words == one else one
        return debit, by_words, "the credits are the rows that say they are income", None
    debit, credit = min(one, other), max(one, other)
    return debit, credit, "the first assumed the debits: check the signs of the first rows", None


def _credit_by_words(body: list[CellRow], one: int, other: int, text: int) -> int | None:
    """The column of two whose rows' texts (column ``text``) say income more often, and
    spending less, than the other's; None where the words cannot tell them apart."""

    def income(position: int) -> int:
        texts = [str(cell(r, text)) for r in body if filled_amounts([r], position)[0]]
        return sum(bool(INCOME.search(t)) - bool(SPENDING.search(t)) for t in texts)

    if income(one) == income(other):
        return None
    return one if income(one) > income(other) else other


def more_text(guess: LayoutGuess, body: list[CellRow], candidates: list[str] | None = None) -> None:
    """Another text column (one a name list knows as text, or of ``candidates``: Oberbank's
    "Text" beside an often empty "Verwendungszweck" and "Empfängername", ASN's purpose beside
    its often empty payee) joins the description where it is filled on rows the mapped ones
    leave blank: those rows would be quarantined for want of a text."""
    positions = {name: i for i, name in enumerate(guess.header)}
    mapped = [positions[t] for t, o in guess.columns.items() if o == "description"]
    # (a footnote below the table, one filled cell, is no row without a text: ICICI's legend
    # lines under its table would join its serial numbers to the text)
    blank = [
        r for r in body if not any(str(cell(r, i)).strip() for i in mapped) and votes_on_columns(r)
    ]
    if candidates is None:
        candidates = [n for n in guess.header if field_of(n) == "description"]
    for name in candidates:
        if name in guess.columns:
            continue
        if any(str(cell(r, positions[name])).strip() for r in blank):
            guess.columns[name] = "description"
            guess.why["columns"] += joined_where_blank(name)
            blank = [r for r in blank if not str(cell(r, positions[name])).strip()]
            break
    _type_where_blank(guess, body, blank, positions)


def _type_where_blank(
    guess: LayoutGuess, body: list[CellRow], blank: list[CellRow], positions: dict
) -> None:
    """The booking type is the text of booked rows that have no other (PayPal's "Bank Deposit
    to PP Account", Venmo's "Standard Transfer": no party, no note): joined to the
    description of every row, so none is quarantined for want of a text. A hold that is not
    booked (PayPal's pending "General Authorization") needs none. A type that says only the
    way the money went (Wallet by BudgetBakers' "Expenses", "Income") or is written as an
    app's code (its "DEBIT_CARD") is no text a person reads: such rows have none."""
    typed = next((t for t, o in guess.columns.items() if o == "transaction_type"), None)
    if typed is None:
        return
    words = _words(body, positions[typed])
    if _direction_words(words) or any(_CODE.fullmatch(w) for w in words):
        return
    ours = [guess.columns.get(name, name) for name in guess.header]
    booked = [r for r in blank if statement_line(dict(zip(ours, r.cells, strict=False))) is None]
    typed_only = sum(bool(str(cell(r, positions[typed])).strip()) for r in booked)
    if typed_only:
        guess.columns[typed] = "description"
        guess.type_text = typed
        guess.why["columns"] += f"; {typed} -> description: the only text of {typed_only} row(s)"


# an app's enumeration written as a code: words joined by underscores ("debit_card")
_CODE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")


def joined_where_blank(name: str) -> str:
    return f"; {name} -> description where the others are blank"


# a column that says how a purchase was paid ("Forma de pagamento": Crédito, Débito; "Card
# Type": Credit): its words name the card, not the way the money went
_PAID_WITH = re.compile(
    r"(?i)pag(amento|o)|payment method|m[eé]todo|modalidad|tarjeta|cart[aã]o|\bcard\b|forma"
)


# the marks a statement writes beside only the amounts of one way (ICICI's and HDFC's cards:
# "CR" on a payment or a refund, blank on a purchase)
_PARTIAL_MARKS = frozenset({"cr", "dr"})


def direction_by_values(guess: LayoutGuess, body: list[CellRow]) -> None:
    """An amount column that is never negative beside a column of debit/credit words (Mint's
    "Transaction Type": debit, credit) is signed by that column, whatever its name says: where
    both ways appear (a column of one word on every row carries no direction; "Crédito" on
    every purchase names the card), or where it marks only some rows with "CR" or "DR" (ICICI's
    "BillingAmountSign", blank on purchases) or its name says a direction (HDFC's "Debit /
    Credit"), and its name does not say how a purchase was paid."""
    ours = set(guess.columns.values())
    if "amount" not in ours or ours & {"debit", "credit", "direction"} or not body:
        return
    positions = {name: i for i, name in enumerate(guess.header)}
    source = {o: theirs for theirs, o in guess.columns.items()}
    at = positions[source["amount"]]
    if any(a is not None and a < 0 for a in numbers(column(body, at))):
        return
    for name in guess.header:
        if guess.columns.get(name) not in (None, "transaction_type") or _PAID_WITH.search(name):
            continue
        words = _words(body, positions[name])
        # (a blank beside an amount: a row the column leaves unmarked, not a title line)
        blanks = any(
            not str(cell(r, positions[name])).strip() and str(cell(r, at)).strip() for r in body
        )
        partial = blanks and words <= _PARTIAL_MARKS
        either_way = len({money_way(w) for w in words}) == 2
        if _direction_words(words) and (either_way or partial or field_of(name) == "direction"):
            guess.columns[name] = "direction"
            guess.why["columns"] += (
                f"; {name} -> direction by its values ({', '.join(sorted(words))})"
            )
            return


def type_not_direction(guess: LayoutGuess, body: list[CellRow]) -> None:
    """A booking type column of direction words beside signed amounts (Wise's "Transaction
    Type": DEBIT, CREDIT) is no label: it says the amount's sign, which every row shows. A
    free column named as a type whose values are other words (Wise's "Transaction Details
    Type": CARD, TRANSFER, CONVERSION) is the booking type instead."""
    positions = {name: i for i, name in enumerate(guess.header)}
    typed = next((t for t, o in guess.columns.items() if o == "transaction_type"), None)
    if typed is None or not _direction_words(_words(body, positions[typed])):
        return
    del guess.columns[typed]
    guess.why["columns"] += f"; {typed} says only the sign: no booking type"
    for name in guess.header:
        words = _words(body, positions[name])
        named = "type" in normalized(name).split()
        if name not in guess.columns and named and words and not _direction_words(words):
            guess.columns[name] = "transaction_type"
            guess.why["columns"] += f"; {name} -> transaction_type"
            return


def _words(body: list[CellRow], position: int) -> set[str]:
    return {str(v).strip().lower() for v in column(body, position)} - {""}


def _direction_words(words: set[str]) -> bool:
    """Whether a column's distinct values are direction words (see money_way); one-letter
    marks ("C", "D") only as a pair: a column of "C" alone may say "cleared"."""
    ways = {money_way(w) for w in words}
    if not words or None in ways:
        return False
    return len(ways) == 2 or min(map(len, words)) > 1


def trailing_direction(guess: LayoutGuess, body: list[CellRow]) -> None:
    """A cell right of the header's last name, filled on some rows with a credit or debit
    mark (M&S Bank's "CR" after a payment received): the direction, named by its position
    ("column 4"), so those rows are read rather than quarantined as too wide."""
    width = len(guess.header)
    extra = [r for r in body if any(str(c).strip() for c in r.cells[width:])]
    if not extra or "direction" in guess.columns.values():
        return
    if any(not str(r.cells[width]).strip() or any(str(c).strip() for c in r.cells[width + 1 :])
           for r in extra):  # fmt: skip
        return
    words = {str(r.cells[width]).strip().lower() for r in extra}
    if _direction_words(words):
        name = position_name(width + 1)
        guess.header.append(name)
        guess.columns[name] = "direction"
        guess.why["columns"] += (
            f"; {name}, right of the header's names on {len(extra)} row(s), -> direction by "
            f"its values ({', '.join(sorted(words))})"
        )


# words that make a column of currency codes another amount's: a security's, the original
# amount's of a payment abroad, a transfer's other side
_OTHER_AMOUNT_WORDS = frozenset(
    {"asset", "original", "foreign", "transfer", "target", "source", "exchange", "instructed"}
)


def guess_by_values(rows: list[CellRow], header: list[str], line: int) -> LayoutGuess | None:
    """Columns by their values, for a header of unknown names or a file without one (whose
    first line is already a transaction: ``line`` 0, columns named by position)."""
    body = rows[: HEADER_SEARCH_LINES * 4]
    if len(body) < 2:
        return None
    width = max(len(r.cells) for r in body)
    names = header + [str(i + 1) for i in range(len(header), width)] if header else None
    names = names or [str(i + 1) for i in range(width)]
    dates = [i for i in range(width) if date_share(column(body, i)) >= 0.8]
    # dates written apart ("2024-01-02 08:30:00") before digits alone: Alipay's transaction
    # number "2024010100000001" merely starts with a date
    dates.sort(key=lambda i: not written_apart(column(body, i)))
    numbers = [
        i
        for i in range(width)
        if i not in dates and number_share(column(body, i)) >= 0.8 and money_like(column(body, i))
    ]
    texts = [
        i
        for i in range(width)
        if i not in dates
        and i not in numbers
        and distinct(body, i) > 1
        and not times_of_day(column(body, i))
    ]
    pair = balance_pair(body, numbers)
    money = [i for i in numbers if i not in pair]  # (a running balance among them)
    numbers = [
        i
        for i in numbers
        if i not in pair and not any(runs_with(body, i, j) for j in numbers if j != i)
    ]
    codes = [i for i in range(width) if currency_codes(column(body, i))]
    texts = [i for i in texts if i not in codes]
    # (a column of codes named for another amount's currency, FinPension's "Asset Currency"
    # beside its "Cash Flow" in francs, is no row's currency)
    codes = [i for i in codes if not set(normalized(names[i]).split()) & _OTHER_AMOUNT_WORDS]
    if not dates or not numbers or not texts:
        return None
    # a text is words: a column of references, ids or serial numbers (digits alone on every
    # row that votes: a footnote under the table does not) is no description, and one of words
    # with spaces between them goes before one of codes (an IBAN)
    voting = [r for r in body if votes_on_columns(r)]
    worded = [i for i in texts if any(any(map(str.isalpha, str(v))) for v in column(voting, i))]
    description = max(worded or texts, key=lambda i: (spaced(body, i), distinct(body, i), -i))
    columns = {names[dates[0]]: "posted_date", names[numbers[0]]: "amount"}
    if (credit := _complement(body, numbers[0], width, {dates[0], description})) is not None:
        # two amount columns, each filled where the other is blank: money out and money in
        balances = [i for i in money if i not in (numbers[0], credit)]
        debit, credit, told, balance = _debit_first(body, numbers[0], credit, description, balances)
        columns = {names[dates[0]]: "posted_date", names[debit]: "debit", names[credit]: "credit"}
        if balance is not None:  # (the load checks each row against it)
            columns[names[balance]] = "balance"
    columns[names[description]] = "description"
    if codes:  # (the account's, where a second one is the transaction's)
        columns[names[codes[0]]] = "currency"
    guess = LayoutGuess(line, names, columns)
    how = (
        "its header's names do not give a date, an amount and a text"
        if line
        else "the file has no header line"
    )
    guess.why["columns"] = (
        f"{how}: by the values (the first column of dates, the first of amounts that is no "
        "running balance, the column of words with the most different values)"
    )
    if pair:
        before, after = (names[i] for i in sorted(pair))
        guess.why["columns"] += (
            f"; {before} and {after} differ by the amount on most rows: the balance before and "
            "after it, no amount"
        )
    if "debit" in columns.values():
        guess.why["columns"] += (
            "; a second column of amounts filled where the first is blank: debit and credit "
            f"({told})"
        )
    worded.sort(key=lambda i: (-spaced(body, i), -distinct(body, i)))
    more_text(guess, body, [names[i] for i in worded])
    return guess
