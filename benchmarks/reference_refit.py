"""What refitting on the valid rows gives the references, the bar the candidate's own refit
(``bag_refit.py --refit-valid``) has to be read against: a run's reference as the graph fits it
(features and regression from the labeled train rows, C chosen on the valid rows) and its
regression refit on the labeled train and valid rows at that C, the features kept. Category
(the first head) accuracy on the test split, %: all / held-out merchants / seen merchants. The
shipped column is recomputed here and checked against the run's stored predictions.

Usage: python benchmarks/reference_refit.py ARTIFACTS_DIR... [--reference tfidf_reference
       frozen_encoder_reference]   (stores runs of the graph left, e.g.
       $TMPDIR/foreign-data/hard-seed2/artifacts; seconds to minutes each)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest  # noqa: E402  (this folder is the script's sys.path[0])

from ml_assets.training.references import (  # noqa: E402
    fit_per_head,
    frozen_matrices,
    labeled_features,
    tfidf_matrices,
)


def matrices(reference: str, features: pl.DataFrame, settings: dict):
    """The train, valid and test rows' features as the reference's asset builds them."""
    if reference == "tfidf_reference":
        return tfidf_matrices(features, settings["tfidf_min_df"])[:3]
    return frozen_matrices(
        features, settings["backbone"], settings["max_length"], settings["frozen_layers"]
    )[:3]


def slices(predicted: np.ndarray, test: pl.DataFrame, head: str) -> list[float]:
    truth = test[head].to_numpy()
    keep = test[head].is_not_null().to_numpy()
    heldout = test["heldout_merchant"].to_numpy()
    return [
        100 * float((predicted[m] == truth[m]).mean())
        for m in (keep, keep & heldout, keep & ~heldout)
    ]


def refit_scores(root: Path, asset: str) -> tuple[list[float], list[float]]:
    """(as shipped, refit on train + valid) slices of the first head for one store's
    ``asset`` (a reference)."""
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    reference = newest(root, asset, "fit.json")
    settings = json.loads((reference / "params.json").read_text())
    features = pl.read_parquet(
        newest(root, "training_features", "features.parquet") / "features.parquet"
    )
    chosen = json.loads((reference / "fit.json").read_text())["chosen_c"]
    head = next(iter(chosen))
    features = labeled_features(features, list(chosen))  # the rows the asset fit on
    train_x, valid_x, test_x = matrices(asset, features, settings)
    fit = fit_per_head(
        train_x, valid_x, test_x, features, [head], settings["c_grid"], settings["max_iter"]
    )
    test = features.filter(pl.col("split") == "test")
    names = np.array(fit.labels[head])
    shipped = names[fit.test_probs[head].argmax(axis=1)]
    stored = pl.read_parquet(reference / "predictions.parquet")
    stored = test.select("transaction_id").join(stored, on="transaction_id", how="left")
    stored_probs = np.stack(stored[f"{head}_probs"].to_list())
    if not np.array_equal(names[stored_probs.argmax(axis=1)], shipped):
        raise SystemExit(f"{reference}: the recomputed reference differs from the stored one")
    rows = {name: features.filter(pl.col("split") == name) for name in ("train", "valid")}
    keep = {name: part[head].is_not_null().to_numpy() for name, part in rows.items()}
    x = vstack([train_x[keep["train"]], valid_x[keep["valid"]]])
    y = np.concatenate([rows[name][head].to_numpy()[keep[name]] for name in rows])
    model = LogisticRegression(C=fit.chosen_c[head], max_iter=settings["max_iter"]).fit(x, y)
    return slices(shipped, test, head), slices(model.predict(test_x), test, head)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("artifacts", type=Path, nargs="+")
    parser.add_argument(
        "--reference", nargs="+", default=["tfidf_reference"],
        choices=["tfidf_reference", "frozen_encoder_reference"],
    )  # fmt: skip
    args = parser.parse_args()
    for asset in args.reference:
        print(f"| store | {asset} as shipped | regression refit on train + valid rows |")
        print("|---|---|---|")
        totals = []
        for root in args.artifacts:
            shipped, refit = refit_scores(root, asset)
            totals.append(shipped + refit)
            cells = [" / ".join(f"{v:.1f}" for v in part) for part in (shipped, refit)]
            print(f"| {root} | {cells[0]} | {cells[1]} |", flush=True)
        mean = np.mean(totals, axis=0)
        print(f"| mean of {len(totals)} | " + " / ".join(f"{v:.1f}" for v in mean[:3]) + " | "
              + " / ".join(f"{v:.1f}" for v in mean[3:]) + " |")  # fmt: skip


if __name__ == "__main__":
    main()
