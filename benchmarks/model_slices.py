"""Every model of a set of runs side by side on the evaluation's slices: category accuracy,
%, on all test rows, held-out merchants (kept out of training by the split) and seen merchants
(with a labeled train row), mean ± std over the runs, with each slice's labeled rows per run.

Reads what each run of the graph left, on its test rows: ``model_evaluation``'s predictions
(the int8 candidate), each reference's saved predictions, and the plain finetune
(``baseline_model``) scored again in PyTorch fp32 as the evaluation scores it; a store
evaluated before the predictions said which rows are seen gets them from its features.

Usage: python benchmarks/model_slices.py ARTIFACTS_DIR [ARTIFACTS_DIR ...]
       (stores from benchmarks/foreign_data.py, one per seed)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest  # noqa: E402  (this folder is the script's sys.path[0])
from reference_margin import HEAD, paired_rows  # noqa: E402

from ml_assets.assets.model_evaluation import pytorch_probabilities  # noqa: E402
from ml_assets.training.model import MODEL_CONFIG  # noqa: E402

REFERENCES = ("tfidf_reference", "frozen_encoder_reference")
PARTS = {
    "all": "all",
    "heldout_merchants": "held-out merchants",
    "seen_merchants": "seen merchants",
}


def store_accuracies(store: Path) -> tuple[dict[str, list[float]], list[int]]:
    """Per model, accuracy on each of ``PARTS``; and each part's labeled rows."""
    rows = paired_rows(store, REFERENCES)
    test = rows["test"]
    baseline_dir = newest(store, "baseline_model", "model.safetensors")
    probs = pytorch_probabilities(baseline_dir, test["description"].to_list())[HEAD]
    config = json.loads((baseline_dir / MODEL_CONFIG).read_text())
    names = config["heads"][HEAD]
    baseline = np.asarray(names)[probs.argmax(axis=1)] == test[f"{HEAD}_true"].to_numpy()
    right = {
        "candidate, int8 ONNX": rows["candidate"],
        "`baseline_model`: plain finetune": baseline,
        **{f"`{name}`": rows["references"][name] for name in REFERENCES},
    }
    masks = [rows["slices"][part] for part in PARTS]
    out = {
        model: [100 * hits[m].mean() if m.any() else float("nan") for m in masks]
        for model, hits in right.items()
    }
    return out, [int(m.sum()) for m in masks]


def main() -> None:
    stores = [Path(p) for p in sys.argv[1:]]
    if not stores:
        raise SystemExit(__doc__)
    every: dict[str, list[list[float]]] = {}
    sizes = []
    for store in stores:
        accuracies, counts = store_accuracies(store)
        sizes.append(counts)
        print(f"{store}: rows " + " / ".join(map(str, counts)))
        for model, values in accuracies.items():
            every.setdefault(model, []).append(values)
            print(f"  {model}: " + " / ".join(f"{v:.1f}" for v in values))
    low, high = np.min(sizes, axis=0), np.max(sizes, axis=0)
    print("\nlabeled test rows per run: " + ", ".join(
        f"{title} {a}-{b}" for title, a, b in zip(PARTS.values(), low, high, strict=True)))  # fmt: skip
    print(f"\n| model ({len(stores)} runs) | " + " | ".join(PARTS.values()) + " |")
    print("|---|---|---|---|")
    for model, values in every.items():
        cells = [
            f"{np.nanmean(column):.1f} ± {np.nanstd(column, ddof=1):.1f}"
            for column in np.array(values).T
        ]
        print(f"| {model} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
