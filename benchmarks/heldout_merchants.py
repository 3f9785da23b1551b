"""Benchmark: where the held-out-merchant accuracy comes from, merchant by merchant.

The held-out slice of the test split is every labeled row of the merchants never seen in
training, so a merchant with many rows weighs as much as many merchants with few. For each
model given, this prints the category accuracy over rows (the slice's headline number), the
mean over merchants of each merchant's accuracy, with several models the row accuracy without
the one merchant whose rows move it most between them, and a table of the merchants any model
gets wrong (rows, label, accuracy and most frequent prediction per model).

    python benchmarks/heldout_merchants.py --store artifacts [--models DIR ...]

``--store``: an artifact store after ``scripts/quickstart.sh``; its current multitask_model
comes first, then each ``--models`` folder (a multitask_model entry, e.g. of another seed).
PyTorch fp32, about 10 s per model on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import polars as pl
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from store_entries import current_entry  # noqa: E402  (benchmarks/, the script's folder)

from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.training.finetune import labeled_view, predict_logits  # noqa: E402
from ml_assets.training.model import MultiTaskModel  # noqa: E402
from ml_assets.training.stages import heldout_subset  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--models", type=Path, nargs="*", default=[])
    parser.add_argument("--max-length", type=int, default=48)
    args = parser.parse_args()
    torch.set_num_threads(2)
    folders = [current_entry(args.store, "multitask_model"), *args.models]
    corpus = current_entry(args.store, "tokenized_corpus")
    features = pl.read_parquet(current_entry(args.store, "training_features") / "features.parquet")
    test = TokenizedSplit(corpus, "test", args.max_length)
    first = MultiTaskModel.load(folders[0])
    labels = first.head_labels["category"]
    heldout = heldout_subset(labeled_view(test, {"category": labels}))
    rows = heldout.sequences.row_table().join(
        features.select("transaction_id", "merchant_key"), on="transaction_id", how="left"
    )
    frame = rows.select("merchant_key").with_columns(
        label=pl.Series(np.array(labels)[heldout.labels["category"]])
    )
    names = []
    for i, folder in enumerate(folders):
        model = first if i == 0 else MultiTaskModel.load(folder)
        logits = predict_logits(
            model, heldout.sequences, 128, test.meta["pad_id"], torch.device("cpu")
        )
        frame = frame.with_columns(
            pl.Series(f"m{i}", np.array(labels)[logits["category"].argmax(1)])
        )
        names.append(f"m{i}")
    correct = [(pl.col(n) == pl.col("label")) for n in names]
    merchants = (
        frame.group_by("merchant_key", "label")
        .agg(
            pl.len().alias("rows"),
            *[c.mean().alias(f"{n} acc") for n, c in zip(names, correct, strict=True)],
            *[pl.col(n).mode().sort().first().alias(f"{n} says") for n in names],
        )
        .sort("rows", "merchant_key", descending=[True, False])
    )
    accuracies = merchants.select([f"{n} acc" for n in names]).to_numpy()
    swing = merchants["rows"].to_numpy() * (accuracies.max(1) - accuracies.min(1))
    # the merchant whose rows move the slice most between the models (none with one model)
    swinger = merchants["merchant_key"][int(swing.argmax())] if swing.max() > 0 else None
    total = merchants["rows"].sum()
    print(f"{len(merchants)} held-out merchants, {total} rows; the 5 largest hold "
          f"{merchants['rows'].head(5).sum() / total:.1%} of them")  # fmt: skip
    for i, n in enumerate(names):
        line = (
            f"{n} ({folders[i]}): rows {frame.select(correct[i].mean()).item():.1%}, "
            f"mean over merchants {merchants[f'{n} acc'].mean():.1%}"
        )
        if swinger is not None:
            rest = frame.filter(pl.col("merchant_key") != swinger)
            line += f", rows without {swinger!r} {rest.select(correct[i].mean()).item():.1%}"
        print(line)
    wrong = merchants.filter(pl.any_horizontal([pl.col(f"{n} acc") < 1 for n in names]))
    print("| merchant | label | rows | " + " | ".join(f"{n} acc. | {n} says" for n in names) + " |")
    print("|---" * (3 + 2 * len(names)) + "|")
    for row in wrong.iter_rows(named=True):
        cells = [f"{100 * row[f'{n} acc']:.0f} % | {row[f'{n} says']}" for n in names]
        print(
            f"| {row['merchant_key']} | {row['label']} | {row['rows']} | "
            + " | ".join(cells)
            + " |"
        )


if __name__ == "__main__":
    main()
