"""Where an API response keeps its page of transactions: under a key path its envelope puts
them (``ENVELOPES``: TrueLayer's ``{"results": [...]}``, Up's and Stripe's ``{"data": [...]}``,
Open Banking UK's ``{"Data": {"Transaction": [...]}}``, ...), or, in another envelope, the one
list of transaction-like objects (each with a date and an amount, by its fields' names) under
one key path. A document with several such lists has none: which one is the account's cannot
be told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ml_assets.core.intake.api_records import flattened, lifted
from ml_assets.core.intake.column_names import field_of

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
    if _transaction_like(document):
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
    return isinstance(listed, list) and any(_transaction_like(item) for item in listed)


_DATED = re.compile(r"date|time", re.IGNORECASE)  # BookingDateTime, timestamp


def _transaction_like(item: object) -> bool:
    """Whether an object has a date and an amount, by its fields' names at any depth."""
    if not isinstance(item, dict):
        return False
    parts = {part for name in flattened(lifted(item)) for part in name.split(".")}
    fields = {field_of(part) for part in parts}
    dated = "posted_date" in fields or any(_DATED.search(part) for part in parts)
    return dated and bool({"amount", "debit", "credit"} & fields)
