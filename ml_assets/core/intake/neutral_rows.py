"""Rows a payment app's bill marks neither income nor spending (Alipay's and JD's 收/支
"不计收支", WeChat Pay's "/"), and what each of them is.

The apps mark three kinds of row that way:
- a refund (Alipay's and JD's status 退款成功, category 退款, item "退款-…"): money back to the
  user, read as money in. Its purchase stays in the bill as spending: Alipay's as 支出 (closed,
  交易关闭, once wholly refunded), JD's as 支出 with the refund noted in its amount
  ("131.77(已退款89.84)");
- a purchase JD marks neutral because it was wholly refunded ("468.32(已全额退款)"): read as
  spending, which its refunds (neutral, read as money in) balance;
- a move between the user's own accounts or a deferred payment (WeChat's 零钱提现, 信用卡还款,
  理财通; Alipay's 余额宝 transfers; JD's 先享后付): no money spent or earned, so no
  transaction; counted in the file's notes, never a row.
"""

from __future__ import annotations

# a direction cell of a row the bill counts neither way
NEUTRAL_WAYS = frozenset({"不计收支", "/"})
# a cell that says the row is a refund: its status or category, or an item's "退款-" prefix
_REFUND_CELLS = frozenset({"退款成功", "退款"})
_REFUND_PREFIXES = ("退款-", "退款－")
# a note in a neutral row's amount that says the purchase was refunded ("(已全额退款)")
_REFUNDED_NOTE = "退款"


def neutral(direction: object) -> bool:
    """Whether a direction cell marks the row neither income nor spending."""
    return isinstance(direction, str) and direction.strip() in NEUTRAL_WAYS


def _refund(record: dict) -> bool:
    for value in record.values():
        text = value.strip() if isinstance(value, str) else ""
        if text in _REFUND_CELLS or text.startswith(_REFUND_PREFIXES):
            return True
    return False


def neutral_way(record: dict) -> int | None:
    """For a row whose direction cell is neutral (see ``neutral``; ``record`` in our names,
    its amount as written): +1 for a refund, -1 for a purchase whose amount notes it was
    refunded, None for a move between the user's own accounts (no transaction). None too
    for a row whose direction is not neutral."""
    if not neutral(record.get("direction")):
        return None
    if _refund(record):
        return 1
    amount = record.get("amount")
    if isinstance(amount, str) and _REFUNDED_NOTE in amount:
        return -1
    return None


def own_move(record: dict) -> bool:
    """Whether a row is one the bill marks neutral that is neither a refund nor a refunded
    purchase: a move between the user's own accounts, no transaction."""
    return neutral(record.get("direction")) and neutral_way(record) is None
