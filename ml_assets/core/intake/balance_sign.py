"""Which way the money of a file that writes every amount positive went, by its running
balance and its rows' words, for ``sign_guess``.

A running balance that follows the amounts as written, one step per row, shows that they are
signed alike: every positive amount moved the balance the same way, so the rows all went one
way. Which way the balance cannot say alone: a deposit account's balance rises with money in,
a card's owed balance rises with purchases, and the check (statements.RunningBalance) accepts
either. A row whose words say its way (money_words.way_by_words: a savings account's
"Interest applied", an HSA's "Employer Contribution", a till's "POS ...") breaks the tie: on a
card such a row would move the owed balance the other way from the purchases, on a deposit
account the same way as the other money in; here it moves the same way as every row, so
every row went its way.
"""

from __future__ import annotations

from ml_assets.core.intake.amount_text import amount_or_none
from ml_assets.core.intake.money_words import way_by_words
from ml_assets.core.intake.statements import RunningBalance


def way_by_balance(
    amounts: list, balances: list, texts: list, decimal: str = "."
) -> tuple[str, str] | None:
    """(spending, why) for a file whose every amount (cells as written) is positive beside a
    running balance (``balances``, one cell per row) that follows them: money in where the
    rows whose words tell say money in (spending negative: the amounts as written), money out
    where they say money out (spending positive). None where the balance does not follow, no
    row's words tell, or they tell both ways (the words or the balance column are wrong)."""
    chain, told = _chain(amounts, balances, texts, decimal)
    if chain is None:
        return None
    broken = {b.line for b in chain.breaks()}
    ways = {way for row, way, _ in told if row not in broken}
    if len(ways) != 1:
        return None
    way = ways.pop()
    example = next(text for row, w, text in told if w == way and row not in broken)
    said = (
        f"the running balance follows every amount as written, all of them positive: every row "
        f"moved it the same way, and {len(told)} row(s) say money {'in' if way == 1 else 'out'} "
        f"by their words (e.g. {example!r}): every amount is money "
    )
    if way == 1:
        return "negative", said + "in (an account that only receives money)"
    return "positive", said + "out (a card that lists its purchases positive)"


def balance_untold(amounts: list, balances: list, texts: list, decimal: str = ".") -> str:
    """Where every amount is positive beside a running balance that follows them and no row's
    words say which way they went, the advice that they all went one way: read as a card's
    purchases, or money in on an account that only receives it; else ""."""
    chain, told = _chain(amounts, balances, texts, decimal)
    if chain is None or told:
        return ""
    return (
        "; the running balance follows every amount as written: all of them went one way, "
        "read as a card's purchases; set spending: negative if the account only receives "
        "money (contributions, savings, a wallet's buys)"
    )


def _chain(
    amounts: list, balances: list, texts: list, decimal: str
) -> tuple[RunningBalance | None, list[tuple[int, int, str]]]:
    """The running balance of the rows with an amount and a balance (None where it does not
    run over a step at least, or any amount is negative), and (row, way, text) for the rows
    whose words say their way."""
    chain, told = RunningBalance(), []
    for row, (amount, balance, text) in enumerate(zip(amounts, balances, texts, strict=True)):
        number, held = amount_or_none(amount, decimal), amount_or_none(balance, decimal)
        if number is None or held is None:
            continue
        if number < 0:
            return None, []
        chain.add(row, "", number, held)
        if (way := way_by_words(str(text or ""))) is not None:
            told.append((row, way, str(text)))
    if len(chain.rows) < 2 or chain.constant() or not chain.runs():
        return None, []
    return chain, told
