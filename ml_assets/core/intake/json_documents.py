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
* a JSON array of records.

Which one a file is comes from its content, not its suffix: a file whose first value spans
lines (pretty-printed), or whose only line is an array or one of the shapes above (``curl``
output), is a document; a file of one record per line is JSONL, read line by line so a bad line
never hides the others. The records are taken where these shapes put them, never guessed from
arbitrary structure: a document of another shape is an error naming its keys.

GoCardless' records are the Berlin Group's (NextGenPSD2, which banks' PSD2 APIs return as
well): the remittance text is ``remittanceInformationUnstructured``, or
``remittanceInformationStructured`` (a string, or an object whose ``reference`` is read), or
their ``...Array`` forms; a record with none of these and no party name (a card payment's)
is read by its ``additionalInformation``, given as its remittance text. The document's own
``account`` (``{"iban": ...}``) is each record's ``account_id``, the column_map's account
column where it maps one.

Pending transactions (GoCardless' ``pending`` block, a record with ``"pending": true`` or
``"status": "pending"``) are not final: the bank changes or drops them before booking. They
are counted as not transactions, as a QIF's category list is, never rows; so are Plaid's
``removed`` entries (ids of transactions to delete: a load only adds). Nested objects are
flattened to dotted names (``transactionAmount.amount``) so that column_map can name them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.intake.jsonl_exports import iter_jsonl
from ml_assets.core.intake.records import SchemaError, open_binary

Records = Iterator[tuple[int, dict | SchemaError, bytes]]
SHAPES = {
    "jsonl": "JSONL, one record per line",
    "array": "a JSON array of records",
    "booked_pending": "a GoCardless transactions document: booked read, pending counted",
    "transactions": "a transactions list (Plaid /transactions/get, Monzo's /transactions): "
    "pending counted",
    "sync": "a Plaid /transactions/sync document: added and modified read, pending and "
    "removed counted",
    "fio": "a Fio banka statement (accountStatement.transactionList)",
    "feed_items": "a Starling feed document: settled and refunded items read, the others "
    "(pending, declined, reversed, upcoming) counted",
    "unreadable": "a JSON document that cannot be read",
}
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
    {"transactionAmount.amount": "-12.40"}; lists stay as they are."""
    out: dict = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(flattened(value, f"{name}."))
        else:
            out[name] = value
    return out


_PENDING_FLAGS = ("pending", "is_pending", "isPending")


def is_pending(record: dict) -> bool:
    """A record its API marks as not yet booked: a pending flag (true, or "true" as some
    exports write booleans) or a ``status`` of "pending"."""
    status = record.get("status")
    flagged = any(
        record.get(flag) is True or str(record.get(flag)).strip().lower() == "true"
        for flag in _PENDING_FLAGS
    )
    return flagged or (isinstance(status, str) and status.lower() == "pending")


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
    return None


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
    else:
        blocks = [(k, value.get(k), REMOVED if k == "removed" else None) for k in _SYNC_BLOCKS]
    for name, items, kind in blocks:
        for index, item in enumerate(items or []):
            yield f"{name}[{index}]", item, kind


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
    return JsonExport(shape, _document_records(path, taken, account), paths, skipped)


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
            record = _plaid_currency(flattened(_berlin_group_texts(item)))
        if account and "account_id" not in record:
            record["account_id"] = account
        if where.startswith("transactions.booked["):
            record = _booking_date(record)
        if where.startswith("modified["):  # a newer version of a transaction added before
            record[SUPERSEDES] = True
        yield number, record, raw


def _jsonl_records(path: Path, skipped: list[tuple[int, str]]) -> Records:
    for number, record, raw in iter_jsonl(path):
        if isinstance(record, dict):
            if is_pending(record):
                skipped.append((number, PENDING))
                continue
            record = _plaid_currency(flattened(_berlin_group_texts(record)))
        yield number, record, raw


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
    return SchemaError(
        f"{path}: a JSON document of a shape not read ({found}{nested}); read are a JSON array "
        'of records, GoCardless\' {"transactions": {"booked": [...], "pending": [...]}}, '
        "Plaid's and Monzo's {\"transactions\": [...]}, Plaid's /transactions/sync "
        '{"added": [...], "modified": [...], "removed": [...]}, Starling\'s '
        '{"feedItems": [...]}, Fio banka\'s {"accountStatement": {"transactionList": ...}}: '
        "export the records as JSONL (one object per line) or as a JSON array",
        "unknown_document",
    )
