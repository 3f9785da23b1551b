"""Naive-Bayes-weighted logistic regression, the n-gram bag's linear model (NBSVM's recipe,
Wang & Manning 2012, with a logistic loss).

Per class, a binary logistic regression over the features each scaled by that class's
naive-Bayes log-count ratio ``r`` (how much more often the feature occurs in the class's rows
than in the others'). The scaling lets a rare n-gram that only one class's rows have carry
weight for it at the regularization a plain regression spends on every feature alike: on a
long tail of merchants a new merchant's shared words ("carniceria", "apotheke") are that kind
of n-gram. The class's scale folds into its weights (``r * w``), so the fitted model is still
one linear map, scores = ``x @ weights.T + intercept``: the graph that serves it is unchanged.
"""

from __future__ import annotations

import numpy as np

ABSENT_LOGIT = -1e4  # a class no training row carries: never predicted
SMOOTHING = 1.0  # added to every feature's count per side (NBSVM's alpha)


def unfitted(classes: int, features: int, y: np.ndarray):
    """(zero weights, intercepts, the classes ``y`` holds) before a fit: ``ABSENT_LOGIT`` for a
    class ``y`` lacks, and 0 for the only one where ``y`` holds a single class (every row's
    answer, nothing to fit)."""
    weights = np.zeros((classes, features), dtype=np.float32)
    intercept = np.full(classes, ABSENT_LOGIT, dtype=np.float32)
    present_classes = np.unique(y)
    if len(present_classes) == 1:
        intercept[present_classes[0]] = 0.0
    return weights, intercept, present_classes


def log_count_ratios(present, positive: np.ndarray, smoothing: float = SMOOTHING) -> np.ndarray:
    """``log((p / |p|) / (q / |q|))`` per feature: ``p``, ``q`` the smoothed counts of rows
    holding it among the ``positive`` rows and among the others; ``present`` a sparse 0/1
    matrix (rows, features)."""
    p = smoothing + np.asarray(present[positive].sum(axis=0)).ravel()
    q = smoothing + np.asarray(present[~positive].sum(axis=0)).ravel()
    return np.log((p / p.sum()) / (q / q.sum()))


def fit_nb_logistic(
    x, y: np.ndarray, classes: int, c: float, max_iter: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """(weights (classes, features), intercept (classes,)), float32, of one binary regression
    per class present in ``y`` (label ids below ``classes``) over ``x`` (sparse, rows x
    features) scaled by the class's ``log_count_ratios``; ``c`` the inverse regularization
    strength of each. A class absent from ``y`` gets ``ABSENT_LOGIT``; a single present class
    is every row's answer."""
    from scipy.sparse import csr_matrix, diags
    from sklearn.linear_model import LogisticRegression

    x = csr_matrix(x)
    weights, intercept, present_classes = unfitted(classes, x.shape[1], y)
    if len(present_classes) == 1:
        return weights, intercept
    present = x.copy()
    present.data = np.ones_like(present.data)
    for k in present_classes:
        positive = y == k
        ratios = log_count_ratios(present, positive)
        model = LogisticRegression(C=c, max_iter=max_iter).fit(x @ diags(ratios), positive)
        weights[k] = ratios * model.coef_[0]
        intercept[k] = model.intercept_[0]
    return weights, intercept


def fit_multinomial_logistic(
    x, y: np.ndarray, classes: int, c: float, max_iter: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """``fit_nb_logistic``'s output from one plain multinomial regression over ``x`` (TF-IDF's
    own model: the bag's regression to compare against)."""
    from sklearn.linear_model import LogisticRegression

    weights, intercept, present_classes = unfitted(classes, x.shape[1], y)
    if len(present_classes) == 1:
        return weights, intercept
    model = LogisticRegression(C=c, max_iter=max_iter).fit(x, y)
    fitted = [int(k) for k in model.classes_]
    if len(fitted) == 2:  # sklearn keeps one row for two classes: the logit of the second
        weights[fitted[1]], intercept[fitted[1]] = model.coef_[0], model.intercept_[0]
        intercept[fitted[0]] = 0.0
    else:
        weights[fitted], intercept[fitted] = model.coef_, model.intercept_
    return weights, intercept


REGRESSIONS = {"naive_bayes": fit_nb_logistic, "multinomial": fit_multinomial_logistic}
