"""Guessing how a table-shaped export is laid out, for ``inspect``: which line is the header
(or that there is none) and which of its columns gives each of our fields (which sign a
purchase has: ``sign_guess``; why no layout fits: ``layout_refusal``). The load never guesses
a column: it reads what these guesses became in params.

A header whose names give a date, an amount and a text is mapped by its names
(``layout_by_name``); a header of names no list knows (on line 1 or below a preamble), or a
file without one, by its values (``layout_by_values``), with whatever columns its names do
give.
"""

from __future__ import annotations

from ml_assets.core.intake.amounts_by_currency import amounts_in_other_currencies
from ml_assets.core.intake.csv_exports import CSV_PRESETS, CellRow, fitting_presets
from ml_assets.core.intake.guessed_layout import LayoutGuess
from ml_assets.core.intake.layout_by_name import check_values, columns_by_name, varying_text
from ml_assets.core.intake.layout_by_values import (
    direction_by_values,
    guess_by_values,
    joined_where_blank,
    more_text,
    trailing_direction,
    type_not_direction,
)
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES, header_names


def guess_layout(rows: list[CellRow]) -> LayoutGuess | None:
    """The layout of a table from its first rows, or None when neither a header nor the
    values give a date, an amount and a description."""
    good = [r for r in rows if not isinstance(r.cells, SchemaError)]
    for index, row in enumerate(good):
        if row.line > HEADER_SEARCH_LINES:
            break
        header = header_names(row.cells)
        guess = LayoutGuess(row.line, header, columns_by_name(header))
        if guess.required_ok():
            checked = check_values(guess, good[index + 1 :])
            varying = varying_text(guess, good[index + 1 :])
            if guess.required_ok():
                guess.why["columns"] = "from the header's names" + checked + varying
                direction_by_values(guess, good[index + 1 :])
                amounts_in_other_currencies(guess, good[index + 1 :])
                type_not_direction(guess, good[index + 1 :])
                trailing_direction(guess, good[index + 1 :])
                more_text(guess, good[index + 1 :])
                guess.columns = {n: guess.columns[n] for n in header if n in guess.columns}
                return guess
    headers = _header_rows(good)
    for index in headers:
        # a header whose names do not give every field, on line 1 or below a preamble (a
        # bank's name, the period): what they give (a "Currency" beside a "Wording" no name
        # list knows, Sberbank's "Описание" beside an amount no name gives), the rest by the
        # values of the rows below it
        guess = _named_and_by_values(good[index], good[index + 1 :])
        if guess is not None:
            return guess
    # (a first row of names is a header: the file is not read as one without)
    if headers[:1] == [0] or (guess := guess_by_values(good, [], 0)) is None:
        return None
    direction_by_values(guess, good)  # (Swedbank's headerless export: its D/K column)
    amounts_in_other_currencies(guess, good)
    return guess


def _header_rows(good: list[CellRow]) -> list[int]:
    """The positions of rows that may be a header of names the lists do not know: words
    alone above rows that are not; below the first row, also about as wide as the rows
    under it (a preamble's "Account;Checking" is no header of five columns)."""
    found = []
    for index, row in enumerate(good):
        if row.line > HEADER_SEARCH_LINES:
            break
        below = good[index + 1 : index + 4]
        widest = max((len(_filled_cells(r.cells)) for r in below), default=0)
        wide = index == 0 or len(_filled_cells(row.cells)) >= widest - 1
        if _all_text(row.cells) and wide and not any(_all_text(r.cells) for r in below):
            found.append(index)
    return found


def _filled_cells(cells: list) -> list:
    return [c for c in cells if str(c if c is not None else "").strip()]


def _named_and_by_values(head: CellRow, body: list[CellRow]) -> LayoutGuess | None:
    """The columns a header's names give, the rest by the values of the rows below it."""
    header = header_names(head.cells)
    guess = guess_by_values(body, header, head.line)
    if guess is None:
        return None
    named = LayoutGuess(guess.line, header, columns_by_name(header))
    checked = check_values(named, body)
    have = set(named.columns.values())
    have |= {"amount"} if have & {"debit", "credit"} else set()
    by_values = {
        theirs: ours
        for theirs, ours in guess.columns.items()
        if ours not in have
        and (theirs not in named.columns or _text_over_label(ours, named, theirs))
    }
    # the values' texts a name's text displaced: one of them still joins the description on
    # rows the named text leaves blank (Danske Bank Lithuania's blank "Memo" lines)
    displaced = [t for t, o in guess.columns.items() if o == "description" and t not in by_values]
    for theirs in displaced:
        guess.why["columns"] = guess.why["columns"].replace(joined_where_blank(theirs), "")
    if named.columns:
        guess.why["columns"] += f"; {', '.join(named.columns)} by name{checked}"
    guess.columns = {**named.columns, **by_values}
    more_text(guess, body, [t for t in displaced if t not in guess.columns])
    direction_by_values(guess, body)
    amounts_in_other_currencies(guess, body)
    type_not_direction(guess, body)
    guess.columns = {n: guess.columns[n] for n in guess.header if n in guess.columns}
    return guess if guess.required_ok() else None


def _text_over_label(ours: str, named: LayoutGuess, theirs: str) -> bool:
    """Whether a column the values give as a text goes before the label its name gives
    (FinPension's "Category": Deposit, Buy, Fee, the only text of a deposit): a row without a
    text is quarantined, one without a label is not."""
    return ours == "description" and named.columns[theirs] in ("category", "transaction_type")


def _all_text(cells: list) -> bool:
    """Whether a row is words alone, as a header is: a name may hold a digit among its
    letters ("Variabilní symbol 1"), a date or an amount has none."""
    values = [str(c).strip() for c in cells if str(c).strip()]
    letters_first = (sum(ch.isalpha() for ch in v) > sum(ch.isdigit() for ch in v) for v in values)
    return len(values) >= 2 and all(letters_first)


def matching_preset(guess: LayoutGuess, date_format: str | None) -> str | None:
    """A preset whose columns, sign and date format agree with the guess (its name is
    shorter to paste than a column_map, and documents the layout)."""
    for name in fitting_presets(guess.header):
        layout = CSV_PRESETS[name]
        if layout.date_format != date_format:
            continue  # the layout's names, another date order (or ISO dates)
        ours = {theirs: o for theirs, o in layout.columns.items()}
        agrees = all(guess.columns.get(theirs) == o for theirs, o in ours.items())
        if agrees and (layout.debit_credit or layout.spending == guess.spending):
            return name
    return None
