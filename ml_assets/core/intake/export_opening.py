"""Opening one export file by its format: a table's header, preamble and sniffed settings (what
they say goes to the file's ExportNotes), a statement format's own reader, a JSON file's
records and their decimal mark; and a file that stops being readable part-way, as one
quarantined record naming where.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from ml_assets.core.intake.account_owner import owner_name
from ml_assets.core.intake.amount_text import amount_note, sniff_decimal
from ml_assets.core.intake.bank_formats import iter_ofx
from ml_assets.core.intake.camt053 import iter_camt053
from ml_assets.core.intake.column_names import party_role
from ml_assets.core.intake.csv_exports import CellRow, ColumnMapping, head_lines, iter_csv_rows
from ml_assets.core.intake.export_files import TABLE_FORMATS, FileReading
from ml_assets.core.intake.export_settings import ExportSettings
from ml_assets.core.intake.json_documents import open_json
from ml_assets.core.intake.mt940_exports import iter_mt940
from ml_assets.core.intake.qif import iter_qif
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.sniffing import sniff_delimiter
from ml_assets.core.intake.spreadsheets import open_sheet, sheets_also_fitting
from ml_assets.core.intake.statements import ExportNotes, balance_in
from ml_assets.core.intake.tables import AMOUNT_FIELDS, TableHead, header_names, read_table
from ml_assets.core.intake.yearless_dates import dated_by_title

Records = Iterator[tuple[int, dict | SchemaError, bytes]]
_UNREADABLE = (OSError, EOFError, zlib.error, pl.exceptions.PolarsError)


def _iter_parquet(path: Path) -> Iterator[tuple[int, dict, bytes]]:
    for index, record in enumerate(pl.read_parquet(path).iter_rows(named=True)):
        yield index, record, json.dumps(record, default=str).encode()


def open_export(
    file: Path, fmt: str, settings: ExportSettings, require_id: bool, notes: ExportNotes
) -> tuple[FileReading, Records]:
    """How to read one file, and its records (an unreadable file: one error record)."""
    if fmt in TABLE_FORMATS:
        try:
            return _open_table(file, fmt, settings, require_id, notes)
        except _UNREADABLE as err:
            return FileReading(fmt, {}, None), iter([(1, unreadable(file, 1, err), b"")])
    if fmt == "qif":
        encoding = settings.encoding or "utf-8-sig"
        notes.settings.update(encoding=encoding, date_format=settings.date_format)
        rows = iter_qif(
            file,
            encoding,
            settings.date_format,
            settings.decimal,
            notes.statement_lines,
            notes.warnings,
            notes.balances,
        )
        return FileReading(fmt, {}, None), rows
    if fmt == "mt940":  # states balances the rows are checked against; its text as set
        if settings.encoding:
            notes.settings.update(encoding=settings.encoding)
        rows = iter_mt940(file, settings.encoding, notes.statement_lines, warnings=notes.warnings)
        return FileReading(fmt, {}, None), rows
    if fmt == "camt053":  # states balances the rows are checked against; its text as set
        if settings.encoding:
            notes.settings.update(encoding=settings.encoding)
        return FileReading(fmt, {}, None), iter_camt053(
            file, notes.statement_lines, warnings=notes.warnings, encoding=settings.encoding
        )
    if fmt == "ofx":  # an investment statement's trades are counted, not rows
        return FileReading(fmt, {}, None), iter_ofx(
            file, notes.statement_lines, warnings=notes.warnings
        )
    reading = FileReading(
        fmt, settings.column_map, settings.date_format, spending=settings.spending
    )
    if fmt == "jsonl":  # JSONL, or a JSON document (by its content; core.json_documents)
        try:
            found = open_json(file, notes.statement_lines)
        except _UNREADABLE as err:
            return reading, iter([(1, unreadable(file, 1, err), b"")])
        if found.shape != "jsonl":
            notes.format, notes.unit = "json", "record"
        decimal, records = _record_decimal(found.records, settings)
        return dataclasses.replace(reading, paths=found.paths, decimal=decimal), records
    if fmt != "parquet":
        raise SchemaError(f"{file}: unsupported format {fmt!r}")
    decimal, records = _record_decimal(_iter_parquet(file), settings)
    return dataclasses.replace(reading, place="{file} row {line}", decimal=decimal), records


_DECIMAL_SAMPLE = 200  # records whose text amounts decide the decimal mark, as a CSV's rows


def _record_decimal(records: Records, settings: ExportSettings) -> tuple[str, Records]:
    """The decimal mark of amounts a record export writes as text (an app's "-12,50"): the
    setting, or sniffed from the first records' amount texts; and the records, unconsumed."""
    if settings.decimal != "auto":
        return settings.decimal, records
    head, failed = [], None
    try:  # a file that fails part-way fails where the load iterates, as unsampled
        head.extend(itertools.islice(records, _DECIMAL_SAMPLE))
    except _UNREADABLE as err:
        failed = err
    columns = {k for k, ours in settings.column_map.items() if ours in AMOUNT_FIELDS[:3]}
    texts = [
        value
        for _, record, _ in head
        if isinstance(record, dict)
        for key, value in record.items()
        if isinstance(value, str) and (key in columns or key in AMOUNT_FIELDS[:3])
    ]
    decimal = sniff_decimal(texts)[0] if texts else "."
    return decimal, itertools.chain(head, _raising(failed) if failed else records)


def _raising(err: Exception) -> Records:
    raise err
    yield  # a generator: raises where it is iterated


def _open_table(
    file: Path, fmt: str, settings: ExportSettings, require_id: bool, notes: ExportNotes
) -> tuple[FileReading, Records]:
    mapping = ColumnMapping(settings.csv_preset, settings.column_map, require_id)
    layout = mapping.layout
    if fmt == "csv":
        encoding = settings.encoding or (layout.encoding if layout else "utf-8-sig")
        delimiter = settings.delimiter
        if delimiter == "auto":
            delimiter = sniff_delimiter(head_lines(file, encoding))
        rows = _dated(iter_csv_rows(file, encoding, delimiter), settings, notes)
        table, records = read_table(str(file), rows, mapping, settings, delimiter=delimiter)
        notes.settings.update(encoding=encoding, delimiter=delimiter)
        place = "{file}:{line}"
    else:

        def fits(head: list[CellRow]) -> bool:
            return any(not mapping.problems(header_names(r.cells)) for r in head)

        sheet, rows = open_sheet(file, settings.sheet, fits)
        if settings.sheet is None and sheet is not None:
            for other in sheets_also_fitting(file, sheet, fits):
                notes.warnings.append(
                    f"{file}: {other.describe()}: only sheet {sheet!r} is; save that sheet as "
                    "a file of its own to read its rows too, or set raw_transactions.sheet "
                    "to read it instead"
                )
        where = f"{file} sheet {sheet!r}" if sheet else str(file)
        rows = _dated(rows, settings, notes)
        table, records = read_table(where, rows, mapping, settings, unit="row", pad=True)
        notes.settings["sheet"] = sheet
        notes.unit = "row"
        place = where.replace("{", "{{").replace("}", "}}") + " row {line}"
    _note_table(notes, table)
    notes.place = place.replace("{file}", "{source}")
    amounts = [t for t, ours in table.columns.items() if ours in AMOUNT_FIELDS[:3]]
    records = _noted_amounts(file, records, amounts, notes)
    reading = FileReading(
        fmt, table.columns, table.date_format, table.decimal, layout, settings.spending, place
    )
    return _with_owner(reading, records)


_OWNER_SAMPLE = 200  # rows that name the account's owner, as a CSV's rows its decimal mark


def _with_owner(reading: FileReading, records: Records) -> tuple[FileReading, Records]:
    """The reading with the account's owner, where a payer and a payee column name one on
    nearly every row of the first ones (see core.account_owner); the records, unconsumed."""
    roles = {party_role(name): name for name in reading.parties}
    if set(roles) != {"payer", "payee"}:
        return reading, records
    head, failed = [], None
    try:  # a file that fails part-way fails where the load iterates, as unsampled
        head.extend(itertools.islice(records, _OWNER_SAMPLE))
    except _UNREADABLE as err:
        failed = err
    owner = owner_name((r for _, r, _ in head), roles["payer"], roles["payee"])
    rest = _raising(failed) if failed else records
    return dataclasses.replace(reading, owner=owner), itertools.chain(head, rest)


def _dated(rows: Iterator[CellRow], settings: ExportSettings, notes: ExportNotes) -> Iterator:
    """The rows, their yearless dates dated by the statement's title (see yearless_dates),
    unless a date_format is set: then the cells are read with it, as written."""
    if settings.date_format is not None:
        return rows
    rows, month = dated_by_title(rows)
    if month is not None:
        notes.sniffed["year"] = month.describe(notes.unit)
    return rows


def _noted_amounts(file: Path, records: Records, columns: list[str], notes: ExportNotes) -> Records:
    """The records, unchanged; where amount cells end with a note in parentheses (JD's
    "131.77(已退款89.84)"), read as the figures before it, a warning that says how many and
    shows one, once the file is read."""
    noted, example = 0, None
    for line, record, raw in records:
        if isinstance(record, dict):
            found = [record[c] for c in columns if amount_note(record.get(c)) is not None]
            noted += bool(found)
            example = example or (found[0] if found else None)
        yield line, record, raw
    if noted:
        notes.warnings.append(
            f"{file}: {noted} amount(s) end with a note in parentheses, e.g. {example.strip()!r}: "
            "read as the figures before it, the note dropped (a partial refund's note leaves "
            "the amount first paid)"
        )


def _note_table(notes: ExportNotes, table: TableHead) -> None:
    notes.header_line = table.line
    notes.preamble_lines = (table.line or 1) - 1
    notes.balance_column = next((c for c, ours in table.columns.items() if ours == "balance"), None)
    notes.settings.update(date_format=table.date_format, decimal=table.decimal)
    notes.sniffed.update(table.sniffed)
    for line, cells in table.preamble:
        if (found := balance_in(cells, table.decimal, line)) is not None:
            notes.balances.append(found)


def unreadable(file: Path, line: int, err: Exception) -> SchemaError:
    return SchemaError(
        f"{file}:{line}: the file is not readable from here on ({type(err).__name__}: {err}); "
        "re-download or re-export it",
        "unreadable_file",
    )


def guarded(file: Path, records: Records) -> Records:
    """The file's records; a file that stops being readable part-way (a corrupt gzip stream or
    Parquet footer, an I/O error) ends with one ``unreadable_file`` record naming the line it
    stopped at: the rows before it count, and the load never dies without naming the file."""
    number = 0
    try:
        for number, record, raw in records:
            yield number, record, raw
    except _UNREADABLE as err:
        yield number + 1, unreadable(file, number + 1, err), b""
