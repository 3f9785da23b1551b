"""JSON exports: JSONL (one record per line, as a warehouse or a script writes it) and the
JSON documents bank-data APIs return, saved as they came:

* GoCardless Bank Account Data (ex-Nordigen) ``/accounts/{id}/transactions/``:
  ``{"transactions": {"booked": [...], "pending": [...]}}`` (a booked record without a
  ``bookingDate`` is dated by its ``valueDate``);
* Plaid ``/transactions/get`` (and APIs alike: Monzo's ``/transactions``, in pennies):
  ``{"accounts": [...], "transactions": [...]}``;
* Plaid ``/transactions/sync``: ``{"added": [...], "modified": [...], "removed": [...]}``;
* Starling ``/feed/account/{id}/category/{id}``: ``{"feedItems": [...]}`` (unsigned
  ``amount.minorUnits`` and a ``direction`` of IN or OUT; only SETTLED and REFUNDED items are
  booked);
* Fio banka's API statement: ``{"accountStatement": {"transactionList": {"transaction":
  [...]}}}``, each field a ``columnN`` with its name and value (``api_records.fio_record``);
* a page of an API's response, its transactions in one list under a key path the API's
  envelope puts them (``json_envelopes.ENVELOPES``): TrueLayer's ``{"results": [...]}``, Up's and Stripe's
  ``{"data": [...]}``, Akahu's ``{"items": [...]}``, PayPal Transaction Search's
  ``{"transaction_details": [{"transaction_info": {...}}]}``, Open Banking UK's
  ``{"Data": {"Transaction": [...]}}``, Starling v1's ``{"_embedded": {"transactions":
  [...]}}``; or, in another envelope, the one list of objects with a date and an amount under
  one key path (``inspect`` names the path);
* a JSON array of records.

Which one a file is comes from its content, not its suffix: a file whose first value spans
lines (pretty-printed), or whose only line is an array or one of the shapes above (``curl``
output), is a document; a file of one record per line is JSONL, read line by line so a bad line
never hides the others. The records are taken where these shapes put them: a document with no
such list, or with several lists of transaction-like objects (which one is the account's
cannot be told), is an error naming its keys.

A record is read as its API writes it, with what its fields mean made plain (see
``api_records``: fields lifted, Revolut's legs one row each, Monzo's merchant ids, Stripe's
times, the Berlin Group's remittance texts). The document's own ``account`` (``{"iban": ...}``)
of a GoCardless document is each record's ``account_id``, the column_map's account column
where it maps one.

Pending transactions (GoCardless' ``pending`` block, a record with ``"pending": true``, a ``"status"`` of
``"pending"`` or, Up's word for it, ``"HELD"``) are not final: the bank changes or drops them before booking. They
are counted as not transactions, as a QIF's category list is, never rows; so are Plaid's
``removed`` entries (ids of transactions to delete: a load only adds). Nested objects are
flattened to dotted names (``transactionAmount.amount``) so that column_map can name them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.intake.api_records import (
    PENDING,
    api_record,
    fio_record,
    not_booked,
    rows_of,
    with_booking_date,
)
from ml_assets.core.intake.json_envelopes import (
    envelope_path,
    envelope_words,
    transaction_lists,
    value_at,
)
from ml_assets.core.intake.jsonl_exports import iter_jsonl
from ml_assets.core.intake.records import SchemaError, open_binary

Records = Iterator[tuple[int, dict | SchemaError, bytes]]
SHAPES = {
    "jsonl": "JSONL, one record per line",
    "array": "a JSON array of records",
    "booked_pending": "a GoCardless transactions document: booked read, pending counted",
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
SUPERSEDES = "_supersedes"  # marks a record that replaces a kept one of its id
_SYNC_BLOCKS = ("added", "modified", "removed")
# a Berlin Group account reference's identifiers, best first
_ACCOUNT_IDS = ("iban", "bban", "maskedPan", "pan", "msisdn")
_BOOKED_FEED_STATUSES = ("SETTLED", "REFUNDED")  # Starling's; a refund is an item of its own
_LATER_LINES = 50  # lines looked at to tell a JSONL file with a bad first line from a document
_BOM = b"\xef\xbb\xbf"


@dataclass
class JsonExport:
    """One JSON file's records: ``shape`` (a key of SHAPES), the records numbered by line
    (JSONL) or by position in the document, a document's path of each number (1-based, for
    errors: ``transactions.booked[3]``), and the (number, kind) of what was not a transaction,
    filled as the records are read."""

    shape: str
    records: Records
    paths: tuple[str, ...] = ()
    skipped: list[tuple[int, str]] = field(default_factory=list)
    listed: str = ""  # where an envelope's records are, in words ("under 'results' ...")


def open_json(path: Path, skipped: list[tuple[int, str]] | None = None) -> JsonExport:
    """The file's records as JSONL or as a document (see the module docstring); ``skipped``
    receives what is not a transaction. Raises SchemaError for a document of unknown shape."""
    skipped = [] if skipped is None else skipped
    first, more = _head(path)
    value = _loads(first)
    if value is not None:
        if not more and _shape(value) is not None:
            return _document(path, value, skipped)
        return JsonExport("jsonl", _jsonl_records(path, skipped), (), skipped)
    if first.lstrip(_BOM).lstrip()[:1] not in (b"{", b"["):
        return JsonExport("jsonl", _jsonl_records(path, skipped), (), skipped)
    with open_binary(path) as handle:
        data = handle.read()
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        error = SchemaError(
            f"{path}: not valid UTF-8 ({err.reason} at byte {err.start}); re-export it as UTF-8",
            "unreadable_file",
        )
        return JsonExport("unreadable", _single(1, error, data), (), skipped)
    except json.JSONDecodeError as err:
        if _later_records(data):  # JSONL whose first line is bad
            return JsonExport("jsonl", _jsonl_records(path, skipped), (), skipped)
        return JsonExport("unreadable", _single(err.lineno, _broken(path, err), data), (), skipped)
    if value is None or _shape(value) is None:
        raise _unknown(path, value)
    return _document(path, value, skipped)


def _head(path: Path) -> tuple[bytes, bool]:
    """The first non-blank line, and whether another non-blank line follows it."""
    with open_binary(path) as handle:
        lines = (line for line in handle if line.strip())
        first = next(lines, b"")
        return first, next(lines, None) is not None


def _loads(line: bytes) -> object | None:
    """The line's JSON value, or None when it is not one on its own."""
    try:
        return json.loads(line.lstrip(_BOM).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _later_records(data: bytes) -> bool:
    lines = [line for line in data.splitlines()[1 : _LATER_LINES + 1] if line.strip()]
    return any(isinstance(_loads(line), dict) for line in lines)


def _shape(value: object) -> str | None:
    if isinstance(value, list):
        return "array"
    if not isinstance(value, dict):
        return None
    listed = value.get("transactions")
    if isinstance(listed, list):
        return "transactions"
    if isinstance(listed, dict):
        blocks = [listed.get(k) for k in ("booked", "pending")]
        if any(isinstance(b, list) for b in blocks) and all(
            b is None or isinstance(b, list) for b in blocks
        ):
            return "booked_pending"
        return None
    if isinstance(value.get("feedItems"), list):
        return "feed_items"
    statement = value.get("accountStatement")
    if isinstance(statement, dict) and "transactionList" in statement:
        listed = statement["transactionList"] or {}  # (null for a period without any)
        if isinstance(listed, dict) and isinstance(listed.get("transaction") or [], list):
            return "fio"
    sync = [value.get(k) for k in _SYNC_BLOCKS]
    if any(isinstance(b, list) for b in sync) and all(
        b is None or isinstance(b, list) for b in sync
    ):
        return "sync"
    return "envelope" if envelope_path(value) is not None else None


def _positions(value: object, shape: str) -> Iterator[tuple[str, object, str | None]]:
    """(path, item, why it is not a transaction or None) for every record, in document order."""
    if shape == "array":
        blocks = [("", value, None)]
    elif shape == "transactions":
        blocks = [("transactions", value["transactions"], None)]
    elif shape == "booked_pending":
        listed = value["transactions"]
        blocks = [("transactions.booked", listed.get("booked"), None)]
        blocks.append(("transactions.pending", listed.get("pending"), PENDING))
    elif shape == "fio":
        listed = (value["accountStatement"]["transactionList"] or {}).get("transaction")
        blocks = [("accountStatement.transactionList.transaction", listed, None)]
    elif shape == "feed_items":
        for index, item in enumerate(value["feedItems"]):
            yield f"feedItems[{index}]", item, _feed_item_kind(item)
        return
    elif shape == "envelope":
        path = envelope_path(value)
        blocks = [(".".join(path), value_at(value, path), None)]
    else:
        blocks = [(k, value.get(k), REMOVED if k == "removed" else None) for k in _SYNC_BLOCKS]
    for name, items, kind in blocks:
        for index, item in enumerate(items or []):
            yield from rows_of(f"{name}[{index}]", item, kind)


def _feed_item_kind(item: object) -> str | None:
    """None for a booked Starling feed item, else what it is ("declined transaction")."""
    status = item.get("status") if isinstance(item, dict) else None
    if not isinstance(status, str) or status.upper() in _BOOKED_FEED_STATUSES:
        return None
    return f"{status.lower().replace('_', ' ')} transaction"


def _document(path: Path, value: object, skipped: list[tuple[int, str]]) -> JsonExport:
    shape = _shape(value)
    positions = list(_positions(value, shape))
    taken = []
    for number, (where, item, kind) in enumerate(positions, start=1):
        if kind is None and isinstance(item, dict):
            kind = not_booked(item)
        if kind is not None:
            skipped.append((number, kind))
        else:
            taken.append((number, where, item))
    paths = tuple(where for where, _, _ in positions)
    account = _account_of(value) if shape == "booked_pending" else None
    records = _document_records(path, taken, account)
    listed = envelope_words(envelope_path(value)) if shape == "envelope" else ""
    return JsonExport(shape, records, paths, skipped, listed)


def _account_of(document: dict) -> str | None:
    """The account a Berlin Group transactions document is of (its ``account``: an IBAN, or
    another identifier the account reference gives), or None."""
    reference = document.get("account")
    if not isinstance(reference, dict):
        return None
    return next((str(v) for k in _ACCOUNT_IDS if (v := reference.get(k))), None)


def _document_records(
    path: Path, taken: list[tuple[int, str, object]], account: str | None = None
) -> Records:
    for number, where, item in taken:
        raw = json.dumps(item, ensure_ascii=False, default=str).encode()
        if not isinstance(item, dict):
            error = SchemaError(
                f"{path}: {where}: expected a JSON object, got {type(item).__name__}",
                "not_an_object",
            )
            yield number, error, raw
            continue
        if where.startswith("accountStatement.transactionList"):
            record = fio_record(item)
        else:
            record = api_record(item)
        if account and "account_id" not in record:
            record["account_id"] = account
        if where.startswith("transactions.booked["):
            record = with_booking_date(record)
        if where.startswith("modified["):  # a newer version of a transaction added before
            record[SUPERSEDES] = True
        yield number, record, raw


def _jsonl_records(path: Path, skipped: list[tuple[int, str]]) -> Records:
    for number, record, raw in iter_jsonl(path):
        if not isinstance(record, dict):
            yield number, record, raw
            continue
        for _, item, kind in rows_of("", record, None):
            kind = kind or not_booked(item)
            if kind is not None:
                skipped.append((number, kind))
            else:
                yield number, api_record(item), raw


def _single(number: int, error: SchemaError, data: bytes) -> Records:
    """A document that cannot be read: one quarantined row (its first bytes kept)."""
    yield number, error, data[:2000]


def _broken(path: Path, err: json.JSONDecodeError) -> SchemaError:
    cut = not err.doc[err.pos :].strip()  # the document ends before it is complete
    why = "ends mid-document (an interrupted download)" if cut else "is not valid JSON"
    return SchemaError(
        f"{path}:{err.lineno}: the file {why}: {err.msg} at line {err.lineno} column "
        f"{err.colno}; re-download it",
        "unreadable_file",
    )


def _unknown(path: Path, value: object) -> SchemaError:
    found = (
        f"top-level keys {sorted(value)[:20]}"
        if isinstance(value, dict)
        else f"a top-level {type(value).__name__}"
    )
    nested = ""
    if isinstance(value, dict) and isinstance(value.get("transactions"), dict):
        nested = f", and under 'transactions' {sorted(value['transactions'])[:20]}"
    lists = []
    if isinstance(value, dict):
        lists = [".".join(p) for p in transaction_lists(value)]
    several = (
        f"; several lists of transactions, {lists}: which is the account's cannot be told"
        if lists
        else ""
    )
    return SchemaError(
        f"{path}: a JSON document of a shape not read ({found}{nested}{several}); read are a "
        'JSON array of records, GoCardless\' {"transactions": {"booked": [...], "pending": '
        "[...]}}, Plaid's and Monzo's {\"transactions\": [...]}, Plaid's /transactions/sync "
        '{"added": [...], "modified": [...], "removed": [...]}, Starling\'s '
        '{"feedItems": [...]}, Fio banka\'s {"accountStatement": {"transactionList": ...}}, '
        "and an API response with one list of objects that have a date and an amount: "
        "export the records as JSONL (one object per line) or as a JSON array",
        "unknown_document",
    )
