"""Where the n-gram bag's gate starts: a run's finetuned encoder given its bag twice, as
``attach_bag`` fits and gates it, with the gate starting from the prior ``gate_prior``
measures (shipped) and with the encoder-first search alone (unseen rows to the encoder unless
the valid rows are sure of a share). Category (the first head) accuracy on the test split, %,
all / held-out merchants / merchants not held out, PyTorch fp32, the text alone (no amount prior);
per store, then the mean over the stores.

Usage: python benchmarks/gate_prior.py ARTIFACTS_DIR [ARTIFACTS_DIR ...]   (stores a run of
       the graph left, e.g. $TMPDIR/foreign-data/helsinki-seed{1,2,3}/artifacts from
       benchmarks/foreign_data.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest, run_max_length  # noqa: E402  (this folder is sys.path[0])
from bag_refit import encoder_of  # noqa: E402

from ml_assets.core.params import MultitaskModelParams  # noqa: E402
from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.core.training_data.labels import IGNORE_INDEX  # noqa: E402
from ml_assets.training.bag_fitting import attach_bag  # noqa: E402
from ml_assets.training.finetune import labeled_view, predict_logits  # noqa: E402
from ml_assets.training.stages import prior_summary  # noqa: E402

RULES = {"encoder-first search alone": False, "from the measured prior (shipped)": True}


def store_accuracies(root: Path) -> tuple[dict[str, list[float]], str]:
    """Per rule, the first head's test accuracy (all, held-out, not held out); and the prior."""
    import json

    model_dir = newest(root, "multitask_model", "model.safetensors")
    params = json.loads((model_dir / "params.json").read_text())
    fields = MultitaskModelParams.model_fields
    settings = MultitaskModelParams(**{k: v for k, v in params.items() if k in fields})
    corpus = newest(root, "tokenized_corpus", "corpus.json")
    tokenizer = newest(root, "pruned_tokenizer", "tokenizer.json")
    backbone = newest(root, "mlm_backbone", "model.safetensors")
    net = encoder_of(model_dir)
    sets = {
        name: labeled_view(TokenizedSplit(corpus, name, run_max_length(model_dir)), net.head_labels)
        for name in ("train", "valid", "test")
    }
    head, cpu = net.head_names[0], torch.device("cpu")
    test = sets["test"]
    y = test.labels[head]
    keep = y != IGNORE_INDEX
    heldout = test.sequences.row_table()["heldout_merchant"].to_numpy()
    out, prior = {}, ""
    for rule, with_prior in RULES.items():
        record = attach_bag(
            net, sets["train"], sets["valid"], settings, 0, cpu, lambda _: None, tokenizer,
            backbone if with_prior else None,
        )  # fmt: skip
        right = predict_logits(net, test.sequences, 128, 0, cpu)[head].argmax(axis=1) == y
        out[rule] = [100 * right[m].mean() for m in (keep, keep & heldout, keep & ~heldout)]
        if with_prior:
            prior = prior_summary(record["prior"][head])
    return out, prior


def print_means(every: dict[str, list[list[float]]], stores: int) -> None:
    """Per gate rule, the mean over the stores of (all, held-out, not held out) as a table."""
    print(f"\n| gate ({stores} stores) | all | held-out merchants | merchants not held out |")
    print("|---|---|---|---|")
    for rule, values in every.items():
        print(f"| {rule} | " + " | ".join(f"{v:.1f}" for v in np.nanmean(values, axis=0)) + " |")


def main() -> None:
    stores = [Path(p) for p in sys.argv[1:]]
    if not stores:
        raise SystemExit(__doc__)
    every = {rule: [] for rule in RULES}
    for store in stores:
        accuracies, prior = store_accuracies(store)
        print(f"{store}: prior {prior}")
        for rule, values in accuracies.items():
            every[rule].append(values)
            print(f"  {rule}: " + " / ".join(f"{v:.1f}" for v in values))
    print_means(every, len(stores))


if __name__ == "__main__":
    main()
