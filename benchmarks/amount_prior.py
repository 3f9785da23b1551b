"""Benchmark: what a transaction's amount adds to the candidate's text.

The product's amount prior (``ml_assets/training/amount_prior.py``): each amount's bucket (its
sign and powers of two) looked up in a table of ``log p(label | bucket) - log p(label)``
counted on the labeled train rows, added to the encoder's side of the candidate's mix with the
n-gram bag (``(1 - w) * (encoder + terms) + w * bag``, ``w`` the shipped gate's share of the
bag) with a weight per head that the valid rows choose (``choose_amount_weight``: above 0 only
for a clear gain). Beside it, weight 1 whatever the
valid rows say: what the rule guards against.

Two sources of the candidate's logits:

    python benchmarks/amount_prior.py --store ARTIFACTS
        a run's store: its multitask_model scored in PyTorch fp32 on its valid and test rows
    python benchmarks/amount_prior.py --corpus WORK/corpus WORK/logits-*.npz
        the saved logits of ``early_stopping_scores.py --work WORK`` (the encoder at the pass
        the shipped score keeps, the bag, its coverage); the gate chosen here as shipped

Prints per run and head the test accuracy, %, all / held-out / seen merchants: without the
amount, with the weight the rule chooses (and the validation gain it saw), with weight 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest, run_max_length  # noqa: E402  (this folder is the script's sys.path[0])
from early_stopping_scores import mixed  # noqa: E402
from gate_signals import token_coverage, with_token_coverage  # noqa: E402

from ml_assets.core.params import load_params  # noqa: E402
from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.core.training_data.labels import IGNORE_INDEX  # noqa: E402
from ml_assets.training import ngram_bag  # noqa: E402
from ml_assets.training.amount_prior import (  # noqa: E402
    amount_table,
    buckets_numpy,
    choose_amount_weight,
)
from ml_assets.training.finetune import labeled_view, predict_logits  # noqa: E402
from ml_assets.training.model import MultiTaskModel  # noqa: E402


def rows_of(corpus: Path, heads: list[str], max_length: int) -> dict[str, dict]:
    """Per split, the labeled rows (any head) read at ``max_length`` tokens, in
    ``labeled_view``'s order: amounts bucketed, merchants, held-out flags, labels."""
    out = {}
    for name in ("train", "valid", "test"):
        data = labeled_view(TokenizedSplit(corpus, name, max_length), dict.fromkeys(heads, []))
        table = data.sequences.row_table()
        out[name] = {
            "buckets": buckets_numpy(table["amount"].to_numpy()),
            "merchants": table["merchant_key"].to_numpy().astype(str),
            "heldout": table["heldout_merchant"].to_numpy(),
            "labels": data.labels,
            "sequences": data.sequences,
        }
    return out


def store_runs(root: Path) -> Iterator[tuple[str, list[str], dict, dict]]:
    """(name, heads, per-split scored rows, per-head gate) of a store's multitask_model."""
    model_dir = newest(root, "multitask_model", "model.safetensors")
    net = MultiTaskModel.load(model_dir).eval()
    if net.bag is None:
        raise SystemExit("this multitask_model has no n-gram bag (multitask_model.ngram_bag)")
    heads = list(net.head_names)
    rows = rows_of(
        newest(root, "tokenized_corpus", "corpus.json"), heads, run_max_length(model_dir)
    )
    bag = net.bag
    gates = {h: tuple(float(x) for x in bag.gate[i]) for i, h in enumerate(heads)}
    net.bag = None  # the encoder's own logits; the gate mixes them as the graph does
    for name in ("valid", "test"):
        sequences = rows[name]["sequences"]
        rows[name]["encoder"] = predict_logits(net, sequences, 128, 0, torch.device("cpu"))
        rows[name]["bag"] = ngram_bag.bag_logprobs_numpy(bag, sequences)
        rows[name]["coverage"] = ngram_bag.coverage_numpy(bag, sequences)
    yield root.parent.name, heads, rows, gates


