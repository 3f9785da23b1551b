"""For a CSV file no layout fits: another field separator under which one would (a table split
by "|" below a preamble of comma-split address lines, which outvote it when the separator is
sniffed), for the refusal's advice."""

from __future__ import annotations

import contextlib
import itertools
from pathlib import Path

from ml_assets.core.intake.csv_exports import CellRow, iter_csv_rows
from ml_assets.core.intake.guessed_layout import LayoutGuess
from ml_assets.core.intake.layout_guess import guess_layout
from ml_assets.core.intake.records import open_binary
from ml_assets.core.intake.sniffing import DELIMITERS
from ml_assets.core.intake.text_encoding import detect_encoding


def layout_by_other_delimiter(file: Path, rows: list[CellRow]) -> tuple[str, LayoutGuess] | None:
    """The first separator of sniffing.DELIMITERS, other than the one that split ``rows`` (the
    sample of ``file`` no layout fits), whose rows of the same sample a layout fits, with
    that layout; None where none does."""
    with open_binary(file) as handle:
        encoding = detect_encoding(handle.read(1 << 16))[0]
    as_read = [r.cells for r in rows]
    for delimiter in DELIMITERS:
        split = iter_csv_rows(file, encoding, delimiter)
        with contextlib.closing(split):
            other = list(itertools.islice(split, len(rows)))
        if [r.cells for r in other] == as_read:  # (the separator the sample was split by)
            continue
        if (guess := guess_layout(other)) is not None:
            return delimiter, guess
    return None


def delimiter_advice(file: Path, rows: list[CellRow]) -> str:
    """For a CSV file no layout fits: the separator that gives one, the columns it finds and
    what to set ("" where no other separator gives one). (``inspect`` sniffs the separator
    whatever the settings say, so the advice names every setting the load needs.)"""
    found = layout_by_other_delimiter(file, rows)
    if found is None:
        return ""
    delimiter, guess = found
    given = ", ".join(f"{theirs} -> {ours}" for theirs, ours in guess.columns.items())
    mapping = ", ".join(f"{theirs!r}: {ours}" for theirs, ours in guess.columns.items())
    where = f"line {guess.line} names" if guess.line else "its values give"
    header = "" if guess.line else "header_line: 0, "
    return (
        f"; split by {delimiter!r} instead, {where} {given}: set raw_transactions.delimiter: "
        f"{delimiter!r}, {header}column_map: {{{mapping}}} (and date_format where its dates "
        "are not ISO)"
    )
