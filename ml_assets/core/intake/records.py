"""One record: the raw schema every source is converted to, the error a bad row or file
raises, validating and coercing a record, and the id derived for a row the bank gave none.
Every export reader shares these."""

from __future__ import annotations

import datetime as dt
import decimal
import gzip
import hashlib
import json
import math
from pathlib import Path
from typing import BinaryIO

import polars as pl

# The raw form every source is converted to (and the JSONL that raw_transactions writes).
RAW_SCHEMA: dict[str, pl.DataType] = {
    "transaction_id": pl.Utf8(),
    "account_id": pl.Utf8(),
    "posted_date": pl.Utf8(),
    "amount": pl.Float64(),
    "currency": pl.Utf8(),
    "description": pl.Utf8(),
    "merchant": pl.Utf8(),  # optional: a merchant name from the bank or an enrichment provider
    "category": pl.Utf8(),
    "transaction_type": pl.Utf8(),
}
REQUIRED = ("transaction_id", "posted_date", "amount", "description")
OPTIONAL_DEFAULTS = {
    "merchant": None,
    "account_id": None,
    "currency": "USD",
    "category": None,
    "transaction_type": None,
}
RAW_PREVIEW_CHARS = 2000  # a quarantined row keeps this much of its raw text (1 MB rows exist)


class SchemaError(ValueError):
    """A record does not fit the raw schema; the message names file, line and field.

    ``reason`` is a short code for the quarantine report (e.g. ``bad_date``)."""

    def __init__(self, message: str, reason: str = "invalid", field: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.field = field


def open_binary(path: Path) -> BinaryIO:
    """Plain or gzip-compressed (by the .gz suffix), read as bytes."""
    return gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb")  # noqa: SIM115


def parse_amount(value: object, where: str, field: str = "amount") -> float:
    """A finite float from a number (a ``Decimal`` too) or a string such as ``$1,234.50`` or
    ``(12.00)`` (accounting negative); ``field`` names the column in the error."""
    amount = value
    if isinstance(value, str):
        cleaned = value.replace(",", "").replace("$", "").strip()
        if cleaned.startswith("(") and cleaned.endswith(")"):
            cleaned = "-" + cleaned[1:-1]
        try:
            amount = float(cleaned)
        except ValueError as err:
            raise SchemaError(
                f"{where}: field {field!r} is not a number: {value!r}", "bad_amount", "amount"
            ) from err
    if isinstance(amount, decimal.Decimal):  # a warehouse's NUMERIC / decimal128 column
        amount = float(amount)
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
        raise SchemaError(
            f"{where}: field {field!r} must be a finite number, got {value!r}",
            "bad_amount",
            "amount",
        )
    return float(amount)


DERIVED_ID_PREFIX = "d-"  # derived ids are recognizable in the data and in quarantine reports
TRANSACTION_IDS = ("auto", "column", "derived")


def derived_id(row: dict, occurrence: int) -> str:
    """A stable id for a row the bank gave none: sha256 of account, day, amount in cents and
    the whitespace-collapsed, upper-cased description, plus the row's occurrence number among
    identical rows of the same account and day in its file (0 for the first)."""
    key = identity_key(row)
    digest = hashlib.sha256(json.dumps([*key, occurrence]).encode()).hexdigest()
    return DERIVED_ID_PREFIX + digest[:24]


def identity_key(row: dict) -> tuple[str, str, int, str]:
    description = " ".join(str(row["description"]).split()).upper()
    cents = round(float(row["amount"]) * 100)
    return (row.get("account_id") or "", row["posted_date"], cents, description)


def coerce_record(
    record: dict,
    where: str,
    date_format: str | None,
    max_description_chars: int | None = None,
    column_map: dict[str, str] | None = None,
    original: dict | None = None,
) -> dict:
    """Validate one record (already renamed to our column names) and coerce its types.
    ``column_map`` and the ``original`` record only make error messages name the source."""
    for name in REQUIRED:
        value = record.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise SchemaError(
                f"{where}: required field {name!r} is "
                f"{'empty' if name in record else 'missing'}"
                f"{_missing_hint(name, record, column_map, original)}",
                "missing_field",
                name,
            )
    out = {name: record.get(name, OPTIONAL_DEFAULTS.get(name)) for name in RAW_SCHEMA}
    out["transaction_id"] = str(out["transaction_id"])
    out["account_id"] = None if out["account_id"] is None else str(out["account_id"])
    out["amount"] = parse_amount(out["amount"], where)
    out["posted_date"] = _parse_date(out["posted_date"], where, date_format)
    if not isinstance(out["description"], str):
        raise SchemaError(
            f"{where}: field 'description' must be a string, got {type(out['description']).__name__}",
            "bad_type",
            "description",
        )
    if max_description_chars and len(out["description"]) > max_description_chars:
        raise SchemaError(
            f"{where}: field 'description' has {len(out['description'])} characters "
            f"(limit {max_description_chars}, raw_transactions.max_description_chars)",
            "description_too_long",
            "description",
        )
    currency = out["currency"] or "USD"
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isalpha()):
        raise SchemaError(
            f"{where}: field 'currency' must be a 3-letter ISO code, got {currency!r}",
            "bad_currency",
            "currency",
        )
    out["currency"] = currency.upper()
    for label in ("merchant", "category", "transaction_type"):
        if out[label] is not None and not isinstance(out[label], str):
            raise SchemaError(
                f"{where}: field {label!r} must be a string or null", "bad_type", label
            )
        if isinstance(out[label], str) and not out[label].strip():
            out[label] = None
    return out


def _missing_hint(
    name: str, record: dict, column_map: dict[str, str] | None, original: dict | None
) -> str:
    """For a field that is not there at all: the mapped source column and the keys found; a
    statement format's record (``column_map`` None) lacks it in the file itself. For a blank
    description: the columns it is made of, and why the row is not kept without it."""
    if name in record:
        if name != "description" or not column_map:
            return ""
        sources = [src for src, ours in column_map.items() if ours == name]
        blank = f" ({', '.join(map(repr, sources))} blank on this line)" if sources else ""
        return f"{blank}: a row without text has nothing to categorize"
    if column_map is None:
        return "; the file's record has none: fix or remove the record in the file"
    sources = [src for src, ours in column_map.items() if ours == name]
    mapped = f" (column_map maps {sources[0]!r} -> {name!r})" if sources else ""
    found = sorted(original or record)
    return f"{mapped}; the record has {found}; fix raw_transactions.column_map or csv_preset"


def _parse_date(value: object, where: str, date_format: str | None) -> str:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip()
    try:
        if date_format:
            return dt.datetime.strptime(text, date_format).date().isoformat()
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError as err:
        hint = (
            f"format {date_format!r}"
            if date_format
            else "ISO YYYY-MM-DD (set raw_transactions.date_format otherwise)"
        )
        raise SchemaError(
            f"{where}: field 'posted_date' {text!r} is not a date in {hint}",
            "bad_date",
            "posted_date",
        ) from err


def read_validated_jsonl(path: Path) -> pl.DataFrame:
    """Read JSONL that ``raw_transactions`` wrote (already validated, sha256-verified) in one
    vectorized pass. The row count is checked against the file's lines, so a reader that
    stopped early can never lose rows silently."""
    frame = pl.read_ndjson(path, schema=RAW_SCHEMA)
    with open(path, "rb") as handle:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 24), b""))
    if frame.height != lines:
        raise SchemaError(
            f"{path}: read {frame.height} rows from {lines} lines; the file is not ours"
        )
    return frame
