"""registered_model: every candidate's record in the model registry, promoted or rejected.

The promotion decision (``core/quality/promotion.py``) takes the export gates' verdicts on onnx_model
and compares the candidate with the reference models and the current champion, all scored by
model_evaluation on the same test rows. Only a promoted candidate moves the ``champion`` alias,
which batch_predictions and every consumer read; a rejected one is recorded with its reasons
and a one-line verdict (what failed, which model won on this data and by how much), logged for
the CLI, and fails the blocking check ``candidate_promoted``, so nothing downstream runs on it.
"""

from pathlib import Path

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, atomic_write_json, by_asset, read_json
from ml_assets.core.infra.layouts import (
    EVALUATION_FILE,
    FP32_FILE,
    INT8_FILE,
    REGISTRY_RECORD_FILE,
    VERIFICATION_FILE,
)
from ml_assets.core.params import (
    ExportGatesParams,
    MlmBackboneParams,
    MultitaskModelParams,
    OnnxModelParams,
    PipelineParams,
    PromotionParams,
    PrunedTokenizerParams,
    TrainingFeaturesParams,
    TransactionFeaturesParams,
    section_name,
)
from ml_assets.core.quality.comparison import short_slice
from ml_assets.core.quality.sketches import inline_table
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.stage import FingerprintContext, Stage
from ml_assets.wiring.verdict_lines import promotion_lines
from resources.artifact_store import ArtifactStore
from resources.model_registry import CHAMPION, ModelRegistry, now
from resources.params import ParamsResource

RECORD_FILE = REGISTRY_RECORD_FILE
PROMOTED_CHECK = "candidate_promoted"


def build_record(
    model_id: str,
    onnx_model: ArtifactRef,
    model_evaluation: ArtifactRef,
    gates: ExportGatesParams,
    params: dict,
    uploaded: dict[str, str],
    run_id: str,
    decision: dict,
) -> dict:
    verification = read_json(onnx_model.dir / VERIFICATION_FILE)
    report = read_json(model_evaluation.dir / EVALUATION_FILE)["report"]
    metrics = {
        f"{head}/{name}/{metric}": round(values[metric], 6)
        for head, slices in report.items()
        for name, values in slices.items()
        for metric in ("accuracy", "macro_f1", "pr_auc", "ece")
    }
    return {
        "model_id": model_id,
        "registered_at": now(),
        "run_id": run_id,
        "status": "promoted" if decision["promoted"] else "rejected",
        "promotion": decision,
        "onnx_model_digest": onnx_model.digest,
        "onnx_model_key": Path(onnx_model.path).name,
        "model_evaluation_digest": model_evaluation.digest,
        "params": params,
        "metrics": metrics,
        "gates": {
            "thresholds": gates.model_dump(mode="json"),
            "parity": verification["parity"],
            "latency_at_export": verification["latency"],
            "int8_bytes": (onnx_model.dir / INT8_FILE).stat().st_size,
            "failures": decision["gate_failures"],
        },
        "artifacts": {"local": onnx_model.path, **uploaded},
    }


def fingerprint(params: PipelineParams, context: FingerprintContext) -> dict:
    """Where the record goes and the gate thresholds it records."""
    registry = context.registry or ModelRegistry()
    return {
        "target": registry.target(context.store.root_path),
        **{
            section_name(model): params.get(model).model_dump(mode="json")
            for model in (ExportGatesParams, PromotionParams)
        },
    }


# the sections that shaped the model, recorded with it
SHAPING = (
    TransactionFeaturesParams,
    TrainingFeaturesParams,
    PrunedTokenizerParams,
    MlmBackboneParams,
    MultitaskModelParams,
    OnnxModelParams,
)


STAGE = Stage(
    key="registered_model",
    module=__name__,
    libraries=(),
    section=PromotionParams,
    reads=(ExportGatesParams,),
    fingerprint=fingerprint,
    verdicts=promotion_lines,
)


