"""What a row's own cells say about it before its amount is read: not booked yet (a date cell
"Pending", a status "PENDING", OTP's "FÜGGŐ TÉTEL"), a trade closed unpaid (Alipay's 交易关闭),
or a move of the user's own money that a payment app's bill marks neither income nor spending
(core.neutral_rows). None of these is a transaction: each is counted in the file's notes
(see core.statements), never a row.
"""

from __future__ import annotations

from ml_assets.core.intake.column_names import money_way, normalized
from ml_assets.core.intake.neutral_rows import own_move

# a date cell that says the row is not booked yet ("Pending", DKB's "Vorgemerkt")
_PENDING_DATES = frozenset({"pending", "authorised", "authorized", "vorgemerkt", "en cours"})
# a status column's names, and its values for a row not booked yet (Revolut's State PENDING,
# Sparkasse's Info "Umsatz vorgemerkt", Fineco's Stato "Autorizzato")
# (VTB's Статус "В обработке", Alipay's 交易状态; OTP's booking name "Megnevezés" or type
# "Forgalom típusa", FÜGGŐ TÉTEL: a pending item, without a booking date)
_STATUS_NAMES = frozenset(
    {"state", "status", "info", "stato", "estado", "statut", "zustand", "статус", "交易状态",
     "megnevezes", "forgalom tipusa"}
)  # fmt: skip
_PENDING_STATUS = _PENDING_DATES | {
    "umsatz vorgemerkt",
    "autorizzato",
    "in behandeling",
    "в обработке",
    "függő tétel",
}
# a row's whole text that says its amount is only held (Swedbank Sweden's "SKYDDAT BELOPP", a
# card payment reserved before it is booked)
_PENDING_TEXTS = frozenset({"skyddat belopp", "reserverat belopp"})
# a status that says the trade was closed (Alipay's 交易关闭): unpaid where the bill counts it
# neither way (不计收支), no money moved; a closed trade the bill counts as spending (支出) was
# paid and is refunded by a row of its own (see core.neutral_rows): both are rows
_CLOSED_STATUS = frozenset({"交易关闭"})


def _status_is(statuses: frozenset[str], name: object, value: object) -> bool:
    return (
        isinstance(value, str)
        and value.strip().lower() in statuses
        and normalized(name) in _STATUS_NAMES
    )


def status_kind(record: dict) -> str | None:
    """ "pending transaction" for a row whose date cell or status column says it is not
    booked yet, "closed trade" for one whose status says it closed unpaid, "neutral move" for
    a move of the user's own money a bill marks neither way, else None. ``record`` is in our
    names, the columns mapped to none in theirs."""
    date = record.get("posted_date")
    if isinstance(date, str) and date.strip().lower() in _PENDING_DATES:
        return "pending transaction"  # not final: the bank changes or drops it before booking
    if any(_status_is(_PENDING_STATUS, key, value) for key, value in record.items()):
        return "pending transaction"
    text = record.get("description")
    if isinstance(text, str) and " ".join(text.lower().split()) in _PENDING_TEXTS:
        return "pending transaction"
    closed = any(_status_is(_CLOSED_STATUS, key, value) for key, value in record.items())
    if closed and money_way(record.get("direction")) != -1:
        return "closed trade"  # (its amount is the price asked, never paid)
    if own_move(record):
        return "neutral move"  # (no money spent or earned: the user's own money moved)
    return None
