"""Which sign a purchase has in a table-shaped export, for ``inspect``: credit or debit marks
on the amounts, else rows that say they are income (payroll, deposit, refund), else the share
of negative amounts (a quarter or more: the file signs them; fewer: a card that lists its
purchases positive). Records read by their names (JSON, Parquet) are judged the same way."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ml_assets.core.intake.amount_text import amount_mark, amount_or_none
from ml_assets.core.intake.balance_sign import balance_untold, way_by_balance
from ml_assets.core.intake.column_values import cell
from ml_assets.core.intake.csv_exports import CellRow, direction_sign
from ml_assets.core.intake.money_words import (
    BY_WORDS,
    REFUND,
    TOP_UP,
    says_income,
    way_by_words,
)
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.statements import statement_line

if TYPE_CHECKING:
    from ml_assets.core.intake.guessed_layout import LayoutGuess

_SIGNED_SHARE = 0.25  # the share of negative amounts from which a file is taken as signed


def choose_sign(guess: LayoutGuess, body: list[CellRow], decimal: str) -> None:
    """Which sign a purchase has: credit or debit marks on the amounts show it, else rows
    that say they are income (payroll, deposit, refund), else the share of negative amounts
    (a quarter or more: the file signs them; fewer: a card listing its purchases positive)."""
    if set(guess.columns.values()) & {"debit", "credit"}:
        guess.why["sign"] = "unsigned debit and credit columns"
        return
    positions = {name: i for i, name in enumerate(guess.header)}
    source = {ours: theirs for theirs, ours in guess.columns.items()}
    body = _voting(guess, body)
    if "direction" in source:
        said = "unsigned amounts, signed by the direction column"
        at = positions[source["direction"]]
        marked = {direction_sign(cell(r, at)) for r in body if str(cell(r, at)).strip()}
        body = [r for r in body if not str(cell(r, at)).strip()]
        if not body:
            guess.why["sign"] = said
            return
        amounts = [amount_or_none(cell(r, positions[source["amount"]]), decimal) for r in body]
        if len(marked) == 1 and None not in marked and all(a is None or a >= 0 for a in amounts):
            # a column that marks only one way (ICICI's and M&S Bank's "CR" on the money in):
            # the rows it leaves blank, unsigned, went the other way
            way = marked.pop()
            guess.spending = "positive" if way == 1 else "negative"
            others = "purchases, shown positive" if way == 1 else "money in"
            guess.why["sign"] = (
                f"{said} where it is filled; it marks only money {'in' if way == 1 else 'out'}"
                f", so the {sum(a is not None for a in amounts)} unmarked row(s) are {others}"
            )
            return
        # a column that marks some rows both ways: the others by the file's sign
        _sign_by_amounts(guess, body, decimal, positions, source)
        guess.why["sign"] = f"{said} where it is filled; the rest: {guess.why['sign']}"
        return
    _sign_by_amounts(guess, body, decimal, positions, source)


def _sign_by_amounts(
    guess: LayoutGuess, body: list[CellRow], decimal: str, positions: dict, source: dict
) -> None:
    # (a booking type read as the text where a row has no other says nothing of the sign)
    texts = [
        positions[t]
        for t, ours in guess.columns.items()
        if ours == "description" and t != guess.type_text
    ]
    # (cell by cell: a row that leaves off its trailing cells keeps its amount beside its text)
    amounts = [cell(r, positions[source["amount"]]) for r in body]
    joined = [" ".join(str(cell(r, i)) for i in texts) for r in body]
    balances = [cell(r, positions[source["balance"]]) for r in body] if "balance" in source else []
    guess.spending, guess.why["sign"] = sign_of(
        amounts, joined, decimal, balances=balances, fees="fee" in source
    )


def sign_of(
    amounts: list,
    texts: list,
    decimal: str = ".",
    *,
    balances: list | None = None,
    fees: bool = False,
) -> tuple[str, str]:
    """(spending, why) for a file's amounts (cells as written) and their rows' texts: credit or
    debit marks show which way the money went; else, beside a fee column (``fees``), amounts
    half or more positive are a merchant's sales; else rows that say they are income (payroll,
    deposit, refund) show income's sign; else, every amount positive, a running balance
    (``balances``, one cell per row) and the rows' words; else a quarter or more of the
    amounts negative says the file signs them, fewer that it lists purchases positive (a
    card's)."""
    signs = [
        (n, str(t))
        for a, t in zip(amounts, texts, strict=False)
        if (n := amount_or_none(a, decimal))
    ]
    marks = Counter(m for a in amounts if (m := amount_mark(a)) is not None)
    unmarked = [n for a in amounts if amount_mark(a) is None and (n := amount_or_none(a, decimal))]
    if marks and all(n > 0 for n in unmarked):
        # "100.00 CR" beside unmarked amounts: those are the purchases, shown positive (a
        # card statement's); "12.50 DR" beside them: those are the money in
        said = " and ".join(
            f"{marks[m]} marked {w}" for m, w in ((1, "CR"), (-1, "DR")) if marks[m]
        )
        spending = "positive" if marks[1] and not marks[-1] else "negative"
        return spending, f"{said}, the others unsigned"
    negative = sum(n < 0 for n, _ in signs)
    if fees and (sales := _merchant_sales(signs, negative)):
        return "negative", sales
    income = [n for n, t in signs if says_income(t, n, negative, len(signs))]
    # income rows shown positive tell the sign only where some amount is negative: in a file
    # of positive amounts alone (M&S Bank's card: "+ £1,100.00" beside "£67.40") they are
    # marked some other way, and the purchases are positive
    positive = sum(n > 0 for n in income) * 2 >= len(income)
    # income shown negative flips a file only where it is a fair share of the negative rows,
    # as a card's payments and refunds are: one "Security deposit" paid among many payments
    # out says nothing
    clear = positive or sum(n < 0 for n in income) * 3 >= negative
    if income and clear and (negative or not all(n > 0 for n in income)):
        said = f"{'positive' if positive else 'negative'}"
        why = f"{len(income)} income row(s) (payroll, deposit, refund, ...) are {said}"
        return ("negative" if positive else "positive"), why
    balances = balances or [None] * len(amounts)
    if not negative and (by_balance := way_by_balance(amounts, balances, texts, decimal)):
        return by_balance
    # every amount unsigned and every row's words saying its way: each row signed by them
    if not negative and (by_words := _signed_by_words(signs)):
        return BY_WORDS, by_words
    # a file that writes a fair share of its amounts negative signs them (a bank account with
    # more money in than out, as a savings account's); a card that lists purchases positive
    # has a few negative payments and refunds at most
    spending = "negative" if negative >= _SIGNED_SHARE * len(signs) else "positive"
    said = "most rows are spending"
    if not negative and (told := _told_by_words(signs)):
        said += told
    if not negative:
        said += balance_untold(amounts, balances, texts, decimal)
    if spending == "negative":  # (a few rows can be a small card statement too)
        said = "signed" if negative * 2 >= len(signs) else "signed; a card that lists its "
        said += "" if negative * 2 >= len(signs) else "purchases positive: set spending: positive"
    return spending, f"{negative} of {len(signs)} amounts are negative ({said})"


def _merchant_sales(signs: list[tuple[float, str]], negative: int) -> str:
    """Beside a fee column (a merchant's or payment app's balance: Stripe's, PayPal's, a fee
    charged on each sale), amounts half or more positive are its sales, and a negative row
    that says "refund" is a refund it gave (money out), not a card's credit: why the file is
    read as written; else "" (a negative row says other money in, as a card's "PAYMENT -
    THANK YOU")."""
    if not signs or negative * 2 > len(signs):
        return ""
    credits = [t for n, t in signs if n < 0 and says_income(t, n, negative, len(signs))]
    # (half the amounts negative and none a refund: a payment app's payments and the
    # fundings beside them, PayPal's, which the share of negatives reads as signed)
    if any(not REFUND.search(t) for t in credits) or (negative * 2 == len(signs) and not credits):
        return ""
    refunds = f", {len(credits)} refund(s) given negative" if credits else ""
    return (
        f"beside a fee column, {len(signs) - negative} of {len(signs)} amount(s) are positive: a "
        f"merchant's or payment app's balance, its sales positive{refunds}, as ours; a card "
        "that lists its purchases positive: set spending: positive"
    )


def _signed_by_words(signs: list[tuple[float, str]]) -> str:
    """Where every amount is unsigned and every row's words say which way its money went, some
    of them money in (BOCOM's card: "消费 ..." a purchase, "退货 ..." a return, "信用卡还款 ..."
    a repayment), why each row is signed by its words; else ""."""
    ways = [way_by_words(text) for _, text in signs]
    if not ways or None in ways or 1 not in ways:
        return ""
    money_in = [text for (_, text), way in zip(signs, ways, strict=True) if way == 1]
    return (
        f"every amount is unsigned; each row signed by its words: {len(money_in)} say money in "
        f"(e.g. {money_in[0]!r}), {len(ways) - len(money_in)} are purchases"
    )


def _told_by_words(signs: list[tuple[float, str]]) -> str:
    """Where every amount is unsigned and rows' words say money in (BOCOM's card: "消费 ..." a
    purchase, "退货 ..." a return, "信用卡还款 ..." a repayment) or a top-up (WAON's "チャージ":
    money in on the card topped up, a purchase on the card that pays for it), a warning that
    those rows are read as purchases too, as the file's one sign makes them; else ""."""
    money_in = [text for _, text in signs if way_by_words(text) == 1]
    top_ups = [text for _, text in signs if TOP_UP.search(text) and text not in money_in]
    said = ""
    if money_in:
        said += (
            f"; but every amount is unsigned and {len(money_in)} row(s) say money in by their "
            f"words (e.g. {money_in[0]!r}): read as purchases like the rest; set spending: "
            "by_words to sign each row by its words (a refund, a return or a repayment money "
            "in, the rest purchases)"
        )
    if top_ups:
        said += (
            f"; {len(top_ups)} row(s) are top-ups (e.g. {top_ups[0]!r}), read as purchases: "
            "right on the card that pays for them, wrong on the card topped up"
        )
    return said


def _voting(guess: LayoutGuess, body: list[CellRow]) -> list[CellRow]:
    """The rows whose amounts tell the file's sign: transactions, booked or pending, that
    name what they are; not a balance line or a title, nor a hold without a text (PayPal's
    "General Authorization" rows, of the other sign than the payment they hold for; their
    booking type alone is no text)."""
    ours = [guess.columns.get(name, name) for name in guess.header]
    # (a booking type read as the text where a row has no other says no more than a blank)
    texts = [
        i
        for i, name in enumerate(ours)
        if name == "description" and guess.header[i] != guess.type_text
    ]
    voting = []
    for row in body:
        if isinstance(row.cells, SchemaError):
            continue
        if statement_line(dict(zip(ours, row.cells, strict=False))) not in (
            None,
            "pending transaction",
        ):
            continue
        if any(str(cell(row, i)).strip() for i in texts):
            voting.append(row)
    return voting
