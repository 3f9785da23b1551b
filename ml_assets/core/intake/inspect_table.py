"""``inspect`` of a CSV file or a spreadsheet: its encoding and delimiter or sheet, the header
line and preamble, the columns (a preset that fits, or a guessed column_map), the decimal
mark, the currency, the date format and the sign, from a sample of its rows."""

from __future__ import annotations

import contextlib
import itertools

from ml_assets.core.intake.amount_text import sniff_decimal
from ml_assets.core.intake.column_values import all_zero, column, votes_on_columns
from ml_assets.core.intake.csv_exports import head_lines, iter_csv_rows
from ml_assets.core.intake.currency_clues import (
    currency_named,
    currency_of_column,
    currency_pointed_to,
    unstated_currency,
)
from ml_assets.core.intake.guessed_layout import LayoutGuess
from ml_assets.core.intake.inspect_dates import (
    date_texts,
    day_first_signs,
    doubt_date_order,
    sniff_dates,
)
from ml_assets.core.intake.inspection import Inspection, inspect_text_encoding
from ml_assets.core.intake.layout_guess import guess_layout, matching_preset
from ml_assets.core.intake.layout_refusal import no_layout_error, trade_list_error
from ml_assets.core.intake.money_words import BY_WORDS
from ml_assets.core.intake.records import SchemaError, currency_note
from ml_assets.core.intake.sign_guess import choose_sign
from ml_assets.core.intake.sniffing import sniff_delimiter, swapped_order
from ml_assets.core.intake.spreadsheets import number_formats, open_sheet, sheets_also_fitting
from ml_assets.core.intake.yearless_dates import dated_by_title

SAMPLE_ROWS = 250
_UNSTATED = ("currency", None)  # the file names no currency: its fact, written with its signs


def inspect_table(found: Inspection) -> None:
    """Header, columns, dates, decimal mark and sign of a CSV or spreadsheet, from its rows."""
    file = found.file
    if found.fmt == "csv":
        inspect_text_encoding(found)
        encoding = str(found.settings.get("encoding", "utf-8-sig"))
        delimiter = sniff_delimiter(head_lines(file, encoding))
        found.facts.append(("delimiter", repr(delimiter)))
        if delimiter != ",":
            found.settings["delimiter"] = delimiter
        cells = iter_csv_rows(file, encoding, delimiter)
    else:
        # (by names or values: a header of names no list knows, Hebrew's, over dates and amounts)
        def fits(rows: list) -> bool:
            return guess_layout(rows) is not None

        sheet, cells = open_sheet(file, None, fits)
        found.facts.append(("sheet", repr(sheet)))
        for other in sheets_also_fitting(file, sheet, fits) if sheet is not None else []:
            found.facts.append(
                ("sheet", f"{other.describe()} (save it as a file of its own to read it too)")
            )
        if sheet is not None:
            found.settings["sheet"] = sheet
        delimiter = None
    with contextlib.closing(cells):  # (a sample: the file is closed before it is read to the end)
        rows, month = dated_by_title(itertools.islice(cells, SAMPLE_ROWS))
        rows = list(rows)
    errors = [r.cells for r in rows if isinstance(r.cells, SchemaError)]
    if errors and len(errors) == len(rows):
        raise errors[0]  # unreadable, or not in this encoding: say so, not "no header"
    unit = "line" if found.fmt == "csv" else "row"
    if (trades := trade_list_error(file, rows, unit)) is not None:
        raise trades
    guess = guess_layout(rows)
    if guess is None:
        raise no_layout_error(file, rows, unit)
    read = [r for r in rows if not isinstance(r.cells, SchemaError)]
    body = [r for r in read if r.line > guess.line and votes_on_columns(r)]
    _describe_header(found, guess, rows)
    if month is not None:
        found.facts.append(("year", month.describe(unit)))
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


def _describe_header(found: Inspection, guess: LayoutGuess, rows: list) -> None:
    if guess.line == 0:
        found.facts.append(("header", "none: the first line is a transaction"))
        found.settings["header_line"] = 0
        return
    unit = "row" if found.fmt == "xlsx" else "line"
    found.facts.append(("header", f"{unit} {guess.line}: {' | '.join(guess.header)}"))
    above = guess.line - 1
    if above and not any(r.line < guess.line for r in rows):
        found.facts.append(("preamble", f"{above} blank {unit}s above the header"))
    elif above:
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
    signs = day_first_signs(found, guess, body, decimal, delimiter)
    if _UNSTATED in found.facts:  # none named, none pointed to: say what says otherwise
        found.facts[found.facts.index(_UNSTATED)] = ("currency", unstated_currency(signs=signs))
    dates = date_texts(guess, body)
    date_format, ties, why = sniff_dates(dates, signs)
    choose_sign(guess, body, decimal)
    guess.preset = matching_preset(guess, date_format)
    swapped = swapped_order(dates, date_format, ties) if date_format else None
    if swapped is not None and guess.preset is None:  # (a preset fixes its bank's order)
        doubt_date_order(found, date_format, swapped, signs)
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
        if guess.spending in ("positive", BY_WORDS):
            found.settings["spending"] = guess.spending
    _doubt_zero_amounts(found, guess, body)
    sign = {
        "negative": "purchases negative, as ours",
        BY_WORDS: "signed by each row's words",
    }.get(guess.spending, "purchases positive: flipped")
    found.facts.append(("sign", f"{sign} ({guess.why['sign']})"))


def _doubt_zero_amounts(found: Inspection, guess: LayoutGuess, body: list) -> None:
    """A column that reads 0 on every row is no payment's amount (a shipping or tax part in a
    language no list knows, beside the payment's own column): say so, not a file of zeros."""
    source = {ours: theirs for theirs, ours in guess.columns.items()}
    if "amount" not in source:
        return
    rows = [r for r in body if not isinstance(r.cells, SchemaError)]
    values = [v for v in column(rows, guess.header.index(source["amount"])) if str(v).strip()]
    if len(values) >= 2 and all_zero(values):
        found.facts.append(
            (
                "amounts",
                f"DOUBTFUL: column {source['amount']!r} reads 0 on every row: if the "
                "payments' figures are in another column, map it to amount in column_map",
            )
        )


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
    by_column = [t for t, o in guess.columns.items() if o == "amount"]
    if len(by_column) > 1:  # (see core.amounts_by_currency)
        said = ", ".join(f"{t!r} {currency_of_column(t) or 'as the file'}" for t in by_column)
        found.facts.append(("currency", f"each row's by the amount column it fills: {said}"))
        return
    named = currency_named(amounts, amount_names, tuple(guess.header))
    if named is None and found.fmt == "xlsx" and found.settings.get("sheet"):
        positions = {name: i for i, name in enumerate(guess.header)}
        named = _currency_formatted(found, guess, positions, source)
    if named is not None:
        found.settings["currency"], said = named
        found.facts.append(("currency", f"{found.settings['currency']} ({said})"))
        return
    pointed = currency_pointed_to(read, guess.header, guess.line)
    if pointed is not None:
        code, said = pointed
        found.settings["currency"] = code
        found.facts.append(
            ("currency", f"{code}, as {said} shows (the file writes no currency): confirm it")
        )
        found.confirm["currency"] = (code, f"from {said}: confirm it")
        return
    # (said once the file's signs of another country are read: see _choose_reading)
    found.facts.append(_UNSTATED)


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
