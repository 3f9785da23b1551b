"""The shipped n-gram bag refit beside a run's finetuned encoder: what the bag as the code now
builds it gives a store whose multitask_model was trained with another bag (or none). The
encoder's weights are read from the store, the bag is fit on the run's labeled train rows and
its gate chosen on the valid rows (``fit_bag``, ``choose_gates``, as ``attach_bag`` does);
PyTorch fp32, category (the first head) accuracy on the test split, %: all / held-out merchants
/ seen merchants. The encoder's logits are its text alone (an amount prior the run attached is
left out), so the rows compare bags, not priors. ``--min-documents``: the fewest training rows an
n-gram is in for the bag to keep it, one table row set per value (1, what ships; 2 drops the
n-grams of a single training row). ``--regression``: the bag's linear model, one table row set
per value (``naive_bayes``, what ships; ``multinomial``, TF-IDF's plain regression).
``--refit-valid``: one more row per set, the regression refit on the train and valid rows at
the chosen C once the gate is chosen on valid, the idf and coverage (so the gate's input) kept
from the train rows; n-grams only valid rows hold stay out (not shipped: the references gain
as much from the same rows, ``reference_refit.py``).

Usage: python benchmarks/bag_refit.py ARTIFACTS_DIR [--buckets 131072] [--min-documents 1 2]
       [--regression naive_bayes multinomial] [--refit-valid]
       (a store a run of the graph left, e.g. $TMPDIR/foreign-data/hard-seed2/artifacts;
       one to three minutes per value)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bag_gate import newest, run_max_length  # noqa: E402  (this folder is the script's sys.path[0])

from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.core.training_data.labels import IGNORE_INDEX  # noqa: E402
from ml_assets.training import ngram_bag  # noqa: E402
from ml_assets.training.bag_fitting import token_texts  # noqa: E402
from ml_assets.training.finetune import labeled_view, predict_logits  # noqa: E402
from ml_assets.training.model import MODEL_CONFIG, MODEL_WEIGHTS, MultiTaskModel  # noqa: E402
from ml_assets.training.nb_logistic import REGRESSIONS  # noqa: E402


def encoder_of(model_dir: Path) -> MultiTaskModel:
    """The run's multitask model without its bag (whatever bag it was trained with)."""
    from safetensors.torch import load_file
    from transformers import BertConfig

    config = json.loads((model_dir / MODEL_CONFIG).read_text())
    net = MultiTaskModel(
        BertConfig.from_dict(config["encoder"]), config["heads"], config["dropout"],
        config.get("pooling", "cls"),
    )  # fmt: skip
    weights = load_file(str(model_dir / MODEL_WEIGHTS))
    text = {k: v for k, v in weights.items() if not k.startswith(("bag.", "amount_prior."))}
    net.load_state_dict(text)
    return net.eval()


