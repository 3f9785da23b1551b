"""Label vocabularies and label-id arrays for the multitask heads."""

from __future__ import annotations

import numpy as np
import polars as pl

IGNORE_INDEX = -100


def label_ids(column: pl.Series, names: list[str]) -> np.ndarray:
    """Label names -> ids, IGNORE_INDEX for nulls."""
    mapping = {name: index for index, name in enumerate(names)}
    return column.replace_strict(mapping, default=IGNORE_INDEX, return_dtype=pl.Int64).to_numpy()
