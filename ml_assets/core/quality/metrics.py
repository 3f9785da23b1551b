"""Classification metrics in plain numpy (label ids in, numbers out)."""

from __future__ import annotations

import numpy as np


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if len(y_true) == 0:
        raise ValueError("accuracy of an empty set is undefined")
    return float(np.mean(y_true == y_pred))


def per_class_prf(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> dict[str, np.ndarray]:
    """Precision, recall, F1 and support per class id (0 where undefined, as sklearn does)."""
    tp = np.bincount(y_true[y_true == y_pred], minlength=n_classes).astype(float)
    predicted = np.bincount(y_pred, minlength=n_classes).astype(float)
    support = np.bincount(y_true, minlength=n_classes).astype(float)
    precision = np.divide(tp, predicted, out=np.zeros(n_classes), where=predicted > 0)
    recall = np.divide(tp, support, out=np.zeros(n_classes), where=support > 0)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros(n_classes), where=denom > 0)
    return {"precision": precision, "recall": recall, "f1": f1, "support": support}


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> float:
    """Mean F1 over the classes present in y_true or y_pred (absent classes are not zeros)."""
    if len(y_true) == 0:
        raise ValueError("macro-F1 of an empty set is undefined")
    stats = per_class_prf(y_true, y_pred, n_classes)
    present = (stats["support"] > 0) | (np.bincount(y_pred, minlength=n_classes) > 0)
    return float(stats["f1"][present].mean())


def head_metrics(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> dict[str, float]:
    return {
        "accuracy": accuracy(y_true, y_pred),
        "macro_f1": macro_f1(y_true, y_pred, n_classes),
        "n": int(len(y_true)),
    }
