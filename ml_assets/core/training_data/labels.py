"""Label vocabularies and label-id arrays for the multitask heads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

IGNORE_INDEX = -100


def label_ids(column: pl.Series, names: list[str]) -> np.ndarray:
    """Label names -> ids, IGNORE_INDEX for nulls."""
    mapping = {name: index for index, name in enumerate(names)}
    return column.replace_strict(mapping, default=IGNORE_INDEX, return_dtype=pl.Int64).to_numpy()


def stratified_sample(labels: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Sorted row indices of a sample of ``size`` rows whose label shares match the whole
    (largest-remainder allocation, every present label at least once while room allows)."""
    if size >= len(labels):
        return np.arange(len(labels))
    rng = np.random.default_rng(seed)
    values, counts = np.unique(labels, return_counts=True)
    exact = counts / counts.sum() * size
    take = np.maximum(np.floor(exact).astype(int), 1 if size >= len(values) else 0)
    order = np.argsort(-(exact - np.floor(exact)))
    for i in order[: max(0, size - int(take.sum()))]:
        take[i] += 1
    while take.sum() > size:  # the at-least-one floor overshot: trim the largest groups
        take[np.argmax(take)] -= 1
    picked = [
        rng.choice(np.flatnonzero(labels == value), size=min(n, count), replace=False)
        for value, n, count in zip(values, take, counts, strict=True)
    ]
    return np.sort(np.concatenate(picked))


class HeadLabelsError(ValueError):
    """A configured head cannot be trained on this data, and leaving it out would hide it."""


def label_vocabularies(features: pl.DataFrame, columns: Sequence[str]) -> dict[str, list[str]]:
    """Each label column's distinct values over the labeled rows (sorted: the head's classes)."""
    labeled = features.filter(pl.col("labeled")) if "labeled" in features.columns else features
    return {c: labeled[c].drop_nulls().unique().sort().to_list() for c in columns}


@dataclass(frozen=True)
class HeadChoice:
    """The configured heads the data can train, and why each other one was left out."""

    heads: tuple[str, ...]
    left_out: dict[str, str]

    def warning(self) -> str:
        return "; ".join(f"head {head!r} left out: {why}" for head, why in self.left_out.items())


def trainable_heads(
    configured: Sequence[str], vocabularies: dict[str, Sequence[str]]
) -> HeadChoice:
    """Heads follow the labels: a head no row carries a label for is left out (a category-only
    or type-only export runs with no edit); a head with one distinct label is an error, since a
    classifier of one class is no model and the export probably maps the wrong column."""
    kept, left_out = [], {}
    for head in configured:
        names = list(vocabularies.get(head, ()))
        if not names:
            left_out[head] = (
                f"no row carries a {head} label (column {head!r} is empty); map a column to it "
                f"with raw_transactions.column_map to train it"
            )
        elif len(names) == 1:
            raise HeadLabelsError(
                f"head {head!r}: every labeled row has the same {head} label {names[0]!r} "
                f"(column {head!r}); a head needs at least 2 distinct labels: label rows with "
                f"other values, map another column to {head!r} with raw_transactions.column_map, "
                f"or drop it from multitask_model.heads"
            )
        else:
            kept.append(head)
    if not kept:
        raise HeadLabelsError(
            f"none of the heads {list(configured)} has labels in the data; map the export's "
            "label column to 'category' or 'transaction_type' with raw_transactions.column_map"
        )
    return HeadChoice(tuple(kept), left_out)
