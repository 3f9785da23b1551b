"""The inline sketches: valid SVG, under the UI's inline limit at any input size, or a clear
error when no drawing fits."""

from __future__ import annotations

import urllib.parse
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ml_assets.core.quality.sketches import (
    INLINE_LIMIT,
    SketchTooLarge,
    bars_sketch,
    heatmap_sketch,
    inline_table,
    line_sketch,
    reliability_sketch,
)

SVG = "{http://www.w3.org/2000/svg}"


def parsed(markdown: str) -> ET.Element:
    """The SVG inside ``![alt](<data:image/svg+xml,...>)``, as a browser decodes it."""
    assert markdown.startswith("![") and len(markdown) < INLINE_LIMIT
    uri = markdown[markdown.index("(<") + 2 : -2]
    assert uri.startswith("data:image/svg+xml,")
    svg = urllib.parse.unquote(uri.removeprefix("data:image/svg+xml,"))
    return ET.fromstring(svg)  # noqa: S314  (our own output)


def test_a_long_curve_is_thinned_to_fit_and_keeps_its_ends():
    points = [(step, 1.0 / (1 + step / 50)) for step in range(0, 5000, 2)]
    svg = parsed(line_sketch(points, "loss"))
    line = svg.find(f"{SVG}polyline").get("points").split()
    assert 12 <= len(line) <= 60
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert "1" in texts and "step 4998" in texts  # the y range and the last step, written


def test_an_empty_curve_says_so():
    svg = parsed(line_sketch([], "no MLM pretraining"))
    assert [t.text for t in svg.iter(f"{SVG}text")] == ["no data"]


def test_bars_draw_each_model_and_slice():
    grid = {
        name: {"all": 50 + i, "heldout": 40 + i, "seen": 60 + i}
        for i, name in enumerate(("int8", "fp32", "plain", "tfidf", "frozen", "champion"))
    }
    svg = parsed(bars_sketch(grid, "side by side"))
    paths = svg.findall(f"{SVG}path")
    assert len(paths) == 3  # one colour per slice
    assert all(p.get("d").count("M") == 6 for p in paths)  # a bar per model
    lengths = [int(seg.split("h")[1]) for seg in paths[0].get("d").split("M")[1:]]
    assert lengths == [2 * (50 + i) for i in range(6)]  # 2 px per point


def test_a_confusion_matrix_leaves_out_empty_cells_and_coarsens_to_fit():
    rng = np.random.default_rng(0)
    sparse = np.diag(rng.integers(10, 50, 11))
    sparse[0, 3] = 4
    cells = [
        seg for p in parsed(heatmap_sketch(sparse, "c")).findall(f"{SVG}path")
        for seg in p.get("d").split("M")[1:]
    ]  # fmt: skip
    assert len(cells) == 12  # the diagonal and the one mix-up
    # every cell filled: only the cells holding a large share of their row are drawn
    dense = rng.integers(1, 9, (14, 14)) + np.diag(np.full(14, 80))
    svg = parsed(heatmap_sketch(dense, "c"))
    assert "left out" in "".join(t.text for t in svg.iter(f"{SVG}text"))
    assert sum(p.get("d").count("M") for p in svg.findall(f"{SVG}path")) >= 14  # the diagonal
    many = parsed(heatmap_sketch(np.eye(400, dtype=int), "c"))  # too many labels to draw
    assert [t.text for t in many.iter(f"{SVG}text")] == ["400 labels: see full_size_pictures"]


def test_a_drawing_that_never_fits_is_an_error():
    with pytest.raises(SketchTooLarge, match="no sketch under 1000"):
        bars_sketch({f"model {i}": {"all": 50.0} for i in range(100)}, "bars")


def test_reliability_skips_empty_bins():
    curve = {
        "confidence": [0.0, 0.55, 0.95],
        "accuracy": [0.0, 0.5, 0.9],
        "count": [0, 10, 40],
    }
    svg = parsed(reliability_sketch({"category": curve, "transaction_type": curve}, "r"))
    lines = svg.findall(f"{SVG}polyline")
    assert len(lines) == 2 and all(len(p.get("points").split()) == 2 for p in lines)


def test_a_table_keeps_the_rows_that_fit_and_counts_the_rest():
    rows = [(f"merchant {i}", i) for i in range(200)]
    table = inline_table(("merchant", "rows"), rows, most=1000)
    assert len(table) < INLINE_LIMIT
    kept = sum(line.startswith("| merchant ") for line in table.splitlines()[2:])
    assert table.endswith(f"| … {200 - kept} more |") and kept > 10
    assert inline_table(("a",), [(1,), (2,)], most=1) == "| a |\n|---|\n| 1 |\n| … 1 more |"
