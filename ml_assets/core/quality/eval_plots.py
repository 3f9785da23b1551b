"""Evaluation pictures: a confusion matrix and a reliability diagram, as PNG bytes."""

from __future__ import annotations

import io

import matplotlib
import numpy as np

matplotlib.use("Agg")
from matplotlib import pyplot as plt  # noqa: E402  (backend must be chosen first)


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


def confusion_png(counts: np.ndarray, names: list[str], title: str) -> bytes:
    """Row-normalized (recall per true class), with the counts written in the cells."""
    rows = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, rows, out=np.zeros(counts.shape), where=rows > 0)
    size = max(4.0, 0.38 * len(names) + 2)
    figure, axis = plt.subplots(figsize=(size + 1, size), dpi=100)
    image = axis.imshow(share, cmap="Blues", vmin=0, vmax=1)
    axis.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)
    axis.set_yticks(range(len(names)), names, fontsize=7)
    axis.set(title=title, xlabel="predicted", ylabel="true")
    if len(names) <= 30:
        for (i, j), n in np.ndenumerate(counts):
            if n:
                color = "white" if share[i, j] > 0.6 else "black"
                axis.text(j, i, str(n), ha="center", va="center", fontsize=6, color=color)
    figure.colorbar(image, ax=axis, fraction=0.046, label="share of the true class")
    return _png(figure)


def reliability_png(curves: dict[str, dict], title: str) -> bytes:
    """Accuracy against mean confidence per bin, one line per head; the diagonal is perfect."""
    figure, axis = plt.subplots(figsize=(4.6, 4.2), dpi=100)
    axis.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="calibrated")
    for head, curve in curves.items():
        used = [i for i, n in enumerate(curve["count"]) if n]
        axis.plot(
            [curve["confidence"][i] for i in used],
            [curve["accuracy"][i] for i in used],
            marker="o",
            label=f"{head} (ECE {curve['ece']:.3f})",
        )
    axis.set(title=title, xlabel="confidence (top-class probability)", ylabel="accuracy")
    axis.set_xlim(0, 1)
    axis.set_ylim(0, 1)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    return _png(figure)


def comparison_png(grid: dict[str, dict[str, float]], title: str) -> bytes:
    """Grouped bars: accuracy (%) per slice, one bar per model, values written on the bars."""
    models = list(grid)
    slices = [s for s in next(iter(grid.values()))]
    width = 0.8 / max(1, len(models))
    figure, axis = plt.subplots(figsize=(max(6.0, 1.6 * len(slices) + 2), 3.8), dpi=100)
    for k, model in enumerate(models):
        xs = np.arange(len(slices)) + (k - (len(models) - 1) / 2) * width
        values = [grid[model].get(s, np.nan) for s in slices]
        bars = axis.bar(xs, values, width, label=model)
        axis.bar_label(bars, fmt="%.0f", fontsize=6, padding=1)
    axis.set_xticks(range(len(slices)), [s.replace("_", " ") for s in slices], fontsize=8)
    axis.set(title=title, ylabel="accuracy (%)", ylim=(0, 105))
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize=7, loc="lower left", ncol=2)
    return _png(figure)
