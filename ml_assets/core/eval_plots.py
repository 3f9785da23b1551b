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
