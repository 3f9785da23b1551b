"""Label vocabularies and label-id arrays for the multitask heads."""

from __future__ import annotations

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
