"""Label cells that say a row has no label ("Uncategorized", Goodbudget's "[Unallocated]"):
budgeting apps and banks write them where nobody chose a category. Trained as a class, they
would teach the model to answer "Uncategorized" for exactly the rows that are hard to tell, so
they are read as no label: the row stays (it is scored, and its text is pretraining's), its
label is empty, and how many rows said what is reported."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # params.py reads the defaults: loading params imports no polars
    import polars as pl

# compared case-insensitively, spaces around ignored
DEFAULT_PLACEHOLDERS = (
    "uncategorized",
    "uncategorised",
    "unallocated",
    "[unallocated]",
    "not categorized",
    "not categorised",
    "no category",
    "unkategorisiert",
    "nicht kategorisiert",
    "ohne kategorie",
    "non catégorisé",
    "sans catégorie",
    "sin categoría",
    "sin categoria",
    "sin categorizar",
    "senza categoria",
    "non categorizzato",
    "sem categoria",
    "geen categorie",
    "ongecategoriseerd",
    "okategoriserad",
    "bez kategorii",
    "без категории",
)


def placeholder_key(value: str) -> str:
    """How a label cell is compared with the placeholders."""
    return value.strip().lower()


def unlabel_placeholders(
    raw: pl.DataFrame, placeholders: Iterable[str]
) -> tuple[pl.DataFrame, dict[str, int]]:
    """``raw`` with every label cell that is one of ``placeholders`` emptied, and the rows
    each such cell had, keyed "column: value as written"; no row is added or dropped."""
    import polars as pl

    from ml_assets.core.infra.layouts import LABEL_COLUMNS

    keys = sorted({placeholder_key(p) for p in placeholders})
    found: dict[str, int] = {}
    if not keys:
        return raw, found
    for column in LABEL_COLUMNS:
        said = pl.col(column).str.strip_chars().str.to_lowercase().is_in(keys)
        hits = raw.filter(said.fill_null(False))[column].value_counts(sort=True)
        for value, rows in hits.iter_rows():
            found[f"{column}: {value}"] = rows
        if hits.height:
            raw = raw.with_columns(pl.when(said).then(None).otherwise(pl.col(column)).alias(column))
    return raw, found


def merged_counts(days: Iterable[dict[str, int] | None]) -> dict[str, int]:
    """The rows of each "column: value", summed over days."""
    total: dict[str, int] = {}
    for day in days:
        for key, rows in (day or {}).items():
            total[key] = total.get(key, 0) + rows
    return total


def placeholder_phrases(counts: dict[str, int]) -> list[str]:
    """Each counted cell as words: "category 'Uncategorized' on 12 rows"."""
    phrases = []
    for key, rows in counts.items():
        column, value = key.split(": ", 1)
        phrases.append(f"{column} {value!r} on {rows} row{'s' if rows != 1 else ''}")
    return phrases


def placeholder_message(counts: dict[str, int]) -> str:
    """One line for the run's log: what was read as no label, and the setting that says so."""
    return (
        f"labels read as no label, their rows kept unlabeled: "
        f"{'; '.join(placeholder_phrases(counts))}. transaction_features.no_label_values lists "
        "these; remove a value there to train it as a class"
    )
