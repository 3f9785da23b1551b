"""The amount beside the text: what a transaction's amount says of its label, in the model.

The encoder and the n-gram bag read the description alone. Rent, salary, a coffee and a
flight differ in amount as much as in wording, so the amount goes into a bucket (its sign,
and how many powers of two its absolute value plus 1 reaches, 0 to ``MAGNITUDES`` - 1), and
each bucket into a table of ``log p(label | bucket) - log p(label)`` counted on the labeled
training rows: naive Bayes' correction for the amount, added to each head's
log-probabilities with a weight per head chosen on the validation rows. With the n-gram bag
it corrects the encoder's side of the mix (``NgramBag.mix``): a row whose merchant the bag
remembers leans on that memory, which already carries what the merchant's amounts say.

A weight above 0 must gain a clear margin there (``choose_amount_weight``, the rule by which
the n-gram bag's gate gives unseen rows a share of the bag): where amounts say nothing of the
labels (a data set whose amounts do not vary with them) the weight stays 0 and the model does
not read the amount at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from ml_assets.training.ngram_bag import (
    LOW_GAIN_PT,
    LOW_GAIN_Z,
    gain_standard_error,
    kept_row_weights,
    seen_and_heldout_accuracy,
)

SIGNS, MAGNITUDES = 2, 15  # spending (negative) and money in; 2**14 and more share a bucket
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)  # the table's weights the validation rows choose
SMOOTHING = 0.5  # added to every (bucket, label) count
# where a saved model's terms go: the encoder's side of the mix with the n-gram bag. A model
# whose config lacks it added them after the mix, with a weight chosen for that
PLACEMENT = "encoder_side"


def amount_buckets(amounts: torch.Tensor) -> torch.Tensor:
    """Each amount's bucket: 0 to 14 spending, 15 to 29 zero or money in. Comparisons with
    exact powers of two (not a log), so PyTorch and onnxruntime agree on every float32."""
    amounts = amounts.to(torch.float32)
    powers = 2.0 ** torch.arange(1, MAGNITUDES, dtype=torch.float32, device=amounts.device)
    magnitude = ((amounts.abs() + 1).unsqueeze(-1) >= powers).to(torch.int64).sum(dim=-1)
    return torch.where(amounts < 0, 0, MAGNITUDES) + magnitude


def buckets_numpy(amounts: np.ndarray) -> np.ndarray:
    """``amount_buckets`` of a numpy array (amounts as float32, as the graph reads them)."""
    return amount_buckets(torch.from_numpy(np.asarray(amounts, dtype=np.float32))).numpy()


class AmountPrior(nn.Module):
    """The table in the graph: amounts in, each head's weighted log-ratio out."""

    def __init__(self, heads: dict[str, int], placement: str = PLACEMENT):
        super().__init__()
        if placement != PLACEMENT:
            raise ValueError(f"amount prior placement {placement!r}: this code adds {PLACEMENT!r}")
        self.head_sizes = dict(heads)
        columns = sum(heads.values())
        self.register_buffer("table", torch.zeros(SIGNS * MAGNITUDES, columns))
        self.register_buffer("weight", torch.zeros(len(heads)))  # per head

    def config(self) -> dict:
        return {"heads": self.head_sizes, "placement": PLACEMENT}

    def forward(self, amounts: torch.Tensor) -> tuple[torch.Tensor, ...]:
        terms = self.table[amount_buckets(amounts)]
        parts = torch.split(terms, list(self.head_sizes.values()), dim=1)
        return tuple(self.weight[i] * part for i, part in enumerate(parts))


def amount_table(buckets: np.ndarray, labels: np.ndarray, classes: int) -> np.ndarray:
    """(buckets x classes) ``log p(label | bucket) - log p(label)`` of the labeled rows
    (``labels`` < 0 is unlabeled)."""
    counts = np.full((SIGNS * MAGNITUDES, classes), SMOOTHING)
    keep = labels >= 0
    np.add.at(counts, (buckets[keep], labels[keep]), 1)
    conditional = np.log(counts / counts.sum(axis=1, keepdims=True))
    return (conditional - np.log(counts.sum(axis=0) / counts.sum())).astype(np.float32)


def choose_amount_weight(
    logprobs: np.ndarray,
    terms: np.ndarray,
    labels: np.ndarray,
    heldout: np.ndarray,
    merchants: np.ndarray,
    weights: Sequence[float] = WEIGHTS,
) -> tuple[float, float]:
    """(weight, its gain in points) for one head on the validation rows: the weight whose
    ``logprobs + weight * terms`` scores best (the mean of seen- and held-out-merchant
    accuracy, a merchant counting as at most ``MERCHANT_ROW_CAP`` rows; ties to the smaller),
    kept only where it gains ``LOW_GAIN_PT`` points over no weight and ``LOW_GAIN_Z``
    standard errors of that gain (a merchant's rows moving together); else 0."""
    keep = labels >= 0
    if not keep.any():
        return 0.0, 0.0
    row_weights = kept_row_weights(merchants, keep)
    right = {w: (logprobs + w * terms).argmax(axis=1) == labels for w in weights}
    score = {
        w: 100 * seen_and_heldout_accuracy(r, keep, heldout, row_weights) for w, r in right.items()
    }
    best = max(weights, key=lambda w: (round(score[w], 9), -w))
    gain = score[best] - score[0.0]
    error = 100 * gain_standard_error(
        right[0.0], right[best], keep, heldout, row_weights, merchants
    )
    if best > 0 and gain >= LOW_GAIN_PT and gain >= LOW_GAIN_Z * error:
        return float(best), round(float(gain), 2)
    return 0.0, round(float(gain), 2)
