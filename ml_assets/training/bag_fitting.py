"""Fit the n-gram bag beside a finetuned encoder and choose its gates (kept apart from
``ngram_bag``, which the model class imports, because it scores the encoder)."""

from __future__ import annotations

import time
from pathlib import Path

import torch

from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.training_data.labels import IGNORE_INDEX
from ml_assets.training.finetune import predict_logits
from ml_assets.training.ngram_bag import (
    bag_logprobs_numpy,
    choose_gates,
    coverage_numpy,
    fit_bag,
    piece_texts,
)


def token_texts(tokenizer_dir: Path, vocab_size: int) -> list[str]:
    """Each of the model's token ids as text in a word (``piece_texts``), from its tokenizer."""
    tokenizer = FolderTokenizer.load(tokenizer_dir)
    pieces = [tokenizer.backend.id_to_token(i) for i in range(vocab_size)]
    return piece_texts(pieces, tokenizer.all_special_ids)


def attach_bag(
    net, train, valid, settings, pad_id: int, device, log=print, tokenizer_dir: Path | None = None
) -> dict:
    """Fit the bag on ``train`` (a ``LabeledSet``), choose its gates on ``valid`` (every
    labeled valid row, seen and held-out merchants) and attach it to ``net``; with
    ``settings.ngram_chars``, character n-grams of the tokens read from ``tokenizer_dir``.
    Returns what was chosen: C and the gate per head, seconds."""
    started = time.perf_counter()
    vocab_size = net.encoder.config.vocab_size
    heads = net.head_labels
    pieces = token_texts(tokenizer_dir, vocab_size) if settings.ngram_chars else None
    bag, record = fit_bag(
        (train.sequences, train.labels),
        vocab_size,
        settings.ngram_buckets,
        heads,
        settings.ngram_c_grid,
        (valid.sequences, valid.labels),
        IGNORE_INDEX,
        log=log,
        pieces=pieces,
    )
    net.bag = None
    encoder = predict_logits(net, valid.sequences, settings.batch_size * 2, pad_id, device)
    rows = valid.sequences.row_table()
    coverage = coverage_numpy(bag, valid.sequences)
    gates = choose_gates(
        encoder, bag_logprobs_numpy(bag, valid.sequences), coverage, valid.labels,
        rows["heldout_merchant"].to_numpy(), IGNORE_INDEX, merchants=rows["merchant_key"].to_numpy(),
    )  # fmt: skip
    for i, head in enumerate(heads):
        bag.gate[i] = torch.tensor(gates[head])
    net.bag = bag.to(device)
    record["gate"] = gates
    record["seconds"] = round(time.perf_counter() - started, 2)
    log(f"n-gram bag attached in {record['seconds']} s: gates {gates}")
    return record
