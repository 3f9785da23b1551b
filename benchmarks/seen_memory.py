"""A memory of the nearest labeled train row beside the shipped candidate: category accuracy,
%, on all test rows, held-out merchants and seen merchants (the rows and slices of
``model_slices.py``), per store and as the mean ± std over the stores.

Rows: the int8 candidate and ``tfidf_reference`` as the run saved their test predictions;
kNN-1, the label of the labeled train row most cosine-similar to the test row over the
reference's features (TF-IDF char_wb 2-5 + words 1-2, fit on the labeled train rows,
``min_df`` 1; a row that shares no n-gram with any of them gets the first one's label); the
override, kNN-1's label where that similarity is at least t and the candidate's elsewhere, with
t chosen on the valid split (the store's ``onnx_model`` rescored on the labeled valid rows, the
best valid accuracy over t = 0.30, 0.35, ..., 1.00, ties to the higher t) and at each
``--thresholds`` value; and the merchant_key lookup, the majority train label of the row's
merchant where it has labeled train rows, else the candidate's. The lookup is an oracle:
merchant_key is the benchmark's brand id, which a served description does not carry. The last
column is each row's mean change from the candidate, points, held-out / seen.

Usage: python benchmarks/seen_memory.py ARTIFACTS_DIR [ARTIFACTS_DIR ...] [--thresholds 0.7 0.8]
       (stores from benchmarks/foreign_data.py, one per seed, e.g.
       $TMPDIR/foreign-data/nsi-seed{1..8}/artifacts; about ten seconds per store)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

# one thread per pool (BLAS, polars; the ONNX scorer below gets one too), set before numpy and
# polars load: the script shares the cores with other work
for _variable in (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "POLARS_MAX_THREADS",
):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from sklearn.preprocessing import normalize  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest  # noqa: E402  (this folder is the script's sys.path[0])
from reference_margin import HEAD, paired_rows  # noqa: E402

from ml_assets.core.quality.evaluation import softmax  # noqa: E402
from ml_assets.core.serving.scoring import encode_for_model, scorer_for  # noqa: E402
from ml_assets.training.references import tfidf_matrices  # noqa: E402

PARTS = {
    "all": "all",
    "heldout_merchants": "held-out merchants",
    "seen_merchants": "seen merchants",
}
GRID = [round(t, 2) for t in np.arange(0.30, 1.0001, 0.05)]  # the override's t, chosen on valid


def accuracies(right: np.ndarray, masks: list[np.ndarray]) -> list[float]:
    return [100 * right[m].mean() if m.any() else float("nan") for m in masks]


def nearest(queries, train) -> tuple[np.ndarray, np.ndarray]:
    """Per query row (sparse), the index of its most cosine-similar ``train`` row (the first of
    equals) and that similarity."""
    train = normalize(train).T.tocsr()
    queries = normalize(queries)
    index, similarity = [], []
    for start in range(0, queries.shape[0], 500):  # a dense 500 x train block at a time
        block = (queries[start : start + 500] @ train).toarray()
        best = block.argmax(axis=1)
        index.append(best)
        similarity.append(block[np.arange(len(best)), best])
    return np.concatenate(index), np.concatenate(similarity)


def override(base: np.ndarray, neighbour: np.ndarray, similarity: np.ndarray, t: float):
    """The neighbour's label where its similarity reaches ``t`` (less 1e-9: an identical text's
    similarity can round to just below 1.0), ``base`` elsewhere."""
    return np.where(similarity >= t - 1e-9, neighbour, base)


def candidate_labels(store: Path, rows: pl.DataFrame) -> np.ndarray:
    """The int8 candidate's category for each row (description, amount), as serving scores it."""
    scorer = scorer_for(newest(store, "onnx_model", "serving.json"), 1)
    ids = encode_for_model(scorer.tokenizer, rows["description"].to_list(), scorer.max_length)
    logits = scorer.logits(ids, 256, rows["amount"].to_numpy())[HEAD]
    return np.asarray(scorer.heads[HEAD], dtype=object)[softmax(logits).argmax(axis=1)]


