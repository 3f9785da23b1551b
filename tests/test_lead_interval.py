import numpy as np
import pytest

from ml_assets.core.quality.lead_interval import interval_words, lead_interval


def rows(merchants: int, per_merchant: int, candidate_share: float, reference_share: float):
    """Each merchant's rows all right or all wrong: the first shares of the merchants."""
    merchant = np.repeat(np.arange(merchants), per_merchant)
    candidate = merchant < candidate_share * merchants
    reference = merchant < reference_share * merchants
    return candidate, reference, merchant


def width(lead: dict) -> float:
    return lead["high_pt"] - lead["low_pt"]


def test_the_lead_is_the_candidate_minus_the_best_reference_and_the_interval_holds_it():
    candidate, reference, merchant = rows(40, 3, 0.75, 0.5)
    weaker = np.zeros_like(reference)
    lead = lead_interval(candidate, {"frozen": weaker, "tfidf": reference}, merchant)
    assert lead["against"] == "tfidf"
    assert lead["lead_pt"] == 25.0
    assert lead["low_pt"] < 25.0 < lead["high_pt"]
    assert (lead["merchants"], lead["rows"], lead["resamples"]) == (40, 120, 2000)


def mixed(merchants: int):
    """Of every 10 merchants the candidate alone gets 2 right, the reference alone 1."""
    merchant = np.repeat(np.arange(merchants), 5)
    candidate = merchant % 10 < 6
    reference = np.isin(merchant % 10, (0, 1, 2, 3, 6))
    return candidate, {"r": reference}, merchant


def test_a_few_merchants_cannot_tell_what_many_can():
    few, many = lead_interval(*mixed(20)), lead_interval(*mixed(2000))
    assert few["lead_pt"] == many["lead_pt"] == 10.0
    assert few["low_pt"] < 0 < 3 < few["high_pt"]  # 20 merchants: not sure of any lead
    assert many["low_pt"] > 3 and width(many) < width(few) / 5


def test_a_merchants_rows_move_together():
    candidate, reference, merchant = rows(200, 1, 0.6, 0.5)
    by_row = lead_interval(candidate, {"r": reference}, merchant)
    grouped = lead_interval(candidate, {"r": reference}, merchant // 20)  # 10 merchants of 20
    assert by_row["lead_pt"] == grouped["lead_pt"]
    assert width(grouped) > 2 * width(by_row)


def test_each_draw_is_judged_against_its_own_best_reference():
    # two references, each right on a different half of the merchants the candidate misses
    merchant = np.arange(100)
    candidate = merchant < 60
    one, other = merchant < 50, (merchant < 10) | (merchant >= 60)
    lead = lead_interval(candidate, {"one": one, "other": other}, merchant)
    alone = lead_interval(candidate, {"one": one}, merchant)
    assert lead["lead_pt"] == alone["lead_pt"] == 10.0
    # the other reference wins some draws: the bar rises there, so the interval sits lower
    assert lead["high_pt"] <= alone["high_pt"] and lead["low_pt"] < alone["low_pt"]


def test_the_same_rows_give_the_same_interval():
    candidate, reference, merchant = rows(30, 4, 0.7, 0.6)
    assert lead_interval(candidate, {"r": reference}, merchant) == lead_interval(
        candidate, {"r": reference}, merchant
    )


def test_rows_that_do_not_line_up_are_refused():
    with pytest.raises(ValueError, match="one entry per row"):
        lead_interval(np.ones(3, bool), {"r": np.ones(2, bool)}, np.arange(3))
    with pytest.raises(ValueError, match="at least one reference"):
        lead_interval(np.ones(3, bool), {}, np.arange(3))


def test_the_words_name_the_interval_and_its_sample():
    lead = {"low_pt": -0.04, "high_pt": 9.36, "merchants": 65, "rows": 69}
    assert interval_words(lead) == (
        "95 % interval +0.0 to +9.4 pt over the test split's 65 held-out merchants (69 rows)"
    )


def test_only_labeled_rows_of_held_out_merchants_count():
    from ml_assets.core.quality.lead_interval import heldout_lead
    from ml_assets.core.training_data.labels import IGNORE_INDEX

    labels = np.array([0, 1, 1, IGNORE_INDEX, 0, 1])
    heldout = np.array([True, True, True, True, False, False])
    one_hot = np.eye(2)
    candidate = one_hot[[0, 1, 0, 0, 1, 0]]  # right, right, wrong | unlabeled | seen: both wrong
    reference = one_hot[[1, 1, 1, 1, 0, 1]]  # wrong, right, right | unlabeled | seen: both right
    lead = heldout_lead(labels, candidate, {"r": reference}, heldout, np.arange(6))
    assert (lead["rows"], lead["merchants"], lead["lead_pt"]) == (3, 3, 0.0)
    assert (
        heldout_lead(labels, candidate, {"r": reference}, ~heldout & (labels < 0), np.arange(6))
        is None
    )


def test_draws_in_chunks_give_the_interval_of_one_draw(monkeypatch):
    from ml_assets.core.quality import lead_interval as module

    whole = lead_interval(*mixed(300))
    monkeypatch.setattr(module, "DRAWN_CELLS", 300 * 7)  # 7 resamples at a time
    assert lead_interval(*mixed(300)) == whole