def refit_on_valid(bag, train, valid, heads, chosen_c: dict, regression: str):
    """A copy of ``bag`` whose regression is refit on the ``train`` and ``valid`` rows
    (``LabeledSet``s) at each head's ``chosen_c``; its idf, and so its coverage, are the train
    rows' as ``fit_bag`` set them, so the n-grams no train row holds keep weight 0."""
    import copy
    import inspect

    import numpy as np
    from scipy.sparse import vstack

    idf = bag.idf.float().numpy()
    kept = np.flatnonzero(idf < float(bag.unseen_idf))
    chars = (bag.char_codes.numpy(), bag.char_lengths.numpy()) if bag.char_grams else None
    max_iter = inspect.signature(ngram_bag.fit_bag).parameters["max_iter"].default
    matrix = vstack([
        ngram_bag.bag_matrix(part.sequences, bag.vocab_size, bag.buckets, idf, chars)
        for part in (train, valid)
    ]).tocsr()[:, kept]  # fmt: skip
    refit, column = copy.deepcopy(bag), 0
    for head, names in heads.items():
        y = np.concatenate([train.labels[head], valid.labels[head]])
        keep = y != IGNORE_INDEX
        weights, intercept = REGRESSIONS[regression](
            matrix[keep], y[keep], len(names), chosen_c[head], max_iter
        )
        table = np.zeros((bag.table.shape[0], len(names)), dtype=np.float32)
        table[kept] = weights.T
        refit.table[:, column : column + len(names)] = torch.from_numpy(table)
        refit.bias[column : column + len(names)] = torch.from_numpy(intercept)
        column += len(names)
    return refit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("artifacts", type=Path)
    parser.add_argument("--buckets", type=int, default=131072)
    parser.add_argument("--min-documents", type=int, nargs="+", default=[1])
    parser.add_argument(
        "--regression", nargs="+", default=["naive_bayes"], choices=sorted(REGRESSIONS)
    )
    parser.add_argument("--refit-valid", action="store_true")
    args = parser.parse_args()
    root = args.artifacts
    model_dir = newest(root, "multitask_model", "model.safetensors")
    net = encoder_of(model_dir)
    corpus = newest(root, "tokenized_corpus", "corpus.json")
    tokenizer = newest(root, "pruned_tokenizer", "tokenizer.json")
    max_length = run_max_length(model_dir)
    sets = {
        name: labeled_view(TokenizedSplit(corpus, name, max_length), net.head_labels)
        for name in ("train", "valid", "test")
    }
    vocab = net.encoder.config.vocab_size
    head = net.head_names[0]
    encoded = {
        name: predict_logits(net, sets[name].sequences, 128, 0, torch.device("cpu"))[head]
        for name in ("valid", "test")
    }
    rows = {name: sets[name].sequences.row_table() for name in ("valid", "test")}
    print(f"| part ({head}) | regression | kept n-grams of at least | test |")
    print("|---|---|---|---|")
    variants = [(r, m) for r in args.regression for m in args.min_documents]
    for regression, min_documents in variants:
        bag, record = ngram_bag.fit_bag(
            (sets["train"].sequences, sets["train"].labels), vocab, args.buckets,
            net.head_labels, (3.0, 10.0, 30.0),
            (sets["valid"].sequences, sets["valid"].labels), IGNORE_INDEX,
            log=lambda _m: None, pieces=token_texts(tokenizer, vocab),
            min_documents=min_documents, regression=regression,
        )  # fmt: skip
        scored = {
            name: (
                {head: encoded[name]},
                ngram_bag.bag_logprobs_numpy(bag, sets[name].sequences),
                ngram_bag.coverage_numpy(bag, sets[name].sequences),
                rows[name]["heldout_merchant"].to_numpy(),
                rows[name]["merchant_key"].to_numpy(),
            )
            for name in ("valid", "test")
        }
        encoder, bagged, coverage, heldout, merchants = scored["valid"]
        valid_labels = {head: sets["valid"].labels[head]}
        gates = ngram_bag.choose_gates(
            encoder, bagged, coverage, valid_labels, heldout, IGNORE_INDEX, merchants
        )

        def accuracy(gate, test=scored["test"]) -> str:
            encoder, bagged, coverage, heldout, _ = test
            w = ngram_bag.gate_weights(coverage, gate)
            logprobs = torch.log_softmax(torch.from_numpy(encoder[head]).float(), -1).numpy()
            mixed = (1 - w[:, None]) * logprobs + w[:, None] * bagged[head]
            predicted = mixed.argmax(axis=1)
            y = sets["test"].labels[head]
            keep = y != IGNORE_INDEX
            slices = (keep, keep & heldout, keep & ~heldout)
            return " / ".join(f"{100 * (predicted[m] == y[m]).mean():.1f}" for m in slices)

        print(
            f"bag fit in {record['seconds']} s, C {record['c'][head]}; gate {gates[head]}",
            file=sys.stderr,
        )
        if (regression, min_documents) == variants[0]:
            print(f"| encoder alone | - | - | {accuracy((0.5, 0.0, 0.0))} |")
        kind = f"{regression} | {min_documents}"
        print(f"| bag alone | {kind} | {accuracy((0.5, 1.0, 1.0))} |")
        print(f"| gated as shipped | {kind} | {accuracy(gates[head])} |")
        if args.refit_valid:
            refit = refit_on_valid(
                bag, sets["train"], sets["valid"], net.head_labels, record["c"], regression
            )
            encoder, _, coverage, heldout, merchants = scored["test"]
            refit_test = (encoder, ngram_bag.bag_logprobs_numpy(refit, sets["test"].sequences),
                          coverage, heldout, merchants)  # fmt: skip
            print(f"| gated, regression refit on train + valid rows | {kind} | "
                  f"{accuracy(gates[head], refit_test)} |")  # fmt: skip


if __name__ == "__main__":
    main()
