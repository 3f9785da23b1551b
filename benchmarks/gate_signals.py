"""Benchmark: what should the n-gram bag's gate read, besides (or instead of) coverage?

The gate gives a row ``w = low + (high - low) * sigmoid(SHARPNESS * (signal - threshold))`` of
the bag. The shipped signal is the bag's coverage of the row's bi- and trigrams, with its
single tokens' averaged in where the valid rows choose it (``NgramBag.forward``,
``choose_gates``). Here the same gate search (on the valid rows) runs on other signals, and the
test rows are scored with the gate it picks:

* ``shipped (both coverages)``: the shipped choice;
* ``coverage``: the bi- and trigram coverage alone;
* ``bag_confidence``: the bag's top probability;
* ``coverage_and_confidence``: the mean of the coverage and the bag's top probability;
* ``coverage_plus_margin``: coverage + 0.5 x (the bag's top probability - the encoder's),
  clipped to [0, 1]: lean on the bag where it is surer than the encoder;
* the shipped coverages with another share of the single tokens (0.25, 0.75, 1), or the
  share chosen among 0.25, 0.5 and 0.75;
* ``coverage, thresholds from 0.4``: the coverage with two lower thresholds to choose
  from (seen rows whose reference codes or new city leave coverage low).

It reads the logits ``early_stopping_scores.py`` keeps (``--work DIR``: ``logits-<seed>.npz``,
the encoder's at the pass the held-out macro-F1 score keeps, and the bag's), so no model is
trained. Files saved with the bi- and trigram coverage alone get the single tokens' from the
corpus beside them (``DIR/corpus``, the bag's idf refit on its labeled train rows; a corpus
of the current format, which rows keep their amounts: an older one says to re-tokenize):

    python benchmarks/gate_signals.py DIR/logits-*.npz [OTHER_DIR/logits-*.npz ...]

Prints the first head's test accuracy (%, all / held-out / seen merchants) per signal: the mean
over the files, and the mean over the files of each folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.training import ngram_bag  # noqa: E402

HEAD = "category"
IGNORE = -100


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def split(z, name: str) -> dict:
    """One split's arrays; the held-out flags as booleans whichever way they were saved."""
    heldout = np.asarray(z[f"{name}_heldout"]).astype(str) == "True"
    # (rows, 2): bi- and trigrams, single tokens; one column in files saved before the second
    coverages = z[f"{name}_coverage"].astype(np.float64).reshape(len(heldout), -1)
    return {
        "encoder": log_softmax(z[f"{name}_{HEAD}_encoder"].astype(np.float64)),
        "bag": z[f"{name}_{HEAD}_bag"].astype(np.float64),
        "labels": z[f"{name}_{HEAD}_labels"],
        "heldout": heldout,
        "merchants": z[f"{name}_merchants"],
        "coverages": coverages,
        "coverage": coverages[:, 0],
    }


def margin_signal(part: dict) -> np.ndarray:
    bag_top, encoder_top = np.exp(part["bag"].max(axis=1)), np.exp(part["encoder"].max(axis=1))
    return np.clip(part["coverage"] + 0.5 * (bag_top - encoder_top), 0.0, 1.0)


SIGNALS: dict[str, tuple[Callable[[dict], np.ndarray], tuple[float, ...]]] = {
    "shipped (both coverages)": (lambda p: p["coverages"], ngram_bag.THRESHOLDS),
    "coverage": (lambda p: p["coverage"], ngram_bag.THRESHOLDS),
    "bag_confidence": (lambda p: np.exp(p["bag"].max(axis=1)), ngram_bag.THRESHOLDS),
    "coverage_and_confidence": (
        lambda p: (p["coverage"] + np.exp(p["bag"].max(axis=1))) / 2,
        ngram_bag.THRESHOLDS,
    ),
    "coverage_plus_margin": (margin_signal, ngram_bag.THRESHOLDS),
    "coverage, thresholds from 0.4": (lambda p: p["coverage"], (0.4, 0.5, *ngram_bag.THRESHOLDS)),
}
# the single tokens' share of the shipped coverage: other values, or a choice among several
TOKEN_SHARES: dict[str, tuple[float, ...]] = {
    "both coverages, single tokens' share 0.25": (0.0, 0.25),
    "both coverages, single tokens' share 0.75": (0.0, 0.75),
    "both coverages, single tokens' share 1 (their coverage alone)": (0.0, 1.0),
    "both coverages, single tokens' share chosen among 0.25, 0.5, 0.75": (0.0, 0.25, 0.5, 0.75),
}


