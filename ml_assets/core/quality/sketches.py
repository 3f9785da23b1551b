"""Pictures small enough for the Dagster UI to draw inline.

The UI renders a Markdown metadata value in place only when it is shorter than 1,000
characters; anything longer sits behind a "[Show Markdown]" button. A matplotlib PNG is tens of
kilobytes, so these sketches are hand-written SVG (integer coordinates, one path per colour, a
few labels) in a data URI: a line chart, grouped bars, a heat map and a reliability diagram,
each a few hundred bytes. The full PNGs stay beside them for the detail."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

INLINE_LIMIT = 1000  # the UI's threshold for drawing Markdown in place
FULL_SIZE_PICTURES = "full_size_pictures"  # the metadata key of an asset's PNGs, all together
COLOURS = ("#4f43dd", "#e0752d", "#2a9d8f", "#c0392b", "#8e8e8e", "#b8860b")


class SketchTooLarge(ValueError):
    """The drawing does not fit the inline limit even at its coarsest."""


def markdown_svg(svg: str, alt: str) -> str:
    """The SVG as a Markdown image: a percent-encoded data URI (only the characters a URI or
    Markdown cannot hold are escaped; the destination is angle-bracketed, so spaces stay)."""
    escaped = (
        svg.replace("%", "%25")
        .replace("#", "%23")
        .replace("<", "%3C")
        .replace(">", "%3E")
        .replace('"', "'")
    )
    return f"![{alt}](<data:image/svg+xml,{escaped}>)"


def _svg(width: int, height: int, body: str) -> str:
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"font-family='monospace' font-size='10'><rect width='{width}' height='{height}' "
        f"fill='white' stroke='#ccc'/>{body}</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "start") -> str:
    end = "" if anchor == "start" else f" text-anchor='{anchor}'"
    return f"<text x='{x:.0f}' y='{y:.0f}'{end}>{text}</text>"


def _fit(draw, alt: str, sizes: Sequence) -> str:
    """The finest drawing whose Markdown fits inline: ``draw(size)`` for each size, finest
    first."""
    for size in sizes:
        markdown = markdown_svg(draw(size), alt)
        if len(markdown) < INLINE_LIMIT:
            return markdown
    raise SketchTooLarge(f"{alt}: no sketch under {INLINE_LIMIT} characters")


def _thin(points: Sequence[tuple[float, float]], most: int) -> list[tuple[float, float]]:
    """At most ``most`` points, evenly spaced, always keeping the first and the last."""
    if len(points) <= most:
        return list(points)
    keep = np.unique(np.linspace(0, len(points) - 1, most).round().astype(int))
    return [points[i] for i in keep]


def line_sketch(
    points: Sequence[tuple[float, float]], alt: str, value_format: str = "{:.3g}"
) -> str:
    """One series (x, y) as a line, with its y range and last x written on it."""
    width, height, left, pad = 360, 110, 44, 12
    if not points:
        return markdown_svg(_svg(width, 24, _text(6, 16, "no data")), alt)
    ys = [y for _, y in points]
    low, high = min(ys), max(ys)
    span_y = (high - low) or 1.0
    x0, x1 = points[0][0], points[-1][0]
    span_x = (x1 - x0) or 1.0

    def draw(most: int) -> str:
        coords = " ".join(
            f"{left + (x - x0) / span_x * (width - left - pad):.0f},"
            f"{pad + (high - y) / span_y * (height - 2 * pad):.0f}"
            for x, y in _thin(points, most)
        )
        return _svg(
            width,
            height,
            f"<polyline fill='none' stroke='{COLOURS[0]}' stroke-width='2' points='{coords}'/>"
            + _text(2, pad + 4, value_format.format(high))
            + _text(2, height - pad + 4, value_format.format(low))
            + _text(width - 4, height - 2, f"step {x1:g}", "end"),
        )

    return _fit(draw, alt, (60, 40, 25, 12))


def bars_sketch(grid: dict[str, dict[str, float]], alt: str) -> str:
    """Grouped horizontal bars: one group per row of ``grid`` (its name written on the left),
    one colour per column (0-100), with a legend of the columns."""
    rows = list(grid)
    columns = list(dict.fromkeys(c for values in grid.values() for c in values))
    left, scale, bar = 64, 2, 4
    group = bar * len(columns) + 6
    height = 16 + group * len(rows)

    def draw(label_chars: int) -> str:
        paths = []
        for c, column in enumerate(columns):
            d = "".join(
                f"M{left} {16 + r * group + c * bar + bar // 2}h{grid[row][column] * scale:.0f}"
                for r, row in enumerate(rows)
                if column in grid[row]
            )
            paths.append(
                f"<path stroke='{COLOURS[c % len(COLOURS)]}' stroke-width='{bar}' d='{d}'/>"
            )
        labels = "".join(
            _text(2, 16 + r * group + group // 2, row[:label_chars]) for r, row in enumerate(rows)
        )
        legend = "".join(
            f"<text x='{left + 70 * c}' y='10' fill='{COLOURS[c % len(COLOURS)]}'>"
            f"{column[:label_chars]}</text>"
            for c, column in enumerate(columns)
        )
        return _svg(left + 100 * scale + 8, height, "".join(paths) + labels + legend)

    return _fit(draw, alt, (10, 7, 5, 0))


def heatmap_sketch(counts: np.ndarray, alt: str) -> str:
    """A confusion matrix as shaded cells (rows: true label, columns: predicted, in label
    order), each row scaled to its own total so a rare label shows as clearly as a frequent
    one; empty cells are left out. When the cells do not fit: fewer shades, then only the
    cells holding at least a growing share of their row (the diagonal and the big mix-ups
    last), then a line that points to the full-size picture."""
    counts = np.asarray(counts, dtype=float)
    n = len(counts)
    cell = max(6, min(16, 160 // max(n, 1)))
    shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    drawings = [(levels, 0.0) for levels in (5, 3, 2, 1)]
    drawings += [(1, least) for least in (0.05, 0.1, 0.2, 0.35, 0.5)]

    def draw(choice: tuple[int, float]) -> str:
        levels, least = choice
        paths = []
        for level in range(levels):
            low, high = level / levels, (level + 1) / levels
            cells = [
                (r, c)
                for r in range(n)
                for c in range(n)
                if shares[r, c] > max(0.0, least - 1e-12) and low < shares[r, c] <= high
            ]
            if not cells:
                continue
            d = "".join(f"M{c * cell} {r * cell + cell // 2}h{cell}" for r, c in cells)
            paths.append(
                f"<path stroke='{COLOURS[0]}' stroke-opacity='{high:.2g}' "
                f"stroke-width='{cell}' d='{d}'/>"
            )
        note = _text(2, n * cell + 12, f"cells under {least:.0%} of their row left out")
        return _svg(
            n * cell, n * cell + (16 if least else 0), "".join(paths) + (note if least else "")
        )

    try:
        return _fit(draw, alt, drawings)
    except SketchTooLarge:
        return markdown_svg(
            _svg(300, 24, _text(6, 16, f"{n} labels: see {FULL_SIZE_PICTURES}")), alt
        )


def reliability_sketch(curves: dict[str, dict], alt: str) -> str:
    """Accuracy against confidence per bin, one line per head, over the diagonal of a perfectly
    calibrated model (``curves``: {head: {"confidence", "accuracy", "count"} per bin}); empty
    bins are left out."""
    size, pad = 120, 6
    span = size - 2 * pad

    def xy(confidence: float, accuracy: float) -> str:
        return f"{pad + confidence * span:.0f},{pad + (1 - accuracy) * span:.0f}"

    def draw(_: int) -> str:
        lines = [
            f"<path stroke='#ccc' d='M{pad} {size - pad}L{size - pad} {pad}'/>",
        ]
        for h, (head, curve) in enumerate(curves.items()):
            pairs = [
                xy(c, a)
                for c, a, n in zip(
                    curve["confidence"], curve["accuracy"], curve["count"], strict=True
                )
                if n
            ]
            lines.append(
                f"<polyline fill='none' stroke='{COLOURS[h % len(COLOURS)]}' stroke-width='2' "
                f"points='{' '.join(pairs)}'/>"
                + f"<text x='{size + 4}' y='{14 + 12 * h}' fill='{COLOURS[h % len(COLOURS)]}'>"
                f"{head[:16]}</text>"
            )
        return _svg(size + 110, size, "".join(lines))

    return _fit(draw, alt, (0,))


def inline_table(header: Sequence[str], rows: Sequence[Sequence[object]], most: int = 12) -> str:
    """A Markdown table of the first ``most`` rows, fewer if they would not fit inline; the
    last line says how many were left out."""
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for index, row in enumerate(rows):
        line = "| " + " | ".join(str(cell) for cell in row) + " |"
        more = f"\n| … {len(rows) - index} more |"
        if index == most or len("\n".join([*lines, line])) + len(more) >= INLINE_LIMIT:
            return "\n".join(lines) + more
        lines.append(line)
    return "\n".join(lines)
