"""Named columns whose values say the name misled: a text column that holds a split's
breakdown (Goodbudget's "Details": "Groceries|-42.10||Household|-7.90"), which names no
merchant, and an amount column that is zero on rows where another column named for an amount
holds one (a money-in column nobody mapped, whose rows would read 0.00)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ml_assets.core.intake.column_values import column, numbers
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.guessed_layout import LayoutGuess

# one label and its amount, the pairs joined by bars: "Groceries|-42.10||Household|-7.90"
_AMOUNT = r"[-+]?\(?\d[\d.,' ]*\)?"
_BREAKDOWN = re.compile(rf"[^|]+\|{_AMOUNT}(?:\|+[^|]+\|{_AMOUNT})*\|*")


def split_breakdowns(guess: LayoutGuess, body: list[CellRow], positions: dict[str, int]) -> str:
    """A text column whose every filled cell is a split's breakdown (labels and their
    amounts, joined by bars) is no part of the description, where another text column is:
    its labels are categories and its figures amounts, no words a person reads to know the
    merchant. Returns what was dropped, in words ("" for nothing)."""
    texts = [t for t, o in guess.columns.items() if o == "description"]
    said = ""
    for theirs in texts:
        filled = [str(v).strip() for v in column(body, positions[theirs]) if str(v).strip()]
        others = [t for t, o in guess.columns.items() if o == "description" and t != theirs]
        if filled and others and all(_BREAKDOWN.fullmatch(v) for v in filled):
            del guess.columns[theirs]
            said += f"; {theirs} holds a split's labels and amounts: no text"
    return said


def zero_beside_amount(
    guess: LayoutGuess,
    body: list[CellRow],
    positions: dict[str, int],
    amount_named: Callable[[str], bool],
) -> str:
    """The amount column zero (or blank) on rows where an unmapped column whose name says it
    holds an amount (``amount_named``) has a figure other than zero: those rows would read
    0.00 without a word, so this says so, naming the columns. Returns "" where none is."""
    theirs = next((t for t, o in guess.columns.items() if o == "amount"), None)
    if theirs is None:
        return ""
    amounts = numbers(column(body, positions[theirs]))
    zero = [i for i, n in enumerate(amounts) if not n]
    for name in guess.header:
        if name in guess.columns or not zero or not amount_named(name):
            continue
        others = numbers(column(body, positions[name]))
        hidden = [i for i in zero if others[i]]
        if hidden:
            return (
                f"; WARNING: {theirs} is 0 or blank on {len(hidden)} row(s) where {name} holds "
                f"an amount (line {body[hidden[0]].line}): map {name} in column_map (as "
                "credit beside a debit, or as the amount)"
            )
    return ""
