"""``python -m ml_assets inspect PATH``: what an export is and how the pipeline would read it,
and the ``raw_transactions:`` settings that read it, ready to paste.

For each file: its format, text encoding and line ends, delimiter, header line and preamble,
the column mapping (a preset that fits, or a guess from the header and the values), date
format, decimal mark, sign convention, whether it has ids and labels, what its balances say,
and five rows read exactly as the load reads them with the settings printed. Every finding is
a YAML comment, so the whole output is a params file:
``python -m ml_assets inspect export.csv > my-params.yaml``. A folder of several banks'
downloads gets one ``exports:`` entry per layout, keyed by a file-name pattern.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

from ml_assets.core.infra.layouts import LABEL_COLUMNS
from ml_assets.core.intake.export_formats import (
    CAMT_MESSAGES,
    STATEMENT_SIGNS,
    TEXT_TABLE_SUFFIXES,
    camt_message,
    content_kind,
    format_by_extension,
    format_of,
    list_input_files,
)
from ml_assets.core.intake.export_settings import READING_KEYS
from ml_assets.core.intake.ingest import TABLE_FORMATS, scan_transactions
from ml_assets.core.intake.inspect_currency import inspect_qif_currency
from ml_assets.core.intake.inspect_dates import inspect_qif_dates, qif_folder_day_first
from ml_assets.core.intake.inspect_records import inspect_records
from ml_assets.core.intake.inspect_report import report  # noqa: F401 - the command's API
from ml_assets.core.intake.inspect_table import inspect_table
from ml_assets.core.intake.inspection import Inspection, inspect_text_encoding
from ml_assets.core.intake.printed_reports import PRINTED_REPORT_ADVICE, printed_report
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.spreadsheets import spreadsheet_kind
from ml_assets.core.intake.unread_statements import unread_statement
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.text.normalize import merchant_key_expr, normalize_expr
from ml_assets.core.training_data.label_placeholders import (
    DEFAULT_PLACEHOLDERS,
    placeholder_phrases,
    unlabel_placeholders,
)
from ml_assets.core.training_data.merchant_spread import CROWDED_ADVICE, merchant_spread

DEFAULT_START = dt.date(2026, 1, 1)  # partitions.start_date's default (params.yaml)


def inspect_path(path: Path) -> list[Inspection]:
    """An inspection of the file, or of each export file in the folder."""
    files = list_input_files(path, "auto")
    day_first = qif_folder_day_first(files)
    return [inspect_file(file, qif_day_first=day_first) for file in files]


# formats no reader here takes, by extension: what to save the file as instead
_SAVE_AS = {
    ".numbers": "a Numbers spreadsheet",
    ".pdf": "a PDF statement",
}


def _unread_kind(file: Path) -> str:
    """Why a file is not read, told by its bytes: a statement format no reader takes (see
    unread_statements), or where its extension is a spreadsheet's or .txt (a bank's "Excel"
    download is often a web page or CSV text, a .txt one a printed report) what it is
    instead; and what to do."""
    unread = unread_statement(file)
    if unread is not None:
        return unread.refusal(file)
    suffix = file.suffix.lower()
    content = content_kind(file) if suffix in TEXT_TABLE_SUFFIXES else None
    if content == "html":
        return (
            f"an HTML table saved as {file.suffix} (a web page, not a spreadsheet) is not read: "
            "open it in a browser or a spreadsheet and save it as CSV"
        )
    if content == "text" and printed_report(file):
        return PRINTED_REPORT_ADVICE
    if content == "text":
        what = "text, not a spreadsheet" if suffix != ".txt" else "text"
        return (
            f"{what}, but no line there is a header over delimited rows that gives a date, an "
            "amount and a description: if it is a table of transactions, rename it to .csv and "
            "inspect it again to be told what is missing"
        )
    kind = _SAVE_AS.get(suffix)
    if kind is not None:
        return f"{kind} ({file.suffix}) is not read: save it as .xlsx or CSV, or download CSV"
    return "not an export by its extension or content; set raw_transactions.format"


def inspect_file(file: Path, qif_day_first: list[str] | None = None) -> Inspection:
    fmt = format_of(file, "auto", strict=False)
    found = Inspection(file, fmt)
    if fmt is None:
        found.error = f"{file}: {_unread_kind(file)}"
        return found
    by_extension = format_by_extension(file)
    gzip = file.suffix.lower() == ".gz"
    shown = "".join(file.suffixes[-2:]) if gzip else file.suffix
    how = f"the extension {shown}" if by_extension == fmt else "its content"
    if by_extension != fmt and fmt == "csv":
        how += f": lines of delimited values under a header, though named {shown}"
    elif by_extension not in (None, fmt) and fmt in STATEMENT_SIGNS:
        how += f": {STATEMENT_SIGNS[fmt]}, though named {shown}"
    message = camt_message(file) if fmt == "camt053" else None
    # (camt053 reads camt.052 and camt.054 too: the fact names the message the file is)
    named = f"{fmt}: a {CAMT_MESSAGES[message]}" if message not in (None, "053") else fmt
    if fmt == "xlsx":  # (xlsx reads the old Excel format and web pages saved as .xls too)
        named = f"{fmt}: {spreadsheet_kind(file)}"
    found.facts.append(("format", f"{named} (by {how})"))
    try:
        if fmt in TABLE_FORMATS:
            inspect_table(found)
        elif fmt == "qif":
            inspect_text_encoding(found)
            inspect_qif_dates(found, qif_day_first or [])
            inspect_qif_currency(found)
        elif fmt in ("jsonl", "parquet"):
            facts, settings = _records_inspected(found)
            if fmt == "jsonl":  # JSONL or a JSON document, by the content
                found.facts.clear()
            found.facts += facts
            found.settings.update(settings)
        found.result = scan_transactions(file, files=[file], **_scan_keys(found.settings))
    except SchemaError as err:
        found.error = str(err)
        return found
    _describe_result(found)
    return found


def _records_inspected(found: Inspection) -> tuple[list[tuple[str, str]], dict[str, object]]:
    """inspect_records' findings and keys; for a JSON document of a shape not read, the
    format found says so (its refusal is raised on), not JSONL by the extension."""
    try:
        return inspect_records(found.file, found.fmt)
    except SchemaError as err:
        if err.reason == "unknown_document":
            found.facts[-1] = ("format", "a JSON document of a shape not read (by its content)")
        raise


def _scan_keys(settings: dict[str, object]) -> dict[str, object]:
    """The scan's keys as the load passes them, so inspect's counts are the load's (its
    description limit included: a 960-character closing notice is quarantined in both)."""
    keys = {k: v for k, v in settings.items() if k in READING_KEYS}
    limit = RawTransactionsParams.model_fields["max_description_chars"].default
    return {**keys, "column_map": keys.get("column_map") or {}, "max_description_chars": limit}


def _describe_result(found: Inspection) -> None:
    """What the settings read: ids, labels, balances, counts, warnings."""
    result = found.result
    notes = result.notes[0] if result.notes else None
    kept = result.kept
    if kept.height:  # of a file with no row read there is nothing to say of ids or labels
        derived = kept["transaction_id"].str.starts_with("d-").all()
        found.facts.append(
            (
                "ids",
                "none: derived (account, day, amount, description)" if derived else "from the file",
            )
        )
        kept_labels, placeholders = unlabel_placeholders(kept, DEFAULT_PLACEHOLDERS)
        labels = [c for c in LABEL_COLUMNS if kept_labels[c].is_not_null().any()]
        said = "".join(
            f"; {phrase} read as no label (transaction_features.no_label_values)"
            for phrase in placeholder_phrases(placeholders)
        )
        found.facts.append(("labels", (", ".join(labels) if labels else "none") + said))
    mapped = found.settings.get("column_map") or {}
    typed = [theirs for theirs, ours in mapped.items() if ours == "transaction_type"]
    if typed and kept.height and kept["transaction_type"].is_not_null().all():
        found.facts.append(
            (
                "types",
                f"{typed[0]!r} is on every row: the bank's own booking type, which the models "
                "learn to predict as transaction_type and the promotion judges as a head; take "
                "it out of column_map to have only your own labels predicted",
            )
        )
    if kept.height:
        found.facts.append(("merchants", merchant_words(kept)))
    if notes is not None:
        _describe_notes(found, notes)
    dropped = f", {result.duplicates} duplicates dropped" if result.duplicates else ""
    found.facts.append(
        (
            "rows",
            f"{result.rows_in} in: {kept.height} kept, {result.quarantined.height} quarantined{dropped}",
        )
    )
    for row in result.quarantined.head(5).iter_rows(named=True):
        found.facts.append(("quarantined", row["detail"]))
    if kept.height and (first := min(kept["posted_date"])) < DEFAULT_START.isoformat():
        found.settings["_start_date"] = first


def merchant_words(kept: pl.DataFrame) -> str:
    """The merchant keys the held-out split will group rows by (as transaction_features
    derives them), and a warning when one holds so many rows that it is no merchant: the
    purpose text's first words (a booking type, a card payment's timestamp) in front."""
    keys = kept.select(
        merchant_key_expr(normalize_expr(pl.col("description")), pl.col("merchant"))
    ).to_series()
    distinct, top, share, crowded = merchant_spread(keys)
    source = (
        "the merchant (or payee) column"
        if kept["merchant"].is_not_null().any()
        else "the description"
    )
    words = (
        f"{distinct} distinct keys from {source} for the held-out split; the largest, "
        f"{top!r}, holds {share:.0%} of rows"
    )
    return words + f": {CROWDED_ADVICE}" if crowded else words


def _describe_notes(found: Inspection, notes) -> None:
    balances = ", ".join(f"{b.kind} {b.amount:,.2f} (line {b.line})" for b in notes.balances)
    if balances:
        found.facts.append(("balances", balances))
    if notes.statement_lines:
        kinds = ", ".join(f"{k} {notes.unit} {n}" for n, k in notes.statement_lines[:5])
        found.facts.append(("not transactions", f"{len(notes.statement_lines)}: {kinds}"))
    if notes.balance_column and notes.balance_steps and not notes.balance_runs:
        found.facts.append(
            ("running balance", f"column {notes.balance_column!r}: none (it does not follow "
             "from the amounts); rows are not checked against it")
        )  # fmt: skip
    elif notes.balance_column:
        repeats = sum(notes.duplicates_same_balance.values())
        found.facts.append(
            ("running balance", f"column {notes.balance_column!r}: {notes.balance_steps - len(notes.breaks)} of "
             f"{notes.balance_steps} steps follow; {repeats} repeat(s) with the same balance dropped")
        )  # fmt: skip
    for warning in notes.warnings:
        found.facts.append(("warning", warning))
