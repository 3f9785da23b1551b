"""onnx_model: the multitask model exported to ONNX and quantized to int8, verified and timed."""

import shutil
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.artifacts import (
    automation_condition,
    memoized_output,
)
from ml_assets.core.io import ArtifactRef, atomic_write_json
from ml_assets.core.labels import label_ids
from ml_assets.core.layouts import (
    FP32_FILE,
    INT8_FILE,
    SERVING_CONFIG,
    TOKENIZER_DIR,
    VERIFICATION_FILE,
    entry_params,
    read_features,
)
from ml_assets.core.params import OnnxModelParams
from ml_assets.daily import single_run_asset
from ml_assets.run_config import section_config
from ml_assets.stage import Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

# per-run overrides of the OnnxModel section: the launchpad's fields
OnnxModelConfig = section_config(OnnxModelParams, "OnnxModelConfig")


STAGE = Stage(
    key="onnx_model",
    module=__name__,
    libraries=("torch", "onnx", "onnxruntime", "tokenizers", "transformers"),
)


@single_run_asset(
    group_name="export",
    kinds={"onnx"},
    automation_condition=automation_condition(),
    description=(
        "The multitask model as ONNX (dynamic batch and sequence axes, one logits output per head), "
        "quantized to int8 with onnxruntime (blockwise MatMulNBits by default, or dynamic per-channel; word embeddings as int8 rows). Verified against PyTorch on "
        "the test split (argmax agreement, accuracy delta) and timed at batch 1 on CPU including "
        "tokenization. Ships with the pruned tokenizer and a serving config. Blocking gates: "
        "parity, latency budget, size (see export_gates)."
    ),
)
def onnx_model(
    context: dg.AssetExecutionContext,
    config: OnnxModelConfig,
    multitask_model: ArtifactRef,
    training_features: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.section(STAGE.key, config.overrides)
    settings = OnnxModelParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        # torch/onnxruntime load here, not when the definitions load (UI, CLI, plan stay fast)
        from ml_assets.core.scoring import OnnxScorer, measure_latency
        from ml_assets.training.export import export_onnx, quantize_int8
        from ml_assets.training.model import MultiTaskModel
        from ml_assets.training.parity import compare_with_pytorch

        max_length = entry_params(multitask_model)["max_length"]
        net = MultiTaskModel.load(multitask_model.dir)
        # agreement needs no labels: every test row counts; accuracy uses the labeled ones
        test = read_features(training_features).filter(pl.col("split") == "test")
        export_onnx(net, folder / FP32_FILE, settings.opset)
        excluded = quantize_int8(
            folder / FP32_FILE,
            folder / INT8_FILE,
            kernel=settings.int8_kernel,
            block_size=settings.block_size,
            per_channel=settings.per_channel,
            exclude_op_types=settings.exclude_op_types,
            keep_fp32_nodes=settings.keep_fp32_nodes,
            quantize_embeddings=settings.quantize_embeddings,
        )
        shutil.copytree(multitask_model.dir / TOKENIZER_DIR, folder / TOKENIZER_DIR)
        serving = {
            "model": INT8_FILE,
            "tokenizer": TOKENIZER_DIR,
            "heads": net.head_labels,
            "max_length": max_length,
        }
        atomic_write_json(folder / SERVING_CONFIG, serving)
        scorer = OnnxScorer(
            folder / INT8_FILE,
            folder / TOKENIZER_DIR,
            net.head_labels,
            max_length,
            settings.intra_op_num_threads,
        )
        texts = test["description"].to_list()
        labels = {head: label_ids(test[head], names) for head, names in net.head_labels.items()}
        parity = compare_with_pytorch(scorer, net, texts, labels, settings.eval_batch_size)
        latency = measure_latency(scorer, texts, settings.latency_requests)
        atomic_write_json(folder / VERIFICATION_FILE, {"parity": parity, "latency": latency})
        metadata = {
            "opset": settings.opset,
            "int8_kernel": settings.int8_kernel,
            "per_channel": settings.per_channel,
            "fp32_onnx_bytes": (folder / FP32_FILE).stat().st_size,
            "int8_onnx_bytes": (folder / INT8_FILE).stat().st_size,
            "nodes_kept_fp32": len(excluded),
            "verified_on_test_rows": len(texts),
            "latency_p50_ms": round(latency["p50_ms"], 3),
            "latency_p99_ms": round(latency["p99_ms"], 3),
            "latency_threads": settings.intra_op_num_threads,
        }
        for head, values in parity.items():
            metadata[f"{head}_argmax_agreement"] = round(values["agreement"], 4)
            if "accuracy_int8" in values:
                metadata[f"{head}_accuracy_int8"] = round(values["accuracy_int8"], 4)
                metadata[f"{head}_accuracy_delta_pt"] = round(values["accuracy_delta_pt"], 3)
        return metadata

    return memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=section,
        inputs={"multitask_model": multitask_model, "training_features": training_features},
        build=build,
    )
