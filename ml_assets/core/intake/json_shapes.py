"""Which shape a JSON document is (a key of ``SHAPES``), where its records sit, and which
account a document is of; ``json_documents`` reads the records from there.

Beside the shapes named in ``json_documents``' docstring:

* the Berlin Group's card-account transactions (``/card-accounts/{id}/transactions``):
  ``{"cardAccount": {...}, "cardTransactions": {"booked": [...], "pending": [...]},
  "balances": [...]}``, read as GoCardless' document is, of the card's ``maskedPan``;
* an array of accounts, each with its ``transactions`` (Afterbanks', whose accounts without
  any have none): each transaction a row, with its account's ``currency`` where it names
  none, and the account's number (its ``product``, ``iban``, ...) for its ``account_id``;
* an API's list of GraphQL edges (Copilot Money's and other Relay-style APIs'
  ``{"transactions": {"edges": [{"node": {...}}], "pageInfo": ...}}``): each edge's ``node``
  is the record.
"""

from __future__ import annotations

from collections.abc import Iterator

from ml_assets.core.intake.api_record_states import PENDING
from ml_assets.core.intake.api_records import rows_of
from ml_assets.core.intake.json_envelopes import (
    edge_node,
    envelope_path,
    transaction_like,
    value_at,
)

SHAPES = {
    "jsonl": "JSONL, one record per line",
    "array": "a JSON array of records",
    "booked_pending": "a GoCardless transactions document: booked read, pending counted",
    "card_booked_pending": "a Berlin Group card-account transactions document "
    "(cardTransactions): booked read, pending counted",
    "accounts": "a JSON array of accounts, each with its transactions",
    "transactions": "a transactions list (Plaid /transactions/get, Monzo's /transactions, "
    "Tink's /data/v2/transactions): pending counted",
    "sync": "a Plaid /transactions/sync document: added and modified read, pending and "
    "removed counted",
    "fio": "a Fio banka statement (accountStatement.transactionList)",
    "feed_items": "a Starling feed document: settled and refunded items read, the others "
    "(pending, declined, reversed, upcoming) counted",
    "envelope": "an API response's list of transactions",
    "unreadable": "a JSON document that cannot be read",
}
REMOVED = "removed transaction"
SYNC_BLOCKS = ("added", "modified", "removed")
# where a Berlin Group document keeps its booked and pending blocks, by its shape
BOOKED_PENDING = {"booked_pending": "transactions", "card_booked_pending": "cardTransactions"}
# a Berlin Group account reference's identifiers, best first (a card account's by its card)
_ACCOUNT_IDS = ("iban", "bban", "maskedPan", "pan", "msisdn")
_CARD_ACCOUNT_IDS = ("maskedPan", "pan", "iban", "bban", "msisdn")
# an account's number in an array of accounts, best first (Afterbanks' "product")
_LISTED_ACCOUNT_IDS = ("iban", "product", "account_number", "accountNumber", "number", "id")
_BOOKED_FEED_STATUSES = ("SETTLED", "REFUNDED")  # Starling's; a refund is an item of its own


def shape_of(value: object) -> str | None:
    """The document's shape, a key of SHAPES; None for a shape not read."""
    if isinstance(value, list):
        return "accounts" if _accounts(value) else "array"
    if not isinstance(value, dict):
        return None
    listed = value.get("transactions")
    if isinstance(listed, list):
        return "transactions"
    for shape, key in BOOKED_PENDING.items():
        if _booked_pending(value.get(key)):
            return shape
    if isinstance(value.get("feedItems"), list):
        return "feed_items"
    statement = value.get("accountStatement")
    if isinstance(statement, dict) and "transactionList" in statement:
        listed = statement["transactionList"] or {}  # (null for a period without any)
        if isinstance(listed, dict) and isinstance(listed.get("transaction") or [], list):
            return "fio"
    sync = [value.get(k) for k in SYNC_BLOCKS]
    if any(isinstance(b, list) for b in sync) and all(
        b is None or isinstance(b, list) for b in sync
    ):
        return "sync"
    return "envelope" if envelope_path(value) is not None else None