def store_accuracies(store: Path, thresholds: list[float]) -> tuple[dict, list[int], float, float]:
    """Per model, accuracy on each of ``PARTS``; each part's labeled test rows; the override's
    t chosen on valid; and the share of test rows whose rescored candidate label is the saved one."""
    paired = paired_rows(store, ("tfidf_reference",))
    test, masks = paired["test"], [paired["slices"][part] for part in PARTS]
    truth = test[f"{HEAD}_true"].to_numpy().astype(object)
    candidate = test[f"{HEAD}_pred"].to_numpy().astype(object)

    folder = newest(store, "training_features", "features.parquet")
    features = pl.read_parquet(folder / "features.parquet")
    labeled = features.filter(pl.col(HEAD).is_not_null())
    train_x, valid_x, test_x, _ = tfidf_matrices(labeled)
    split = {name: labeled.filter(pl.col("split") == name) for name in ("train", "valid", "test")}
    order = {t: i for i, t in enumerate(split["test"]["transaction_id"].to_list())}
    at = np.array([order[t] for t in test["transaction_id"].to_list()])  # features -> paired rows
    train_labels = split["train"][HEAD].to_numpy().astype(object)

    valid_truth = split["valid"][HEAD].to_numpy().astype(object)
    valid_candidate = candidate_labels(store, split["valid"])
    agree = float((candidate_labels(store, split["test"][at]) == candidate).mean())
    valid_index, valid_sim = nearest(valid_x, train_x)
    test_index, test_sim = nearest(test_x[at], train_x)
    valid_knn, knn = train_labels[valid_index], train_labels[test_index]
    valid_accuracy = {
        t: (override(valid_candidate, valid_knn, valid_sim, t) == valid_truth).mean() for t in GRID
    }
    chosen = max(GRID, key=lambda t: (round(valid_accuracy[t], 10), t))

    majority: dict[str, Counter] = {}
    for key, label in zip(split["train"]["merchant_key"].to_list(), train_labels, strict=True):
        majority.setdefault(key, Counter())[label] += 1
    lookup = np.array([
        majority[k].most_common(1)[0][0] if k in majority else c
        for k, c in zip(test["merchant_key"].to_list(), candidate, strict=True)
    ], dtype=object)  # fmt: skip

    right = {
        "candidate, int8 ONNX": paired["candidate"],
        "`tfidf_reference`": paired["references"]["tfidf_reference"],
        "kNN-1": knn == truth,
        "override, t chosen on valid": override(candidate, knn, test_sim, chosen) == truth,
        **{f"override, t {t}": override(candidate, knn, test_sim, t) == truth for t in thresholds},
        "merchant_key lookup (oracle)": lookup == truth,
    }
    out = {model: accuracies(hits, masks) for model, hits in right.items()}
    return out, [int(m.sum()) for m in masks], chosen, agree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stores", type=Path, nargs="+")
    parser.add_argument("--thresholds", type=float, nargs="*", default=[0.7, 0.8])
    args = parser.parse_args()
    every: dict[str, list[list[float]]] = {}
    for store in args.stores:
        result, counts, chosen, agree = store_accuracies(store, args.thresholds)
        print(f"{store}: rows " + " / ".join(map(str, counts)) + f"; t chosen on valid {chosen}; "
              f"candidate rescored = saved on {100 * agree:.1f} % of test rows")  # fmt: skip
        for model, values in result.items():
            every.setdefault(model, []).append(values)
            print(f"  {model}: " + " / ".join(f"{v:.1f}" for v in values))
    base = np.array(every["candidate, int8 ONNX"])
    print(f"\n| model ({len(args.stores)} runs) | " + " | ".join(PARTS.values())
          + " | vs candidate, held-out / seen |")  # fmt: skip
    print("|---|---|---|---|---|")
    for model, values in every.items():
        values = np.array(values)
        cells = [f"{np.nanmean(c):.1f} ± {np.nanstd(c, ddof=1):.1f}" for c in values.T]
        change = np.nanmean(values - base, axis=0)
        cells.append(f"{change[1]:+.2f} / {change[2]:+.2f}")
        print(f"| {model} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
