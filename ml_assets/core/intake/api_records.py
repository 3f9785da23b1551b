"""A bank-data API's record as a row's record: read as its API writes it, with what its
fields mean made plain.

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
  "stripe fee"); its amounts are cents (``inspect`` sets ``amount_unit: minor``);
* Plaid's currency ISO 4217 lacks (``unofficial_currency_code``) is the row's currency;
* a Fio banka record (each field a ``columnN`` with its name and value) is read by its
  columns' names, as the bank's CSV heads them.

GoCardless' records are the Berlin Group's (NextGenPSD2, which banks' PSD2 APIs return as
well): the remittance text is ``remittanceInformationUnstructured``, or
``remittanceInformationStructured`` (a string, or an object whose ``reference`` is read), or
their ``...Array`` forms; a record with none of these and no party name (a card payment's)
is read by its ``additionalInformation``, given as its remittance text. A booked record
without a ``bookingDate`` is dated by its ``valueDate``.

Which records are no booked transaction (pending, scheduled, denied, deleted) is
``api_record_states``'s; amounts and times some apps write in a unit of their own (YNAB's
milliunits, monobank's Unix seconds) are made plain by ``api_units``. Nested objects are
flattened to dotted names (``transactionAmount.amount``) so that column_map can name them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

from ml_assets.core.intake.api_record_states import PENDING
from ml_assets.core.intake.api_units import in_plain_units

# an object that holds a record's own fields (JSON:API's resource attributes, PayPal's)
_FIELD_OBJECTS = ("attributes", "transaction_info")
# names only Plaid's records have beside transaction_id: its amounts are positive for money out
PLAID_NAMES = frozenset(
    {"iso_currency_code", "personal_finance_category.primary", "payment_channel"}
)
# the Berlin Group's remittance texts: the unstructured one, and the structured reference (a
# creditor's RF reference, an order number) that some banks give instead
REMITTANCE_NAMES = (
    "remittanceInformationUnstructured",
    "remittanceInformationUnstructuredArray",
    "remittanceInformationStructured",
    "remittanceInformationStructuredArray",
)
_BERLIN_GROUP_TEXTS = ("creditorName", "debtorName", *REMITTANCE_NAMES)


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


def looks_like_plaid(names: list[str]) -> bool:
    """Whether records with these (flattened) names are Plaid's, whose ``amount`` is positive
    for money leaving the account."""
    return "transaction_id" in names and bool(PLAID_NAMES & set(names))


def rows_of(where: str, item: object, kind: str | None) -> Iterator[tuple[str, object, str | None]]:
    """One record's rows: the record with its fields lifted (``lifted``), or a row per leg
    of a transaction with legs (Revolut Business), each at its path (``[2].legs[1]``)."""
    if not isinstance(item, dict):
        yield where, item, kind
        return
    item = lifted(item)
    legs = item.get("legs")
    if not (isinstance(legs, list) and legs and all(isinstance(leg, dict) for leg in legs)):
        yield where, item, kind
        return
    kind = kind or _state_kind(item)
    for index, leg in enumerate(legs):
        yield f"{where}.legs[{index}]", _leg_record(item, leg, index, len(legs)), kind


def lifted(item: dict) -> dict:
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


def api_record(item: dict, milliunits: bool = False) -> dict:
    """A bank-data API's record, flattened, with its texts and codes made plain (see the
    module docstring); ``milliunits``: the file's YNAB amounts are (see api_units)."""
    record = _plaid_currency(flattened(_berlin_group_texts(in_plain_units(item, milliunits))))
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


def fio_record(item: dict) -> dict:
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


def with_booking_date(record: dict) -> dict:
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
