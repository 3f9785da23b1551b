"""Tier-2 evaluation metrics, all computed from one table of predicted probabilities.

Plain numpy: label ids and probability matrices in, numbers out. Conventions follow
scikit-learn where one exists (average precision is the step-wise area under the PR curve;
classes absent from both truth and prediction do not count towards macro averages).
"""

from __future__ import annotations

import numpy as np

from ml_assets.core.quality.metrics import accuracy, macro_f1, per_class_prf


def average_precision(positive: np.ndarray, scores: np.ndarray) -> float:
    """Area under the precision-recall curve (sklearn's step-wise average precision).
    NaN when there is no positive example."""
    n_pos = int(positive.sum())
    if n_pos == 0:
        return float("nan")
    order = np.argsort(-scores, kind="stable")
    ranked, sorted_scores = positive[order], scores[order]
    # one point per distinct threshold: the last index of each run of equal scores
    last = np.r_[np.flatnonzero(np.diff(sorted_scores)), len(sorted_scores) - 1]
    true_pos = np.cumsum(ranked)[last]
    precision = true_pos / (last + 1)
    recall = true_pos / n_pos
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def macro_pr_auc(y_true: np.ndarray, probs: np.ndarray) -> float:
    """Mean one-vs-rest average precision over the classes that occur in ``y_true``."""
    present = np.unique(y_true)
    return float(np.mean([average_precision(y_true == c, probs[:, c]) for c in present]))


def reliability(y_true: np.ndarray, probs: np.ndarray, bins: int = 10) -> dict:
    """Calibration of the top-class probability: per confidence bin its mean confidence,
    accuracy and count, and the expected calibration error (ECE, count-weighted |gap|)."""
    confidence = probs.max(axis=1)
    correct = probs.argmax(axis=1) == y_true
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, bins - 1)
    count = np.bincount(index, minlength=bins)
    mean_conf = np.bincount(index, weights=confidence, minlength=bins) / np.maximum(count, 1)
    acc = np.bincount(index, weights=correct.astype(float), minlength=bins) / np.maximum(count, 1)
    ece = float(np.sum(count * np.abs(acc - mean_conf)) / max(len(y_true), 1))
    return {
        "edges": edges.tolist(),
        "confidence": mean_conf.tolist(),
        "accuracy": acc.tolist(),
        "count": count.tolist(),
        "ece": ece,
    }


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> np.ndarray:
    """counts[true, predicted]."""
    return np.bincount(y_true * n_classes + y_pred, minlength=n_classes * n_classes).reshape(
        n_classes, n_classes
    )


def head_report(y_true: np.ndarray, probs: np.ndarray, names: list[str]) -> dict:
    """Every tier-2 number for one head on one slice."""
    y_pred = probs.argmax(axis=1)
    per_class = per_class_prf(y_true, y_pred, len(names))
    return {
        "n": int(len(y_true)),
        "accuracy": accuracy(y_true, y_pred),
        "macro_f1": macro_f1(y_true, y_pred, len(names)),
        "pr_auc": macro_pr_auc(y_true, probs),
        "ece": reliability(y_true, probs)["ece"],
        "per_class": {
            name: {
                "precision": float(per_class["precision"][i]),
                "recall": float(per_class["recall"][i]),
                "f1": float(per_class["f1"][i]),
                "support": int(per_class["support"][i]),
            }
            for i, name in enumerate(names)
            if per_class["support"][i] > 0 or (y_pred == i).any()
        },
    }


def regressions(
    current: dict[str, float], previous: dict[str, float], max_drop_pt: float
) -> dict[str, float]:
    """Metrics (fractions in [0, 1]) that fell by more than ``max_drop_pt`` percentage points
    since a reference evaluation (the champion re-scored on the same rows): {metric: drop in points}."""
    drops = {}
    for key, value in current.items():
        before = previous.get(key)
        if before is None or np.isnan(value) or np.isnan(before):
            continue
        drop = (before - value) * 100
        if drop > max_drop_pt:
            drops[key] = round(drop, 3)
    return drops


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def seen_in_training(
    keys: np.ndarray, train_keys: np.ndarray, train_labeled: np.ndarray
) -> np.ndarray:
    """Per merchant key in ``keys``: whether a labeled train row (``train_keys`` where
    ``train_labeled``) is of that merchant: the seen-merchant slice. A merchant the split did
    not hold out is seen only where one of its rows landed in ``train`` with a label; on data
    where most merchants have one row, most such merchants never did."""
    return np.isin(keys, np.unique(train_keys[train_labeled]))


def slice_masks(
    heldout: np.ndarray, seen: np.ndarray, chars: np.ndarray, short_chars: int
) -> dict[str, np.ndarray]:
    """The rows each reported slice covers: ``heldout``, the merchants the split held out;
    ``seen``, merchants with a labeled training row (``seen_in_training``); a row of
    a merchant in neither (not held out, yet never in training with a label) counts in
    ``all``, ``short`` and ``long`` alone."""
    if (heldout & seen).any():
        raise ValueError("a held-out merchant's row cannot be a seen merchant's")
    return {
        "all": np.ones(len(chars), dtype=bool),
        "heldout_merchants": heldout,
        "seen_merchants": seen,
        "short": chars < short_chars,
        "long": chars >= short_chars,
    }


def evaluate_slices(
    labels: dict[str, np.ndarray],
    probs: dict[str, np.ndarray],
    names: dict[str, list[str]],
    slices: dict[str, np.ndarray],
    ignore_index: int,
) -> dict[str, dict[str, dict]]:
    """{head: {slice: head_report}} over the labeled rows of each slice (slices without a
    labeled row are left out rather than reported as zeros)."""
    report: dict[str, dict[str, dict]] = {}
    for head, y in labels.items():
        report[head] = {}
        for name, mask in slices.items():
            keep = mask & (y != ignore_index)
            if keep.any():
                report[head][name] = head_report(y[keep], probs[head][keep], names[head])
    return report


def merchant_breakdown(
    merchants: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray, names: list[str]
) -> tuple[float, list[dict]]:
    """Accuracy merchant by merchant over the rows given (say, a head's labeled held-out rows).

    A slice's row accuracy weighs a merchant by its rows, so a few frequent merchants can
    decide it; the mean over merchants weighs each merchant once. Returns that mean and one
    entry per merchant with a wrong row (rows, wrong rows, accuracy, its most frequent true
    label and prediction), the most wrong rows first."""
    if len(y_true) == 0:
        raise ValueError("merchant_breakdown needs at least one row")
    keys, inverse = np.unique(merchants.astype(str), return_inverse=True)
    rows = np.bincount(inverse, minlength=len(keys))
    right = np.bincount(inverse, weights=(y_true == y_pred), minlength=len(keys))
    wrong = []
    for i in np.flatnonzero(right < rows):
        member = inverse == i
        wrong.append(
            {
                "merchant": str(keys[i]),
                "rows": int(rows[i]),
                "wrong": int(rows[i] - right[i]),
                "accuracy": float(right[i] / rows[i]),
                "label": names[int(np.bincount(y_true[member]).argmax())],
                "predicted": names[int(np.bincount(y_pred[member]).argmax())],
            }
        )
    wrong.sort(key=lambda m: (-m["wrong"], m["merchant"]))
    return float(np.mean(right / rows)), wrong
