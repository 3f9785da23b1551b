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

import contextlib
import datetime as dt
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ml_assets.core.intake.csv_exports import CellRow, head_lines, iter_csv_rows
from ml_assets.core.intake.currency_clues import currency_named, currency_pointed_to
from ml_assets.core.intake.export_settings import READING_KEYS
from ml_assets.core.intake.ingest import (
    TABLE_FORMATS,
    TEXT_TABLE_SUFFIXES,
    ScanResult,
    content_kind,
    format_by_extension,
    format_of,
    list_input_files,
    scan_transactions,
)
from ml_assets.core.intake.inspect_records import inspect_records
from ml_assets.core.intake.inspect_report import report  # noqa: F401 - the command's API
from ml_assets.core.intake.layout_guess import LayoutGuess, guess_layout, matching_preset
from ml_assets.core.intake.layout_refusal import no_layout_error
from ml_assets.core.intake.qif import date_order, day_first_format, file_dates
from ml_assets.core.intake.records import SchemaError, currency_note, open_binary
from ml_assets.core.intake.sign_guess import choose_sign
from ml_assets.core.intake.sniffing import (
    SwappedOrder,
    day_first,
    detect_encoding,
    sniff_date_format,
    sniff_decimal,
    sniff_delimiter,
    swapped_order,
)
from ml_assets.core.intake.spreadsheets import number_formats, open_sheet
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.text.normalize import merchant_key_expr, normalize_expr
from ml_assets.core.training_data.merchant_spread import CROWDED_ADVICE, merchant_spread

SAMPLE_ROWS = 250
DEFAULT_START = dt.date(2026, 1, 1)  # partitions.start_date's default (params.yaml)


@dataclass
class Inspection:
    """One file's findings (label, text), the reading keys that read it, and what they read;
    ``confirm`` holds, by setting, the value inspect chose from hints and what to check of
    it (a comment behind that line of the printed settings)."""

    file: Path
    fmt: str | None
    facts: list[tuple[str, str]] = field(default_factory=list)
    settings: dict[str, object] = field(default_factory=dict)
    confirm: dict[str, tuple[object, str]] = field(default_factory=dict)
    result: ScanResult | None = None
    error: str | None = None


def inspect_path(path: Path) -> list[Inspection]:
    """An inspection of the file, or of each export file in the folder."""
    files = list_input_files(path, "auto")
    day_first = _qif_folder_day_first(files)
    return [inspect_file(file, qif_day_first=day_first) for file in files]


def _qif_folder_day_first(files: list[Path]) -> list[str]:
    """The QIF files of a folder whose dates show the day first, where none shows the month
    first: one bank's other downloads, whose dates all read both ways (every day up to the
    12th), are then read day-first too."""
    orders = {}
    for file in files:
        if format_of(file, "auto", strict=False) == "qif":
            orders[file.name] = date_order(file_dates(file, _text_encoding(file)))
    found = set(orders.values()) - {None}
    return [name for name, order in orders.items() if order == "day"] if found == {"day"} else []


def _text_encoding(file: Path) -> str:
    with open_binary(file) as handle:
        return detect_encoding(handle.read(1 << 16))[0]


# formats no reader here takes, by extension: what to save the file as instead
_SAVE_AS = {
    ".xls": "the old Excel format",
    ".ods": "an OpenDocument spreadsheet",
    ".numbers": "a Numbers spreadsheet",
    ".pdf": "a PDF statement",
}


def _unread_kind(file: Path) -> str:
    """Why a file is not read, told by its bytes where its extension is a spreadsheet's or
    .txt (a bank's "Excel" download is often a web page or CSV text), and what to do."""
    suffix = file.suffix.lower()
    content = content_kind(file) if suffix in TEXT_TABLE_SUFFIXES else None
    if content == "html":
        return (
            f"an HTML table saved as {file.suffix} (a web page, not a spreadsheet) is not read: "
            "open it in a browser or a spreadsheet and save it as CSV"
        )
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
    found.facts.append(("format", f"{fmt} (by {how})"))
    try:
        if fmt in TABLE_FORMATS:
            _inspect_table(found)
        elif fmt == "qif":
            _inspect_text_encoding(found)
            _inspect_qif_dates(found, qif_day_first or [])
        elif fmt in ("jsonl", "parquet"):
            facts, settings = inspect_records(file, fmt)
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


def _scan_keys(settings: dict[str, object]) -> dict[str, object]:
    """The scan's keys as the load passes them, so inspect's counts are the load's (its
    description limit included: a 960-character closing notice is quarantined in both)."""
    keys = {k: v for k, v in settings.items() if k in READING_KEYS}
    limit = RawTransactionsParams.model_fields["max_description_chars"].default
    return {**keys, "column_map": keys.get("column_map") or {}, "max_description_chars": limit}


