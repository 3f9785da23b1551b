"""Benchmark: weight-space ensembling (WiSE-FT) of a finetuned model with its backbone.

Mixes the finetuned encoder with the backbone it started from, ``alpha * finetuned +
(1 - alpha) * backbone`` (heads kept), and scores PyTorch accuracy (%) per head on the valid
rows of held-out merchants (what a recipe would choose alpha on), the test split and its
held-out merchants. alpha 1.0 is the model as trained: the baseline of the same run.

With ``--soup`` the other end is the same run's baseline_model instead (a model soup of two
finetunes from the same start, seed and batch order: ``alpha * candidate + (1 - alpha) *
plain finetune``, encoder and heads).

    python benchmarks/weight_interpolation.py --store artifacts [--alphas 1.0 0.9 0.8 0.7 0.5] [--soup]

``--store``: an artifact store after ``scripts/quickstart.sh`` (its current multitask_model,
mlm_backbone and tokenized_corpus entries). About 30 s on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from store_entries import current_entry  # noqa: E402  (benchmarks/, the script's folder)

from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.training.finetune import evaluate, labeled_view  # noqa: E402
from ml_assets.training.model import MultiTaskModel  # noqa: E402
from ml_assets.training.stages import heldout_subset  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--alphas", type=float, nargs="+", default=[1.0, 0.9, 0.8, 0.7, 0.5])
    parser.add_argument("--max-length", type=int, default=48)
    parser.add_argument("--soup", action="store_true", help="mix with the run's baseline_model")
    args = parser.parse_args()
    torch.set_num_threads(2)
    net = MultiTaskModel.load(current_entry(args.store, "multitask_model"))
    finetuned = {k: v.clone() for k, v in net.state_dict().items()}
    if args.soup:
        other = MultiTaskModel.load(current_entry(args.store, "baseline_model")).state_dict()
    else:  # the backbone's encoder weights; the heads stay as finetuned
        backbone = load_file(current_entry(args.store, "mlm_backbone") / "model.safetensors")
        other = {
            k: backbone[f"bert.{k.removeprefix('encoder.')}"] if k.startswith("encoder.") else v
            for k, v in finetuned.items()
        }
    corpus = current_entry(args.store, "tokenized_corpus")
    heads = {h: net.head_labels[h] for h in net.head_names}
    valid_split = TokenizedSplit(corpus, "valid", args.max_length)
    pad_id = valid_split.meta["pad_id"]
    valid = labeled_view(valid_split, heads)
    test = labeled_view(TokenizedSplit(corpus, "test", args.max_length), heads)
    sets = {
        "valid, held-out merchants": heldout_subset(valid),
        "test": test,
        "test, held-out merchants": heldout_subset(test),
    }
    print("| alpha | " + " | ".join(f"{h} {n}" for n in sets for h in heads) + " |")
    print("|---" * (1 + len(sets) * len(heads)) + "|")
    for alpha in args.alphas:
        mixed = {
            k: alpha * v + (1 - alpha) * other[k].to(v.dtype) if v.is_floating_point() else v
            for k, v in finetuned.items()
        }
        net.load_state_dict(mixed)
        cells = []
        for data in sets.values():
            metrics = evaluate(net, data, 128, pad_id, torch.device("cpu"))
            cells += [f"{100 * metrics[h]['accuracy']:.1f}" for h in heads]
        print(f"| {alpha} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
