"""Reading transactions: the canonical raw schema, user files with a column map, strict JSONL.

Bad input raises ``SchemaError`` naming the file, the line and the field, never drops a row.
(A quarantine for bad rows is a later design; until then the first bad row stops the run.)
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Iterator
from pathlib import Path

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
_SUFFIX_FORMAT = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
}


class SchemaError(ValueError):
    """A record does not fit the raw schema; the message names file, line and field."""


def list_input_files(path: Path, fmt: str) -> list[Path]:
    if not path.exists():
        raise FileNotFoundError(f"raw_transactions.path {path} does not exist")
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and _format_of(p, fmt, strict=False))
    if not files:
        raise FileNotFoundError(f"{path}: no .jsonl/.csv/.parquet files found (format={fmt})")
    return files


def _format_of(path: Path, fmt: str, strict: bool = True) -> str | None:
    if fmt != "auto":
        return fmt
    found = _SUFFIX_FORMAT.get(path.suffix.lower())
    if found is None and strict:
        raise SchemaError(
            f"{path}: cannot tell the format from the extension; set raw_transactions.format"
        )
    return found


def _coerce_record(record: dict, where: str, date_format: str | None) -> dict:
    """Validate one record (already renamed to our column names) and coerce its types."""
    for field in REQUIRED:
        value = record.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise SchemaError(f"{where}: required field {field!r} is missing or empty")
    out = {name: record.get(name, OPTIONAL_DEFAULTS.get(name)) for name in RAW_SCHEMA}
    out["transaction_id"] = str(out["transaction_id"])
    out["account_id"] = None if out["account_id"] is None else str(out["account_id"])
    amount = out["amount"]
    if isinstance(amount, str):
        cleaned = amount.replace(",", "").replace("$", "").strip()
        if cleaned.startswith("(") and cleaned.endswith(")"):  # accounting negative
            cleaned = "-" + cleaned[1:-1]
        try:
            amount = float(cleaned)
        except ValueError as err:
            raise SchemaError(
                f"{where}: field 'amount' is not a number: {out['amount']!r}"
            ) from err
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
        raise SchemaError(f"{where}: field 'amount' must be a finite number, got {out['amount']!r}")
    out["amount"] = float(amount)
    out["posted_date"] = _parse_date(out["posted_date"], where, date_format)
    if not isinstance(out["description"], str):
        raise SchemaError(
            f"{where}: field 'description' must be a string, got {type(out['description']).__name__}"
        )
    currency = out["currency"] or "USD"
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isalpha()):
        raise SchemaError(
            f"{where}: field 'currency' must be a 3-letter ISO code, got {currency!r}"
        )
    out["currency"] = currency.upper()
    for label in ("merchant", "category", "transaction_type"):
        if out[label] is not None and not isinstance(out[label], str):
            raise SchemaError(f"{where}: field {label!r} must be a string or null")
        if isinstance(out[label], str) and not out[label].strip():
            out[label] = None
    return out


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
        raise SchemaError(f"{where}: field 'posted_date' {text!r} is not a date in {hint}") from err


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Parse JSONL line by line: a bad line is reported with its number, never skipped.

    (polars' NDJSON reader has been reported to drop the rest of a file after some malformed
    lines, so it is not trusted for validation.)"""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                raise SchemaError(
                    f"{path}:{number}: not valid UTF-8 ({err.reason} at byte {err.start})"
                ) from err
            except json.JSONDecodeError as err:
                raise SchemaError(
                    f"{path}:{number}: malformed JSON ({err.msg} at column {err.colno})"
                ) from err
            if not isinstance(record, dict):
                raise SchemaError(
                    f"{path}:{number}: expected a JSON object, got {type(record).__name__}"
                )
            yield number, record


def _iter_records(path: Path, fmt: str) -> Iterator[tuple[str, dict]]:
    if fmt == "jsonl":
        for number, record in iter_jsonl(path):
            yield f"{path}:{number}", record
    elif fmt == "csv":
        frame = pl.read_csv(path, infer_schema=False)  # strings; coercion below names the line
        for index, record in enumerate(frame.iter_rows(named=True)):
            yield f"{path}:{index + 2}", record  # line 1 is the header
    elif fmt == "parquet":
        for index, record in enumerate(pl.read_parquet(path).iter_rows(named=True)):
            yield f"{path} row {index}", record
    else:
        raise SchemaError(f"{path}: unsupported format {fmt!r}")


def read_transactions(
    path: Path,
    fmt: str = "auto",
    column_map: dict[str, str] | None = None,
    date_format: str | None = None,
) -> pl.DataFrame:
    """Read a file or folder of user exports into the canonical raw schema."""
    column_map = column_map or {}
    unknown_targets = sorted(set(column_map.values()) - set(RAW_SCHEMA))
    if unknown_targets:
        raise SchemaError(
            f"column_map maps to unknown columns {unknown_targets}; ours are {list(RAW_SCHEMA)}"
        )
    rows, seen = [], {}
    for file in list_input_files(path, fmt):
        for where, record in _iter_records(file, _format_of(file, fmt)):
            renamed = {column_map.get(key, key): value for key, value in record.items()}
            row = _coerce_record(renamed, where, date_format)
            if row["transaction_id"] in seen:
                raise SchemaError(
                    f"{where}: duplicate transaction_id {row['transaction_id']!r} (first at {seen[row['transaction_id']]})"
                )
            seen[row["transaction_id"]] = where
            rows.append(row)
    return pl.DataFrame(rows, schema=RAW_SCHEMA, orient="row")
