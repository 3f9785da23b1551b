"""The export gates' verdicts, from what the export measured and kept (``verification.json``).

Nothing is measured here: the same export and the same thresholds give the same verdict on
every rerun. The asset checks on onnx_model show these verdicts; the promotion decision
counts a failed one against the candidate. Pure: no dagster, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PARITY = "int8_matches_pytorch"
LATENCY = "latency_within_budget"
SIZE = "int8_size_within_budget"


@dataclass(frozen=True)
class GateVerdict:
    gate: str
    passed: bool
    reasons: list[str] = field(default_factory=list)  # why it failed (empty: it passed)
    metadata: dict[str, Any] = field(default_factory=dict)  # thresholds and measurements


def allowed_drop_pt(max_drop_pt: float, labeled: int) -> float:
    """The accuracy points int8 may lose on ``labeled`` rows: ``max_drop_pt``, but never less
    than one row's worth. On a hundred test rows one row is a point; a gate finer than what
    it measures would reject a model for a single row flipped either way."""
    return max(max_drop_pt, 100 / labeled) if labeled else max_drop_pt


def required_agreement(min_agreement: float, rows: int) -> float:
    """The argmax agreement int8 must reach on ``rows`` rows: ``min_agreement``, but one row
    may always disagree (on fewer than a hundred rows, one row is more than a point)."""
    return min(min_agreement, 1 - 1 / rows) if rows else min_agreement


def parity_verdict(verification: dict, gates: Any) -> GateVerdict:
    """Per head, int8 argmax agreement with PyTorch and the accuracy given up."""
    reasons = []
    metadata: dict[str, Any] = {
        "min_argmax_agreement": gates.min_argmax_agreement,
        "max_accuracy_drop_pt": gates.max_accuracy_drop_pt,
    }
    for head, values in verification["parity"].items():
        metadata[f"{head}_agreement"] = round(values["agreement"], 4)
        required = required_agreement(gates.min_argmax_agreement, values.get("rows", 0))
        if values["agreement"] < required - 1e-9:
            reasons.append(
                f"{head}: int8 argmax agreement {100 * values['agreement']:.2f} % < "
                f"{100 * required:.2f} % (export_gates.min_argmax_agreement, or all test rows "
                "but one)"
            )
        if "accuracy_delta_pt" in values:
            metadata[f"{head}_int8_delta_pt"] = round(values["accuracy_delta_pt"], 3)
            drop = -values["accuracy_delta_pt"]
            allowed = allowed_drop_pt(gates.max_accuracy_drop_pt, values.get("labeled", 0))
            if drop > allowed + 1e-9:
                reasons.append(
                    f"{head}: int8 accuracy {drop:.2f} pt below PyTorch > {allowed:.2f} pt "
                    f"(export_gates.max_accuracy_drop_pt {gates.max_accuracy_drop_pt}, or one of "
                    f"the {values.get('labeled', 0)} labeled test rows)"
                )
    # a model no recipe brought within the targets on the validation split is rejected even
    # where the test split happens to pass: the recipe's reason says the best reached
    recipe = verification.get("int8_recipe") or {}
    if (reasons or recipe.get("passed") is False) and recipe.get("reason"):
        reasons.append(recipe["reason"])
    return GateVerdict(PARITY, not reasons, reasons, metadata)


def on_serving_hardware(measured: dict[str, float], reference_ms: float) -> dict[str, float]:
    """The measured model's p50 / p99 on the hardware where the reference takes
    ``reference_ms``, and how much slower than that this machine was while measuring."""
    scale = reference_ms / measured["reference_ms_measured"]
    return {
        "p50_ms": measured["own_p50_ms"] * scale,
        "p99_ms": measured["own_p99_ms"] * scale,
        "machine_slowdown": 1.0 / scale,
    }


def latency_verdict(verification: dict, gates: Any) -> GateVerdict:
    """p99 at batch 1 on the serving hardware the budget stands for (``core/serving/latency.py``)."""
    measured = verification.get("latency")
    if not measured or "reference_ms_measured" not in measured:
        return GateVerdict(
            LATENCY,
            False,
            [
                "this export kept no latency measured against the reference workload (made by "
                "an older version): rematerialize onnx_model to measure it"
            ],
            {"budget_ms": gates.latency_budget_ms},
        )
    serving = on_serving_hardware(measured, gates.reference_ms)
    passed = serving["p99_ms"] <= gates.latency_budget_ms
    metadata = {
        "p50_ms": round(serving["p50_ms"], 3),
        "p99_ms": round(serving["p99_ms"], 3),
        "budget_ms": gates.latency_budget_ms,
        "reference_ms": gates.reference_ms,
        "reference_ms_measured": round(measured["reference_ms_measured"], 3),
        "machine_slowdown": round(serving["machine_slowdown"], 2),
        "raw_p50_ms": round(measured["raw_p50_ms"], 3),
        "raw_p99_ms": round(measured["raw_p99_ms"], 3),
        "requests_x_rounds": f"{measured['requests']} x {measured['rounds']}",
    }
    reasons = []
    if not passed:
        reasons.append(
            f"p99 {serving['p99_ms']:.2f} ms > {gates.latency_budget_ms} ms budget "
            f"(export_gates.latency_budget_ms, on hardware where the reference takes "
            f"{gates.reference_ms} ms): lower mlm_backbone.num_layers (4 or 3), or state the "
            "serving machine's own reference time in export_gates.reference_ms"
        )
    return GateVerdict(LATENCY, passed, reasons, metadata)


def size_verdict(int8_bytes: int, gates: Any) -> GateVerdict:
    megabytes = int8_bytes / 1e6
    passed = megabytes <= gates.max_int8_mb
    reasons = (
        []
        if passed
        else [f"int8 model {megabytes:.1f} MB > {gates.max_int8_mb} MB (export_gates.max_int8_mb)"]
    )
    return GateVerdict(
        SIZE, passed, reasons, {"int8_mb": round(megabytes, 3), "budget_mb": gates.max_int8_mb}
    )


def gate_verdicts(verification: dict, int8_bytes: int, gates: Any) -> list[GateVerdict]:
    """Every gate's verdict on one export."""
    return [
        parity_verdict(verification, gates),
        latency_verdict(verification, gates),
        size_verdict(int8_bytes, gates),
    ]
