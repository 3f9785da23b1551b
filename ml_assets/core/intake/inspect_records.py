"""``inspect`` for exports read by their column names (JSONL, JSON documents, Parquet): which
JSON shape a file is, a column_map from the names of its records, and the sign convention of
records whose source lists purchases as positive (Plaid's; its ``payment_channel``, online, in
store or other, is the transaction type).

Names already ours stay as they are, unless the column holds no text in the records read (Plaid's
deprecated ``category`` list beside ``personal_finance_category.primary``). An id column empty
on every record read (Enable Banking's ``reference_number``) is no id: the ids are derived.

An API's money object gives the amount and the currency: its value (``amount.value``,
``transaction_amount.value``, ``Amount.Amount``) is the amount, its code the currency, never the
other way round. A direction field signs unsigned amounts (see ``record_signs``). An API
response's amounts are signed as its API signs them (money out negative, for every API read
here but Plaid's and Lunch Money's): no sign is guessed. What the records leave unsaid of their
units, currency and dates is ``record_conventions``'.
"""

from __future__ import annotations

import contextlib
import itertools
import zlib
from pathlib import Path

import polars as pl

from ml_assets.core.intake.api_records import REMITTANCE_NAMES, looks_like_plaid
from ml_assets.core.intake.column_names import field_of
from ml_assets.core.intake.json_documents import open_json
from ml_assets.core.intake.json_shapes import SHAPES
from ml_assets.core.intake.layout_by_name import columns_by_name
from ml_assets.core.intake.record_conventions import (
    api_conventions,
    currency_of_records,
    date_format_of,
    looks_like_monzo,
    minor_units_reason,
)
from ml_assets.core.intake.record_signs import app_sign, direction_of, sign_of_records, usable
from ml_assets.core.intake.records import RAW_SCHEMA

# Starling's feed items: the uid is the id (its "reference" is the payment's text, read after
# the other party's name), categoryUid a savings space's id, spendingCategory the label; the
# unsigned minorUnits are signed by "direction" (IN, OUT), a field of ours
STARLING_MAP = {
    "feedItemUid": "transaction_id",
    "transactionTime": "posted_date",
    "amount.minorUnits": "amount",
    "amount.currency": "currency",
    "counterPartyName": "description",
    "reference": "description",
    "spendingCategory": "category",
}
# bank-data APIs' record keys that the names banks give their columns do not cover, or name
# for another field: these win over a guess by the names
API_NAMES = {
    "timestamp": "posted_date",  # TrueLayer
    "transaction_initiation_date": "posted_date",  # PayPal
    "dates.booked": "posted_date",  # Tink
    "TransactionInformation": "description",  # Open Banking UK
    "transaction_subject": "description",  # PayPal
    "descriptions.original": "description",  # Tink (its "display" is a cleaned-up name)
    "relationships.account.data.id": "account_id",  # Up (JSON:API relationships)
    "relationships.category.data.id": "category",
}
# TrueLayer's (told by its timestamp beside them): its transaction_category is the kind of
# transaction (PURCHASE, ATM, BILL_PAYMENT), its transaction_classification the label
TRUELAYER_NAMES = {
    "transaction_category": "transaction_type",
    "transaction_classification": "category",
}
# a money object's value and its currency code (Up's amount.currencyCode, PayPal's
# transaction_amount.currency_code, Open Banking's Amount.Currency)
_VALUE_KEYS = ("value", "amount", "Amount")
_CURRENCY_KEYS = ("currency", "currencyCode", "currency_code", "Currency")
SAMPLE_RECORDS = 200  # an API's records leave out the keys they have no value for
Facts = list[tuple[str, str]]