def saved_runs(corpus: Path, files: list[Path]):
    """The same from ``early_stopping_scores.py``'s saved logits, the gate chosen as shipped."""
    tokens = None  # the single tokens' coverage, for files saved without it: once per corpus
    max_length = load_params().multitask_model.max_length  # as early_stopping_scores.py ran
    for path in files:
        saved = np.load(path, allow_pickle=True)  # merchant keys may be object arrays
        heads = [k[len("valid_") : -len("_encoder")] for k in saved.files
                 if k.startswith("valid_") and k.endswith("_encoder")]  # fmt: skip
        rows = rows_of(corpus, heads, max_length)
        for name in ("valid", "test"):
            split = rows[name]
            same_labels = all(
                (saved[f"{name}_{h}_labels"] == split["labels"][h]).all() for h in heads
            )
            if (
                not same_labels
                or not (saved[f"{name}_merchants"].astype(str) == split["merchants"]).all()
            ):
                raise SystemExit(f"{path}: its rows are not the corpus' {name} rows")
            split["encoder"] = {h: saved[f"{name}_{h}_encoder"].astype(np.float64) for h in heads}
            split["bag"] = {h: saved[f"{name}_{h}_bag"].astype(np.float64) for h in heads}
            split["coverage"] = saved[f"{name}_coverage"].astype(np.float64)
        if rows["valid"]["coverage"].ndim == 1:  # saved before the single tokens' coverage
            tokens = tokens or token_coverage(corpus)
            for name in ("valid", "test"):
                split = rows[name]
                split["coverage"] = with_token_coverage(
                    {"coverage": split["coverage"]}, tokens[name], path
                )["coverages"]
        valid = rows["valid"]
        gates = ngram_bag.choose_gates(
            valid["encoder"], valid["bag"], valid["coverage"], valid["labels"], valid["heldout"],
            IGNORE_INDEX, merchants=valid["merchants"],
        )  # fmt: skip
        yield f"{path.parent.name}/{path.stem}", heads, rows, gates


def evaluate_head(head: str, rows: dict, gate) -> dict:
    """The test slices with no amount, with the weight the product's rule chooses on the valid
    rows (``choose_amount_weight``), and with weight 1 whatever the valid rows say."""
    classes = rows["valid"]["encoder"][head].shape[1]
    table = amount_table(rows["train"]["buckets"], rows["train"]["labels"][head], classes)
    base, terms = {}, {}
    for name in ("valid", "test"):
        split = {**rows[name], "encoder": rows[name]["encoder"][head],
                 "bag": rows[name]["bag"][head]}  # fmt: skip
        base[name] = mixed(split["encoder"], split["bag"], split["coverage"], gate)
        # the model adds them to the encoder's share of the mix (``NgramBag.mix``)
        share = 1 - ngram_bag.gate_weights(split["coverage"], gate)
        terms[name] = table[split["buckets"]] * share[:, None]
    valid = rows["valid"]
    chosen, gain = choose_amount_weight(
        base["valid"], terms["valid"], valid["labels"][head], valid["heldout"], valid["merchants"]
    )
    test = rows["test"]
    keep = test["labels"][head] != IGNORE_INDEX
    held = test["heldout"]

    def slices(weight: float) -> tuple[float, float, float]:
        right = (base["test"] + weight * terms["test"]).argmax(axis=1) == test["labels"][head]
        return tuple(100 * float(right[m].mean()) for m in (keep, keep & held, keep & ~held))

    return {"none": slices(0.0), "chosen": (chosen, gain, slices(chosen)), "one": slices(1.0)}


def evaluate(heads: list[str], rows: dict, gates: dict) -> dict[str, dict]:
    """Per head: the test slices at weight 0 and at each rule's weight."""
    return {head: evaluate_head(head, rows, gates[head]) for head in heads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, action="append", default=[])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("logits", type=Path, nargs="*")
    args = parser.parse_args()
    runs = [run for store in args.store for run in store_runs(store)]
    if args.logits:
        if args.corpus is None:
            parser.error("saved logits need --corpus (the folder of the runs' corpus)")
        runs += list(saved_runs(args.corpus, args.logits))

    def fmt(values) -> str:
        return " / ".join(f"{v:.1f}" for v in values)

    print("| run | head | no amount | weight chosen (valid gain, points) | with it | weight 1 |\n"
          "|---|---|---|---|---|---|")  # fmt: skip
    for name, heads, rows, gates in runs:
        for head, r in evaluate(heads, rows, gates).items():
            weight, gain, chosen = r["chosen"]
            print(f"| {name} | {head} | {fmt(r['none'])} | {weight:g} ({gain:+.1f}) | "
                  f"{fmt(chosen)} | {fmt(r['one'])} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
