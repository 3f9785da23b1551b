"""``inspect`` for exports read by their column names (JSONL, JSON documents, Parquet): which
JSON shape a file is, a column_map from the names of its records, and the sign convention of
records whose source lists purchases as positive (Plaid's; its ``payment_channel``, online, in
store or other, is the transaction type).

Names already ours stay as they are, unless the column holds no text in the records read (Plaid's
deprecated ``category`` list beside ``personal_finance_category.primary``).

An API's money object gives the amount and the currency: its value (``amount.value``,
``transaction_amount.value``, ``Amount.Amount``) is the amount, its code the currency, never the
other way round. A field whose every value says money in or out (Open Banking's
``CreditDebitIndicator``: Credit, Debit; TrueLayer's ``transaction_type``: CREDIT, DEBIT) signs
unsigned amounts row by row; beside amounts already signed it is not mapped, and a field named
``direction`` that does not agree with every sign (Starling v1's OUTBOUND, INBOUND) is mapped to
the transaction type, so that the load trusts the sign. An API response's amounts are signed
as its API signs them (money out negative, for every API read here): no sign is guessed.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import zlib
from pathlib import Path

import polars as pl

from ml_assets.core.intake.amount_text import amount_or_none
from ml_assets.core.intake.api_records import REMITTANCE_NAMES, looks_like_plaid
from ml_assets.core.intake.column_names import field_of
from ml_assets.core.intake.csv_exports import direction_sign
from ml_assets.core.intake.json_documents import SHAPES, open_json
from ml_assets.core.intake.layout_by_name import columns_by_name
from ml_assets.core.intake.records import RAW_SCHEMA
from ml_assets.core.intake.sign_guess import sign_of

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
    unit = _api_conventions(names, sample, mapping, settings, facts)
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
    elif table and not {"debit", "credit", "direction"} & set(mapping.values()):
        # a table of records, as a CSV's rows: its amounts say its sign (an API's documents
        # follow their API's convention)
        _sign_of_records(sample, mapping, settings, facts)
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
    return facts, settings


def _api_conventions(
    names: list[str], sample: list[dict], mapping: dict, settings: dict, facts: Facts
) -> str | None:
    """What an API's records leave unsaid, in place: Stripe's amounts are cents (the reason,
    returned) and its reporting_category (charge, payout, transfer) the kind its type says,
    not a spending category; Akahu's records name no currency: it reads New Zealand banks."""
    if {"_account", "_connection"} <= set(names) and "currency" not in mapping.values():
        settings["currency"] = "NZD"
        facts.append(("currency", "NZD: Akahu reads New Zealand banks' accounts"))
    if not any(record.get("object") == "balance_transaction" for record in sample):
        return None
    if mapping.get("reporting_category") == "category":
        del mapping["reporting_category"]
    return "Stripe's amounts are whole numbers of the minor unit"


def _sign_of_records(sample: list[dict], mapping: dict, settings: dict, facts: Facts) -> None:
    """``spending: positive`` where the records' amounts show purchases positive, as
    ``sign_of`` reads a CSV's; the finding either way."""
    source = {ours: theirs for theirs, ours in mapping.items()}
    amounts = [r.get(source.get("amount", "amount")) for r in sample]
    texts = [r.get(source.get("description", "description")) for r in sample]
    if not any(a is not None for a in amounts):
        return
    spending, why = sign_of(amounts, texts)
    if spending == "positive":
        settings["spending"] = "positive"
    sign = (
        "purchases positive: flipped" if spending == "positive" else "purchases negative, as ours"
    )
    facts.append(("sign", f"{sign} ({why})"))


# names only Monzo's transactions have beside amount: its amounts are in the minor unit
_MONZO_NAMES = frozenset({"account_balance", "is_load", "settled", "dedupe_id", "local_amount"})


def looks_like_monzo(names: list[str]) -> bool:
    return len(_MONZO_NAMES & set(names)) >= 2


# a name that says its amounts are counted in the currency's minor unit (Starling's minorUnits)
_MINOR_NAME = re.compile(r"minor|cents?\b|pence|_in_cents|incents", re.IGNORECASE)
_MINOR_SAMPLE = 20  # fewer whole amounts than this say nothing


