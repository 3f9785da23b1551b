"""Linear-probe initialization of the heads before finetuning (LP-FT, Kumar et al. 2022).

A freshly initialized head sends large, nearly random gradients into the encoder for the first
steps; they reshape the features the pretrained encoder gives merchants it has never seen.
Fitting each head first on the frozen encoder's pooled features, as a logistic regression,
starts finetuning from a head that already reads those features, so the encoder moves less.
On this project's data that is the wrong trade (``benchmarks/RESULTS.md``): the category of a
merchant never seen in training needs the encoder to move, so ``head_init`` defaults to random.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import torch
from torch.nn import functional as F

from ml_assets.training.data import IGNORE_INDEX, length_sorted_batches
from ml_assets.training.model import MultiTaskModel, pool


@torch.no_grad()
def pooled_features(
    model: MultiTaskModel,
    sequences: Sequence[np.ndarray],
    batch_size: int,
    pad_id: int,
    device: torch.device,
) -> torch.Tensor:
    """The pooled encoder output (eval mode: no dropout) per sequence, in input order."""
    was_training = model.training
    model.eval()
    batches, inverse = length_sorted_batches(sequences, batch_size, pad_id)
    parts = []
    for ids, mask in batches:
        ids, mask = ids.to(device), mask.to(device)
        hidden = model.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        parts.append(pool(hidden, mask, model.pooling).float().cpu())
    model.train(was_training)
    return torch.cat(parts)[torch.from_numpy(inverse)]


def fit_softmax_regression(
    features: torch.Tensor, labels: np.ndarray, classes: int, l2: float, max_iter: int = 200
) -> tuple[torch.Tensor, torch.Tensor, float]:
    """Multinomial logistic regression (full batch, L-BFGS): mean cross-entropy plus
    ``l2 / 2 * ||W||^2``. Rows labeled IGNORE_INDEX are left out. Returns weight (classes x
    dim), bias and the accuracy on the rows it was fit on. Deterministic: no random draws."""
    keep = torch.from_numpy(labels != IGNORE_INDEX)
    x, y = features[keep], torch.from_numpy(labels[labels != IGNORE_INDEX]).long()
    weight = torch.zeros(classes, x.shape[1], requires_grad=True)
    bias = torch.zeros(classes, requires_grad=True)
    optimizer = torch.optim.LBFGS(
        [weight, bias], lr=1.0, max_iter=max_iter, history_size=20, line_search_fn="strong_wolfe"
    )

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(x @ weight.T + bias, y) + 0.5 * l2 * weight.pow(2).sum()
        loss.backward()
        return loss

    with torch.enable_grad():
        optimizer.step(closure)
    with torch.no_grad():
        accuracy = float(((x @ weight.T + bias).argmax(1) == y).float().mean())
    return weight.detach(), bias.detach(), accuracy


def initialize_heads_by_probe(
    model: MultiTaskModel,
    sequences: Sequence[np.ndarray],
    labels: dict[str, np.ndarray],
    *,
    l2: float,
    batch_size: int,
    pad_id: int,
    device: torch.device,
) -> dict[str, float]:
    """Set every head to a logistic regression fit on the frozen encoder's pooled features of
    the training rows labeled for it. Returns the probe's training accuracy per head and the
    seconds it took (``seconds``)."""
    started = time.perf_counter()
    features = pooled_features(model, sequences, batch_size, pad_id, device)
    report = {}
    for name in model.head_names:
        head = model.heads[name]
        weight, bias, accuracy = fit_softmax_regression(
            features, labels[name], head.out_features, l2
        )
        with torch.no_grad():
            head.weight.copy_(weight.to(head.weight.device, head.weight.dtype))
            head.bias.copy_(bias.to(head.bias.device, head.bias.dtype))
        report[name] = accuracy
    report["seconds"] = time.perf_counter() - started
    return report