def _inspect_text_encoding(found: Inspection) -> None:
    with open_binary(found.file) as handle:
        head = handle.read(1 << 16)
    encoding, why = detect_encoding(head)
    ends = "CRLF" if b"\r\n" in head else "LF"
    found.facts.append(("encoding", f"{encoding}: {why}; {ends} line ends"))
    if encoding not in ("utf-8", "utf-8-sig"):
        found.settings["encoding"] = encoding


def _inspect_qif_dates(found: Inspection, day_first_files: list[str]) -> None:
    """Which comes first in the file's dates, and ``date_format`` where only the folder's
    other files can tell."""
    dates = file_dates(found.file, str(found.settings.get("encoding", "utf-8-sig")))
    order = date_order(dates)
    if not dates:
        return
    if order is not None:
        found.facts.append(("dates", f"{order} first (as the dates that read one way show)"))
        return
    if any("." in d for d in dates):  # (as the reader takes them)
        found.facts.append(("dates", "every date reads both ways: day first, as dotted dates are"))
        return
    shown_by = [name for name in day_first_files if name != found.file.name]
    pattern = day_first_format(dates) if shown_by else None
    if pattern is not None:
        found.settings["date_format"] = pattern
        found.facts.append(
            ("dates", f"every date reads both ways; day first, as {shown_by[0]} shows: {pattern}")
        )
    else:
        found.facts.append(
            ("dates", "every date reads both ways: month first, as Quicken (US); set "
             "date_format (e.g. '%d/%m/%Y') if this bank writes the day first")
        )  # fmt: skip


def _inspect_table(found: Inspection) -> None:
    """Header, columns, dates, decimal mark and sign of a CSV or spreadsheet, from its rows."""
    file = found.file
    if found.fmt == "csv":
        _inspect_text_encoding(found)
        encoding = str(found.settings.get("encoding", "utf-8-sig"))
        delimiter = sniff_delimiter(head_lines(file, encoding))
        found.facts.append(("delimiter", repr(delimiter)))
        if delimiter != ",":
            found.settings["delimiter"] = delimiter
        cells = iter_csv_rows(file, encoding, delimiter)
    else:
        sheet, cells = open_sheet(file, None, lambda c: guess_layout([_row(c)]) is not None)
        found.facts.append(("sheet", repr(sheet)))
        if sheet is not None:
            found.settings["sheet"] = sheet
        delimiter = None
    with contextlib.closing(cells):  # (a sample: the file is closed before it is read to the end)
        rows = list(itertools.islice(cells, SAMPLE_ROWS))
    errors = [r.cells for r in rows if isinstance(r.cells, SchemaError)]
    if errors and len(errors) == len(rows):
        raise errors[0]  # unreadable, or not in this encoding: say so, not "no header"
    guess = guess_layout(rows)
    if guess is None:
        raise no_layout_error(file, rows, "line" if found.fmt == "csv" else "row")
    read = [r for r in rows if not isinstance(r.cells, SchemaError)]
    body = [r for r in read if r.line > guess.line]
    _describe_header(found, guess, rows)
    _choose_reading(found, guess, read, body, delimiter)


def _currency_formatted(
    found: Inspection, guess: LayoutGuess, positions: dict, source: dict
) -> tuple[str, str] | None:
    """The one currency the amount cells' number format writes (a spreadsheet's numbers are
    bare, the ``£`` or ``€`` is in their format)."""
    columns = [positions[source[f]] for f in ("amount", "debit", "credit") if f in source]
    formats = number_formats(found.file, str(found.settings["sheet"]), columns, guess.line)
    named = currency_named(formats, [])
    if named is None:
        return None
    example = next(f for f in formats if (one := currency_named([f], [])) and one[0] == named[0])
    return named[0], f"the amount cells' number format, e.g. {example!r}"


def _row(cells: list) -> CellRow:
    return CellRow(1, cells, b"")


def _describe_header(found: Inspection, guess: LayoutGuess, rows: list) -> None:
    if guess.line == 0:
        found.facts.append(("header", "none: the first line is a transaction"))
        found.settings["header_line"] = 0
        return
    unit = "row" if found.fmt == "xlsx" else "line"
    found.facts.append(("header", f"{unit} {guess.line}: {' | '.join(guess.header)}"))
    above = guess.line - 1
    if above:
        shown = [
            " ".join(dict.fromkeys(str(c).strip() for c in r.cells if str(c).strip()))
            for r in rows
            if r.line < guess.line
        ]  # (a merged cell's text is read into each cell it spans: shown once)
        found.facts.append(
            ("preamble", f"{above} {unit}s above the header (not transactions): {shown[:6]}")
        )


