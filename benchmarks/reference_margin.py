"""How far the shipped candidate is ahead of a reference, and how sure a test split of that
size can be of it: per run and as the mean over runs (seeds), the candidate's category
accuracy minus the reference's on each slice (with several references, minus the best of them
on that slice of that run and draw), with a 95 % interval from a paired bootstrap that
resamples the test merchants, each with all of its rows (a merchant's rows go to one split
together), one draw for every run: runs that share test merchants share their luck.

Reads what a run of the graph left: ``model_evaluation``'s predictions (the int8 candidate,
as the comparison table scores it) and each reference's saved predictions
(``tfidf_reference``, ``frozen_encoder_reference``; the plain finetune saves none), on the same
test rows and slices as the table.

Usage: python benchmarks/reference_margin.py ARTIFACTS_DIR [ARTIFACTS_DIR ...]
       [--reference tfidf_reference [frozen_encoder_reference]] [--resamples 2000]
       (stores from benchmarks/foreign_data.py, one per seed, e.g.
       $TMPDIR/foreign-data/helsinki-seed{1,2,3}/artifacts)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest  # noqa: E402  (this folder is the script's sys.path[0])

from ml_assets.core.infra.layouts import PREDICTIONS_FILE  # noqa: E402
from ml_assets.core.quality.comparison import (  # noqa: E402
    SLICE_TITLES,
    SLICES,
    aligned_probabilities,
)
from ml_assets.core.quality.evaluation import seen_in_training, slice_masks  # noqa: E402
from ml_assets.training.references import REFERENCE_LABELS  # noqa: E402

HEAD = "category"


def seen_merchants(store: Path, test: pl.DataFrame) -> np.ndarray:
    """The evaluation's seen-merchant rows: its ``seen_merchant`` column, or for a store
    evaluated before it was written, the same rows computed from the run's features."""
    if "seen_merchant" in test.columns:
        return test["seen_merchant"].to_numpy()
    folder = newest(store, "training_features", "features.parquet")
    train = pl.read_parquet(folder / "features.parquet").filter(pl.col("split") == "train")
    return seen_in_training(
        test["merchant_key"].to_numpy(),
        train["merchant_key"].to_numpy(),
        train["labeled"].to_numpy(),
    )


def paired_rows(store: Path, references: Sequence[str]) -> dict:
    """Per labeled test row: candidate right, each reference right (``references``: name ->
    array), merchant; ``slices``, each slice's row mask (``SLICES``); and ``test``, the
    evaluation's predictions of those rows."""
    evaluation = newest(store, "model_evaluation", PREDICTIONS_FILE)
    params = json.loads((evaluation / "params.json").read_text())
    test = pl.read_parquet(evaluation / PREDICTIONS_FILE).filter(
        pl.col(f"{HEAD}_true").is_not_null()
    )
    truth = test[f"{HEAD}_true"].to_numpy()
    right = {}
    for reference in references:
        ref = newest(store, reference, PREDICTIONS_FILE)
        names = json.loads((ref / REFERENCE_LABELS).read_text())
        probs = aligned_probabilities(
            pl.read_parquet(ref / PREDICTIONS_FILE), names, test["transaction_id"],
            {HEAD: names[HEAD]},
        )[HEAD]  # fmt: skip
        right[reference] = np.asarray(names[HEAD])[probs.argmax(axis=1)] == truth
    masks = slice_masks(
        test["heldout_merchant"].to_numpy(),
        seen_merchants(store, test),
        test["description_chars"].to_numpy(),
        params.get("short_description_chars", 24),
    )
    return {
        "test": test,
        "candidate": test[f"{HEAD}_pred"].to_numpy() == truth,
        "references": right,
        "merchant": test["merchant_key"].to_numpy(),
        "slices": masks,
    }


def lead(rows: dict, weights: np.ndarray, part: str) -> float:
    """Candidate minus the best reference's accuracy, points, on the ``part`` slice's rows,
    each row counted ``weights`` times; nan where no row of the slice counts."""
    w = weights * rows["slices"][part]
    if w.sum() == 0:
        return float("nan")
    best = max(float((w * right).sum()) for right in rows["references"].values())
    return 100 * (float((w * rows["candidate"]).sum()) - best) / w.sum()


def points(value: float) -> str:
    return f"{round(value, 1) + 0.0:+.1f}"  # + 0.0: no "-0.0"


def interval(draws: np.ndarray) -> str:
    """The 2.5th to 97.5th percentile of the draws that hold a row of the slice, and the share
    of draws that hold none (a slice of a few merchants), which the interval leaves out."""
    draws = np.asarray(draws)
    if np.isnan(draws).all():
        return "no row"
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    empty = np.isnan(draws).mean()
    return f"{points(low)} to {points(high)}" + (f", {empty:.0%} of draws empty" if empty else "")


def bootstrap_leads(
    runs: dict[str, dict], resamples: int, seed: int = 0
) -> dict[str, dict[str, np.ndarray]]:
    """Per run and slice, ``resamples`` leads, each on one draw of the merchants (with
    replacement, from every run's test merchants together) that every run shares: runs of
    one data set can share test merchants (the brand names and Helsinki hold the same ones out
    on every seed under one ``split_salt``, and some by chance under others), and then their
    luck is shared too."""
    merchants, index = np.unique(
        np.concatenate([rows["merchant"] for rows in runs.values()]), return_inverse=True
    )
    bounds = np.cumsum([0] + [len(rows["merchant"]) for rows in runs.values()])
    positions = {name: index[bounds[i] : bounds[i + 1]] for i, name in enumerate(runs)}
    rng = np.random.default_rng(seed)
    draws = {name: {part: np.empty(resamples) for part in SLICES} for name in runs}
    for k in range(resamples):
        drawn = rng.integers(0, len(merchants), len(merchants))
        counts = np.bincount(drawn, minlength=len(merchants))
        for name, rows in runs.items():
            weights = counts[positions[name]].astype(np.float64)
            for part in SLICES:
                draws[name][part][k] = lead(rows, weights, part)
    return draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stores", type=Path, nargs="+")
    parser.add_argument("--reference", nargs="+", default=["tfidf_reference"])
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    runs = {str(store): paired_rows(store, args.reference) for store in args.stores}
    draws = bootstrap_leads(runs, args.resamples)
    print(f"candidate (int8) minus {' or '.join(args.reference)} (the best on each slice), "
          "category accuracy, points "
          f"(95 % interval, merchants resampled {args.resamples} times)\n")  # fmt: skip
    print("| run | " + " | ".join(SLICE_TITLES[p] for p in SLICES) + " |")
    print("|---|" + "---|" * len(SLICES))
    leads = {name: {p: lead(r, np.ones(len(r["candidate"])), p) for p in SLICES}
             for name, r in runs.items()}  # fmt: skip
    for name, rows in runs.items():
        cells = []
        for p in SLICES:
            mask = rows["slices"][p]
            size = f"n={int(mask.sum())}, {len(np.unique(rows['merchant'][mask]))} merchants"
            cells.append(f"{points(leads[name][p])} ({interval(draws[name][p])}; {size})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    if len(runs) > 1:
        cells = []
        for p in SLICES:
            # the runs with rows in the slice; a draw that empties it in one of them is empty
            held = [n for n in runs if not np.isnan(leads[n][p])]
            if not held:
                cells.append("no row")
                continue
            mean = np.mean([draws[n][p] for n in held], axis=0)
            cells.append(f"{points(np.mean([leads[n][p] for n in held]))} ({interval(mean)})")
        print(f"| mean of {len(runs)} runs | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
