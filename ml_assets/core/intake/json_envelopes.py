"""Where an API response keeps its page of transactions: under a key path its envelope puts
them (``ENVELOPES``: TrueLayer's ``{"results": [...]}``, Up's and Stripe's ``{"data": [...]}``,
Open Banking UK's ``{"Data": {"Transaction": [...]}}``, ...), or, in another envelope, the one
list of transaction-like objects (each with a date and an amount, by its fields' names) under
one key path. A document with several such lists has none: which one is the account's cannot
be told. An account's balances (the Berlin Group's ``balances``: a ``balanceAmount`` on a
``referenceDate``) have a date and an amount too, but are no transactions: an object whose
only amount is a balance's is not transaction-like. A list of GraphQL edges (``{"cursor":
..., "node": {...}}``, as Relay-style APIs page their lists) is the list of its nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ml_assets.core.intake.api_records import flattened, lifted
from ml_assets.core.intake.column_names import field_of, normalized

# where bank-data APIs put a page of transactions: the key path from the top, and whose it is
ENVELOPES = {
    ("results",): "TrueLayer's",
    ("data",): "Up's, Stripe's, Salt Edge's or Basiq's",
    ("items",): "Akahu's",
    ("transaction_details",): "PayPal Transaction Search's",
    ("Data", "Transaction"): "Open Banking UK's",
    ("_embedded", "transactions"): "Starling v1's",
    ("transaction",): "Yodlee's",
}


def envelope_path(document: dict) -> tuple[str, ...] | None:
    """The key path of an API response's list of transactions: a known envelope's
    (``ENVELOPES``, a list of transaction-like objects or an empty page), else the one list of
    transaction-like objects under the document's objects. None where the document is itself
    one record (a JSONL file of one line), has no such list, or has several (which one is the
    account's cannot be told)."""
    if transaction_like(document):
        return None
    for path in ENVELOPES:
        listed = value_at(document, path)
        if listed == [] or _transaction_list(listed):
            return path
    found = transaction_lists(document)
    return found[0] if len(found) == 1 else None


def envelope_words(path: tuple[str, ...]) -> str:
    """Where an envelope's records are, in words: "under 'results' (TrueLayer's layout)"."""
    whose = ENVELOPES.get(path)
    return f"under {'.'.join(path)!r}" + (f" ({whose} layout)" if whose else "")


def value_at(document: dict, path: tuple[str, ...]) -> object:
    """The value at a key path of the document; None where the path leads to none."""
    value: object = document
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def transaction_lists(document: dict) -> list[tuple[str, ...]]:
    """The key paths of every list of transaction-like objects under the document's objects."""
    return [path for path, listed in _object_lists(document, ()) if _transaction_list(listed)]


def _object_lists(value: dict, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], list]]:
    """(key path, list) of every non-empty list of objects reached through objects."""
    for key, item in value.items():
        if isinstance(item, list) and item and all(isinstance(i, dict) for i in item):
            yield (*path, key), item
        elif isinstance(item, dict):
            yield from _object_lists(item, (*path, key))


def _transaction_list(listed: object) -> bool:
    return isinstance(listed, list) and any(transaction_like(edge_node(item)) for item in listed)


_DATED = re.compile(r"date|time", re.IGNORECASE)  # BookingDateTime, timestamp
# a GraphQL edge's own keys beside its node
_EDGE_KEYS = frozenset({"node", "cursor"})


def transaction_like(item: object) -> bool:
    """Whether an object has a date and an amount, by its fields' names at any depth; an
    amount inside a balance (``balanceAmount.amount``, ``balance_after_transaction.amount``)
    is no transaction's."""
    if not isinstance(item, dict):
        return False
    names = [name.split(".") for name in flattened(lifted(item))]
    parts = {part for name in names for part in name}
    dated = any(field_of(p) == "posted_date" or _DATED.search(p) for p in parts)
    own = {part for name in names if not _in_balance(name) for part in name}
    return dated and bool({"amount", "debit", "credit"} & {field_of(part) for part in own})


def _in_balance(name: list[str]) -> bool:
    """Whether a flattened name lies in a balance: a key on its path whose first word is a
    balance's ("balanceAmount", "balance_after_transaction", "Balance")."""
    return any(normalized(part).split(" ")[0] in ("balance", "balances") for part in name)


def edge_node(item: object) -> object:
    """A GraphQL edge's node (``{"cursor": "c1", "node": {...}}``); any other item as it is."""
    if isinstance(item, dict) and isinstance(item.get("node"), dict) and set(item) <= _EDGE_KEYS:
        return item["node"]
    return item