def _choose_reading(
    found: Inspection, guess: LayoutGuess, read: list, body: list, delimiter: str | None
) -> None:
    """Decimal mark, currency, date format, sign and preset or column_map for the settings,
    from the rows below the header (``body``) and, for the currency, every row ``read``."""
    positions = {name: i for i, name in enumerate(guess.header)}
    source = {ours: theirs for theirs, ours in guess.columns.items()}
    amounts = [
        r.cells[positions[source[f]]]
        for r in body
        for f in ("amount", "debit", "credit", "balance")
        if f in source and positions[source[f]] < len(r.cells)
    ]
    decimal, why = sniff_decimal([a for a in amounts if isinstance(a, str)], delimiter)
    _choose_currency(found, guess, amounts, read)
    _note_currency_codes(found, guess, body)
    found.facts.append(("amounts", f"decimal {'comma' if decimal == ',' else 'point'} ({why})"))
    if decimal == ",":
        found.settings["decimal"] = ","
    signs = _day_first_signs(found, guess, body, decimal, delimiter)
    dates = _date_texts(guess, body)
    date_format, ties, why = _sniff_dates(dates, signs)
    choose_sign(guess, body, decimal)
    guess.preset = matching_preset(guess, date_format)
    swapped = swapped_order(dates, date_format, ties) if date_format else None
    if swapped is not None and guess.preset is None:  # (a preset fixes its bank's order)
        _doubt_date_order(found, date_format, swapped, signs)
    else:
        shown = date_format or "ISO (YYYY-MM-DD or YYYYMMDD) or date cells"
        found.facts.append(("dates", f"{shown} ({why})"))
    if guess.preset is not None:
        found.settings["csv_preset"] = guess.preset
        found.facts.append(("columns", f"csv_preset {guess.preset} fits the header and the sign"))
    else:
        found.settings["column_map"] = dict(guess.columns)
        mapped = ", ".join(f"{t} -> {o}" for t, o in guess.columns.items())
        found.facts.append(("columns", f"{mapped} ({guess.why['columns']})"))
        if date_format is not None:
            found.settings["date_format"] = date_format
        if guess.spending == "positive":
            found.settings["spending"] = "positive"
    sign = (
        "purchases negative, as ours"
        if guess.spending == "negative"
        else "purchases positive: flipped"
    )
    found.facts.append(("sign", f"{sign} ({guess.why['sign']})"))


def _choose_currency(found: Inspection, guess: LayoutGuess, amounts: list, read: list) -> None:
    """``currency`` for the settings where the file has no currency column: the one its
    amounts or their columns' names write, else the one its account numbers point to (see
    currency_pointed_to). Where nothing does, the rows are USD, and the findings say so."""
    source = {ours: theirs for theirs, ours in guess.columns.items()}
    amount_names = [source[f] for f in ("amount", "debit", "credit") if f in source]
    if "currency" in source and currency_named([], amount_names) is not None:
        # the amount column names its currency (monobank's "Сума в валюті картки (UAH)"): a
        # currency column beside it is another amount's (the operation's, EUR for a purchase
        # abroad), not this one's
        del guess.columns[source.pop("currency")]
    if "currency" in source:
        return
    named = currency_named(amounts, amount_names)
    if named is None and found.fmt == "xlsx" and found.settings.get("sheet"):
        positions = {name: i for i, name in enumerate(guess.header)}
        named = _currency_formatted(found, guess, positions, source)
    if named is not None:
        found.settings["currency"], said = named
        found.facts.append(("currency", f"{found.settings['currency']} ({said})"))
        return
    pointed = currency_pointed_to(read, guess.header)
    if pointed is not None:
        code, said = pointed
        found.settings["currency"] = code
        found.facts.append(
            ("currency", f"{code}, as {said} shows (the file writes no currency): confirm it")
        )
        found.confirm["currency"] = (code, f"from {said}: confirm it")
        return
    # said, so a franc or krone account is not read as dollars without a word
    found.facts.append(
        ("currency", "none in the file: USD unless raw_transactions.currency says so: every "
         "row is read as USD; set currency (e.g. currency: EUR) for an account in another")
    )  # fmt: skip


# the words of English column names for a date, an amount or a text: a name with another word
# ("Buchungstag", "Importe", "Libellé") is a sign of a European bank, which writes the day first
_ENGLISH = (
    "date dates posted post posting booking booked transaction transactions trans txn value "
    "amount amounts description details detail narrative memo name payee merchant text "
    "reference particulars desc debit debits credit credits withdrawal withdrawals deposit "
    "deposits money in out paid outflow inflow sum time timestamp created at of the payment "
    "purpose subject reason note notes original converted total net local card operation "
    "activity entry effective settlement settled processed partner counterparty"
)
_ENGLISH_WORDS = frozenset(_ENGLISH.split())


