"""Reading transactions: export files of every format (by extension), a column map or CSV
preset, defensive record-by-record parsing, and a quarantine for bad rows.

Every input row ends in exactly one place: kept, quarantined (with the reason, the field and
the source file and line) or dropped as an exact duplicate of a kept row. ``scan_transactions``
returns all three; ``read_transactions`` is the strict form that raises ``SchemaError`` on the
first bad row.

Banks that give no transaction id get a derived one (records.derived_id), counted per file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ml_assets.core.accounting import (  # noqa: F401 - ingest's API
    ORIGIN,
    QUARANTINE_SCHEMA,
    IngestResult,
    quarantine_summary,
)
from ml_assets.core.bank_formats import iter_camt053, iter_mt940, iter_ofx
from ml_assets.core.csv_exports import (
    CsvPreset,
    check_header,
    iter_csv,
    preset,
    signed_amount,
)
from ml_assets.core.jsonl_exports import iter_jsonl
from ml_assets.core.records import (  # RAW_SCHEMA and SchemaError are ingest's API too
    RAW_PREVIEW_CHARS,
    RAW_SCHEMA,
    TRANSACTION_IDS,
    SchemaError,
    coerce_record,
    derived_id,
    identity_key,
    read_validated_jsonl,  # noqa: F401 - ingest's API
)

_SUFFIX_FORMAT = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".ofx": "ofx",
    ".qfx": "ofx",  # Quicken's OFX
    ".xml": "camt053",
    ".sta": "mt940",
    ".mt940": "mt940",
    ".940": "mt940",
}
FORMATS = ("auto", "jsonl", "csv", "parquet", "ofx", "camt053", "mt940")


def list_input_files(path: Path, fmt: str) -> list[Path]:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist; point raw_transactions.path (or batch_predictions.source) "
            "at an export file or a folder of them"
        )
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and format_of(p, fmt, strict=False))
    if not files:
        raise FileNotFoundError(
            f"{path}: no export files found (format={fmt}; by extension: "
            f"{', '.join(sorted(_SUFFIX_FORMAT))}, optionally .gz)"
        )
    return files


def format_of(path: Path, fmt: str, strict: bool = True) -> str | None:
    if fmt != "auto":
        return fmt
    suffixes = [x.lower() for x in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":  # export.jsonl.gz, export.csv.gz
        suffixes = suffixes[:-1]
    found = _SUFFIX_FORMAT.get(suffixes[-1] if suffixes else "")
    if found is None and strict:
        raise SchemaError(
            f"{path}: cannot tell the format from the extension; set raw_transactions.format"
        )
    return found


def _iter_records(
    path: Path, fmt: str, encoding: str, on_header: Callable[[list[str]], None] | None
) -> Iterator[tuple[str, int | None, dict | SchemaError, bytes]]:
    """(where, line, record or error, raw bytes) for every row of one file. A file that
    stops being readable part-way (a corrupt gzip stream or Parquet footer, an I/O error)
    ends with one ``unreadable_file`` row naming the line it stopped at: the rows before it
    count, and the load never dies without naming the file."""
    if fmt == "csv":
        rows = iter_csv(path, encoding, on_header)
    elif fmt == "parquet":
        rows = _iter_parquet(path)
    elif fmt in _READERS:
        rows = _READERS[fmt](path)
    else:
        raise SchemaError(f"{path}: unsupported format {fmt!r}")
    number = 0
    try:
        for number, record, raw in rows:
            where = f"{path} row {number}" if fmt == "parquet" else f"{path}:{number}"
            yield where, number, record, raw
    except (OSError, EOFError, zlib.error, pl.exceptions.PolarsError) as err:
        where = f"{path}:{number + 1}"
        error = SchemaError(
            f"{where}: the file is not readable from here on ({type(err).__name__}: {err}); "
            "re-download or re-export it",
            "unreadable_file",
        )
        yield where, number + 1, error, b""


def _iter_parquet(path: Path) -> Iterator[tuple[int, dict, bytes]]:
    for index, record in enumerate(pl.read_parquet(path).iter_rows(named=True)):
        yield index, record, json.dumps(record, default=str).encode()


_READERS = {"jsonl": iter_jsonl, "ofx": iter_ofx, "camt053": iter_camt053, "mt940": iter_mt940}
STATEMENT_FORMATS = ("ofx", "camt053", "mt940")  # records arrive in our column names


def _row_digest(row: dict) -> str:
    return hashlib.sha256(json.dumps(row, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class _FileReading:
    """How one file's records become rows: its format, our names for its columns, its date
    format and text encoding, and the CSV preset whose sign convention applies."""

    fmt: str
    mapping: dict[str, str]
    date_format: str | None
    encoding: str
    layout: CsvPreset | None  # only for CSV files

    @classmethod
    def of(
        cls,
        file: Path,
        fmt: str,
        csv_preset: str | None,
        column_map: dict[str, str],
        date_format: str | None,
        encoding: str | None,
    ) -> _FileReading:
        if fmt in STATEMENT_FORMATS:  # records arrive in our names, dates as dates
            return cls(fmt, {}, None, encoding or "utf-8-sig", None)
        layout = preset(csv_preset) if fmt == "csv" else None
        return cls(
            fmt,
            {**(layout.columns if layout else {}), **column_map},
            date_format or (layout.date_format if layout else None),
            encoding or (layout.encoding if layout else "utf-8-sig"),
            layout,
        )

    def to_row(
        self,
        record: dict,
        where: str,
        max_description_chars: int | None,
        transaction_ids: str,
        occurrences: Counter,
    ) -> tuple[dict, bool]:
        """The validated row and whether its id was derived (``occurrences`` counts identical
        rows of one account and day in this file, for derived ids)."""
        renamed = {self.mapping.get(key, key): value for key, value in record.items()}
        derive = transaction_ids == "derived" or (
            transaction_ids == "auto" and "transaction_id" not in renamed
        )
        if derive:
            renamed["transaction_id"] = "derived"  # replaced once the row is coerced
        if self.layout is not None:
            renamed["amount"] = signed_amount(renamed, self.layout, where)
        row = coerce_record(
            renamed, where, self.date_format, max_description_chars, self.mapping, record
        )
        if derive:
            identity = identity_key(row)
            row["transaction_id"] = derived_id(row, occurrences[identity])
            occurrences[identity] += 1
        return row, derive


def scan_transactions(
    path: Path,
    fmt: str = "auto",
    column_map: dict[str, str] | None = None,
    date_format: str | None = None,
    max_description_chars: int | None = None,
    files: list[Path] | None = None,
    with_origin: bool = False,
    *,
    transaction_ids: str = "auto",
    csv_preset: str | None = None,
    encoding: str | None = None,
) -> IngestResult:
    """Read a file or folder of exports (or exactly ``files``); every row is kept,
    quarantined or a dropped duplicate. ``with_origin`` adds ``_source``, ``_line`` and
    ``_derived`` to the kept rows (for deduplicating across files later).

    ``transaction_ids``: ``column`` requires the export's id; ``derived`` always derives one
    (``derived_id``); ``auto`` derives it for records that have no id field at all.
    ``csv_preset`` names an issuer layout (csv_exports.CSV_PRESETS) for CSV files; ``column_map``
    and ``date_format`` override its entries. Statement formats (OFX, CAMT.053, MT940) arrive
    in our column names and ignore both."""
    column_map = column_map or {}
    unknown_targets = sorted(set(column_map.values()) - set(RAW_SCHEMA))
    if unknown_targets:
        raise SchemaError(
            f"column_map maps to unknown columns {unknown_targets}; ours are {list(RAW_SCHEMA)}"
        )
    if transaction_ids not in TRANSACTION_IDS:
        raise SchemaError(
            f"transaction_ids must be one of {TRANSACTION_IDS}, got {transaction_ids!r}"
        )
    preset(csv_preset)  # an unknown name fails before any file is read
    rows, rejects, seen, duplicates, rows_in = [], [], {}, 0, 0
    reasons: Counter = Counter()
    duplicate_dates: Counter = Counter()

    def reject(file: Path, line, error: SchemaError, raw: bytes) -> None:
        reasons[error.reason] += 1
        rejects.append(
            {
                "source": str(file),
                "line": line,
                "reason": error.reason,
                "field": error.field,
                "detail": str(error),
                "raw": raw[:RAW_PREVIEW_CHARS].decode("utf-8", errors="replace").rstrip("\n"),
                "raw_bytes": len(raw),
            }
        )

    for file in files if files is not None else list_input_files(path, fmt):
        reading = _FileReading.of(
            file, format_of(file, fmt), csv_preset, column_map, date_format, encoding
        )
        on_header = functools.partial(
            check_header,
            file,
            column_map=column_map,
            chosen=csv_preset,
            require_id=transaction_ids == "column",
        )
        occurrences: Counter = Counter()  # identical rows of one account and day, in this file
        for where, line, record, raw in _iter_records(
            file, reading.fmt, reading.encoding, on_header
        ):
            rows_in += 1
            if isinstance(record, SchemaError):
                reject(file, line, record, raw)
                continue
            try:
                row, derive = reading.to_row(
                    record, where, max_description_chars, transaction_ids, occurrences
                )
            except SchemaError as err:
                reject(file, line, err, raw)
                continue
            key, digest = row["transaction_id"], _row_digest(row)
            if key in seen:
                first_where, first_digest = seen[key]
                if digest == first_digest:
                    duplicates += 1
                    duplicate_dates[row["posted_date"]] += 1
                else:
                    reject(
                        file,
                        line,
                        SchemaError(
                            f"{where}: duplicate transaction_id {key!r} with different content "
                            f"(first at {first_where})",
                            "conflicting_duplicate_id",
                            "transaction_id",
                        ),
                        raw,
                    )
                continue
            seen[key] = (where, digest)
            if with_origin:
                row["_source"], row["_line"], row["_derived"] = str(file), line, derive
            rows.append(row)
    return IngestResult(
        kept=pl.DataFrame(
            rows, schema={**RAW_SCHEMA, **(ORIGIN if with_origin else {})}, orient="row"
        ),
        quarantined=pl.DataFrame(rejects, schema=QUARANTINE_SCHEMA, orient="row"),
        duplicates=duplicates,
        rows_in=rows_in,
        reasons=reasons,
        duplicate_dates=duplicate_dates,
    )


def read_transactions(
    path: Path,
    fmt: str = "auto",
    column_map: dict[str, str] | None = None,
    date_format: str | None = None,
) -> pl.DataFrame:
    """Strict: the rows of a clean export; the first bad or duplicated row raises SchemaError."""
    result = scan_transactions(path, fmt, column_map, date_format)
    if result.quarantined.height:
        first = result.quarantined.row(0, named=True)
        raise SchemaError(first["detail"], first["reason"], first["field"])
    if result.duplicates:
        raise SchemaError(
            f"{path}: {result.duplicates} duplicate transaction_id row(s); "
            "use source: files (quarantine) to drop exact repeats"
        )
    return result.kept
