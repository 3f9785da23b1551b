"""The promotion decision: does a candidate model become the champion?

A candidate is promoted only when every export gate passed (``core/quality/export_gates.py``) and
every rule holds (accuracy in points, 0-100):
  1. margin: on the primary head (category), held-out-merchant accuracy at least
     ``min_margin_pt`` above the best reference's;
  2. no head worse overall than the best reference on that head (plus
     ``min_overall_margin_pt``, 0 by default);
  3. no regression: on every head and slice with at least ``min_slice_rows`` labeled rows, at
     most ``max_regression_pt`` below the current champion, both scored on the same test rows.

Reports are ``{head: {slice: {"n": rows, "accuracy": fraction, ...}}}`` as built by
``core.evaluation.evaluate_slices``. Pure: no dagster, no I/O.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

HELDOUT = "heldout_merchants"
OVERALL = "all"

Report = dict[str, dict[str, dict]]


@dataclass(frozen=True)
class Rule:
    """One comparison the decision made: ``candidate >= bar`` (points) passes."""

    rule: str
    head: str
    slice: str
    candidate: float
    bar: float
    against: str  # what the bar comes from

    @property
    def passed(self) -> bool:
        return self.candidate >= self.bar - 1e-9

    def reason(self) -> str:
        return (
            f"{self.rule}: {self.head}/{self.slice} accuracy {self.candidate:.2f} % < "
            f"{self.bar:.2f} % required ({self.against})"
        )


@dataclass
class Decision:
    promoted: bool
    rules: list[Rule] = field(default_factory=list)
    gate_failures: list[str] = field(default_factory=list)  # "gate: why", from the export

    @property
    def reasons(self) -> list[str]:
        """Why the candidate was rejected (empty when promoted)."""
        return self.gate_failures + [rule.reason() for rule in self.rules if not rule.passed]

    def to_json(self) -> dict:
        return {
            "promoted": self.promoted,
            "reasons": self.reasons,
            "gate_failures": self.gate_failures,
            "rules": [{**asdict(rule), "passed": rule.passed} for rule in self.rules],
        }


def _points(report: Report, head: str, slice_name: str) -> float | None:
    values = report.get(head, {}).get(slice_name)
    return None if values is None else 100.0 * values["accuracy"]


def _best(references: dict[str, Report], head: str, slice_name: str) -> tuple[str, float] | None:
    scored = [
        (name, value)
        for name, report in references.items()
        if (value := _points(report, head, slice_name)) is not None
    ]
    return max(scored, key=lambda item: item[1]) if scored else None


def decide(
    candidate: Report,
    references: dict[str, Report],
    champion: Report | None,
    *,
    primary_head: str,
    min_margin_pt: float,
    min_overall_margin_pt: float,
    max_regression_pt: float,
    min_slice_rows: int,
    champion_name: str = "champion",
) -> Decision:
    """Apply the three rules; every comparison made is kept, passed or not."""
    if not references:
        raise ValueError("the promotion decision needs at least one reference model's report")
    rules: list[Rule] = []
    best = _best(references, primary_head, HELDOUT)
    held = _points(candidate, primary_head, HELDOUT)
    if best is None or held is None:
        raise ValueError(
            f"no labeled held-out-merchant test rows for head {primary_head!r}: the margin over "
            "the references cannot be judged; raise transaction_features.heldout_test_merchant_pct"
        )
    rules.append(
        Rule(
            "margin over references",
            primary_head,
            HELDOUT,
            held,
            best[1] + min_margin_pt,
            f"best reference {best[0]} {best[1]:.2f} % + {min_margin_pt} pt",
        )  # fmt: skip
    )
    for head in candidate:
        best = _best(references, head, OVERALL)
        value = _points(candidate, head, OVERALL)
        if best is not None and value is not None:
            rules.append(
                Rule(
                    "no worse than references",
                    head,
                    OVERALL,
                    value,
                    best[1] + min_overall_margin_pt,
                    f"best reference {best[0]} {best[1]:.2f} % + {min_overall_margin_pt} pt",
                )  # fmt: skip
            )
    for head, slices in (champion or {}).items():
        for slice_name, values in slices.items():
            value = _points(candidate, head, slice_name)
            if value is None or values["n"] < min_slice_rows:
                continue
            before = 100.0 * values["accuracy"]
            rules.append(
                Rule(
                    "no regression vs champion",
                    head,
                    slice_name,
                    value,
                    before - max_regression_pt,
                    f"{champion_name} {before:.2f} % - {max_regression_pt} pt",
                )  # fmt: skip
            )
    return Decision(promoted=all(rule.passed for rule in rules), rules=rules)


def decide_from_evaluation(
    evaluation: dict, settings: dict, primary_head: str, gate_failures: list[str] = ()
) -> Decision:
    """The decision from model_evaluation's ``evaluation.json`` (its side-by-side reports)
    and the export gates' failures (each a reason of its own)."""
    from ml_assets.core.quality.comparison import CANDIDATE, CHAMPION_PREFIX, reference_names

    comparison = evaluation["comparison"]
    champions = [name for name in comparison if name.startswith(CHAMPION_PREFIX)]
    decision = decide(
        comparison[CANDIDATE],
        {name: comparison[name] for name in reference_names(comparison)},
        comparison[champions[0]] if champions else None,
        primary_head=primary_head,
        min_margin_pt=settings["min_margin_pt"],
        min_overall_margin_pt=settings["min_overall_margin_pt"],
        max_regression_pt=settings["max_regression_pt"],
        min_slice_rows=settings["min_slice_rows"],
        champion_name=champions[0] if champions else "champion",
    )
    decision.gate_failures = list(gate_failures)
    decision.promoted = decision.promoted and not decision.gate_failures
    return decision


def verdict_line(
    decision: Decision, comparison: dict[str, Report], head: str, lead: dict | None = None
) -> str:
    """One line for a person: promoted or rejected and why, and who won on this data by how
    much (held-out merchants and overall, on ``head``). ``lead`` (``lead_interval``'s, on
    ``head``'s held-out merchants) adds how sure the test split is of the lead over the best
    reference: on a few dozen held-out merchants a margin of a few points is within chance."""
    from ml_assets.core.quality.comparison import CANDIDATE, FP32_TWIN
    from ml_assets.core.quality.lead_interval import interval_words

    status = "PROMOTED" if decision.promoted else "REJECTED"
    parts = [f"{status}: " + ("; ".join(decision.reasons) or "every gate and rule passed")]
    for slice_name, title in ((HELDOUT, "held-out merchants"), (OVERALL, "all test rows")):
        scored = {
            name: value
            for name, report in comparison.items()
            if name != FP32_TWIN and (value := _points(report, head, slice_name)) is not None
        }
        if CANDIDATE not in scored:
            continue
        ours = scored.pop(CANDIDATE)
        if not scored:
            parts.append(f"{head} on {title}: candidate {ours:.1f} %")
            continue
        rival, theirs = max(scored.items(), key=lambda item: item[1])
        ahead = "ahead of" if ours >= theirs else "behind"
        part = (
            f"{head} on {title}: candidate {ours:.1f} %, {ours - theirs:+.1f} pt {ahead} the "
            f"best other model ({rival} {theirs:.1f} %)"
        )
        if slice_name == HELDOUT and lead is not None:
            over = (
                ""
                if lead["against"] == rival
                else f"{lead['lead_pt']:+.1f} pt over {lead['against']}, "
            )
            part += f"; {over}{interval_words(lead)}"
        parts.append(part)
    return ". ".join(parts)