def scored(
    valid: dict, test: dict, signal, thresholds, token_shares=ngram_bag.TOKEN_SHARES
) -> tuple[float, float, float]:
    """The gate chosen on valid with ``signal``; test accuracy all / held-out / seen, %."""
    gate = ngram_bag.choose_gates(
        {HEAD: valid["encoder"]}, {HEAD: valid["bag"]}, signal(valid), {HEAD: valid["labels"]},
        valid["heldout"], IGNORE, merchants=valid["merchants"], thresholds=thresholds,
        token_shares=token_shares,
    )[HEAD]  # fmt: skip
    share = ngram_bag.gate_weights(signal(test), gate)
    mixed = (1 - share[:, None]) * test["encoder"] + share[:, None] * test["bag"]
    right = mixed.argmax(axis=1) == test["labels"]
    keep = test["labels"] != IGNORE
    slices = (keep, keep & test["heldout"], keep & ~test["heldout"])
    return tuple(100 * right[m].mean() if m.any() else np.nan for m in slices)


def token_coverage(corpus: Path) -> dict[str, np.ndarray]:
    """The single tokens' coverage of each labeled valid and test row (``coverage_numpy``'s
    second column), for files saved with the bi- and trigram coverage alone: the bag's idf
    refit from the corpus' labeled train rows as ``fit_bag`` fits it, with the default
    profile's ``multitask_model`` settings (as ``early_stopping_scores.py`` runs)."""
    from ml_assets.core.params import load_params
    from ml_assets.core.training_data.corpus import TokenizedSplit
    from ml_assets.training.finetune import labeled_view

    settings = load_params().multitask_model
    buckets = settings.ngram_buckets
    heads = json.loads((corpus / "corpus.json").read_text())["label_columns"]
    sets = {
        name: labeled_view(
            TokenizedSplit(corpus, name, settings.max_length), dict.fromkeys(heads, [])
        )
        for name in ("train", "valid", "test")
    }
    vocab = json.loads((corpus / "corpus.json").read_text())["vocab_size"]
    idf, _ = ngram_bag.fit_idf(sets["train"].sequences, vocab, buckets)
    bag = ngram_bag.NgramBag(vocab, buckets, dict.fromkeys(heads, 1))
    bag.idf.copy_(torch.from_numpy(idf))
    bag.unseen_idf.fill_(float(np.float16(np.log(1 + len(sets["train"].sequences)) + 1)))
    return {name: ngram_bag.coverage_numpy(bag, sets[name].sequences) for name in ("valid", "test")}


def with_token_coverage(part: dict, coverages: np.ndarray, path: Path) -> dict:
    """``part`` with both coverage columns; the refit's bi- and trigram column must be the one
    the file saved (else the corpus or the buckets are not the run's)."""
    if (
        coverages.shape[0] != part["coverage"].shape[0]
        or np.abs(coverages[:, 0] - part["coverage"]).max() > 1e-3
    ):
        raise SystemExit(f"{path}: the corpus beside it does not give the coverage it saved")
    return part | {"coverages": coverages.astype(np.float64)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    results: dict[str, dict[str, list]] = {name: {} for name in (*SIGNALS, *TOKEN_SHARES)}
    refit: dict[Path, dict] = {}
    for path in sorted(args.files):
        with np.load(path, allow_pickle=True) as z:
            valid, test = split(z, "valid"), split(z, "test")
        if valid["coverages"].shape[1] == 1:  # saved before the single tokens' coverage
            corpus = path.parent / "corpus"
            if corpus not in refit:
                refit[corpus] = token_coverage(corpus)
            valid = with_token_coverage(valid, refit[corpus]["valid"], path)
            test = with_token_coverage(test, refit[corpus]["test"], path)
        for name, (signal, thresholds) in SIGNALS.items():
            runs = results[name].setdefault(path.parent.name, [])
            runs.append(scored(valid, test, signal, thresholds))
        for name, shares in TOKEN_SHARES.items():
            runs = results[name].setdefault(path.parent.name, [])
            runs.append(scored(valid, test, lambda p: p["coverages"], ngram_bag.THRESHOLDS, shares))
    folders = list(next(iter(results.values())))
    print(f"{len(args.files)} runs; category accuracy %, all / held-out / seen merchants")
    print("| signal | every run | " + " | ".join(folders) + " |")
    print("|---|---|" + "---|" * len(folders))
    for name, by_folder in results.items():
        every = np.array([r for runs in by_folder.values() for r in runs])
        cells = [np.nanmean(every, axis=0)] + [
            np.nanmean(np.array(runs), axis=0) for runs in by_folder.values()
        ]
        print(f"| {name} | " + " | ".join(" / ".join(f"{v:.1f}" for v in c) for c in cells) + " |")


if __name__ == "__main__":
    main()
