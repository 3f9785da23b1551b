"""Tier-2 metrics (hand-checked values) and the export gates' decisions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ml_assets.core.quality.evaluation import (
    average_precision,
    confusion_matrix,
    evaluate_slices,
    head_report,
    merchant_breakdown,
    regressions,
    reliability,
    seen_in_training,
    slice_masks,
    softmax,
)


def test_average_precision_by_hand():
    positive = np.array([1, 0, 1, 1, 0], dtype=bool)
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    # recall steps of 1/3 at precisions 1, 2/3, 3/4
    assert average_precision(positive, scores) == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    tied = np.full(5, 0.5)  # one threshold: precision = prevalence at recall 1
    assert average_precision(positive, tied) == pytest.approx(0.6)
    assert math.isnan(average_precision(np.zeros(3, dtype=bool), scores[:3]))


def test_reliability_and_confusion():
    y = np.array([0, 0, 1, 1])
    probs = np.array([[0.95, 0.05], [0.55, 0.45], [0.4, 0.6], [0.9, 0.1]])
    curve = reliability(y, probs, bins=10)
    assert sum(curve["count"]) == 4
    # bins: 0.95 (right), 0.55 (right), 0.6 (right), 0.9 (wrong)
    expected_ece = (abs(1 - 0.95) + abs(1 - 0.55) + abs(1 - 0.6) + abs(0 - 0.9)) / 4
    assert curve["ece"] == pytest.approx(expected_ece)
    assert confusion_matrix(y, probs.argmax(1), 2).tolist() == [[2, 0], [1, 1]]


def test_head_report_and_slices_use_only_labeled_rows():
    names = ["a", "b", "c"]
    y = np.array([0, 1, 2, -100, 1])
    probs = softmax(np.array([[3, 0, 0], [0, 3, 0], [0, 3, 0], [0, 0, 3], [0, 3, 0.0]]))
    heldout = np.array([True, False, False, True, False])
    masks = slice_masks(heldout, ~heldout, np.array([5, 30, 10, 40, 50]), 24)
    report = evaluate_slices({"h": y}, {"h": probs}, {"h": names}, masks, -100)["h"]
    assert report["all"]["n"] == 4 and report["all"]["accuracy"] == pytest.approx(0.75)
    assert report["heldout_merchants"]["n"] == 1  # the unlabeled held-out row is left out
    assert report["short"]["n"] == 2 and report["long"]["n"] == 2
    full = head_report(y[:3], probs[:3], names)
    assert full["per_class"]["c"]["recall"] == 0.0 and full["per_class"]["b"]["precision"] == 0.5


def test_a_merchant_is_seen_only_where_a_labeled_train_row_is_its():
    """On one-row merchants most rows of the merchants the split did not hold out were never
    in training: they are in neither merchant slice, only in the others."""
    train_keys = np.array(["cafe", "cafe", "gym", "bakery"])
    train_labeled = np.array([False, True, False, True])
    test_keys = np.array(["cafe", "gym", "kiosk", "bakery", "museum"])
    heldout = np.array([False, False, False, False, True])
    seen = seen_in_training(test_keys, train_keys, train_labeled)
    assert seen.tolist() == [True, False, False, True, False]  # gym: its train row is unlabeled
    masks = slice_masks(heldout, seen, np.array([4, 3, 5, 6, 6]), 5)
    assert masks["seen_merchants"].sum() == 2 and masks["heldout_merchants"].sum() == 1
    assert masks["all"].sum() == 5  # gym and kiosk: all rows only
    with pytest.raises(ValueError, match="held-out"):
        slice_masks(heldout, np.ones(5, dtype=bool), np.array([4, 3, 5, 6, 6]), 5)


def test_regressions_flag_only_drops_beyond_the_threshold():
    before = {"acc": 0.80, "f1": 0.70, "new_metric": float("nan")}
    now = {"acc": 0.785, "f1": 0.695, "new_metric": 0.5, "unseen": 0.1}
    assert regressions(now, before, max_drop_pt=1.0) == {"acc": 1.5}


def test_parity_gate_names_the_head_and_threshold():
    from ml_assets.core.params import ExportGatesParams
    from ml_assets.core.quality.export_gates import parity_verdict

    gates = ExportGatesParams()
    parity = {
        "category": {"agreement": 0.985, "accuracy_delta_pt": -0.7},
        "transaction_type": {"agreement": 0.999, "accuracy_delta_pt": 0.2},
    }
    verdict = parity_verdict({"parity": parity}, gates)
    assert not verdict.passed and len(verdict.reasons) == 2
    assert all(r.startswith("category:") for r in verdict.reasons)
    assert "min_argmax_agreement" in verdict.reasons[0]
    assert "max_accuracy_drop_pt" in verdict.reasons[1]
    passing = {"parity": {"h": {"agreement": 0.99, "accuracy_delta_pt": -0.5}}}
    assert parity_verdict(passing, gates).passed


def test_parity_gate_never_rejects_for_one_row_of_a_small_test_split():
    """On 106 rows one flipped row is 0.94 points and 99.06 % agreement: a gate finer than
    one row would reject a model for it; two rows still fail."""
    from ml_assets.core.params import ExportGatesParams
    from ml_assets.core.quality.export_gates import parity_verdict

    gates = ExportGatesParams()  # 0.5 pt, 99 %

    def head(flipped: int, rows: int = 106) -> dict:
        share = flipped / rows
        return {"agreement": 1 - share, "accuracy_delta_pt": -100 * share, "labeled": rows,
                "rows": rows}  # fmt: skip

    assert parity_verdict({"parity": {"category": head(1)}}, gates).passed
    two = parity_verdict({"parity": {"category": head(2)}}, gates)
    assert not two.passed and len(two.reasons) == 2
    assert "or one of the 106 labeled test rows" in two.reasons[1]
    assert not parity_verdict({"parity": {"category": head(6, 1000)}}, gates).passed


def test_parity_gate_rejects_a_model_no_int8_recipe_fixed():
    """The test split may pass by luck; a recipe that missed on validation still rejects, with
    the best agreement it reached."""
    from ml_assets.core.params import ExportGatesParams
    from ml_assets.core.quality.export_gates import parity_verdict

    parity = {"category": {"agreement": 0.995, "accuracy_delta_pt": -0.1}}
    missed = {"passed": False, "reason": "best agreement reached 98.70 % with 12 MatMuls fp32"}
    verdict = parity_verdict({"parity": parity, "int8_recipe": missed}, ExportGatesParams())
    assert not verdict.passed and verdict.reasons == [missed["reason"]]
    fixed = {"passed": True, "reason": None}
    assert parity_verdict({"parity": parity, "int8_recipe": fixed}, ExportGatesParams()).passed


def test_latency_gate_on_an_export_without_a_reference_measurement_says_rematerialize():
    from ml_assets.core.params import ExportGatesParams
    from ml_assets.core.quality.export_gates import latency_verdict

    old = {"latency": {"p50_ms": 3.0, "p99_ms": 5.0}}
    verdict = latency_verdict(old, ExportGatesParams())
    assert not verdict.passed and "rematerialize onnx_model" in verdict.reasons[0]


def test_a_champion_with_other_labels_is_scored_by_label_name():
    from ml_assets.core.quality.comparison import by_label_name

    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]], dtype=np.float32)
    aligned = by_label_name(probs, ["fuel", "coffee", "old"], ["coffee", "fuel", "new"])
    np.testing.assert_allclose(aligned, [[0.2, 0.7, 0.0], [0.1, 0.1, 0.0]])


def test_latency_gate_judges_the_kept_measurement_on_the_serving_hardware():
    """The same measurement and thresholds: the same verdict, every time; a machine twice as
    slow as the serving hardware (its reference took twice reference_ms) halves the p99."""
    from ml_assets.core.params import ExportGatesParams
    from ml_assets.core.quality.export_gates import latency_verdict

    measured = {
        "own_p50_ms": 6.0, "own_p99_ms": 16.0, "reference_ms_measured": 1.0,
        "raw_p50_ms": 7.0, "raw_p99_ms": 30.0, "requests": 500, "rounds": 5,
    }  # fmt: skip
    gates = ExportGatesParams(latency_budget_ms=10.0, reference_ms=0.5)
    verdicts = [latency_verdict({"latency": measured}, gates) for _ in range(3)]
    assert {v.passed for v in verdicts} == {True}
    assert verdicts[0].metadata["p99_ms"] == 8.0 and verdicts[0].metadata["raw_p99_ms"] == 30.0
    assert verdicts[0].metadata["machine_slowdown"] == 2.0
    slow = latency_verdict({"latency": measured}, ExportGatesParams(reference_ms=1.0))
    assert not slow.passed and "export_gates.reference_ms" in slow.reasons[0]


def test_merchant_breakdown_weighs_each_merchant_once_and_lists_the_misses():
    names = ["coffee", "fuel", "shopping"]
    merchants = np.array(["big"] * 8 + ["small"] * 2 + ["fine"] * 2)
    y_true = np.array([2] * 8 + [1, 1] + [0, 0])
    y_pred = np.array([2] * 5 + [0, 0, 0] + [2, 2] + [0, 0])
    mean, missed = merchant_breakdown(merchants, y_true, y_pred, names)
    assert (y_true == y_pred).mean() == pytest.approx(7 / 12)  # rows: the big merchant weighs 8
    assert mean == pytest.approx((5 / 8 + 0 / 2 + 2 / 2) / 3)  # merchants: each weighs once
    # the most wrong rows first (big: 3, small: 2); "fine" has none and is not listed
    assert [m["merchant"] for m in missed] == ["big", "small"]
    assert missed[1] == {
        "merchant": "small", "rows": 2, "wrong": 2, "accuracy": 0.0, "label": "fuel",
        "predicted": "shopping",
    }  # fmt: skip
    with pytest.raises(ValueError, match="at least one row"):
        merchant_breakdown(np.array([]), np.array([], int), np.array([], int), names)
