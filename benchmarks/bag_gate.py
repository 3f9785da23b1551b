"""What the n-gram bag adds: a run's multitask_model scored in PyTorch fp32 on its valid and
test splits with the bag's gate varied: the encoder alone, the bag alone, the gate chosen with
the unseen rows' share of the bag capped at 0.3, 0.5 and 1.0 (shipped), with every
validation row counting alike (no cap on a merchant's rows, ``MERCHANT_ROW_CAP``), and with the bag
sharpened (its scores times 2 or 3 before the softmax, so a confident memory weighs more: what
rescaling its weights would ship). Category (the first head) accuracy, %: all / held-out
merchants / seen merchants. Then how well the row's bi- and trigram coverage tells a seen
merchant from a held-out one (ROC AUC on each split).

Usage: python benchmarks/bag_gate.py ARTIFACTS_DIR   (a store a run of the graph left, e.g.
       $TMPDIR/foreign-data/hard-seed1/artifacts from benchmarks/foreign_data.py)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.training_data.corpus import TokenizedSplit  # noqa: E402
from ml_assets.core.training_data.labels import IGNORE_INDEX  # noqa: E402
from ml_assets.training import ngram_bag  # noqa: E402
from ml_assets.training.finetune import labeled_view, predict_logits  # noqa: E402
from ml_assets.training.model import MultiTaskModel  # noqa: E402


def newest(root: Path, asset: str, marker: str) -> Path:
    found = sorted((root / asset).glob(f"*/{marker}"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit(f"{root / asset}: no entry with {marker}; run the graph first")
    return found[-1].parent


def run_max_length(model_dir: Path) -> int:
    """The truncation a run's multitask_model read its rows at (its ``params.json``), so a
    benchmark scores the rows as the run's bag and gate saw them."""
    return json.loads((model_dir / "params.json").read_text()).get("max_length", 512)


def main() -> None:
    root = Path(sys.argv[1])
    model_dir = newest(root, "multitask_model", "model.safetensors")
    net = MultiTaskModel.load(model_dir).eval()
    if net.bag is None:
        raise SystemExit("this multitask_model has no n-gram bag (multitask_model.ngram_bag)")
    corpus = newest(root, "tokenized_corpus", "corpus.json")
    max_length = run_max_length(model_dir)
    bag, head = net.bag, net.head_names[0]
    net.bag = None  # the encoder's own logits
    scored = {}
    for name in ("valid", "test"):
        data = labeled_view(TokenizedSplit(corpus, name, max_length), net.head_labels)
        row_table = data.sequences.row_table()
        scored[name] = (
            predict_logits(net, data.sequences, 128, 0, torch.device("cpu")),
            ngram_bag.bag_logprobs_numpy(bag, data.sequences),
            ngram_bag.coverage_numpy(bag, data.sequences),
            data.labels,
            row_table["heldout_merchant"].to_numpy(),
            row_table["merchant_key"].to_numpy(),
        )

    def sharpened(bagged: dict, factor: float) -> dict:
        return {
            h: torch.log_softmax(torch.from_numpy(factor * v), -1).numpy()
            for h, v in bagged.items()
        }

    def accuracy(split: str, gate: tuple[float, ...], factor: float = 1.0) -> str:
        encoder, bagged, coverage, labels, heldout, _ = scored[split]
        bagged = sharpened(bagged, factor) if factor != 1.0 else bagged
        w = ngram_bag.gate_weights(coverage, gate)
        logprobs = torch.log_softmax(torch.from_numpy(encoder[head]).float(), -1).numpy()
        predicted = ((1 - w[:, None]) * logprobs + w[:, None] * bagged[head]).argmax(axis=1)
        y = labels[head]
        keep = y != IGNORE_INDEX
        return " / ".join(
            f"{100 * (predicted[m] == y[m]).mean():.1f}"
            for m in (keep, keep & heldout, keep & ~heldout)
        )

    rows = [("encoder alone", (0.5, 0.0, 0.0), 1.0), ("bag alone", (0.5, 1.0, 1.0), 1.0)]
    encoder, bagged, coverage, labels, heldout, merchants = scored["valid"]
    for cap in (0.3, 0.5, 1.0):
        lows = tuple(x for x in ngram_bag.LOWS if x <= cap)
        gate = ngram_bag.choose_gates(
            encoder, bagged, coverage, labels, heldout, IGNORE_INDEX, merchants, lows=lows
        )
        suffix = " (shipped)" if lows == ngram_bag.LOWS else ""
        rows.append((f"gated, unseen share at most {cap}{suffix}", gate[head], 1.0))
    gate = ngram_bag.choose_gates(
        encoder, bagged, coverage, labels, heldout, IGNORE_INDEX, merchants, token_shares=(0.0,)
    )
    rows.append(("gated on bi- and trigram coverage alone (no token share)", gate[head], 1.0))
    gate = ngram_bag.choose_gates(encoder, bagged, coverage, labels, heldout, IGNORE_INDEX)
    rows.append(("gated, every validation row alike (no merchant cap)", gate[head], 1.0))
    for factor in (2.0, 3.0):
        gate = ngram_bag.choose_gates(
            encoder, sharpened(bagged, factor), coverage, labels, heldout, IGNORE_INDEX, merchants
        )
        rows.append((f"bag sharpened x{factor:g}, gated as shipped", gate[head], factor))
    print(f"| variant ({head}) | gate | valid | test |\n|---|---|---|---|")
    for name, gate, factor in rows:
        print(f"| {name} | {tuple(round(float(x), 2) for x in gate)} | "
              f"{accuracy('valid', gate, factor)} | {accuracy('test', gate, factor)} |")  # fmt: skip
    # the shipped gate's misses on seen merchants (test): how many the bag alone gets right
    encoder, bagged, coverage, labels, heldout, _ = scored["test"]
    shipped = next(gate for name, gate, _ in rows if name.endswith("(shipped)"))
    w = ngram_bag.gate_weights(coverage, shipped)
    logprobs = torch.log_softmax(torch.from_numpy(encoder[head]).float(), -1).numpy()
    mixed = ((1 - w[:, None]) * logprobs + w[:, None] * bagged[head]).argmax(axis=1)
    y = labels[head]
    missed = (y != IGNORE_INDEX) & ~heldout & (mixed != y)
    rescued = int((bagged[head].argmax(axis=1)[missed] == y[missed]).sum())
    print(f"seen-merchant rows the shipped gate misses (test): {int(missed.sum())}, "
          f"of them the bag alone gets {rescued} right")  # fmt: skip
    for split, (_, _, coverage, labels, heldout, _) in scored.items():
        keep = labels[head] != IGNORE_INDEX
        auc = separation(coverage[keep, 0], ~heldout[keep])
        print(f"coverage tells seen from held-out merchants ({split}): ROC AUC {auc:.3f}")


def separation(score: np.ndarray, positive: np.ndarray) -> float:
    """ROC AUC of ``score`` for ``positive`` rows (Mann-Whitney U, ties averaged)."""
    from scipy.stats import rankdata

    ranks = rankdata(score)
    n_pos, n_neg = positive.sum(), (~positive).sum()
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


if __name__ == "__main__":
    main()