def minor_units_reason(name: str, values: list) -> str | None:
    """Why the amount column looks like whole numbers of the minor unit (Monzo's -399 for
    £3.99), or None: its name says so, or every one of at least 20 amounts read is stored as
    an integer (not text, not a float) and some are 100 or more. An export in the major unit
    writes its cents somewhere: as a float (12.5) or as text ("12.50")."""
    numbers = [v for v in values if v is not None]
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in numbers)
    if numbers and whole and _MINOR_NAME.search(name):
        return f"column {name!r} names the minor unit"
    if len(numbers) >= _MINOR_SAMPLE and whole and any(abs(v) >= 100 for v in numbers):
        return f"every one of the {len(numbers)} amounts read is stored as a whole number"
    return None


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
        if fits and not _usable(ours, names, sample):
            mapping[theirs] = ours
    _money_object(names, mapping)
    _api_names(names, sample, mapping)
    described = [theirs for theirs, ours in mapping.items() if ours == "description"]
    for name in names:
        # the other party; and a text's other form beside it (GoCardless writes one record's
        # remittance as ``remittanceInformationUnstructured``, another's as ``...Array``, a
        # third's as ``remittanceInformationStructured``)
        other_form = any(name.startswith(d) for d in described) or name in REMITTANCE_NAMES
        if name not in mapping and (field_of(name) == "counterparty" or other_form):
            mapping[name] = "description"
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
        if theirs not in names or _usable(ours, names, sample):
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


def direction_of(names: list[str], sample: list[dict], mapping: dict[str, str]) -> str | None:
    """A field that says which way each amount went, mapped to ``direction`` in place where the
    amounts are unsigned; a field named ``direction`` beside signed amounts it does not agree
    with, mapped to ``transaction_type``. What was found, in words, or None."""
    amount = next((t for t, ours in mapping.items() if ours == "amount"), "amount")
    amounts = [amount_or_none(r.get(amount), ".") for r in sample]
    signed = any(a is not None and a < 0 for a in amounts)
    found = _direction_field(names, sample)
    if found is not None and not signed:
        if found != "direction":  # (a field of that name is read as one already)
            mapping[found] = "direction"
        return f"{found} says money in or out of each unsigned amount"
    own = "direction" in names and "direction" not in mapping
    if not (own and signed) or _agrees("direction", amounts, sample):
        return None
    if "transaction_type" in mapping.values() or _usable("transaction_type", names, sample):
        return (
            "the 'direction' field does not agree with the signed amounts, and the load signs "
            "each amount by it: map 'direction' in column_map to another field of ours"
        )
    mapping["direction"] = "transaction_type"
    return "the amounts are signed: 'direction' is read as the transaction type"


def _direction_field(names: list[str], sample: list[dict]) -> str | None:
    """The record's own field (not a nested one: a balance's indicator) whose every value is
    a word of money in or out, both ways among them or words longer than a letter (a column
    of one letter, PayPal's status "S", is no direction); one named for a direction first."""
    found = []
    for name in names:
        words = {str(v).strip().lower() for r in sample if isinstance(v := r.get(name), str)}
        if "." in name or not words or any(direction_sign(w) is None for w in words):
            continue
        both = {direction_sign(w) for w in words} == {-1, 1}
        if both or min(map(len, words)) > 1:
            found.append(name)
    found.sort(key=lambda name: field_of(name) != "direction")
    return found[0] if found else None


def _agrees(name: str, amounts: list[float | None], sample: list[dict]) -> bool:
    """Whether the field says the way of every non-zero amount's sign."""
    for amount, record in zip(amounts, sample, strict=True):
        if amount and direction_sign(record.get(name)) != (1 if amount > 0 else -1):
            return False
    return True


def _usable(ours: str, names: list[str], sample: list[dict]) -> bool:
    """Whether the records' own column of that name gives the field: text or numbers in at
    least one record read (or no records read to say otherwise)."""
    if ours not in names:
        return False
    values = [record.get(ours) for record in sample]
    return not sample or any(v is not None and not isinstance(v, list | dict) for v in values)
