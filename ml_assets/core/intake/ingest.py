"""Reading transactions: export files of every format (by extension, or by content where a
file's extension hides a text table or a statement), a column map or CSV preset, defensive record-by-record parsing, and a quarantine for bad rows.

Every input row ends in exactly one place: kept, quarantined (with the reason, the field and
the source file and line) or dropped as a duplicate (an exact repeat of a kept row, or a repeat
of a row with the same running balance). ``scan_transactions`` returns all three, and per file
what the export said beyond its rows (preamble, balances, balance breaks; core.statements);
``read_transactions`` is the strict form that raises ``SchemaError`` on the first bad row.
Lines that are not rows (a preamble above the header, a balance line, a totals row) are
counted in those notes, never as rows.

Banks that give no transaction id get a derived one (records.derived_id), counted per file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ml_assets.core.intake.accounting import (  # noqa: F401 - ingest's API
    ORIGIN,
    QUARANTINE_SCHEMA,
    IngestResult,
    quarantine_summary,
)
from ml_assets.core.intake.amount_text import amount_or_none
from ml_assets.core.intake.column_names import INTAKE_FIELDS
from ml_assets.core.intake.csv_exports import preset
from ml_assets.core.intake.export_files import (
    STATEMENT_FORMATS,  # noqa: F401 - ingest's API
    TABLE_FORMATS,
    FileReading,
    continue_chain,
    note_balance,
    note_statement_line,
)
from ml_assets.core.intake.export_formats import format_of, list_input_files
from ml_assets.core.intake.export_opening import guarded, open_export
from ml_assets.core.intake.export_settings import ExportSettings
from ml_assets.core.intake.json_documents import SUPERSEDES
from ml_assets.core.intake.minor_units import to_major_units
from ml_assets.core.intake.records import (  # RAW_SCHEMA and SchemaError are ingest's API too
    RAW_PREVIEW_CHARS,
    RAW_SCHEMA,
    TRANSACTION_IDS,
    SchemaError,
    read_validated_jsonl,  # noqa: F401 - ingest's API
)
from ml_assets.core.intake.statements import (
    ExportNotes,
    RunningBalance,
    balance_in_its_column,
    check_balances,
    statement_line,
)


def _row_digest(row: dict) -> str:
    return hashlib.sha256(json.dumps(row, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class ScanResult(IngestResult):
    """An IngestResult with what each export said beyond its rows (core.statements)."""

    notes: list[ExportNotes] = field(default_factory=list)


class _Tally:
    """Every row of a scan in exactly one place: kept, quarantined or a dropped duplicate."""

    def __init__(self, with_origin: bool):
        self.with_origin = with_origin
        self.rows: list[dict] = []
        self.rejects: list[dict] = []
        self.seen: dict[str, tuple[str, str]] = {}
        self.index: dict[str, int] = {}  # transaction_id -> its place in rows
        self.rows_in = self.duplicates = 0
        self.reasons: Counter = Counter()
        self.duplicate_dates: Counter = Counter()

    def reject(self, file: Path, line: int | None, error: SchemaError, raw: bytes) -> None:
        self.reasons[error.reason] += 1
        self.rejects.append(
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

    def duplicate(self, posted_date: str) -> None:
        self.duplicates += 1
        self.duplicate_dates[posted_date] += 1

    def keep(
        self,
        file: Path,
        line: int,
        where: str,
        row: dict,
        derived: bool,
        raw: bytes,
        supersedes: bool = False,
    ) -> bool:
        """Keep the row unless its id was seen: with the same content a dropped duplicate,
        with other content a quarantined conflict, unless the row ``supersedes`` the kept one
        (Plaid's ``modified``): then it takes its place and the old version is the dropped
        duplicate."""
        key, digest = row["transaction_id"], _row_digest(row)
        if key in self.seen and supersedes and digest != self.seen[key][1]:
            index = self.index[key]
            self.duplicate(self.rows[index]["posted_date"])
            self.seen[key] = (where, digest)
            self._origin(row, file, line, derived)
            self.rows[index] = row
            return True
        if key in self.seen:
            first_where, first_digest = self.seen[key]
            if digest == first_digest:
                self.duplicate(row["posted_date"])
            else:
                error = SchemaError(
                    f"{where}: duplicate transaction_id {key!r} with different content "
                    f"(first at {first_where})",
                    "conflicting_duplicate_id",
                    "transaction_id",
                )
                self.reject(file, line, error, raw)
            return False
        self.seen[key] = (where, digest)
        self._origin(row, file, line, derived)
        self.index[key] = len(self.rows)
        self.rows.append(row)
        return True

    def _origin(self, row: dict, file: Path, line: int, derived: bool) -> None:
        if self.with_origin:
            row["_source"], row["_line"], row["_derived"] = str(file), line, derived

    def result(self, notes: list[ExportNotes]) -> ScanResult:
        return ScanResult(
            kept=pl.DataFrame(
                self.rows,
                schema={**RAW_SCHEMA, **(ORIGIN if self.with_origin else {})},
                orient="row",
            ),
            quarantined=pl.DataFrame(self.rejects, schema=QUARANTINE_SCHEMA, orient="row"),
            duplicates=self.duplicates,
            rows_in=self.rows_in,
            reasons=self.reasons,
            duplicate_dates=self.duplicate_dates,
            notes=notes,
        )


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
    delimiter: str = "auto",
    decimal: str = "auto",
    header_line: int | None = None,
    spending: str | None = None,
    sheet: str | None = None,
    currency: str | None = None,
    amount_unit: str = "major",
    exports: dict[str, dict] | None = None,
) -> ScanResult:
    """Read a file or folder of exports (or exactly ``files``); every row is kept,
    quarantined or a dropped duplicate. ``with_origin`` adds ``_source``, ``_line`` and
    ``_derived`` to the kept rows (for deduplicating across files later).

    ``transaction_ids``: ``column`` requires the export's id; ``derived`` always derives one
    (``derived_id``); ``auto`` derives it for records that have no id field at all.
    The reading keys (``csv_preset``, ``column_map``, ``date_format``, ``encoding``,
    ``delimiter``, ``decimal``, ``header_line``, ``spending``, ``sheet``, ``currency``,
    ``amount_unit``; see core.export_settings) apply to CSV and spreadsheet files (``column_map``, ``date_format``
    and ``spending`` to JSON and Parquet records too), ``exports`` replaces them per
    file-name pattern; statement formats (OFX, CAMT.053, MT940) arrive in our column names."""
    base = ExportSettings(
        csv_preset,
        column_map or {},
        date_format,
        encoding,
        delimiter,
        decimal,
        header_line,
        spending,
        sheet,
        currency,
        amount_unit,
    )
    _check_settings(base, exports or {})
    if transaction_ids not in TRANSACTION_IDS:
        raise SchemaError(
            f"transaction_ids must be one of {TRANSACTION_IDS}, got {transaction_ids!r}"
        )
    tally, notes = _Tally(with_origin), []
    for file in files if files is not None else list_input_files(path, fmt):
        settings = base.for_file(file, exports)
        notes.append(
            _scan_file(
                file, format_of(file, fmt), settings, tally, transaction_ids, max_description_chars
            )
        )
    return tally.result(notes)


def _check_settings(base: ExportSettings, exports: dict[str, dict]) -> None:
    """Unknown column_map targets and preset names fail before any file is read."""
    for keys in [vars(base), *exports.values()]:
        targets = set((keys.get("column_map") or {}).values())
        unknown = sorted(targets - set(RAW_SCHEMA) - set(INTAKE_FIELDS))
        if unknown:
            raise SchemaError(
                f"column_map maps to unknown columns {unknown}; ours are {list(RAW_SCHEMA)}, "
                f"and {', '.join(INTAKE_FIELDS)} (read, not stored)"
            )
        preset(keys.get("csv_preset"))


def _scan_file(
    file: Path,
    fmt: str,
    settings: ExportSettings,
    tally: _Tally,
    transaction_ids: str,
    max_description_chars: int | None,
) -> ExportNotes:
    """Every record of one file into the tally; what the file said beyond its rows, checked
    against them, into its notes."""
    notes = ExportNotes(str(file), fmt)
    reading, records = open_export(file, fmt, settings, transaction_ids == "column", notes)
    scan = _FileScan(file, reading, tally, notes, transaction_ids, max_description_chars)
    held = []  # repeats of a row with the same running balance, judged at the end
    for line, record, raw in guarded(file, records):
        if isinstance(record, SchemaError):
            tally.rows_in += 1
            scan.reject(line, record, raw)
            continue
        renamed = reading.renamed(record)
        if settings.currency and not renamed.get("currency"):
            renamed["currency"] = settings.currency  # the file's, where it names none
        if fmt in TABLE_FORMATS and (kind := statement_line(renamed)):
            note_statement_line(notes, scan.chain, line, kind, renamed, reading)
            continue
        if fmt in TABLE_FORMATS and (
            stated := balance_in_its_column(record, reading.decimal, line)
        ):
            notes.statement_lines.append((line, "balance"))
            note_balance(notes, scan.chain, stated)
            continue
        tally.rows_in += 1
        if settings.amount_unit == "minor" and fmt not in STATEMENT_FORMATS:
            try:
                to_major_units(renamed, reading.where(file, line))
            except SchemaError as err:
                scan.reject(line, err, raw)
                continue
        repeat = reading.repeat_key(record, renamed)
        if repeat is not None and repeat in scan.repeats:
            held.append((line, record, raw, renamed, scan.repeats[repeat]))
            continue
        scan.take(line, record, raw, renamed, repeat)
    # a repeat is an export glitch only where the column is a running balance: in a column
    # that stays put (an account's available balance) two identical coffees are two
    running = scan.chain.runs()
    for line, record, raw, renamed, day in held:
        if running:
            tally.duplicate(day)
            notes.duplicates_same_balance[day] += 1
        else:
            scan.take(line, record, raw, renamed, None)
    check_balances(notes, scan.chain, scan.booked, scan.quarantined)
    return notes


class _FileScan:
    """One file's rows into the tally, with what the balance checks need."""

    def __init__(
        self,
        file: Path,
        reading: FileReading,
        tally: _Tally,
        notes: ExportNotes,
        transaction_ids: str,
        max_description_chars: int | None,
    ):
        self.file, self.reading, self.tally, self.notes = file, reading, tally, notes
        self.transaction_ids, self.max_chars = transaction_ids, max_description_chars
        self.occurrences: Counter = Counter()  # identical rows of one account and day
        self.repeats: dict[tuple, str] = {}  # rows with a running balance -> their posted day
        self.chain, self.quarantined = RunningBalance(), []
        self.booked: list[tuple[int, float]] = []  # (line, amount) of every kept row

    def reject(self, line: int, error: SchemaError, raw: bytes) -> None:
        self.tally.reject(self.file, line, error, raw)
        self.quarantined.append(line)

    def take(self, line: int, record: dict, raw: bytes, renamed: dict, repeat: tuple | None):
        where = self.reading.where(self.file, line)
        supersedes = bool(renamed.pop(SUPERSEDES, False))
        # a fee charged beside the amount moves the running balance too, never the amount
        cell = renamed.pop("fee", None)  # (parsed only where a column is mapped to it)
        fee = 0.0 if cell is None else abs(amount_or_none(cell, self.reading.decimal) or 0.0)
        try:
            row, derived, balance = self.reading.to_row(
                renamed, where, self.max_chars, self.transaction_ids, self.occurrences, record
            )
        except SchemaError as err:
            self.reject(line, err, raw)
            continue_chain(self.chain, self.reading, line, renamed)
            return
        if not self.tally.keep(self.file, line, where, row, derived, raw, supersedes):
            return
        self.booked.append((line, row["amount"]))
        if repeat is not None:
            self.repeats[repeat] = row["posted_date"]
        if balance is not None:
            self.chain.add(line, row["posted_date"], row["amount"] - fee, balance)


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
