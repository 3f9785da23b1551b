"""A QIF investment account's records (``!Type:Invst``), read by what they do to the account's
cash: a Buy, Sell, dividend, interest, fee or transfer in or out is a row, its amount signed
by the action and described by the action and security ("Buy ACME"); a record that moves
shares only (ShrsIn, a reinvested dividend, a split) or whose cash is another account's (BuyX
pays from the ``L[Checking]`` account, whose own export holds that payment) is counted, not a
row.
"""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.intake.qif_records import QifRecord
from ml_assets.core.intake.records import SchemaError

# Quicken's investment actions that move the account's cash, as a statement names them, and
# the sign of their amount (T is written without one); Cash is signed as written
_CASH_ACTIONS = {
    "buy": ("Buy", -1), "sell": ("Sell", 1), "shtsell": ("Short sale", 1),
    "cvrshrt": ("Short cover", -1), "div": ("Dividend", 1), "intinc": ("Interest", 1),
    "cglong": ("Long-term capital gain", 1), "cgmid": ("Mid-term capital gain", 1),
    "cgshort": ("Short-term capital gain", 1), "rtrncap": ("Return of capital", 1),
    "miscinc": ("Income", 1), "miscexp": ("Expense", -1), "margint": ("Margin interest", -1),
    "xin": ("Transfer in", 1), "xout": ("Transfer out", -1), "cash": ("Cash", 0),
}  # fmt: skip
# actions that move shares only: added, removed, reinvested, split; or only remind
_SHARE_ACTIONS = {
    "shrsin", "shrsout", "reinvdiv", "reinvint", "reinvlg", "reinvmd", "reinvsh", "stksplit",
    "reminder", "grant", "vest", "exercise", "expire",
}  # fmt: skip
# a cash action with an X (BuyX, DivX) pays from or into another account (its L[...]), as do
# a retirement plan's contributions and withdrawals
_OTHER_ACCOUNT_ACTIONS = {f"{a}x" for a in _CASH_ACTIONS if a not in ("xin", "xout", "cash")}
_OTHER_ACCOUNT_ACTIONS |= {"contribx", "withdrwx"}


def _action(record: QifRecord) -> str:
    found = record.first("N")
    return found[1].strip() if found else ""


def counted_investment(record: QifRecord) -> str | None:
    """What an investment record that moves none of the account's cash is, as counted; None
    for a record read as a row (or quarantined)."""
    action = _action(record)
    if action.lower() in _SHARE_ACTIONS:
        return f"QIF investment {action} (shares only, no cash)"
    if action.lower() in _OTHER_ACCOUNT_ACTIONS:
        return f"QIF investment {action} (cash of another account, read in its export)"
    return None


def investment_row(path: Path, record: QifRecord, out: dict) -> dict | SchemaError:
    """The row of an investment record that moves the account's cash: its amount signed by
    the action, described by the action, the security (Y) and the payee and memo."""
    action, found = _action(record), record.first("N")
    line = found[0] if found else record.line
    known = _CASH_ACTIONS.get(action.lower())
    if known is None:
        return SchemaError(
            f"{path}:{line}: QIF investment action N{action!r} is not one Quicken writes "
            "(Buy, Sell, Div, IntInc, MiscExp, XIn, XOut, Cash; ShrsIn, ReinvDiv or BuyX, "
            "which move no cash of this account's), so its effect on the account's cash is "
            "unknown; fix the record",
            "unknown_action",
        )
    name, sign = known
    if sign and isinstance(out.get("amount"), str):  # a plain "-12.50" by now
        unsigned = out["amount"].lstrip("-")
        out["amount"] = f"-{unsigned}" if sign < 0 else unsigned
    security = record.first("Y")
    words = [name, security[1].strip() if security else "", out["description"] or ""]
    out["description"] = " ".join(w for w in words if w)
    return out