def inspect_records(file: Path, fmt: str) -> tuple[Facts, dict[str, object]]:
    """Findings and reading keys for a JSONL, JSON or Parquet file (a JSON file's first
    finding is its format, JSONL or which document). Raises SchemaError for a JSON document
    of a shape not read."""
    facts: Facts = []
    settings: dict[str, object] = {}
    shape = fmt  # (a JSON file's is read from it)
    if fmt == "parquet":
        sample = pl.read_parquet(file, n_rows=SAMPLE_RECORDS).to_dicts()
        names = list(pl.read_parquet_schema(file))
    else:
        shape, sample, listed = _json_sample(file)
        where = f", {listed}" if listed else ""
        facts.append(("format", f"{SHAPES[shape]}{where} (by its content)"))
        names = list(dict.fromkeys(name for record in sample for name in record))
    if shape == "feed_items":
        mapping = {theirs: ours for theirs, ours in STARLING_MAP.items() if theirs in names}
    else:
        mapping = column_map_of(names, sample)
        if found := direction_of(names, sample, mapping):
            facts.append(("direction", found))
    unit = api_conventions(names, sample, mapping, settings, facts)
    if looks_like_plaid(names) and "payment_channel" in names:
        # Plaid's own ``transaction_type`` (special, place, ...) is deprecated for this field
        mapping["payment_channel"] = "transaction_type"
    if mapping:
        settings["column_map"] = mapping
        pairs = ", ".join(f"{theirs} -> {ours}" for theirs, ours in mapping.items())
        facts.append(("columns", f"{pairs} (from the names)"))
    table = fmt == "parquet" or shape in ("jsonl", "array")  # (an envelope is an API's)
    if looks_like_plaid(names):
        settings["spending"] = "positive"
        facts.append(("sign", "purchases positive: flipped (Plaid's amount is money out)"))
    elif {"debit", "credit", "direction"} & set(mapping.values()):
        pass  # (signed by their columns)
    elif not app_sign(names, sample, mapping, settings, facts) and table:
        # a table of records, as a CSV's rows: its amounts say its sign (an API's documents
        # follow their API's convention)
        sign_of_records(sample, mapping, settings, facts)
    amount = next((theirs for theirs, ours in mapping.items() if ours == "amount"), "amount")
    why = minor_units_reason(amount, [record.get(amount) for record in sample]) or unit
    if shape == "transactions" and looks_like_monzo(names):
        facts[0] = ("format", "a transactions list (Monzo's /transactions) (by its content)")
        whole = [
            v for r in sample if isinstance(v := r.get(amount), int) and not isinstance(v, bool)
        ]
        if why is None and whole:  # (however few: Monzo counts every amount in pennies)
            why = "Monzo's amounts are whole numbers of the minor unit"
    if why is not None:
        settings["amount_unit"] = "minor"
        facts.append(("amounts", f"{why}: read as the currency's minor unit (cents, pence)"))
    if shape != "feed_items":  # (Starling's feed names its currency on every item)
        currency_of_records(names, sample, mapping, settings, facts)
        date_format_of(sample, mapping, settings, facts)
    return facts, settings


def _json_sample(file: Path) -> tuple[str, list[dict], str]:
    """A JSON file's shape, its first records (those read before a file that stops being
    readable stops: the load names where) and, for an API response, where its records are."""
    sample: list[dict] = []
    try:
        found = open_json(file)
        with contextlib.closing(found.records):  # (a sample: the file is closed before its end)
            for _, record, _ in itertools.islice(found.records, SAMPLE_RECORDS):
                if isinstance(record, dict):
                    sample.append(record)
    except (OSError, EOFError, zlib.error):
        return "unreadable", sample, ""
    return found.shape, sample, found.listed


