"""Which comes first in an export's dates, for ``inspect``: in a QIF file (or, where every
date reads both ways, in the folder's other QIF files), and in a table's date column, where
dates that read both ways are read day first when the file shows signs of a European bank
(a decimal comma, a ';' separator, column names in another language, a currency other than
the US or Canadian dollar) and the findings say which order was chosen and why."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from ml_assets.core.intake.column_values import excel_serial
from ml_assets.core.intake.export_formats import format_of
from ml_assets.core.intake.guessed_layout import LayoutGuess
from ml_assets.core.intake.inspection import Inspection
from ml_assets.core.intake.qif import file_dates
from ml_assets.core.intake.qif_dates import date_order, day_first_format
from ml_assets.core.intake.records import iso_currency, open_binary
from ml_assets.core.intake.sniffing import (
    MONTH_FIRST_CURRENCIES,
    SwappedOrder,
    day_first,
    sniff_date_format,
)
from ml_assets.core.intake.text_encoding import detect_encoding


def qif_folder_day_first(files: list[Path]) -> list[str]:
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


def inspect_qif_dates(found: Inspection, day_first_files: list[str]) -> None:
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


def day_first_signs(
    found: Inspection, guess: LayoutGuess, body: list, decimal: str, delimiter: str | None
) -> list[str]:
    """What in the file points to a European bank, which writes the day first: a decimal
    comma, a ';' separator, column names in another language than English, a currency other
    than the US or Canadian dollar."""
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
    if currency is not None and currency not in MONTH_FIRST_CURRENCIES:
        signs.append(f"the currency {currency}")
    return signs


def _currency_column_code(guess: LayoutGuess, body: list) -> str | None:
    """The one code a currency column holds on every row, else None."""
    column = next(
        (i for i, n in enumerate(guess.header) if guess.columns.get(n) == "currency"), None
    )
    if column is None:
        return None
    codes = {iso_currency(str(r.cells[column])) for r in body if column < len(r.cells)}
    return codes.pop() if len(codes) == 1 else None


def date_texts(guess: LayoutGuess, body: list) -> list:
    """The date column's cells: texts, or a spreadsheet's date cells."""
    column = next(i for i, n in enumerate(guess.header) if guess.columns.get(n) == "posted_date")
    return [r.cells[column] for r in body if column < len(r.cells)]


def sniff_dates(dates: list, signs: list[str]) -> tuple[str | None, list[str], str]:
    """sniff_date_format of the date column, day first where ``signs`` say and the dates
    read both ways; a spreadsheet's date cells need no format."""
    texts = [d for d in dates if isinstance(d, str) and d.strip()]
    cells = [d for d in dates if isinstance(d, dt.date)]
    serials = [d for d in dates if excel_serial(d)]  # (days typed into General cells)
    if len(cells) + len(serials) >= len(texts):
        said = f", {len(serials)} serial days in General cells" if serials else ""
        return None, [], f"{len(cells)} date cells{said}, {len(texts)} text"
    return sniff_date_format(texts, day_first_hint=bool(signs))


def doubt_date_order(
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