@single_run_asset(
    group_name="serving",
    kinds={"sqlite", "dynamodb"},
    automation_condition=automation_condition(),
    check_specs=[
        dg.AssetCheckSpec(
            PROMOTED_CHECK,
            asset=STAGE.key,
            blocking=True,
            description=(
                "The candidate became the champion: it passed every export gate on onnx_model, "
                "beats the best reference by "
                "promotion.min_margin_pt on held-out-merchant category accuracy, is no worse "
                "overall on any head, and does not regress more than promotion.max_regression_pt "
                "against the champion on any head and slice. Fails with the reasons otherwise."
            ),
        )
    ],
    description=(
        "The model registry's record of the candidate (id = onnx_model's content digest), "
        "promoted or rejected with the reasons: fingerprint, every params section that shaped "
        "it, the full evaluation's metrics, the side-by-side comparison, the gate results and "
        "the artifact URIs. A promoted candidate becomes the `champion` alias. Registry: SQLite "
        "(default) or DynamoDB; model files uploaded to S3 when TXN_REGISTRY_S3_URI is set. "
        "The decision is in `verdict` and `rules` under Metadata, and on the page of the "
        "`candidate_promoted` check."
    ),
)
def registered_model(
    context: dg.AssetExecutionContext,
    onnx_model: ArtifactRef,
    model_evaluation: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
    model_registry: ModelRegistry,
):
    from ml_assets.core.quality.comparison import primary_head
    from ml_assets.core.quality.export_gates import gate_verdicts
    from ml_assets.core.quality.promotion import decide_from_evaluation, verdict_line

    model_id = onnx_model.digest[:32]
    resolved = params.load()
    shaping = {
        section_name(model): resolved.get(model).model_dump(mode="json") for model in SHAPING
    }
    gates = resolved.get(ExportGatesParams)

    def build(folder: Path, fingerprint: str) -> dict:
        evaluation = read_json(model_evaluation.dir / EVALUATION_FILE)
        primary = primary_head(evaluation["report"])
        verdicts = gate_verdicts(
            read_json(onnx_model.dir / VERIFICATION_FILE),
            (onnx_model.dir / INT8_FILE).stat().st_size,
            gates,
        )
        failures = [f"export gate {v.gate}: {r}" for v in verdicts for r in v.reasons]
        decision = decide_from_evaluation(
            evaluation, resolved.get(PromotionParams).model_dump(mode="json"), primary, failures
        )
        uploaded = model_registry.upload(
            model_id,
            {name: onnx_model.dir / name for name in (INT8_FILE, FP32_FILE)}
            | {"verification.json": onnx_model.dir / VERIFICATION_FILE},
        )
        record = build_record(
            model_id,
            onnx_model,
            model_evaluation,
            gates,
            shaping,
            uploaded,
            context.run.run_id,
            {
                **decision.to_json(),
                "verdict": verdict_line(
                    decision, evaluation["comparison"], primary, evaluation.get("heldout_lead")
                ),
            },
        )
        registry = model_registry.open(artifact_store.root_path)
        previous = model_registry.champion(artifact_store.root_path)
        registry.put(record)
        if registry.get(model_id) != record:  # read back: a registry that lost it is an error
            raise dg.Failure(f"{registry.uri()}: record {model_id} did not read back intact")
        if decision.promoted:
            registry.set_alias(CHAMPION, model_id)
        # which model serves after this decision, kept in the entry too: downstream (scoring)
        # reads it from here, so a copied or pulled store scores with the same model
        serving = record if decision.promoted else previous
        champion = (
            {"model_id": serving["model_id"], "onnx_model_key": serving["onnx_model_key"]}
            if serving
            else None
        )
        atomic_write_json(folder / RECORD_FILE, {**record, CHAMPION: champion})
        return {
            "model_id": model_id,
            "status": record["status"],
            "champion": registry.alias(CHAMPION) or "none",
            "previous_champion": previous["model_id"] if previous else "none",
            "rejection_reasons": "; ".join(decision.reasons) or "none",
            "verdict": record["promotion"]["verdict"],
            "rules": dg.MetadataValue.md(rules_table(record["promotion"]["rules"])),
            "registry": registry.uri(),
            "uploaded_files": len(uploaded),
            "artifact_uris": dg.MetadataValue.json(record["artifacts"]),
        }

    output = memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=STAGE.fingerprinted(
            resolved, FingerprintContext(store=artifact_store, registry=model_registry)
        ),
        inputs=by_asset(onnx_model, model_evaluation),
        build=build,
    )
    decision = read_json(Path(output.value.path) / RECORD_FILE)["promotion"]
    yield output
    yield promotion_check(model_id, decision, context.log)


def promotion_check(model_id: str, decision: dict, log) -> dg.AssetCheckResult:
    """The blocking check's result; the verdict also goes to the run log, so the CLI shows it."""
    if decision["promoted"]:
        log.info(f"candidate {model_id} promoted to {CHAMPION}. {decision['verdict']}")
    else:
        log.error(
            f"candidate {model_id} not promoted, the champion is unchanged. {decision['verdict']}"
        )
    return dg.AssetCheckResult(
        check_name=PROMOTED_CHECK,
        passed=decision["promoted"],
        # the check's page draws its description in place: the decision and every rule
        description=f"{bold_outcome(decision['verdict'])}\n\n{rules_table(decision['rules'])}",
        metadata={
            "model_id": model_id,
            "verdict": decision["verdict"],
            "reasons": "; ".join(decision["reasons"]) or "none",
            "rules": dg.MetadataValue.md(rules_table(decision["rules"])),
        },
    )


def bold_outcome(verdict: str) -> str:
    """ "PROMOTED: ..." with its first word in bold."""
    outcome, colon, rest = verdict.partition(": ")
    return f"**{outcome}**{colon}{rest}"


def rules_table(rules: list[dict]) -> str:
    """Every promotion rule: what it measured on which head and slice, what the candidate got,
    what it required and whether it passed."""
    return inline_table(
        ("rule", "on", "candidate %", "required %", "passed"),
        [
            (
                f"{r['rule']} ({r['against']})",
                f"{r['head']} / {short_slice(r['slice'])}",
                f"{r['candidate']:.2f}",
                f"{r['bar']:.2f}",
                "yes" if r["passed"] else "**NO**",
            )
            for r in rules
        ],
    )
