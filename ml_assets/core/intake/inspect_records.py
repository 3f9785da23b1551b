"""``inspect`` for exports read by their column names (JSONL, JSON documents, Parquet): which
JSON shape a file is, a column_map from the names of its records, and the sign convention of
records whose source lists purchases as positive (Plaid's; its ``payment_channel``, online, in
store or other, is the transaction type).

Names already ours stay as they are, unless the column holds no text in the records read (Plaid's
deprecated ``category`` list beside ``personal_finance_category.primary``).
"""

from __future__ import annotations

import contextlib
import itertools
import re
import zlib
from pathlib import Path

import polars as pl

from ml_assets.core.intake.column_names import field_of
from ml_assets.core.intake.json_documents import (
    REMITTANCE_NAMES,
    SHAPES,
    looks_like_plaid,
    open_json,
)
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
        shape, sample = _json_sample(file)
        facts.append(("format", f"{SHAPES[shape]} (by its content)"))
        names = list(dict.fromkeys(name for record in sample for name in record))
    if shape == "feed_items":
        mapping = {theirs: ours for theirs, ours in STARLING_MAP.items() if theirs in names}
    else:
        mapping = column_map_of(names, sample)
    if looks_like_plaid(names) and "payment_channel" in names:
        # Plaid's own ``transaction_type`` (special, place, ...) is deprecated for this field
        mapping["payment_channel"] = "transaction_type"
    if mapping:
        settings["column_map"] = mapping
        pairs = ", ".join(f"{theirs} -> {ours}" for theirs, ours in mapping.items())
        facts.append(("columns", f"{pairs} (from the names)"))
    table = fmt == "parquet" or shape in ("jsonl", "array")
    if looks_like_plaid(names):
        settings["spending"] = "positive"
        facts.append(("sign", "purchases positive: flipped (Plaid's amount is money out)"))
    elif table and not {"debit", "credit", "direction"} & set(mapping.values()):
        # a table of records, as a CSV's rows: its amounts say its sign (an API's documents
        # follow their API's convention)
        _sign_of_records(sample, mapping, settings, facts)
    amount = next((theirs for theirs, ours in mapping.items() if ours == "amount"), "amount")
    why = minor_units_reason(amount, [record.get(amount) for record in sample])
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


def _json_sample(file: Path) -> tuple[str, list[dict]]:
    """A JSON file's shape and its first records (those read before a file that stops being
    readable stops: the load names where)."""
    sample: list[dict] = []
    try:
        found = open_json(file)
        with contextlib.closing(found.records):  # (a sample: the file is closed before its end)
            for _, record, _ in itertools.islice(found.records, SAMPLE_RECORDS):
                if isinstance(record, dict):
                    sample.append(record)
    except (OSError, EOFError, zlib.error):
        return "unreadable", sample
    return found.shape, sample


def column_map_of(names: list[str], sample: list[dict]) -> dict[str, str]:
    """Their name -> ours by the names banks, warehouses and APIs use (``memo``, ``booked_at``,
    ``txn_id``, ``transactionAmount.amount``); the other party (a creditor on debits, a debtor
    on credits) and a purpose text are both the description; a merchant name is the
    description where nothing else is."""
    mapping: dict[str, str] = {}
    for theirs, ours in columns_by_name(names).items():
        if theirs != ours and ours in RAW_SCHEMA and not _usable(ours, names, sample):
            mapping[theirs] = ours
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


def _usable(ours: str, names: list[str], sample: list[dict]) -> bool:
    """Whether the records' own column of that name gives the field: text or numbers in at
    least one record read (or no records read to say otherwise)."""
    if ours not in names:
        return False
    values = [record.get(ours) for record in sample]
    return not sample or any(v is not None and not isinstance(v, list | dict) for v in values)
