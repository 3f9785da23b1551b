"""Small PNG charts for asset metadata (rendered headless with matplotlib's Agg backend)."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot as plt  # noqa: E402  (backend must be chosen first)


def line_chart_png(
    series: dict[str, Sequence[tuple[float, float]]], title: str, xlabel: str, ylabel: str
) -> bytes:
    figure, axis = plt.subplots(figsize=(6, 3.2), dpi=100)
    try:
        for label, points in series.items():
            if points:
                xs, ys = zip(*points, strict=True)
                axis.plot(xs, ys, label=label, linewidth=1.5)
        axis.set(title=title, xlabel=xlabel, ylabel=ylabel)
        axis.grid(alpha=0.3)
        if len(series) > 1:
            axis.legend()
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        return buffer.getvalue()
    finally:
        plt.close(figure)


def markdown_image(png: bytes, alt: str) -> str:
    return f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode()})"
