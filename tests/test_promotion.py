"""The promotion rules, on hand-made reports (pure: no models, no dagster)."""

from __future__ import annotations

import pytest

from ml_assets.core.quality.promotion import decide

SETTINGS = dict(
    primary_head="category",
    min_margin_pt=3.0,
    min_overall_margin_pt=0.0,
    max_regression_pt=2.0,
    min_slice_rows=50,
)


def report(category_all, category_held, type_all, n_held=200, short=None):
    slices = {
        "all": {"n": 1000, "accuracy": category_all},
        "heldout_merchants": {"n": n_held, "accuracy": category_held},
    }
    if short is not None:
        slices["short"] = {"n": 20, "accuracy": short}
    return {"category": slices, "transaction_type": {"all": {"n": 1000, "accuracy": type_all}}}


REFERENCES = {"tfidf": report(0.70, 0.48, 0.92), "frozen": report(0.77, 0.63, 0.91)}


def test_a_candidate_clear_of_every_bar_is_promoted():
    decision = decide(report(0.86, 0.76, 0.95), REFERENCES, None, **SETTINGS)
    assert decision.promoted and decision.reasons == []
    margin = decision.rules[0]
    assert (margin.rule, margin.against) == (
        "margin over references",
        "best reference frozen 63.00 % + 3.0 pt",
    )
    assert margin.bar == pytest.approx(66.0)


def test_too_small_a_margin_over_the_best_reference_is_rejected():
    decision = decide(report(0.86, 0.65, 0.95), REFERENCES, None, **SETTINGS)
    assert not decision.promoted
    (reason,) = decision.reasons
    assert reason.startswith(
        "margin over references: category/heldout_merchants accuracy 65.00 % < 66.00 %"
    )


def test_a_head_worse_than_a_reference_overall_is_rejected():
    decision = decide(report(0.86, 0.76, 0.915), REFERENCES, None, **SETTINGS)
    assert decision.reasons == [
        "no worse than references: transaction_type/all accuracy 91.50 % < 92.00 % required "
        "(best reference tfidf 92.00 % + 0.0 pt)"
    ]


def test_regressions_against_the_champion_block_except_on_tiny_slices():
    champion = report(0.88, 0.80, 0.95, short=0.99)
    candidate = report(0.86, 0.76, 0.95, short=0.50)  # -2 on all (allowed), -4 on held-out
    decision = decide(candidate, REFERENCES, champion, **SETTINGS, champion_name="champion ab12")
    assert not decision.promoted
    (reason,) = decision.reasons
    assert reason.startswith(
        "no regression vs champion: category/heldout_merchants accuracy 76.00 %"
    )
    assert "champion ab12 80.00 % - 2.0 pt" in reason
    # the 20-row short slice fell 49 points but is below min_slice_rows: not judged
    assert not any(r.slice == "short" for r in decision.rules)


def test_no_held_out_rows_cannot_be_judged():
    candidate = {"category": {"all": {"n": 10, "accuracy": 0.9}}}
    with pytest.raises(ValueError, match="no labeled held-out-merchant test rows"):
        decide(candidate, REFERENCES, None, **SETTINGS)


def test_a_failed_export_gate_rejects_a_candidate_that_wins_every_rule():
    from ml_assets.core.quality.comparison import CANDIDATE, FP32_TWIN
    from ml_assets.core.quality.promotion import decide_from_evaluation, verdict_line

    comparison = {
        CANDIDATE: report(0.86, 0.76, 0.95),
        FP32_TWIN: report(0.87, 0.80, 0.95),  # its own twin is no rival
        "tfidf_reference": report(0.70, 0.48, 0.92),
    }
    settings = {k: v for k, v in SETTINGS.items() if k != "primary_head"}
    gate = "export gate int8_matches_pytorch: category: int8 argmax agreement 98.85 % < 99.00 %"
    decision = decide_from_evaluation({"comparison": comparison}, settings, "category", [gate])
    assert not decision.promoted and decision.reasons == [gate]
    assert all(rule.passed for rule in decision.rules)
    line = verdict_line(decision, comparison, "category")
    assert line.startswith(f"REJECTED: {gate}. ")
    assert (
        "category on held-out merchants: candidate 76.0 %, +28.0 pt ahead of the best other "
        "model (tfidf_reference 48.0 %)" in line
    )


def test_the_verdict_names_the_model_that_won_on_this_data():
    from ml_assets.core.quality.comparison import CANDIDATE
    from ml_assets.core.quality.promotion import verdict_line

    comparison = {CANDIDATE: report(0.63, 0.55, 0.9), "tfidf_reference": report(0.70, 0.585, 0.9)}
    decision = decide(comparison[CANDIDATE], {"tfidf_reference": comparison["tfidf_reference"]},
                      None, **SETTINGS)  # fmt: skip
    line = verdict_line(decision, comparison, "category")
    assert line.startswith("REJECTED: margin over references: category/heldout_merchants")
    assert "held-out merchants: candidate 55.0 %, -3.5 pt behind the best other model " in line
    assert "all test rows: candidate 63.0 %, -7.0 pt behind" in line


def test_the_verdict_says_how_sure_the_held_out_merchants_are_of_the_lead():
    from ml_assets.core.quality.comparison import BASELINE, CANDIDATE
    from ml_assets.core.quality.promotion import verdict_line

    comparison = {CANDIDATE: report(0.72, 0.72, 0.9), "tfidf_reference": report(0.69, 0.691, 0.9)}
    decision = decide(comparison[CANDIDATE], {"tfidf_reference": comparison["tfidf_reference"]},
                      None, **SETTINGS)  # fmt: skip
    lead = {"against": "tfidf_reference", "lead_pt": 2.9, "low_pt": -6.64, "high_pt": 9.41,
            "merchants": 65, "rows": 69}  # fmt: skip
    line = verdict_line(decision, comparison, "category", lead)
    assert line.startswith("REJECTED: margin over references")
    assert (
        "+2.9 pt ahead of the best other model (tfidf_reference 69.1 %); 95 % interval -6.6 to "
        "+9.4 pt over the test split's 65 held-out merchants (69 rows)" in line
    )
    # where the best other model is no reference, the lead the interval is of is named
    comparison[BASELINE] = report(0.75, 0.75, 0.9)
    line = verdict_line(decision, comparison, "category", lead)
    assert f"({BASELINE} 75.0 %); +2.9 pt over tfidf_reference, 95 % interval" in line
