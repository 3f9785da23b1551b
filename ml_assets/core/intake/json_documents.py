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
  [...]}}}``, each field a ``columnN`` with its name and value (``_fio_record``);
* a page of an API's response, its transactions in one list under a key path the API's
  envelope puts them (``ENVELOPES``): TrueLayer's ``{"results": [...]}``, Up's and Stripe's
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

A record is read as its API writes it, with what its fields mean made plain:

* a record that keeps its fields in one object (JSON:API's ``attributes``, as Up writes it;
  PayPal's ``transaction_info``) has them lifted to the top, beside its ``id``;
* a money object stays an object (``amount.value`` beside ``amount.currencyCode``, for
  column_map to name); Tink's exact number (``{"scale": "1", "unscaledValue": "-1300"}``) is
  computed where the record is flattened: unscaledValue x 10^-scale, ``"-130.0"``;
* a record with ``legs`` (Revolut Business: a transaction's money on each account it moved)
  is one row per leg, with the leg's account, amount and currency, described by the
  merchant's name, else the leg's description, else the transaction's reference, else its
  type; a transaction of several legs (an exchange, a transfer between the user's own
  accounts) gives each leg the id ``{id}/{leg number}``. Revolut's pending transactions and
  its declined, failed and reverted ones are counted, not rows;
* a merchant given as an id (Monzo's ``"merch_00008zIcpbAKe8shBxXUtl"`` without
  ``expand[]=merchant``) is no merchant: left empty; an expanded one's ``name`` is;
* a Stripe balance transaction is dated by its ``created`` time (Unix seconds, read as UTC)
  and, without a description (a payout, a transfer), described by its type ("payout",
  "stripe fee"); its amounts are cents (``inspect`` sets ``amount_unit: minor``).

GoCardless' records are the Berlin Group's (NextGenPSD2, which banks' PSD2 APIs return as
well): the remittance text is ``remittanceInformationUnstructured``, or
``remittanceInformationStructured`` (a string, or an object whose ``reference`` is read), or
their ``...Array`` forms; a record with none of these and no party name (a card payment's)
is read by its ``additionalInformation``, given as its remittance text. The document's own
``account`` (``{"iban": ...}``) is each record's ``account_id``, the column_map's account
column where it maps one.

Pending transactions (GoCardless' ``pending`` block, a record with ``"pending": true``, a ``"status"`` of
``"pending"`` or, Up's word for it, ``"HELD"``) are not final: the bank changes or drops them before booking. They
are counted as not transactions, as a QIF's category list is, never rows; so are Plaid's
``removed`` entries (ids of transactions to delete: a load only adds). Nested objects are
flattened to dotted names (``transactionAmount.amount``) so that column_map can name them.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ml_assets.core.intake.column_names import field_of
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
# an object that holds a record's own fields (JSON:API's resource attributes, PayPal's)
_FIELD_OBJECTS = ("attributes", "transaction_info")
PENDING, REMOVED = "pending transaction", "removed transaction"
SUPERSEDES = "_supersedes"  # marks a record that replaces a kept one of its id
# names only Plaid's records have beside transaction_id: its amounts are positive for money out
PLAID_NAMES = frozenset(
    {"iso_currency_code", "personal_finance_category.primary", "payment_channel"}
)
_SYNC_BLOCKS = ("added", "modified", "removed")
# the Berlin Group's remittance texts: the unstructured one, and the structured reference (a
# creditor's RF reference, an order number) that some banks give instead
REMITTANCE_NAMES = (
    "remittanceInformationUnstructured",
    "remittanceInformationUnstructuredArray",
    "remittanceInformationStructured",
    "remittanceInformationStructuredArray",
)
_BERLIN_GROUP_TEXTS = ("creditorName", "debtorName", *REMITTANCE_NAMES)
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


def flattened(record: dict, prefix: str = "") -> dict:
    """Nested objects as dotted names: {"transactionAmount": {"amount": "-12.40"}} ->
    {"transactionAmount.amount": "-12.40"}; lists stay as they are. An exact number (Tink's
    ``{"scale": "1", "unscaledValue": "-1300"}``) is one value, computed: ``"-130.0"``."""
    out: dict = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and set(value) == _EXACT_NUMBER:
            out[name] = _exact_number(value)
        elif isinstance(value, dict) and value:
            out.update(flattened(value, f"{name}."))
        else:
            out[name] = value
    return out


_EXACT_NUMBER = {"scale", "unscaledValue"}


def _exact_number(value: dict) -> str | dict:
    """unscaledValue x 10^-scale as decimal text (exact: no float rounds a cent away), or the
    object as it is where its parts are not whole numbers (the load then names the field)."""
    try:
        unscaled, scale = Decimal(str(value["unscaledValue"])), int(str(value["scale"]))
    except (InvalidOperation, ValueError):
        return value
    if unscaled != unscaled.to_integral_value():
        return value
    return str(unscaled.scaleb(-scale))


_PENDING_FLAGS = ("pending", "is_pending", "isPending")
_PENDING_STATUSES = ("pending", "held")  # ("HELD": Up's card payment not yet settled)


def is_pending(record: dict) -> bool:
    """A record its API marks as not yet booked: a pending flag (true, or "true" as some
    exports write booleans) or a ``status`` of "pending" (Up's "HELD")."""
    status = record.get("status")
    flagged = any(
        record.get(flag) is True or str(record.get(flag)).strip().lower() == "true"
        for flag in _PENDING_FLAGS
    )
    return flagged or (isinstance(status, str) and status.lower() in _PENDING_STATUSES)


def looks_like_plaid(names: list[str]) -> bool:
    """Whether records with these (flattened) names are Plaid's, whose ``amount`` is positive
    for money leaving the account."""
    return "transaction_id" in names and bool(PLAID_NAMES & set(names))


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


def envelope_path(document: dict) -> tuple[str, ...] | None:
    """The key path of an API response's list of transactions: a known envelope's
    (``ENVELOPES``, a list of transaction-like objects or an empty page), else the one list of
    transaction-like objects under the document's objects. None where the document is itself
    one record (a JSONL file of one line), has no such list, or has several (which one is the
    account's cannot be told)."""
    if _transaction_like(document):
        return None
    for path in ENVELOPES:
        listed = _at(document, path)
        if listed == [] or _transaction_list(listed):
            return path
    found = [path for path, listed in _object_lists(document, ()) if _transaction_list(listed)]
    return found[0] if len(found) == 1 else None


def envelope_words(path: tuple[str, ...]) -> str:
    """Where an envelope's records are, in words: "under 'results' (TrueLayer's layout)"."""
    whose = ENVELOPES.get(path)
    return f"under {'.'.join(path)!r}" + (f" ({whose} layout)" if whose else "")


def _at(document: dict, path: tuple[str, ...]) -> object:
    value: object = document
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


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
    parts = {part for name in flattened(_lifted(item)) for part in name.split(".")}
    fields = {field_of(part) for part in parts}
    dated = "posted_date" in fields or any(_DATED.search(part) for part in parts)
    return dated and bool({"amount", "debit", "credit"} & fields)


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
        blocks = [(".".join(path), _at(value, path), None)]
    else:
        blocks = [(k, value.get(k), REMOVED if k == "removed" else None) for k in _SYNC_BLOCKS]
    for name, items, kind in blocks:
        for index, item in enumerate(items or []):
            yield from _rows_of(f"{name}[{index}]", item, kind)


def _rows_of(
    where: str, item: object, kind: str | None
) -> Iterator[tuple[str, object, str | None]]:
    """One record's rows: the record with its fields lifted (``_lifted``), or a row per leg
    of a transaction with legs (Revolut Business), each at its path (``[2].legs[1]``)."""
    if not isinstance(item, dict):
        yield where, item, kind
        return
    item = _lifted(item)
    legs = item.get("legs")
    if not (isinstance(legs, list) and legs and all(isinstance(leg, dict) for leg in legs)):
        yield where, item, kind
        return
    kind = kind or _state_kind(item)
    for index, leg in enumerate(legs):
        yield f"{where}.legs[{index}]", _leg_record(item, leg, index, len(legs)), kind


def _lifted(item: dict) -> dict:
    """A record whose own fields sit in one object (JSON:API's ``attributes``, PayPal's
    ``transaction_info``) with those fields at the top, beside the record's others (its
    ``id``, PayPal's ``payer_info``), which win over a lifted field of the same name; JSON:API's
    resource ``type`` ("transactions") says what the object is, not what kind of transaction,
    and is left out. Any other record as it is."""
    for key in _FIELD_OBJECTS:
        inner = item.get(key)
        if isinstance(inner, dict):
            rest = {k: v for k, v in item.items() if k != key}
            if key == "attributes":
                rest.pop("type", None)
            return {**rest, **{k: v for k, v in inner.items() if k not in rest}}
    return item


_DONE_STATES = ("completed",)  # Revolut's; pending, declined, failed and reverted are not rows


def _state_kind(item: dict) -> str | None:
    """None for a Revolut transaction that is done, else what it is ("declined transaction")."""
    state = item.get("state")
    if not isinstance(state, str) or state.lower() in _DONE_STATES:
        return None
    return PENDING if state.lower() == "pending" else f"{state.lower()} transaction"


def _leg_record(item: dict, leg: dict, index: int, count: int) -> dict:
    """One leg of a transaction as a row's record: the transaction's fields, the leg's account,
    amount and currency, its text (see the module docstring) and, among several legs, an id of
    its own."""
    record = {k: v for k, v in item.items() if k != "legs"}
    record.update({k: v for k, v in leg.items() if k != "description"})
    merchant = item.get("merchant")
    texts = (
        item.get("description"),
        merchant.get("name") if isinstance(merchant, dict) else None,
        leg.get("description"),
        item.get("reference"),
        str(item.get("type") or "").replace("_", " "),
    )
    record["description"] = next((t.strip() for t in texts if _text_in(t)), None)
    if count > 1 and item.get("id") is not None:
        record["id"] = f"{item['id']}/{index + 1}"
    return record


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
        if kind is None and isinstance(item, dict) and is_pending(item):
            kind = PENDING
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
            record = _fio_record(item)
        else:
            record = _api_record(item)
        if account and "account_id" not in record:
            record["account_id"] = account
        if where.startswith("transactions.booked["):
            record = _booking_date(record)
        if where.startswith("modified["):  # a newer version of a transaction added before
            record[SUPERSEDES] = True
        yield number, record, raw


def _jsonl_records(path: Path, skipped: list[tuple[int, str]]) -> Records:
    for number, record, raw in iter_jsonl(path):
        if not isinstance(record, dict):
            yield number, record, raw
            continue
        for _, item, kind in _rows_of("", record, None):
            kind = kind or (PENDING if is_pending(item) else None)
            if kind is not None:
                skipped.append((number, kind))
            else:
                yield number, _api_record(item), raw


def _api_record(item: dict) -> dict:
    """A bank-data API's record, flattened, with its texts and codes made plain (see the
    module docstring)."""
    record = _plaid_currency(flattened(_berlin_group_texts(item)))
    return _stripe_record(_merchant_not_an_id(record))


# an API's id of a merchant record (Monzo's "merch_00008zIcpbAKe8shBxXUtl"): no merchant's name
_MERCHANT_ID = re.compile(r"[a-z]{2,10}_[0-9A-Za-z]{12,}")


def _merchant_not_an_id(record: dict) -> dict:
    merchant = record.get("merchant")
    if isinstance(merchant, str) and _MERCHANT_ID.fullmatch(merchant.strip()):
        record["merchant"] = None
    return record


def _stripe_record(record: dict) -> dict:
    """A Stripe balance transaction dated by its ``created`` time (Unix seconds) as a UTC
    timestamp, and, without a description (a payout, a transfer, a fee), described by its
    type: what kind of money movement it is is all Stripe says of it."""
    if record.get("object") != "balance_transaction":
        return record
    created = record.get("created")
    if isinstance(created, int) and not isinstance(created, bool):
        record["created"] = dt.datetime.fromtimestamp(created, dt.UTC).isoformat()
    if not _text_in(record.get("description")):
        kind = str(record.get("type") or record.get("reporting_category") or "")
        record["description"] = kind.replace("_", " ") or None
    return record


def _berlin_group_texts(item: dict) -> dict:
    """A Berlin Group record (one with a ``transactionAmount``) with its structured remittance
    as text (an object's ``reference``, each of an array's) and, where it has no remittance
    text and no party name, its ``additionalInformation`` as its remittance text; any other
    record as it is."""
    if "transactionAmount" not in item:
        return item
    record = dict(item)
    for name in ("remittanceInformationStructured", "remittanceInformationStructuredArray"):
        if name in record:
            record[name] = _reference_text(record[name])
    extra = record.get("additionalInformation")
    if _text_in(extra) and not any(_text_in(record.get(k)) for k in _BERLIN_GROUP_TEXTS):
        record["remittanceInformationUnstructured"] = extra
    return record


def _reference_text(value: object) -> object:
    """A structured remittance as text: a string as it is, an object's ``reference``, an
    array's each."""
    if isinstance(value, dict):
        return value.get("reference")
    if isinstance(value, list):
        return [text for v in value if isinstance(text := _reference_text(v), str)]
    return value


def _text_in(value: object) -> bool:
    if isinstance(value, list):
        return any(_text_in(v) for v in value)
    return isinstance(value, str) and bool(value.strip())


def _fio_record(item: dict) -> dict:
    """A Fio banka API record ({"column1": {"value": -4002.0, "name": "Objem", "id": 1},
    "column5": null, ...}) by its columns' names ("Objem", "Datum", "Měna", "ID pohybu"), as
    the bank's CSV heads them, with one text, "Popis": the other party's name, then the
    message for the payee, else the user's identification or note; where there is none
    (credited interest, a fee), the type. Its dates' zone ("2015-02-06+0100") is left off: the
    day is the bank's."""
    named = {}
    for cell in item.values():
        if isinstance(cell, dict) and cell.get("name") and cell.get("value") is not None:
            named[str(cell["name"])] = cell["value"]
    record = {k: v for k, v in named.items() if k in _FIO_KEPT}
    day = record.get("Datum")
    if isinstance(day, str) and len(day) > 10 and day[10] in "+-":
        record["Datum"] = day[:10]
    message = next((str(named[k]) for k in _FIO_MESSAGES if named.get(k)), "")
    party = str(named.get("Název protiúčtu") or "")
    record["Popis"] = " ".join(t for t in (party, message) if t) or named.get("Typ")
    return record


_FIO_KEPT = ("ID pohybu", "Datum", "Objem", "Měna")
_FIO_MESSAGES = ("Zpráva pro příjemce", "Uživatelská identifikace", "Komentář")


def _booking_date(record: dict) -> dict:
    """GoCardless leaves ``bookingDate`` out where the bank gives only the value date (the
    Berlin Group schema makes both optional): a booked record is dated by its ``valueDate``
    then, a day or two off at most, rather than quarantined for want of a date."""
    for booked, value in (("bookingDate", "valueDate"), ("bookingDateTime", "valueDateTime")):
        if not record.get(booked) and record.get(value):
            record[booked] = record[value]
    return record


def _plaid_currency(record: dict) -> dict:
    """Plaid leaves ``iso_currency_code`` null for a currency ISO 4217 lacks (BTC) and names
    it in ``unofficial_currency_code``: the row's currency then, not the default."""
    if not record.get("iso_currency_code") and record.get("unofficial_currency_code"):
        record["iso_currency_code"] = record["unofficial_currency_code"]
    return record


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
        lists = [".".join(p) for p, listed in _object_lists(value, ()) if _transaction_list(listed)]
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
