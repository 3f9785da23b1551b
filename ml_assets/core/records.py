"""What every export reader shares: the error a bad row or file raises, opening (optionally
gzip-compressed) files, and reading an amount the way banks print it."""

from __future__ import annotations

import gzip
import math
from pathlib import Path
from typing import BinaryIO

# One row as a reader hands it over: (line, the record or why it is not one, its raw bytes).
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
    """A finite float from a number or a string such as ``$1,234.50`` or ``(12.00)``
    (accounting negative); ``field`` names the column in the error."""
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
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
        raise SchemaError(
            f"{where}: field {field!r} must be a finite number, got {value!r}",
            "bad_amount",
            "amount",
        )
    return float(amount)
