"""registered_model: the exported model's record in the model registry (after its gates)."""

from pathlib import Path

import dagster as dg

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
)
from ml_assets.core.io import ArtifactRef, atomic_write_json, read_json
from ml_assets.core.layouts import EVALUATION_FILE, FP32_FILE, INT8_FILE, VERIFICATION_FILE
from ml_assets.core.params import ExportGatesParams
from ml_assets.daily import SINGLE_RUN
from resources.artifact_store import ArtifactStore
from resources.model_registry import ModelRegistry, now
from resources.params import ParamsResource

CODE = stage_code_version(__name__, "export_gates", ())
RECORD_FILE = "registry_record.json"


def build_record(
    model_id: str,
    onnx_model: ArtifactRef,
    model_evaluation: ArtifactRef,
    gates: ExportGatesParams,
    params: dict,
    uploaded: dict[str, str],
    run_id: str,
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
        "onnx_model_digest": onnx_model.digest,
        "model_evaluation_digest": model_evaluation.digest,
        "params": params,
        "metrics": metrics,
        "gates": {
            "thresholds": gates.model_dump(mode="json"),
            "parity": verification["parity"],
            "latency_at_export": verification["latency"],
            "int8_bytes": (onnx_model.dir / INT8_FILE).stat().st_size,
            "note": "registered only downstream of passing blocking gates on onnx_model",
        },
        "artifacts": {"local": onnx_model.path, **uploaded},
    }


# the params.yaml sections this asset reads (DVC tracks them for its stage)
PARAMS_SECTIONS = ("export_gates",)


def fingerprint_section(
    params, store: ArtifactStore, registry: ModelRegistry | None = None
) -> dict:
    """Where the record goes and the gate thresholds it records."""
    registry = registry or ModelRegistry()
    return {
        "target": registry.target(store.root_path),
        "export_gates": params.section("export_gates"),
    }


@dg.asset(
    group_name="serving",
    kinds={"sqlite", "dynamodb"},
    code_version=CODE.version,
    backfill_policy=SINGLE_RUN,  # lets one CLI run cover a range of days and the models
    automation_condition=automation_condition(),
    description=(
        "The model registry's record of the exported model (id = onnx_model's content digest): "
        "fingerprint, every params section that shaped it, the full evaluation's metrics, the "
        "gate results and the artifact URIs. Registry: SQLite (default) or DynamoDB; model files "
        "uploaded to S3 when TXN_REGISTRY_S3_URI is set. Runs only after the gates passed."
    ),
)
def registered_model(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    onnx_model: ArtifactRef,
    model_evaluation: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
    model_registry: ModelRegistry,
) -> dg.Output[ArtifactRef]:
    model_id = onnx_model.digest[:32]
    resolved = params.load()
    shaping = {
        name: resolved.section(name)
        for name in ("transaction_features", "training_features", "pruned_tokenizer")
        + ("mlm_backbone", "multitask_model", "onnx_model")
    }

    def build(folder: Path, fingerprint: str) -> dict:
        uploaded = model_registry.upload(
            model_id,
            {name: onnx_model.dir / name for name in (INT8_FILE, FP32_FILE)}
            | {"verification.json": onnx_model.dir / VERIFICATION_FILE},
        )
        record = build_record(
            model_id,
            onnx_model,
            model_evaluation,
            ExportGatesParams.model_validate(resolved.section("export_gates")),
            shaping,
            uploaded,
            context.run.run_id,
        )
        registry = model_registry.open(artifact_store.root_path)
        registry.put(record)
        if registry.get(model_id) != record:  # read back: a registry that lost it is an error
            raise dg.Failure(f"{registry.uri()}: record {model_id} did not read back intact")
        atomic_write_json(folder / RECORD_FILE, record)
        return {
            "model_id": model_id,
            "registry": registry.uri(),
            "uploaded_files": len(uploaded),
            "artifact_uris": dg.MetadataValue.json(record["artifacts"]),
        }

    return memoized_output(
        context,
        artifact_store,
        asset="registered_model",
        code=CODE,
        params=fingerprint_section(resolved, artifact_store, model_registry),
        inputs={"onnx_model": onnx_model, "model_evaluation": model_evaluation},
        build=build,
    )
