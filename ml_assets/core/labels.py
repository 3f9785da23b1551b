"""Label vocabularies and label-id arrays for the multitask heads."""

from __future__ import annotations

import numpy as np
import polars as pl

IGNORE_INDEX = -100


def label_vocabularies(features: pl.DataFrame, heads: tuple[str, ...]) -> dict[str, list[str]]:
    """Sorted label names per head, taken from every labeled row (all splits), so a class that
    occurs only outside train still has an output and is scored (honestly, as missed)."""
    vocab = {}
    for head in heads:
        names = features[head].drop_nulls().unique().sort().to_list()
        if len(names) < 2:
            raise ValueError(
                f"head {head!r} needs at least 2 distinct labels in the data, found {names}; "
                "label more rows or drop the head from multitask_model.heads in params.yaml"
            )
        vocab[head] = names
    return vocab


def label_ids(column: pl.Series, names: list[str]) -> np.ndarray:
    """Label names -> ids, IGNORE_INDEX for nulls."""
    mapping = {name: index for index, name in enumerate(names)}
    return column.replace_strict(mapping, default=IGNORE_INDEX, return_dtype=pl.Int64).to_numpy()