def column_map_of(names: list[str], sample: list[dict]) -> dict[str, str]:
    """Their name -> ours by the names banks, warehouses and APIs use (``memo``, ``booked_at``,
    ``txn_id``, ``transactionAmount.amount``); the other party (a creditor on debits, a debtor
    on credits) and a purpose text are both the description; a merchant name is the
    description where nothing else is."""
    mapping: dict[str, str] = {}
    for theirs, ours in columns_by_name(names).items():
        fits = theirs != ours and ours in RAW_SCHEMA and _holds_values(theirs, names, sample)
        if fits and not usable(ours, names, sample):
            mapping[theirs] = ours
    _money_object(names, mapping)
    _api_names(names, sample, mapping)
    described = [theirs for theirs, ours in mapping.items() if ours == "description"]
    for name in names:
        # the other party; and a text's other form beside it (GoCardless writes one record's
        # remittance as ``remittanceInformationUnstructured``, another's as ``...Array``, a
        # third's as ``remittanceInformationStructured``); a purpose beside the record's own
        # description (monobank's ``comment``), joined after it
        other_form = any(name.startswith(d) for d in described) or name in REMITTANCE_NAMES
        purpose = field_of(name) == "purpose" and _holds_values(name, names, sample)
        if name not in mapping and (field_of(name) == "counterparty" or other_form or purpose):
            mapping[name] = "description"
    for theirs in [t for t, ours in mapping.items() if ours == "transaction_id"]:
        if sample and all(record.get(theirs) in (None, "") for record in sample):
            del mapping[theirs]  # (no id on any record read: the ids are derived)
    if "description" not in {*mapping.values(), *names}:
        merchant = next((theirs for theirs, ours in mapping.items() if ours == "merchant"), None)
        if merchant is not None:
            mapping[merchant] = "description"
    return mapping


def _api_names(names: list[str], sample: list[dict], mapping: dict[str, str]) -> None:
    """API_NAMES (and TrueLayer's) in place: over a guess by the names, and over another
    column guessed for the same field (a description's texts are joined: it keeps those)."""
    known = dict(API_NAMES)
    if {"timestamp", "transaction_category"} <= set(names):
        known.update(TRUELAYER_NAMES)
    for theirs, ours in known.items():
        mapping.pop(theirs, None)
        if theirs not in names or usable(ours, names, sample):
            continue
        if ours != "description":
            for other in [t for t, o in mapping.items() if o == ours]:
                del mapping[other]
        mapping[theirs] = ours


def _holds_values(name: str, names: list[str], sample: list[dict]) -> bool:
    """Whether a column holds a value a field can take: text, a number, a list of texts
    (PayPal's ``cart_info.item_details``, a list of objects, holds none; nor does Up's
    ``relationships.category.data``, null where it is not an object of ``.id`` and ``.type``)."""
    if any(other.startswith(f"{name}.") for other in names):
        return False
    values = [record.get(name) for record in sample if record.get(name) is not None]
    return not values or any(
        not isinstance(v, list | dict)
        or (isinstance(v, list) and all(isinstance(i, str) for i in v))
        for v in values
    )


def _money_object(names: list[str], mapping: dict[str, str]) -> None:
    """The transaction's money object (the shallowest whose name is an amount's: ``amount``,
    ``transaction_amount``, ``Amount``; not ``fee_amount``, ``Balance.Amount``) as the amount
    and the currency, in place; a currency code is never the amount."""
    for theirs in [t for t, ours in mapping.items() if ours == "amount"]:
        if theirs.rpartition(".")[2] in _CURRENCY_KEYS:
            del mapping[theirs]
    objects = [
        (prefix, name)
        for name in names
        for prefix, _, key in [name.rpartition(".")]
        if prefix and key in _VALUE_KEYS and field_of(prefix.rpartition(".")[2]) == "amount"
    ]
    if not objects:
        return
    prefix, value = min(objects, key=lambda found: found[0].count("."))
    currency = next((f"{prefix}.{c}" for c in _CURRENCY_KEYS if f"{prefix}.{c}" in names), None)
    ours_too = {"amount", "currency"} if currency else {"amount"}
    for theirs in [t for t, ours in mapping.items() if ours in ours_too]:
        if theirs not in (value, currency):  # (those stay where they are: the file's order)
            del mapping[theirs]
    mapping[value] = "amount"
    if currency is not None:
        mapping[currency] = "currency"
