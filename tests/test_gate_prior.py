"""Where the n-gram bag's gate starts from: a prior the valid rows leave only for a sure gain,
measured out of fold by merchant, and the share that weighs calibrated parts equally."""

import numpy as np
import torch

from ml_assets.training.gate_prior import (
    encoder_is_ahead,
    encoder_lead,
    equal_share,
    merchant_folds,
    out_of_fold_right,
    probe_predictor,
)
from ml_assets.training.ngram_bag import choose_gates


def one_hot_logits(labels: np.ndarray, classes: int, scale: float) -> np.ndarray:
    return np.eye(classes)[labels] * scale


def test_the_prior_holds_where_validation_cannot_tell():
    """Encoder and bag right on every valid row: no gate gains, so the prior share stays."""
    n = 90
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) % 2 == 0
    coverage = np.where(heldout, 0.2, 1.0)
    encoder = {"category": one_hot_logits(labels["category"], 3, 3.0)}
    bag = {"category": np.log(0.9 * np.eye(3)[labels["category"]] + 0.05)}
    merchants = np.arange(n)
    args = (encoder, bag, coverage, labels, heldout, -100, merchants)
    ((gate),) = choose_gates(*args, priors={"category": 0.4}).values()
    assert gate == (0.0, 0.4, 0.4, 0.0)
    ((without),) = choose_gates(*args).values()
    assert without[1] == 0.0  # unseen rows to the encoder where no prior is given


def gate_from_prior(encoder_of, bag_of, prior: float) -> tuple:
    """The gate ``choose_gates`` picks from ``prior`` on 240 rows of 120 merchants, every other
    row held out (coverage 0.1) and the rest seen (coverage 1.0); ``encoder_of`` and ``bag_of``
    map (held-out mask, one-hot right answers, one-hot wrong ones) to the two parts' scores."""
    n = 240
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) % 2 == 0
    coverage = np.where(heldout, 0.1, 1.0)
    right = np.eye(3)[labels["category"]]
    wrong = np.roll(right, 1, axis=1)
    encoder = {"category": encoder_of(heldout[:, None], right, wrong)}
    bag = {"category": bag_of(heldout[:, None], right, wrong)}
    merchants = np.arange(n) % 120
    ((gate),) = choose_gates(
        encoder, bag, coverage, labels, heldout, -100, merchants, priors={"category": prior}
    ).values()
    return gate


def test_a_sure_gain_moves_the_gate_off_its_prior():
    """A bag wrong on every unseen row of 60 merchants and right on seen ones, an encoder the
    reverse and no sharper: the prior's even mix loses unseen rows, the gate that gives them
    to the encoder is sure."""
    threshold, low, high, _ = gate_from_prior(
        lambda held, right, wrong: np.where(held, right, wrong) * 2.0,
        lambda held, right, wrong: np.log(0.9 * np.where(held, wrong, right) + 0.05),
        prior=0.5,
    )
    assert low == 0.0 and high >= 0.5 and 0.1 < threshold < 1.0


def test_seen_rows_take_more_of_the_bag_where_that_scores_higher():
    """Unseen rows right under the prior's mix (no sure gain to move their share), seen rows
    right only with more of the bag than the prior gives them: the prior stays the unseen
    rows' share, and the rows the bag has seen get more of it, as the encoder's rule would
    choose for them."""
    threshold, low, high, _ = gate_from_prior(
        lambda held, right, wrong: np.where(held, right, wrong) * 4.0,
        lambda held, right, wrong: np.log(0.9 * right + 0.05),
        prior=0.4,
    )
    assert low == 0.4 and high > 0.4 and 0.1 < threshold < 1.0


def test_equal_share_weighs_calibrated_parts_equally():
    """An encoder three times as sharp as a calibrated bag: the bag's share is 3 / (3 + 1), at
    which the two raw parts count alike."""
    rng = np.random.default_rng(0)
    base = rng.normal(size=(4000, 4)) * 1.5
    probabilities = np.exp(base) / np.exp(base).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(4, p=p) for p in probabilities])
    logprobs = np.log(probabilities)
    share = equal_share(3.0 * logprobs, logprobs, labels, np.ones(len(labels)))
    assert abs(share - 0.75) < 0.03


def test_out_of_fold_rows_are_read_by_a_model_that_never_saw_their_merchant():
    """A model that remembers each training row's merchant gets no held-out row right: every
    row of a merchant is in one fold, the same on every call."""
    merchants = np.array([f"m{i % 37}" for i in range(300)])
    folds = merchant_folds(merchants)
    assert len(np.unique(folds)) == 5
    assert (folds == merchant_folds(merchants)).all()
    labels = np.arange(300) % 4

    def remembers(inside, outside):
        known = dict(zip(merchants[inside], labels[inside], strict=False))
        return np.array([known.get(m, -1) for m in merchants[outside]])

    assert not out_of_fold_right(remembers, folds, labels).any()


def test_a_probe_on_separable_features_is_ahead_of_a_bag_that_guesses():
    """Features that spell the class: the probe gets every held-out fold right; a bag that
    guesses one class trails it by a sure margin."""
    rng = np.random.default_rng(1)
    labels = np.arange(400) % 4
    features = torch.from_numpy(np.eye(4)[labels] * 3 + rng.normal(size=(400, 4)) * 0.1).float()
    merchants = np.arange(400) % 80
    folds = merchant_folds(merchants)
    probe = out_of_fold_right(probe_predictor(features, labels, 4), folds, labels)
    assert probe.all()
    guess = labels == 0
    lead, error = encoder_lead(probe, guess, merchants)
    assert abs(lead - 75.0) < 1e-6 and encoder_is_ahead(lead, error)
    assert not encoder_is_ahead(*encoder_lead(guess, probe, merchants))
