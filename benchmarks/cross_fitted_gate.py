"""The n-gram bag's gate chosen on more rows than the valid split's: the labeled train rows
scored out of fold by merchant as well (the encoder finetuned again without each fold, as the
run finetuned it; the bag refit without it at the run's C), so that every labeled row a data
set has speaks for the gate. The encoder-first search (``choose_gates`` without a prior) on the
valid rows, on the out-of-fold rows and on both, against the gate the run shipped (from the
measured prior), all beside the run's finetuned encoder and its bag refit on every train row.
Category (the first head) accuracy on the test split, %, all / held-out merchants / merchants
not held out, PyTorch fp32, the text alone (no amount prior); per store, then the mean.

Usage: python benchmarks/cross_fitted_gate.py ARTIFACTS_DIR [ARTIFACTS_DIR ...] [--folds 5]
       [--cache DIR]   (stores a run of the graph left, e.g.
       $TMPDIR/foreign-data/helsinki-seed{1,2,3,4}/artifacts; K finetunes per store: about 5
       minutes for Helsinki on 2 cores; ``--cache`` keeps each store's out-of-fold encoder
       logits for a rerun)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest, run_max_length  # noqa: E402  (this folder is sys.path[0])
from bag_refit import encoder_of  # noqa: E402
from gate_prior import print_means  # noqa: E402

from ml_assets.core.params import MultitaskModelParams  # noqa: E402
from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.core.training_data.labels import IGNORE_INDEX  # noqa: E402
from ml_assets.training import ngram_bag  # noqa: E402
from ml_assets.training.bag_fitting import token_texts  # noqa: E402
from ml_assets.training.finetune import LabeledSet, finetune, labeled_view, predict_logits  # noqa: E402
from ml_assets.training.gate_prior import merchant_folds  # noqa: E402
from ml_assets.training.model import MultiTaskModel  # noqa: E402
from ml_assets.training.stages import seen_and_heldout_score  # noqa: E402

CPU = torch.device("cpu")
CHOSEN_ON = ("valid rows", "out-of-fold train rows", "valid and out-of-fold rows")


def subset(data: LabeledSet, rows: np.ndarray) -> LabeledSet:
    return LabeledSet(data.sequences.subset(rows), {h: v[rows] for h, v in data.labels.items()})


def scored(labels, encoder, bag, coverage, heldout, merchants) -> dict:
    """One set of rows as the gate reads them: labels, encoder logits, bag log-probabilities,
    the bag's coverage, held-out flags and merchant keys."""
    return {"labels": labels, "encoder": encoder, "bag": bag, "coverage": coverage,
            "heldout": heldout, "merchants": merchants}  # fmt: skip


def split_scores(head: str, data: LabeledSet, net, bag) -> dict:
    rows = data.sequences.row_table()
    return scored(
        data.labels[head],
        predict_logits(net, data.sequences, 128, data.sequences.meta["pad_id"], CPU)[head],
        ngram_bag.bag_logprobs_numpy(bag, data.sequences)[head],
        ngram_bag.coverage_numpy(bag, data.sequences).reshape(len(rows), -1),
        rows["heldout_merchant"].to_numpy(), rows["merchant_key"].cast(str).to_numpy(),
    )  # fmt: skip


def out_of_fold(root, head, heads, train, valid, settings, bag_c, bag_text, folds, cache) -> dict:
    """The labeled train rows, each scored by an encoder and a bag fit without its fold (every
    row of a merchant in one fold: each row is a merchant those models never saw)."""
    backbone = newest(root, "mlm_backbone", "model.safetensors")
    vocab, pieces = bag_text  # the bag's vocabulary size and its words' texts (or None)
    merchants = train.sequences.row_table()["merchant_key"].cast(str).to_numpy()
    fold_of = merchant_folds(merchants, folds)
    classes = len(heads[head])
    encoder = np.zeros((len(merchants), classes), dtype=np.float32)
    bag = np.zeros_like(encoder)
    coverage = None  # as many columns as the bag's coverage has
    cached = cache is not None and cache.exists()
    if cached:
        encoder = np.load(cache)["encoder"]
    pooling = encoder_of(newest(root, "multitask_model", "model.safetensors")).pooling
    valid_score = seen_and_heldout_score(valid)
    meta = train.sequences.meta
    for fold in range(folds):
        inside, outside = np.flatnonzero(fold_of != fold), np.flatnonzero(fold_of == fold)
        held_out = train.sequences.subset(outside)
        if not cached:
            torch.manual_seed(settings.seed)
            net = MultiTaskModel.from_backbone(backbone, heads, settings.dropout, pooling)
            finetune(
                net, subset(train, inside), valid, settings, pad_id=meta["pad_id"], device=CPU,
                mask_id=meta["mask_id"], special_ids=meta["special_ids"], log=lambda _m: None,
                valid_score=valid_score,
            )  # fmt: skip
            net.bag = None
            encoder[outside] = predict_logits(net.eval(), held_out, 128, meta["pad_id"], CPU)[head]
        fold_bag, _ = ngram_bag.fit_bag(
            (train.sequences.subset(inside), {head: train.labels[head][inside]}), vocab,
            settings.ngram_buckets, {head: heads[head]}, (bag_c,),
            (held_out, {head: train.labels[head][outside]}), IGNORE_INDEX,
            log=lambda _m: None, pieces=pieces,
        )  # fmt: skip
        bag[outside] = ngram_bag.bag_logprobs_numpy(fold_bag, held_out)[head]
        fold_coverage = ngram_bag.coverage_numpy(fold_bag, held_out).reshape(len(outside), -1)
        if coverage is None:
            coverage = np.zeros((len(merchants), fold_coverage.shape[1]))
        coverage[outside] = fold_coverage
        print(f"  fold {fold}: {len(inside)} rows in, {len(outside)} out", file=sys.stderr)
    if cache is not None and not cached:
        np.savez(cache, encoder=encoder)
    heldout = np.ones(len(merchants), dtype=bool)  # each row's merchant is new to its models
    return scored(train.labels[head], encoder, bag, coverage, heldout, merchants)