def _day_first_signs(
    found: Inspection, guess: LayoutGuess, body: list, decimal: str, delimiter: str | None
) -> list[str]:
    """What in the file points to a European bank, which writes the day first: a decimal
    comma, a ';' separator, column names in another language than English, a currency other
    than the dollar."""
    signs = []
    if decimal == ",":
        signs.append("the decimal comma")
    if delimiter == ";":
        signs.append("the ';' separator")
    keys = ("posted_date", "amount", "debit", "credit", "description")
    names = [theirs for theirs, ours in guess.columns.items() if ours in keys]
    foreign = [n for n in names if not set(re.findall(r"[^\W\d_]+", n.lower())) <= _ENGLISH_WORDS]
    if foreign:
        signs.append(f"the column name {foreign[0]!r}")
    currency = found.settings.get("currency") or _currency_column_code(guess, body)
    if currency is not None and currency != "USD":
        signs.append(f"the currency {currency}")
    return signs


def _note_currency_codes(found: Inspection, guess: LayoutGuess, body: list) -> None:
    """What the load does with the codes of the currency column that are not ISO 4217's
    current ones: an old name read as its code (RMB as CNY), a withdrawn or unknown code
    kept as written (see records.currency_note)."""
    column = next(
        (i for i, n in enumerate(guess.header) if guess.columns.get(n) == "currency"), None
    )
    if column is None:
        return
    codes = {str(r.cells[column]).strip().upper() for r in body if column < len(r.cells)}
    for code in sorted(c for c in codes if len(c) == 3 and c.isalpha()):
        if (note := currency_note(code)) is not None:
            found.facts.append(("currency", f"column {guess.header[column]!r}: {note}"))


def _currency_column_code(guess: LayoutGuess, body: list) -> str | None:
    """The one code a currency column holds on every row, else None."""
    column = next(
        (i for i, n in enumerate(guess.header) if guess.columns.get(n) == "currency"), None
    )
    if column is None:
        return None
    codes = {str(r.cells[column]).strip().upper() for r in body if column < len(r.cells)}
    return codes.pop() if len(codes) == 1 else None


def _date_texts(guess: LayoutGuess, body: list) -> list:
    """The date column's cells: texts, or a spreadsheet's date cells."""
    column = next(i for i, n in enumerate(guess.header) if guess.columns.get(n) == "posted_date")
    return [r.cells[column] for r in body if column < len(r.cells)]


def _sniff_dates(dates: list, signs: list[str]) -> tuple[str | None, list[str], str]:
    """sniff_date_format of the date column, day first where ``signs`` say and the dates
    read both ways; a spreadsheet's date cells need no format."""
    texts = [d for d in dates if isinstance(d, str) and d.strip()]
    cells = [d for d in dates if isinstance(d, dt.date)]
    if len(cells) >= len(texts):
        return None, [], f"{len(cells)} date cells, {len(texts)} text"
    return sniff_date_format(texts, day_first_hint=bool(signs))


def _doubt_date_order(
    found: Inspection, chosen: str, swapped: SwappedOrder, signs: list[str]
) -> None:
    """The findings and the settings' comment for dates that read with the day or the month
    first: both readings of one, the order chosen and what chose it."""
    rival, example = swapped.rival, swapped.example
    orders = {f: "day first" if day_first(f) else "month first" for f in (chosen, rival)}
    readings = " or ".join(
        f"{dt.datetime.strptime(example, f).date()} ({f!r}, {orders[f]})" for f in (chosen, rival)
    )
    if swapped.settled_by is not None:
        because = f"as the dates suggest ({swapped.settled_by})"
    elif signs:
        because = f"as {_joined(signs)} suggest{'s' if len(signs) == 1 else ''}"
    else:
        because = "as US banks write them: nothing in the file says which"
    found.facts.append(
        ("dates", f"AMBIGUOUS: every date reads both ways ({example!r} is {readings}); "
         f"read {orders[chosen]}, {because}. Confirm date_format below, or set it to {rival!r}")
    )  # fmt: skip
    both = f"{chosen!r} is {orders[chosen]}, {rival!r} {orders[rival]}"
    found.confirm["date_format"] = (chosen, f"confirm: every date reads both ways; {both}")


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


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
        labels = [c for c in ("category", "transaction_type") if kept[c].is_not_null().any()]
        found.facts.append(("labels", ", ".join(labels) if labels else "none"))
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
