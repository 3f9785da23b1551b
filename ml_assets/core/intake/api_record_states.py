"""Which of a bank-data API's records are no booked transaction, and what each is counted as.

A record its API marks as not final or as moving no money is counted, never a row (the bank
changes or drops a pending one before booking it, and books it again as a row of its own):

* a pending flag (``"pending": true``, Lunch Money's and Copilot's ``is_pending`` /
  ``isPending``, monobank's ``"hold": true``: an authorisation not yet settled);
* a ``status`` of "pending", or Up's "HELD"; an ISO 20022 entry status, as STET's and
  Enable Banking's records give it: PDNG (pending) and HOLD, SCHD and FUTR (scheduled), CNCL
  (cancelled), RJCT (rejected), INFO (information only) and OTHR (another state: neither
  booked nor said to be final); BOOK is a booked row;
* PayPal's ``transaction_status`` P (pending) and D (denied: no money moved);
* Open Finance Brasil's ``completedAuthorisedPaymentType`` LANCAMENTO_FUTURO (a scheduled
  entry) and TRANSACAO_PROCESSANDO (being processed); TRANSACAO_EFETIVADA is a row;
* a record its app marks deleted (YNAB's ``"deleted": true``);
* PrivatBank Autoclient's ``FL_REAL`` other than "r" (real): an entry the bank lists for
  information.
"""

from __future__ import annotations

PENDING = "pending transaction"
SCHEDULED = "scheduled transaction"

_PENDING_FLAGS = ("pending", "is_pending", "isPending", "hold")
# a record's "status" word, lower case: Up's "HELD" (a card payment not yet settled), and the
# ISO 20022 entry statuses (ExternalEntryStatus1Code, with Enable Banking's additions)
_STATUSES = {
    "pending": PENDING,
    "held": PENDING,
    "pdng": PENDING,
    "hold": PENDING,
    "schd": SCHEDULED,
    "futr": SCHEDULED,
    "cncl": "cancelled transaction",
    "rjct": "rejected transaction",
    "info": "information-only entry",
    "othr": "entry of status OTHR (not booked)",
}
# PayPal Transaction Search's transaction_status: P pending, D denied (no money moved); S
# (success) and V (reversed: PayPal lists the reversal as a transaction of its own) are rows
_PAYPAL_NOT_BOOKED = {"P": PENDING, "D": "denied transaction"}
# Open Finance Brasil's completedAuthorisedPaymentType: only TRANSACAO_EFETIVADA is booked
_BRAZIL_NOT_BOOKED = {"LANCAMENTO_FUTURO": SCHEDULED, "TRANSACAO_PROCESSANDO": PENDING}


def not_booked(record: dict) -> str | None:
    """What a record its API marks as not booked is counted as (see the module docstring),
    or None for a booked record."""
    if any(_true(record.get(flag)) for flag in _PENDING_FLAGS):
        return PENDING
    if _true(record.get("deleted")):
        return "deleted transaction"
    status = record.get("status")
    if isinstance(status, str) and (kind := _STATUSES.get(status.strip().lower())):
        return kind
    paypal = record.get("transaction_status")
    if isinstance(paypal, str) and (kind := _PAYPAL_NOT_BOOKED.get(paypal.strip().upper())):
        return kind
    brazil = record.get("completedAuthorisedPaymentType")
    if isinstance(brazil, str) and (kind := _BRAZIL_NOT_BOOKED.get(brazil.strip().upper())):
        return kind
    real = record.get("FL_REAL")
    if isinstance(real, str) and real.strip() and real.strip().lower() != "r":
        return f"entry not real (FL_REAL {real.strip()!r})"
    return None


def _true(value: object) -> bool:
    """True, or "true" as some exports write booleans."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")
