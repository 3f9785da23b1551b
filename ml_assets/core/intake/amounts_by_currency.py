"""A card statement that writes each purchase in its own currency's column (Promerica's
"Transacción Colones" beside "Transacción Dolares", an Argentine card's "Importe Pesos"
beside "Importe Dólares"): the columns are the one amount, each row filling one of them, and
the column a row fills is its currency. Inspect maps them all to ``amount``; the load takes
each row's figure from the column it fills (core.export_files)."""

from __future__ import annotations

from ml_assets.core.intake.column_names import normalized
from ml_assets.core.intake.column_values import cell, number_share
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.currency_clues import currency_of_column
from ml_assets.core.intake.guessed_layout import LayoutGuess

_OVERLAP = 0.1  # the share of rows filling both columns (a summary line) a pair allows
_SEVERAL = {"pesos", "peso"}  # a currency's name that names several: no code, still no stem


def _stem(name: str) -> str:
    """A column's name without the currency it names ("transaccion" of "Transacción
    Dolares"; normalized() already drops a trailing code such as "(USD)")."""
    words = normalized(name).split()
    return " ".join(w for w in words if currency_of_column(w) is None and w not in _SEVERAL)


def amounts_in_other_currencies(guess: LayoutGuess, body: list[CellRow]) -> None:
    """Map to ``amount`` each other column named as the amount column is, but for another
    currency, that holds figures on the rows the amount column leaves blank and seldom
    beside it. A debit and a credit column the values paired (each row filling one) that are
    such a pair are amounts too: their names say currencies, not directions."""
    _sides_in_two_currencies(guess)
    ours = list(guess.columns.values())
    if ours.count("amount") != 1 or {"debit", "credit", "currency"} & set(ours) or not body:
        return
    positions = {name: i for i, name in enumerate(guess.header)}
    first = next(t for t, o in guess.columns.items() if o == "amount")
    currency = currency_of_column(first)
    stem = _stem(first)
    for name in guess.header:
        other = currency_of_column(name)
        if name in guess.columns or other is None or other == currency:
            continue
        if _stem(name) != stem:
            continue
        if _fills_the_gaps(body, positions[first], positions[name]):
            guess.columns[name] = "amount"
            guess.why["columns"] += (
                f"; {name} -> amount where {first} is blank: the row's currency is {other}"
            )


def _sides_in_two_currencies(guess: LayoutGuess) -> None:
    sides = {o: t for t, o in guess.columns.items() if o in ("debit", "credit")}
    if len(sides) != 2 or "amount" in guess.columns.values():
        return
    debit, credit = sides["debit"], sides["credit"]
    currencies = {currency_of_column(debit), currency_of_column(credit)}
    if len(currencies - {None}) >= 1 and len(currencies) == 2 and _stem(debit) == _stem(credit):
        guess.columns[debit] = guess.columns[credit] = "amount"
        guess.why["columns"] += f"; {debit} and {credit} are one amount in two currencies"


def _fills_the_gaps(body: list[CellRow], first: int, other: int) -> bool:
    def filled(row: CellRow, position: int) -> bool:
        return bool(str(cell(row, position)).strip())

    theirs = [r for r in body if filled(r, other)]
    both = [r for r in theirs if filled(r, first)]
    alone = len(theirs) - len(both)
    either = sum(1 for r in body if filled(r, first) or filled(r, other))
    figures = number_share([cell(r, other) for r in theirs]) >= 0.5
    return alone > 0 and figures and len(both) <= _OVERLAP * either
