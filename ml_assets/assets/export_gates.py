"""The gates a model passes before it ships: asset checks on onnx_model.

Each gate judges what the export measured and kept in its entry (``verification.json``:
parity on the test split, latency against a reference workload), so a memo-hit rerun gives
the same verdict and measures nothing. Thresholds come from params ``export_gates``.

A failed gate does not stop the run: model_evaluation still sets every model side by side
(the comparison is information), and registered_model counts the failed gate against the
candidate, which is then not promoted.
"""

import dagster as dg

from ml_assets.assets.onnx_model import onnx_model
from ml_assets.core.infra.io import ArtifactRef, read_json
from ml_assets.core.infra.layouts import INT8_FILE, VERIFICATION_FILE
from ml_assets.core.params import ExportGatesParams
from ml_assets.core.quality.export_gates import (
    GateVerdict,
    latency_verdict,
    parity_verdict,
    size_verdict,
)
from ml_assets.wiring.check_reasons import logged_check
from resources.params import ParamsResource

FAILED_GATE = " A failed gate keeps the candidate from promotion; the comparison still runs."


def gate_result(context: dg.AssetCheckExecutionContext, verdict: GateVerdict):
    metadata = {**verdict.metadata, "failures": "; ".join(verdict.reasons) or "none"}
    return logged_check(context, dg.AssetCheckResult(passed=verdict.passed, metadata=metadata))


def _gates(params: ParamsResource) -> ExportGatesParams:
    return params.get(ExportGatesParams)


@dg.asset_check(
    asset=onnx_model,
    description=(
        "Parity gate: on the labeled test split, the int8 model's argmax agrees with PyTorch on at "
        "least export_gates.min_argmax_agreement of rows and its accuracy is at most "
        "export_gates.max_accuracy_drop_pt points lower, for every head." + FAILED_GATE
    ),
)
def int8_matches_pytorch(
    context: dg.AssetCheckExecutionContext, onnx_model: ArtifactRef, params: ParamsResource
) -> dg.AssetCheckResult:
    verification = read_json(onnx_model.dir / VERIFICATION_FILE)
    return gate_result(context, parity_verdict(verification, _gates(params)))


@dg.asset_check(
    asset=onnx_model,
    description=(
        "Latency gate: p99 at batch 1, tokenization included, on onnx_model.intra_op_num_threads "
        "threads, as the export measured it against a fixed reference workload and stated on "
        "the serving hardware where that reference takes export_gates.reference_ms, within "
        "export_gates.latency_budget_ms. The raw p50 / p99 of this machine are shown beside it."
        + FAILED_GATE
    ),
)
def latency_within_budget(
    context: dg.AssetCheckExecutionContext, onnx_model: ArtifactRef, params: ParamsResource
) -> dg.AssetCheckResult:
    verification = read_json(onnx_model.dir / VERIFICATION_FILE)
    return gate_result(context, latency_verdict(verification, _gates(params)))


@dg.asset_check(
    asset=onnx_model,
    description="Size gate: the int8 model file is at most export_gates.max_int8_mb MB."
    + FAILED_GATE,
)
def int8_size_within_budget(
    context: dg.AssetCheckExecutionContext, onnx_model: ArtifactRef, params: ParamsResource
) -> dg.AssetCheckResult:
    size = (onnx_model.dir / INT8_FILE).stat().st_size
    return gate_result(context, size_verdict(size, _gates(params)))


GATES = [int8_matches_pytorch, latency_within_budget, int8_size_within_budget]