def _booked_pending(listed: object) -> bool:
    if not isinstance(listed, dict):
        return False
    blocks = [listed.get(k) for k in ("booked", "pending")]
    return any(isinstance(b, list) for b in blocks) and all(
        b is None or isinstance(b, list) for b in blocks
    )


def _accounts(value: list) -> bool:
    """Whether a top-level array is of accounts, some with a list of transactions (an account
    without any, as Afterbanks leaves a card's, has no ``transactions`` or an empty one), and
    none of them a transaction itself."""
    accounts = all(
        isinstance(item, dict)
        and isinstance(item.get("transactions") or [], list)
        and not transaction_like({k: v for k, v in item.items() if k != "transactions"})
        for item in value
    )
    return accounts and any(item.get("transactions") for item in value)


def positions(value: object, shape: str) -> Iterator[tuple[str, object, str | None]]:
    """(path, item, why it is not a transaction or None) for every record, in document order."""
    if shape == "array":
        blocks = [("", value, None)]
    elif shape == "accounts":
        yield from _account_positions(value)
        return
    elif shape == "transactions":
        blocks = [("transactions", value["transactions"], None)]
    elif shape in BOOKED_PENDING:
        key = BOOKED_PENDING[shape]
        listed = value[key]
        blocks = [(f"{key}.booked", listed.get("booked"), None)]
        blocks.append((f"{key}.pending", listed.get("pending"), PENDING))
    elif shape == "fio":
        listed = (value["accountStatement"]["transactionList"] or {}).get("transaction")
        blocks = [("accountStatement.transactionList.transaction", listed, None)]
    elif shape == "feed_items":
        for index, item in enumerate(value["feedItems"]):
            yield f"feedItems[{index}]", item, _feed_item_kind(item)
        return
    elif shape == "envelope":
        path = envelope_path(value)
        listed = [edge_node(item) for item in value_at(value, path) or []]
        blocks = [(".".join(path), listed, None)]
    else:
        blocks = [(k, value.get(k), REMOVED if k == "removed" else None) for k in SYNC_BLOCKS]
    for name, items, kind in blocks:
        for index, item in enumerate(items or []):
            yield from rows_of(f"{name}[{index}]", item, kind)


def _account_positions(accounts: list) -> Iterator[tuple[str, object, str | None]]:
    """Each account's transactions, each with the account's currency (where it names none)
    and number."""
    for number, account in enumerate(accounts):
        currency = account.get("currency")
        listed = next((str(v) for k in _LISTED_ACCOUNT_IDS if (v := account.get(k))), None)
        for index, item in enumerate(account.get("transactions") or []):
            if isinstance(item, dict):
                extra = {"currency": currency} if currency and not item.get("currency") else {}
                item = {**item, **extra}
                if listed is not None and not item.get("account_id"):
                    item["account_id"] = listed
            yield from rows_of(f"[{number}].transactions[{index}]", item, None)


def _feed_item_kind(item: object) -> str | None:
    """None for a booked Starling feed item, else what it is ("declined transaction")."""
    status = item.get("status") if isinstance(item, dict) else None
    if not isinstance(status, str) or status.upper() in _BOOKED_FEED_STATUSES:
        return None
    return f"{status.lower().replace('_', ' ')} transaction"


def account_of(document: object, shape: str) -> str | None:
    """The account a Berlin Group transactions document is of (its ``account``: an IBAN, or
    another identifier the account reference gives; a card account's ``cardAccount``: its
    masked card number first), or None."""
    if shape == "card_booked_pending":
        reference, names = document.get("cardAccount"), _CARD_ACCOUNT_IDS
    elif shape == "booked_pending":
        reference, names = document.get("account"), _ACCOUNT_IDS
    else:
        return None
    if not isinstance(reference, dict):
        return None
    return next((str(v) for k in names if (v := reference.get(k))), None)
