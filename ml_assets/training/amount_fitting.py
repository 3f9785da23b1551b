"""Fit the amount prior beside a finetuned model and choose its weights (kept apart from
``amount_prior``, which the model class imports, because it scores the model)."""

from __future__ import annotations

import time

import numpy as np
import torch

from ml_assets.training.amount_prior import (
    AmountPrior,
    amount_table,
    buckets_numpy,
    choose_amount_weight,
)
from ml_assets.training.finetune import predict_logits
from ml_assets.training.ngram_bag import coverage_numpy, gate_weights


def row_amounts(data) -> np.ndarray:
    """The amounts of a ``LabeledSet``'s rows, in its order (the corpus keeps them)."""
    return data.sequences.row_table()["amount"].to_numpy()


def encoder_shares(net, sequences) -> list[np.ndarray]:
    """Per head, each row's share of the encoder in the model's mix (1 - the bag's share; 1
    without a bag): what the amount prior's terms are scaled by (``NgramBag.mix``)."""
    if net.bag is None or not net.use_bag:
        return [np.ones(len(sequences)) for _ in net.head_names]
    coverage = coverage_numpy(net.bag, sequences)
    return [1 - gate_weights(coverage, gate.tolist()) for gate in net.bag.gate.cpu()]


def attach_amount_prior(net, train, valid, pad_id: int, device, log=print) -> dict:
    """Count the table on ``train``'s labeled rows, choose each head's weight on ``valid``
    (every labeled valid row) against the model as it stands (encoder and bag; the terms
    scaled by each row's share of the encoder, as the model adds them), and attach the prior
    to ``net`` where some head's weight is above 0. Returns the weights, each head's
    validation gain in points and seconds."""
    started = time.perf_counter()
    heads = net.head_labels
    train_buckets = buckets_numpy(row_amounts(train))
    rows = valid.sequences.row_table()
    valid_buckets = buckets_numpy(rows["amount"].to_numpy())
    logits = predict_logits(net, valid.sequences, 256, pad_id, device)
    heldout = rows["heldout_merchant"].to_numpy()
    merchants = rows["merchant_key"].to_numpy()
    shares = encoder_shares(net, valid.sequences)
    prior = AmountPrior({head: len(names) for head, names in heads.items()})
    record: dict = {"weight": {}, "valid_gain_pt": {}}
    column = 0
    for i, (head, names) in enumerate(heads.items()):
        table = amount_table(train_buckets, train.labels[head], len(names))
        logprobs = torch.log_softmax(torch.from_numpy(logits[head]).double(), -1).numpy()
        terms = table[valid_buckets] * shares[i][:, None]
        weight, gain = choose_amount_weight(logprobs, terms, valid.labels[head], heldout, merchants)
        prior.table[:, column : column + len(names)] = torch.from_numpy(table)
        prior.weight[i] = weight
        column += len(names)
        record["weight"][head], record["valid_gain_pt"][head] = weight, gain
    net.amount_prior = prior.to(device) if any(record["weight"].values()) else None
    record["seconds"] = round(time.perf_counter() - started, 2)
    log(
        f"amount prior {'attached' if net.amount_prior is not None else 'not attached'} in "
        f"{record['seconds']} s: weights {record['weight']}, valid gain {record['valid_gain_pt']}"
    )
    return record
