"""The n-gram bag's naive-Bayes-weighted regression: one linear map, each class's scaling folded
into its weights."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix, diags
from sklearn.linear_model import LogisticRegression

from ml_assets.training.nb_logistic import (
    ABSENT_LOGIT,
    REGRESSIONS,
    fit_nb_logistic,
    log_count_ratios,
)


def tfidf_like(rows: int, features: int, seed: int) -> csr_matrix:
    rng = np.random.default_rng(seed)
    dense = rng.random((rows, features)) * (rng.random((rows, features)) < 0.2)
    norms = np.maximum(np.linalg.norm(dense, axis=1, keepdims=True), 1e-6)
    return csr_matrix(dense / norms)


def test_log_count_ratios_compare_the_share_of_rows_holding_each_feature_per_side():
    present = csr_matrix(np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1]], dtype=float))
    positive = np.array([True, True, False])
    p = 1 + np.array([2, 0, 1])  # smoothed counts among the positive rows
    q = 1 + np.array([0, 1, 1])
    expected = np.log((p / p.sum()) / (q / q.sum()))
    np.testing.assert_allclose(log_count_ratios(present, positive), expected)


def test_the_fitted_map_scores_as_each_class_regression_on_its_scaled_features():
    x = tfidf_like(120, 30, seed=0)
    y = np.random.default_rng(1).integers(0, 3, 120)
    weights, intercept = fit_nb_logistic(x, y, classes=3, c=10.0)
    scores = x @ weights.T + intercept
    present = x.copy()
    present.data[:] = 1.0
    for k in range(3):
        ratios = log_count_ratios(present, y == k)
        scaled = x @ diags(ratios)
        model = LogisticRegression(C=10.0, max_iter=1000).fit(scaled, y == k)
        np.testing.assert_allclose(
            scores[:, k], model.decision_function(scaled), rtol=1e-4, atol=1e-4
        )


@pytest.mark.parametrize("regression", sorted(REGRESSIONS))
def test_a_class_no_row_carries_is_never_predicted_and_a_single_class_is_every_answer(regression):
    fit = REGRESSIONS[regression]
    x = tfidf_like(40, 10, seed=2)
    y = np.array([0, 2] * 20)
    weights, intercept = fit(x, y, 3, 1.0)
    assert intercept[1] == ABSENT_LOGIT and not weights[1].any()
    assert ((x @ weights.T + intercept).argmax(axis=1) != 1).all()
    weights, intercept = fit(x, np.full(40, 1), 3, 1.0)
    assert ((x @ weights.T + intercept).argmax(axis=1) == 1).all()


@pytest.mark.parametrize("seed", [3, 4])
def test_a_word_only_one_class_has_decides_a_row_it_appears_in(seed):
    """A feature seen in two rows of one class outweighs common features that lean elsewhere."""
    rng = np.random.default_rng(seed)
    rows, common = 200, 8
    dense = np.zeros((rows + 1, common + 1))
    y = rng.integers(0, 2, rows)
    dense[:rows, :common] = rng.random((rows, common)) * (rng.random((rows, common)) < 0.5)
    dense[:rows, 0] += 0.5 * (y == 0)  # a common feature leaning to class 0
    dense[[int(np.flatnonzero(y == 1)[0]), int(np.flatnonzero(y == 1)[1])], common] = 1.0
    dense[rows, [0, common]] = [0.5, 1.0]  # the test row: the leaning feature and the rare word
    x = csr_matrix(dense / np.maximum(np.linalg.norm(dense, axis=1, keepdims=True), 1e-6))
    weights, intercept = fit_nb_logistic(x[:rows], y, classes=2, c=10.0)
    assert (x[rows] @ weights.T + intercept).argmax() == 1
