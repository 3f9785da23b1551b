"""What a row's own cells say about it before its amount is read: not booked yet (a date cell
"Pending", a status "PENDING", OTP's "FÜGGŐ TÉTEL", Outbank's column "Vormerkung" "Ja"), a
payment that did not happen (a status "REVERTED", "DECLINED", "FAILED", Satispay's "NOT
APPROVED"), a trade closed unpaid (Alipay's
交易关闭), or a move of the user's own money that a payment app's bill marks neither income nor spending
(core.neutral_rows). None of these is a transaction: each is counted in the file's notes
(see core.statements), never a row.
"""

from __future__ import annotations

import unicodedata

from ml_assets.core.intake.column_names import money_way, normalized
from ml_assets.core.intake.neutral_rows import own_move

# a date cell that says the row is not booked yet ("Pending", DKB's "Vorgemerkt")
_PENDING_DATES = frozenset({"pending", "authorised", "authorized", "vorgemerkt", "en cours"})
# a status column's names, and its values for a row not booked yet (Revolut's State PENDING,
# Sparkasse's Info "Umsatz vorgemerkt", Fineco's Stato "Autorizzato")
# (VTB's Статус "В обработке", Alipay's 交易状态; OTP's booking name "Megnevezés" or type
# "Forgalom típusa", FÜGGŐ TÉTEL: a pending item, without a booking date; Intesa Sanpaolo's
# app export "Contabilizzazione": "NON CONTABILIZZATO" beside the booked "CONTABILIZZATO")
_STATUS_NAMES = frozenset(
    {"state", "status", "info", "stato", "estado", "statut", "zustand", "статус", "交易状态",
     "megnevezes", "forgalom tipusa", "contabilizzazione"}
)  # fmt: skip
_PENDING_STATUS = _PENDING_DATES | {
    "umsatz vorgemerkt",
    "autorizzato",
    "in behandeling",
    "в обработке",
    "függő tétel",
    "non contabilizzato",
    "non contabilizzata",
}
# a yes/no column whose name asks whether the row is pending (Outbank's "Vormerkung" Ja/Nein,
# an app's "Pending" true/false): its yes marks a row not booked yet; its no, a booked one.
# A yes alone never says pending: only under one of these names.
_PENDING_FLAG_NAMES = frozenset({"vormerkung", "vorgemerkt", "pending", "is pending"})
_YES = frozenset({"ja", "j", "yes", "y", "true", "wahr", "x", "1"})
# a status that says the payment did not happen, by what the row is counted as: no money moved,
# or it moved and came back without a row of either (Revolut's REVERTED and DECLINED rows have
# no completed date and no balance, and the balances around them skip them; Tinkoff's Статус
# FAILED; Satispay's NOT APPROVED; PayPal's Denied; Wise's CANCELLED). Written lower case,
# accents dropped, in English and the ordinary words of the main European languages and
# Russian (fr, de, es, it, nl, pl, ru). "Reversed" and "refunded" are not here: PayPal lists
# a reversal or a refund as a row of its own, so the payment itself was made and is a row.
_NOT_HAPPENED_WORDS = {
    "reverted transaction": "reverted",
    "declined transaction": "declined abgelehnt refuse refusee rechazado rechazada rifiutato "
    "rifiutata geweigerd odrzucona odrzucony отклонено отклонена отклонен",
    "failed transaction": "failed fehlgeschlagen echoue echouee echec fallido fallida fallito "
    "fallita mislukt nieudana nieudany",
    "cancelled transaction": "cancelled canceled annule annulee cancelado cancelada anulado "
    "anulada annullato annullata geannuleerd anulowana anulowany отменено отменена отменен",
    "rejected transaction": "rejected rejete rejetee afgewezen",
    "not approved transaction": "not_approved non_approvato non_approvata",
    "denied transaction": "denied denegado denegada",
}
_NOT_HAPPENED = {
    word.replace("_", " "): kind
    for kind, words in _NOT_HAPPENED_WORDS.items()
    for word in words.split()
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


def _flagged_pending(name: object, value: object) -> bool:
    yes = value is True or (isinstance(value, str) and value.strip().lower() in _YES)
    return yes and normalized(name) in _PENDING_FLAG_NAMES


def _says_pending(record: dict) -> bool:
    """Whether a status column or a pending yes/no column says the row is not booked yet."""
    return any(
        _status_is(_PENDING_STATUS, key, value) or _flagged_pending(key, value)
        for key, value in record.items()
    )


def _status_word(value: str) -> str:
    """A status cell as _NOT_HAPPENED spells it: lower case, accents and underscores gone
    ("Refusée" -> "refusee", "NOT_APPROVED" -> "not approved"); Cyrillic kept as it is."""
    text = unicodedata.normalize("NFKD", value.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFC", text).replace("_", " ").split())


def not_happened(record: dict) -> str | None:
    """What a row whose status column says the payment did not happen is counted as
    ("declined transaction"), else None."""
    for key, value in record.items():
        status = isinstance(value, str) and normalized(key) in _STATUS_NAMES
        if status and (kind := _NOT_HAPPENED.get(_status_word(value))):
            return kind
    return None


def status_sets_aside(header: list[str], cells: list) -> bool:
    """Whether a table row's status column says it is no transaction: not booked yet, or a
    payment that did not happen. Such a row should not vote on what a column holds: a
    pending or declined card payment leaves the completed date blank that every booked row
    fills."""
    record = dict(zip(header, cells, strict=False))
    return _says_pending(record) or not_happened(record) is not None


def status_kind(record: dict) -> str | None:
    """ "pending transaction" for a row whose date cell or status column says it is not
    booked yet, what a payment that did not happen is counted as ("declined transaction",
    see not_happened), "closed trade" for one whose status says it closed unpaid, "neutral move" for
    a move of the user's own money a bill marks neither way, else None. ``record`` is in our
    names, the columns mapped to none in theirs."""
    date = record.get("posted_date")
    if isinstance(date, str) and date.strip().lower() in _PENDING_DATES:
        return "pending transaction"  # not final: the bank changes or drops it before booking
    if _says_pending(record):
        return "pending transaction"
    text = record.get("description")
    if isinstance(text, str) and " ".join(text.lower().split()) in _PENDING_TEXTS:
        return "pending transaction"
    if kind := not_happened(record):
        return kind  # (no money moved, or it came back with no row of its own)
    closed = any(_status_is(_CLOSED_STATUS, key, value) for key, value in record.items())
    if closed and money_way(record.get("direction")) != -1:
        return "closed trade"  # (its amount is the price asked, never paid)
    if own_move(record):
        return "neutral move"  # (no money spent or earned: the user's own money moved)
    return None
