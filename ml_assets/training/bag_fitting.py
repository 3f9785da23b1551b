"""Fit the n-gram bag beside a finetuned encoder and choose its gates (kept apart from
``ngram_bag``, which the model class imports, because it scores the encoder)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.training_data.labels import IGNORE_INDEX
from ml_assets.training.finetune import predict_logits
from ml_assets.training.gate_prior import (
    comparison_rows,
    encoder_is_ahead,
    encoder_lead,
    equal_share,
    merchant_folds,
    out_of_fold_right,
    probe_predictor,
)
from ml_assets.training.ngram_bag import (
    bag_logprobs_numpy,
    choose_gates,
    coverage_numpy,
    fit_bag,
    kept_row_weights,
    piece_texts,
)


def token_texts(tokenizer_dir: Path, vocab_size: int) -> list[str]:
    """Each of the model's token ids as text in a word (``piece_texts``), from its tokenizer."""
    tokenizer = FolderTokenizer.load(tokenizer_dir)
    pieces = [tokenizer.backend.id_to_token(i) for i in range(vocab_size)]
    return piece_texts(pieces, tokenizer.all_special_ids)


def attach_bag(
    net,
    train,
    valid,
    settings,
    pad_id: int,
    device,
    log=print,
    tokenizer_dir: Path | None = None,
    backbone_dir: Path | None = None,
) -> dict:
    """Fit the bag on ``train`` (a ``LabeledSet``), choose its gates on ``valid`` (every
    labeled valid row, seen and held-out merchants) and attach it to ``net``; with
    ``settings.ngram_chars``, character n-grams of the tokens read from ``tokenizer_dir``.
    With ``backbone_dir`` (the backbone ``net`` was finetuned from), each gate starts from the
    prior ``gate_priors`` measures. Returns what was chosen: C, the priors and the gate per
    head, seconds."""
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
    bag_valid = bag_logprobs_numpy(bag, valid.sequences)
    valid_merchants = rows["merchant_key"].to_numpy()
    priors = None
    if backbone_dir is not None:
        priors, record["prior"] = gate_priors(
            net, train, (encoder, bag_valid, valid.labels, valid_merchants), settings,
            record["c"], pieces, pad_id, device, backbone_dir,
        )  # fmt: skip
        log(f"n-gram bag gate priors: {record['prior']}")
    gates = choose_gates(
        encoder, bag_valid, coverage, valid.labels, rows["heldout_merchant"].to_numpy(),
        IGNORE_INDEX, merchants=valid_merchants, priors=priors,
    )  # fmt: skip
    for i, head in enumerate(heads):
        bag.gate[i] = torch.tensor(gates[head])
    net.bag = bag.to(device)
    record["gate"] = gates
    record["seconds"] = round(time.perf_counter() - started, 2)
    log(f"n-gram bag attached in {record['seconds']} s: gates {gates}")
    return record


def gate_priors(
    net, train, valid, settings, c_by_head, pieces, pad_id, device, backbone_dir: Path
) -> tuple[dict[str, float | None], dict]:
    """Per head, the share of the bag its gate starts from (``gate_prior``): None (unseen rows
    to the encoder) where a linear probe on ``backbone_dir``'s pooled features reads the
    labeled ``train`` rows' merchants (``comparison_rows``) better than the bag, out of fold
    by merchant; else the share that weighs the calibrated parts equally on ``valid`` (encoder
    logits, bag log-probabilities, labels and merchants of its rows). Also what was measured."""
    from ml_assets.training.model import MultiTaskModel
    from ml_assets.training.probe import pooled_features

    encoder_valid, bag_valid, valid_labels, valid_merchants = valid
    merchants = train.sequences.row_table()["merchant_key"].cast(str).to_numpy()
    compared = comparison_rows(merchants)
    starting = MultiTaskModel.from_backbone(backbone_dir, net.head_labels, 0.0, net.pooling)
    features = torch.zeros(len(merchants), starting.encoder.config.hidden_size)
    features[compared] = pooled_features(
        starting.to(device), train.sequences.subset(compared), settings.batch_size * 2, pad_id,
        device,
    )  # fmt: skip
    del starting
    priors, record = {}, {}
    for head, names in net.head_labels.items():
        rows = compared[train.labels[head][compared] != IGNORE_INDEX]
        labels, keys = train.labels[head][rows], merchants[rows]
        folds = merchant_folds(keys)
        if len(np.unique(folds)) < 2:  # nothing to hold out: the encoder's rule
            priors[head], record[head] = None, {"prior": "encoder (too few merchants)"}
            continue

        def bag_predictor(inside, outside, head=head, names=names, rows=rows, labels=labels):
            fold_train = train.sequences.subset(rows[inside])
            fold_rows = train.sequences.subset(rows[outside])
            bag, _ = fit_bag(
                (fold_train, {head: labels[inside]}), net.encoder.config.vocab_size,
                settings.ngram_buckets, {head: names}, (c_by_head[head],),
                (fold_rows, {head: labels[outside]}), IGNORE_INDEX, log=lambda _: None,
                pieces=pieces,
            )  # fmt: skip
            return bag_logprobs_numpy(bag, fold_rows)[head].argmax(axis=1)

        probe_right = out_of_fold_right(
            probe_predictor(features[rows], labels, len(names)), folds, labels
        )
        bag_right = out_of_fold_right(bag_predictor, folds, labels)
        lead, error = encoder_lead(probe_right, bag_right, keys)
        measured = {"rows": len(rows), "merchants": len(set(keys))}
        measured["probe_out_of_fold"] = round(100 * float(probe_right.mean()), 1)
        measured["bag_out_of_fold"] = round(100 * float(bag_right.mean()), 1)
        measured["probe_lead"], measured["probe_lead_error"] = round(lead, 2), round(error, 2)
        if encoder_is_ahead(lead, error):
            priors[head], measured["prior"] = None, "encoder"
        else:
            keep = valid_labels[head] != IGNORE_INDEX
            weights = kept_row_weights(valid_merchants, keep)[keep]
            encoder = torch.log_softmax(torch.from_numpy(encoder_valid[head]).float(), -1).numpy()
            share = equal_share(
                encoder[keep], bag_valid[head][keep], valid_labels[head][keep], weights
            )
            priors[head] = measured["prior"] = round(share, 3)
        record[head] = measured
    return priors, record
