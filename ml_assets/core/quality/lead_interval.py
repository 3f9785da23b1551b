"""How sure a test split can be of the candidate's lead over the references.

The promotion margin is judged on the held-out merchants of one test split. On a small
data set that is a few dozen merchants, and a lead of a few points is within what another draw
of merchants would give. The lead's 95 % interval comes from a paired bootstrap over the
merchants: each draw resamples them with replacement, each with all of its rows (a merchant's
rows go to one split together), and scores the candidate and every reference on the same draw,
the best reference picked in each. The verdict states it beside the margin, so a rejection on
a split too small to tell reads as such. Pure numpy; deterministic for a given ``seed``.
"""

from __future__ import annotations

import numpy as np

from ml_assets.core.training_data.labels import IGNORE_INDEX

RESAMPLES = 2000
LEVEL = 0.95
DRAWN_CELLS = 2_000_000  # merchant counts held at once (16 MB as float64)


def lead_interval(
    candidate_right: np.ndarray,
    reference_right: dict[str, np.ndarray],
    merchants: np.ndarray,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> dict:
    """The candidate's accuracy minus the best reference's, in points, on these rows (each
    array: one bool per row, right or wrong; ``merchants``: each row's merchant), and its
    interval: ``{"against", "lead_pt", "low_pt", "high_pt", "merchants", "rows",
    "resamples"}``. ``against`` is the reference best on these rows, as the margin rule picks
    it; in each draw the best reference of that draw is the bar."""
    if not reference_right:
        raise ValueError("a lead needs at least one reference's rows")
    candidate = np.asarray(candidate_right, dtype=np.float64)
    if len(candidate) == 0:
        raise ValueError("a lead needs at least one row")
    names = list(reference_right)
    references = np.stack([np.asarray(reference_right[n], dtype=np.float64) for n in names])
    if references.shape[1] != len(candidate) or len(merchants) != len(candidate):
        raise ValueError("candidate, references and merchants must have one entry per row")
    _, merchant = np.unique(np.asarray(merchants).astype(str), return_inverse=True)
    count = merchant.max() + 1
    rows = np.bincount(merchant, minlength=count).astype(np.float64)
    right = np.bincount(merchant, weights=candidate, minlength=count)
    theirs = np.stack([np.bincount(merchant, weights=r, minlength=count) for r in references])
    best = int(np.argmax(theirs.sum(axis=1)))
    lead = 100 * (right.sum() - theirs[best].sum()) / rows.sum()
    rng = np.random.default_rng(seed)
    leads = []
    # a few million counts at a time: a test split of many merchants stays in memory
    chunk = max(1, min(resamples, DRAWN_CELLS // count))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.multinomial(count, np.full(count, 1 / count), size=size).astype(np.float64)
        leads.append(100 * (drawn @ right - (drawn @ theirs.T).max(axis=1)) / (drawn @ rows))
    leads = np.concatenate(leads)
    tail = 100 * (1 - LEVEL) / 2
    low, high = np.percentile(leads, [tail, 100 - tail])
    return {
        "against": names[best],
        "lead_pt": round(float(lead), 2),
        "low_pt": round(float(low), 2),
        "high_pt": round(float(high), 2),
        "merchants": int(count),
        "rows": len(candidate),
        "resamples": resamples,
    }


def interval_words(lead: dict) -> str:
    """``lead`` (``lead_interval``'s) as a clause for a person."""
    low, high = (f"{round(lead[k], 1) + 0.0:+.1f}" for k in ("low_pt", "high_pt"))  # no -0.0
    return (
        f"95 % interval {low} to {high} pt over the test split's {lead['merchants']} held-out "
        f"merchants ({lead['rows']} rows)"
    )


def heldout_lead(
    labels: np.ndarray,
    candidate: np.ndarray,
    references: dict[str, np.ndarray],
    heldout: np.ndarray,
    merchants: np.ndarray,
) -> dict | None:
    """The candidate's lead over the best reference on the labeled held-out rows of one head
    (``labels``: label ids, IGNORE_INDEX unlabeled; the others: probabilities per row), with
    its interval (``lead_interval``); None where no such row is labeled."""
    rows = heldout & (labels != IGNORE_INDEX)
    if not rows.any() or not references:
        return None
    truth = labels[rows]
    return lead_interval(
        candidate[rows].argmax(axis=1) == truth,
        {name: probs[rows].argmax(axis=1) == truth for name, probs in references.items()},
        merchants[rows],
    )