def gate_on(head: str, rows: dict) -> tuple:
    return ngram_bag.choose_gates(
        {head: rows["encoder"]}, {head: rows["bag"]}, rows["coverage"], {head: rows["labels"]},
        rows["heldout"], IGNORE_INDEX, rows["merchants"],
    )[head]  # fmt: skip


def accuracy(rows: dict, gate) -> list[float]:
    share = ngram_bag.gate_weights(rows["coverage"], gate)[:, None]
    encoder = torch.log_softmax(torch.from_numpy(rows["encoder"]).float(), -1).numpy()
    right = ((1 - share) * encoder + share * rows["bag"]).argmax(axis=1) == rows["labels"]
    keep, heldout = rows["labels"] != IGNORE_INDEX, rows["heldout"]
    return [100 * right[m].mean() for m in (keep, keep & heldout, keep & ~heldout)]


def store_accuracies(root: Path, folds: int, cache: Path | None) -> dict[str, list[float]]:
    model_dir = newest(root, "multitask_model", "model.safetensors")
    params = json.loads((model_dir / "params.json").read_text())
    net = encoder_of(model_dir)
    heads, head = net.head_labels, net.head_names[0]
    known = {k: v for k, v in params.items() if k in MultitaskModelParams.model_fields}
    settings = MultitaskModelParams(**{**known, "heads": list(heads)})  # the heads it trained
    corpus = newest(root, "tokenized_corpus", "corpus.json")
    sets = {
        name: labeled_view(TokenizedSplit(corpus, name, run_max_length(model_dir)), heads)
        for name in ("train", "valid", "test")
    }
    vocab = net.encoder.config.vocab_size
    tokenizer = newest(root, "pruned_tokenizer", "tokenizer.json")
    pieces = token_texts(tokenizer, vocab) if settings.ngram_chars else None  # as attach_bag
    bag, record = ngram_bag.fit_bag(
        (sets["train"].sequences, sets["train"].labels), vocab, settings.ngram_buckets, heads,
        tuple(settings.ngram_c_grid), (sets["valid"].sequences, sets["valid"].labels),
        IGNORE_INDEX, log=lambda _m: None, pieces=pieces,
    )  # fmt: skip
    valid, test = (split_scores(head, sets[name], net, bag) for name in ("valid", "test"))
    key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]
    oof = out_of_fold(
        root, head, heads, sets["train"], sets["valid"], settings, record["c"][head],
        (vocab, pieces), folds, cache / f"oof-{key}-{folds}.npz" if cache else None,
    )  # fmt: skip
    both = {k: np.concatenate([oof[k], valid[k]]) for k in valid}
    shipped = MultiTaskModel.load(model_dir).bag.gate[0].tolist()
    out = {"encoder alone": accuracy(test, (0.5, 0.0, 0.0, 0.0))}
    out["as the run shipped it (from the measured prior)"] = accuracy(test, shipped)
    for name, rows in zip(CHOSEN_ON, (valid, oof, both), strict=True):
        out[f"search on the {name}"] = accuracy(test, gate_on(head, rows))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stores", type=Path, nargs="+")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--cache", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(2)
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    every: dict[str, list] = {}
    for store in args.stores:
        print(store)
        for rule, values in store_accuracies(store, args.folds, args.cache).items():
            every.setdefault(rule, []).append(values)
            print(f"  {rule}: " + " / ".join(f"{v:.1f}" for v in values))
    print_means(every, len(args.stores))


if __name__ == "__main__":
    main()
