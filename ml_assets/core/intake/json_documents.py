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
* the Berlin Group's card-account transactions ``{"cardTransactions": {"booked": [...],
  "pending": [...]}}``, an array of accounts each with its ``transactions`` (Afterbanks'), and
  a GraphQL list of edges (Copilot Money's ``{"edges": [{"node": {...}}]}``): see
  ``json_shapes``;
* a JSON array of records.

Which one a file is comes from its content, not its suffix: a file whose first value spans
lines (pretty-printed), or whose only line is an array or one of the shapes above (``curl``
output), is a document; a file of one record per line is JSONL, read line by line so a bad line
never hides the others. The records are taken where these shapes put them: a document with no
such list, or with several lists of transaction-like objects (which one is the account's
cannot be told), is an error naming its keys (and, for an account's balances without
transactions, saying so).

A record is read as its API writes it, with what its fields mean made plain (see
``api_records``: fields lifted, Revolut's legs one row each, Monzo's merchant ids, Stripe's
times, the Berlin Group's remittance texts). The document's own ``account`` (``{"iban": ...}``)
of a GoCardless document is each record's ``account_id``, the column_map's account column
where it maps one.

Pending transactions (GoCardless' ``pending`` block, a record its API marks pending: see
``api_record_states``) are not final: the bank changes or drops them before booking. They
are counted as not transactions, as a QIF's category list is, never rows; so are scheduled,
cancelled, rejected and deleted records, and Plaid's ``removed`` entries (ids of
transactions to delete: a load only adds). Nested objects are
flattened to dotted names (``transactionAmount.amount``) so that column_map can name them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.intake.api_record_states import not_booked
from ml_assets.core.intake.api_records import api_record, fio_record, rows_of, with_booking_date
from ml_assets.core.intake.api_units import YNAB_NAMES, of_family, ynab_milliunits
from ml_assets.core.intake.json_envelopes import (
    envelope_path,
    envelope_words,
    transaction_lists,
    value_at,
)
from ml_assets.core.intake.json_shapes import BOOKED_PENDING, account_of, positions, shape_of
from ml_assets.core.intake.jsonl_exports import iter_jsonl
from ml_assets.core.intake.records import SchemaError, open_binary

Records = Iterator[tuple[int, dict | SchemaError, bytes]]
SUPERSEDES = "_supersedes"  # marks a record that replaces a kept one of its id
_LATER_LINES = 50  # lines looked at to tell a JSONL file with a bad first line from a document
_BOM = b"\xef\xbb\xbf"
# the key paths of a booked/pending document's booked records (their rows' day is the booking day)
_BOOKED_BLOCKS = tuple(f"{key}.booked[" for key in BOOKED_PENDING.values())


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
        if not more and shape_of(value) is not None:
            return _document(path, value, skipped)
        if not more and isinstance(value, dict) and _balances_only(value):
            raise _unknown(path, value)  # (a document on one line, of no transactions)
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
    if value is None or shape_of(value) is None:
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


def _document(path: Path, value: object, skipped: list[tuple[int, str]]) -> JsonExport:
    shape = shape_of(value)
    found = list(positions(value, shape))
    taken = []
    for number, (where, item, kind) in enumerate(found, start=1):
        if kind is None and isinstance(item, dict):
            kind = not_booked(item)
        if kind is not None:
            skipped.append((number, kind))
        else:
            taken.append((number, where, item))
    paths = tuple(where for where, _, _ in found)
    account = account_of(value, shape)
    records = _document_records(path, taken, account)
    listed = envelope_words(envelope_path(value)) if shape == "envelope" else ""
    return JsonExport(shape, records, paths, skipped, listed)


def _document_records(
    path: Path, taken: list[tuple[int, str, object]], account: str | None = None
) -> Records:
    milliunits = ynab_milliunits(item for _, _, item in taken)
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
            record = api_record(item, milliunits)
        if account and "account_id" not in record:
            record["account_id"] = account
        if where.startswith(_BOOKED_BLOCKS):
            record = with_booking_date(record)
        if where.startswith("modified["):  # a newer version of a transaction added before
            record[SUPERSEDES] = True
        yield number, record, raw


def _jsonl_records(path: Path, skipped: list[tuple[int, str]]) -> Records:
    milliunits = _jsonl_milliunits(path)
    for number, record, raw in iter_jsonl(path):
        if not isinstance(record, dict):
            yield number, record, raw
            continue
        for _, item, kind in rows_of("", record, None):
            kind = kind or not_booked(item)
            if kind is not None:
                skipped.append((number, kind))
            else:
                yield number, api_record(item, milliunits), raw


def _jsonl_milliunits(path: Path) -> bool:
    """Whether a JSONL file's YNAB records write milliunits (see api_units): the file is read
    a second time only where its first record is YNAB's."""
    records = (record for _, record, _ in iter_jsonl(path))
    first = next(records, None)
    if not (isinstance(first, dict) and of_family(first, YNAB_NAMES)):
        return False
    return ynab_milliunits(itertools.chain([first], records))


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
        if len(lists) > 1
        else ""
    )
    if not lists and isinstance(value, dict):
        several = _balances_only(value)
    return SchemaError(
        f"{path}: a JSON document of a shape not read ({found}{nested}{several}); read are a "
        'JSON array of records, GoCardless\' {"transactions": {"booked": [...], "pending": '
        "[...]}} (a card account's {\"cardTransactions\": ...}), Plaid's and Monzo's "
        '{"transactions": [...]}, Plaid\'s /transactions/sync '
        '{"added": [...], "modified": [...], "removed": [...]}, Starling\'s '
        '{"feedItems": [...]}, Fio banka\'s {"accountStatement": {"transactionList": ...}}, '
        "an array of accounts each with its transactions, "
        "and an API response with one list of objects that have a date and an amount: "
        "export the records as JSONL (one object per line) or as a JSON array",
        "unknown_document",
    )


def _balances_only(document: dict) -> str:
    """What a document without transactions holds instead, where it is an account's
    balances (a Berlin Group response that lists its transactions in a file to download)."""
    if not isinstance(document.get("balances"), list):
        return ""
    said = "; it holds the account's balances ('balances'), no transactions"
    download = value_at(document, ("_links", "download"))
    if download:
        said += ": its _links.download names the file of the transactions; download that file"
    return said
