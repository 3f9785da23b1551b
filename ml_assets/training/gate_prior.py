"""Where the n-gram bag's gate starts from, per head, before the valid rows choose it.

A valid split holds a few dozen merchants never seen in training, often fewer: too few to
choose the bag's share of an unseen merchant's row (a share that looks better on them can lose
ten points on the test split's). So the gate starts from a prior, and the valid rows move
unseen rows' share off it only for a sure gain (``choose_gates``; seen rows may get more of
the bag, as the valid rows choose). Which prior is measured on the labeled train rows,
which hold many more merchants, out of fold (five folds by merchant, so each fold's merchants
are unseen by what reads them):

* the bag refit without the fold, against a linear probe on the starting backbone's pooled
  features (the encoder before finetuning, which has not read these labels);
* where the probe is ahead by a sure margin (``SURE_LEAD_PT`` points and ``SURE_LEAD_Z``
  standard errors, a merchant's rows moving together), the encoder reads unseen merchants
  better than the bag on this data, and the prior leaves unseen rows to the encoder;
* otherwise neither part is known to read them better, and the prior weighs the two parts
  equally once each is calibrated: a temperature per part fit on the valid rows (``T_e``,
  ``T_b``) and the constant share ``T_e / (T_e + T_b)`` of the bag (half of each calibrated
  log-probability ranks the classes as that share of the raw ones does).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import numpy as np
import torch

FOLDS = 5
# the rows compared: as many of a merchant's rows as its weight counts (``MERCHANT_ROW_CAP``),
# up to a total that bounds the comparison's cost on a big data set. Fewer per merchant lose
# what tells a merchant's rows apart (its purchases from its refunds: the built-in data's
# transaction type, where the probe's lead fell from 4.4 points to 0.9 with 4 per merchant)
ROWS_PER_MERCHANT = 20
MAX_ROWS = 6000
SURE_LEAD_PT = 1.0  # points the probe must be ahead of the bag out of fold...
SURE_LEAD_Z = 1.645  # ...and by how many standard errors of that lead (one-sided 95 %)


def comparison_rows(
    merchants: Sequence, per_merchant: int = ROWS_PER_MERCHANT, total: int = MAX_ROWS
) -> np.ndarray:
    """Indices of the rows compared: each merchant's first ``per_merchant`` rows, merchants
    in an order fixed by their key's hash, until ``total`` rows."""
    keys = np.asarray([str(m) for m in merchants])
    order = np.argsort([zlib.crc32(("rows:" + k).encode()) for k in keys], kind="stable")
    taken, kept = {}, []
    for row in order:
        count = taken.get(keys[row], 0)
        if count < per_merchant:
            taken[keys[row]] = count + 1
            kept.append(row)
            if len(kept) == total:
                break
    return np.sort(np.asarray(kept, dtype=np.int64))


def merchant_folds(merchants: Sequence, folds: int = FOLDS) -> np.ndarray:
    """Each row's fold, the same for every row of a merchant and on every run."""
    return np.array([zlib.crc32(str(m).encode()) % folds for m in merchants])


def out_of_fold_right(
    fit_predict: Callable[[np.ndarray, np.ndarray], np.ndarray], folds: np.ndarray, labels
) -> np.ndarray:
    """Whether each row's label is predicted by ``fit_predict(train_rows, predict_rows)`` fit
    without the row's fold (row indices in, predicted labels out)."""
    right = np.zeros(len(labels), dtype=bool)
    for fold in np.unique(folds):
        inside = np.flatnonzero(folds != fold)
        outside = np.flatnonzero(folds == fold)
        if len(inside) == 0:
            continue
        right[outside] = fit_predict(inside, outside) == labels[outside]
    return right


def probe_predictor(features: torch.Tensor, labels: np.ndarray, classes: int):
    """``fit_predict`` of a multinomial regression on ``features`` (the rows' pooled
    features), regularized as scikit-learn's default (C 1) on the rows it is fit on."""
    from ml_assets.training.probe import fit_softmax_regression

    def fit_predict(inside: np.ndarray, outside: np.ndarray) -> np.ndarray:
        weight, bias, _ = fit_softmax_regression(
            features[inside], labels[inside], classes, l2=1.0 / len(inside)
        )
        return (features[outside] @ weight.T + bias).argmax(1).numpy()

    return fit_predict


def encoder_lead(
    probe_right: np.ndarray, bag_right: np.ndarray, merchants: np.ndarray
) -> tuple[float, float]:
    """(the probe's lead over the bag, its standard error), points, a merchant's rows counting
    as at most ``MERCHANT_ROW_CAP`` rows and moving together."""
    from ml_assets.training.ngram_bag import gain_standard_error, merchant_row_weights

    weights = merchant_row_weights(merchants)
    lead = 100 * (np.average(probe_right, weights=weights) - np.average(bag_right, weights=weights))
    every = np.ones(len(merchants), dtype=bool)
    error = 100 * gain_standard_error(bag_right, probe_right, every, every, weights, merchants)
    return float(lead), float(error)


def encoder_is_ahead(lead: float, error: float) -> bool:
    return lead >= SURE_LEAD_PT and lead >= SURE_LEAD_Z * error


def temperature(logprobs: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> float:
    """The temperature that minimizes the weighted log-loss of ``log_softmax(logprobs / T)``
    on the rows (scalar, 1/20 to 20)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_softmax

    rows = np.arange(len(labels))

    def loss(log_t: float) -> float:
        scaled = log_softmax(logprobs / np.exp(log_t), axis=1)
        return -float(np.average(scaled[rows, labels], weights=weights))

    best = minimize_scalar(loss, bounds=(-3.0, 3.0), method="bounded")
    return float(np.exp(best.x))


def equal_share(
    encoder_logprobs: np.ndarray, bag_logprobs: np.ndarray, labels: np.ndarray, weights
) -> float:
    """The bag's constant share at which the two calibrated parts weigh equally (module
    docstring), from the labeled rows given."""
    t_encoder = temperature(encoder_logprobs, labels, weights)
    t_bag = temperature(bag_logprobs, labels, weights)
    return t_encoder / (t_encoder + t_bag)
