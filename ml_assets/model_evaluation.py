"""model_evaluation: the full (tier-2) evaluation of the shipped int8 model on the test split."""

import time
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl

from ml_assets.artifacts import (
    MEMO_FILE,
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
)
from ml_assets.core.io import ArtifactRef, atomic_write_json, read_json
from ml_assets.core.layouts import (
    EVALUATION_FILE,
    PREDICTIONS_FILE,
    SERVING_CONFIG,
    read_features,
)
from ml_assets.core.params import ModelEvaluationParams, OnnxModelParams
from ml_assets.daily import SINGLE_RUN
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(
    __name__, "model_evaluation", ("onnxruntime", "tokenizers", "transformers", "polars")
)
HEADLINE = ("accuracy", "macro_f1", "pr_auc")


def headline(report: dict) -> dict[str, float]:
    """Flat {head/slice/metric: value} of the fractions compared across evaluations."""
    return {
        f"{head}/{name}/{metric}": values[metric]
        for head, slices in report.items()
        for name, values in slices.items()
        for metric in HEADLINE
    }


UPLIFT_COLUMNS = (
    ("test_category_accuracy", "category accuracy"),
    ("test_category_macro_f1", "category macro-F1"),
    ("heldout_category_accuracy", "category acc., held-out merchants"),
    ("test_transaction_type_accuracy", "transaction type accuracy"),
    ("best_step", "steps to best validation"),
    ("steps", "steps run"),
)


def uplift(pretrained: dict, baseline: dict) -> tuple[str, dict]:
    """The seed's table: the same finetuning from the MLM-pretrained and from the un-adapted
    backbone (PyTorch fp32 test metrics each finetuning reported), and the differences."""
    lines = ["| model | " + " | ".join(label for _, label in UPLIFT_COLUMNS) + " |"]
    lines.append("|---" * (len(UPLIFT_COLUMNS) + 1) + "|")
    for name, values in (("MLM-pretrained", pretrained), ("baseline (no pretraining)", baseline)):
        cells = [
            f"{values[key]:.4f}" if isinstance(values.get(key), float) else str(values.get(key))
            for key, _ in UPLIFT_COLUMNS
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    numbers = {}
    for key in (
        "test_category_accuracy",
        "test_category_macro_f1",
        "test_transaction_type_accuracy",
    ):
        if key in pretrained and key in baseline:
            numbers[f"uplift_{key.removeprefix('test_')}_pt"] = round(
                (pretrained[key] - baseline[key]) * 100, 2
            )
    if pretrained.get("best_step") and baseline.get("best_step"):
        numbers["steps_to_best_ratio"] = round(pretrained["best_step"] / baseline["best_step"], 3)
    return "\n".join(lines), numbers


def slices_table(report: dict) -> str:
    lines = [
        "| head | slice | n | accuracy | macro-F1 | PR-AUC | ECE |",
        "|---|---|---|---|---|---|---|",
    ]
    for head, slices in report.items():
        for name, v in slices.items():
            lines.append(
                f"| {head} | {name} | {v['n']} | {v['accuracy']:.4f} | {v['macro_f1']:.4f} | "
                f"{v['pr_auc']:.4f} | {v['ece']:.4f} |"
            )
    return "\n".join(lines)


@dg.asset(
    group_name="evaluation",
    kinds={"onnx", "parquet"},
    code_version=CODE.version,
    backfill_policy=SINGLE_RUN,  # lets one CLI run cover a range of days and the models
    automation_condition=automation_condition(),
    description=(
        "One inference pass of the shipped int8 model over the full test split, stored as "
        "predictions.parquet (probabilities per head) and reused by every metric: accuracy, "
        "macro-F1, PR-AUC, calibration (ECE) and per-class precision/recall/F1 per head, on all "
        "rows, held-out vs seen merchants and short vs long descriptions; a confusion matrix and "
        "a reliability diagram; regressions against the previous evaluation are flagged; and "
        "the pretraining uplift: multitask_model next to baseline_model."
    ),
)
def model_evaluation(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    onnx_model: ArtifactRef,
    training_features: ArtifactRef,
    multitask_model: ArtifactRef,
    baseline_model: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.section("model_evaluation", config.overrides)
    settings = ModelEvaluationParams.model_validate(section)
    threads = OnnxModelParams.model_validate(params.section("onnx_model")).intra_op_num_threads
    previous = artifact_store.current_ref("model_evaluation")

    def build(folder: Path, fingerprint: str) -> dict:
        from ml_assets.core.eval_plots import confusion_png, reliability_png
        from ml_assets.core.evaluation import (
            confusion_matrix,
            evaluate_slices,
            regressions,
            reliability,
            slice_masks,
            softmax,
        )
        from ml_assets.core.labels import IGNORE_INDEX, label_ids
        from ml_assets.core.plots import markdown_image
        from ml_assets.core.scoring import encode_for_model, scorer_for

        started = time.perf_counter()
        serving = read_json(onnx_model.dir / SERVING_CONFIG)
        heads: dict[str, list[str]] = serving["heads"]
        scorer = scorer_for(onnx_model.dir, threads)
        test = read_features(training_features).filter(pl.col("split") == "test")
        sequences = encode_for_model(
            scorer.tokenizer, test["description"].to_list(), scorer.max_length
        )
        inference_started = time.perf_counter()
        probs = {h: softmax(x) for h, x in scorer.logits(sequences, settings.batch_size).items()}
        inference_seconds = time.perf_counter() - inference_started
        predictions = test.select(
            "transaction_id", "description", "heldout_merchant", "description_chars"
        )
        for head, names in heads.items():
            predictions = predictions.with_columns(
                pl.Series(f"{head}_true", test[head]),
                pl.Series(f"{head}_pred", [names[i] for i in probs[head].argmax(axis=1)]),
                pl.Series(f"{head}_confidence", probs[head].max(axis=1).astype(np.float32)),
                pl.Series(f"{head}_probs", probs[head].astype(np.float32)),
            )
        predictions.write_parquet(folder / PREDICTIONS_FILE, compression="zstd")

        # every number below comes from `probs`: the one inference pass
        labels = {h: label_ids(test[h], names) for h, names in heads.items()}
        masks = slice_masks(
            test["heldout_merchant"].to_numpy(),
            test["description_chars"].to_numpy(),
            settings.short_description_chars,
        )
        report = evaluate_slices(labels, probs, heads, masks, IGNORE_INDEX)
        curves, pictures = {}, {}
        for head, names in heads.items():
            keep = labels[head] != IGNORE_INDEX
            if not keep.any():
                continue
            y, p = labels[head][keep], probs[head][keep]
            curves[head] = reliability(y, p, settings.calibration_bins)
            counts = confusion_matrix(y, p.argmax(axis=1), len(names))
            pictures[f"{head}_confusion_matrix"] = dg.MetadataValue.md(
                markdown_image(
                    confusion_png(counts, names, f"{head}: confusion on the test split (int8)"),
                    f"{head} confusion matrix",
                )
            )
        if curves:
            pictures["reliability_diagram"] = dg.MetadataValue.md(
                markdown_image(
                    reliability_png(curves, "Calibration (test split, int8)"), "reliability"
                )
            )
        flat = headline(report)
        before = {}
        if previous is not None and (previous.dir / EVALUATION_FILE).is_file():
            before = headline(read_json(previous.dir / EVALUATION_FILE)["report"])
        dropped = regressions(flat, before, settings.max_regression_pt)
        if dropped:
            context.log.warning(
                f"regressions beyond {settings.max_regression_pt} pt vs the previous evaluation "
                f"({previous.path}): {dropped}"
            )
        atomic_write_json(
            folder / EVALUATION_FILE,
            {
                "report": report,
                "reliability": curves,
                "compared_with": previous.path if previous else None,
                "regressions": dropped,
            },
        )
        table, uplift_numbers = uplift(
            read_json(multitask_model.dir / MEMO_FILE)["metadata"],
            read_json(baseline_model.dir / MEMO_FILE)["metadata"],
        )
        metadata = {
            "pretraining_uplift": dg.MetadataValue.md(table),
            **uplift_numbers,
            "test_rows": test.height,
            "inference_seconds": round(inference_seconds, 3),
            "rows_per_second": round(test.height / max(inference_seconds, 1e-9)),
            "slices": dg.MetadataValue.md(slices_table(report)),
            "compared_with_previous": bool(before),
            "regressions": len(dropped),
            "regressed_metrics": ", ".join(f"{k} -{v} pt" for k, v in dropped.items()) or "none",
            "seconds": round(time.perf_counter() - started, 3),
            **pictures,
        }
        for head, slices in report.items():
            for name in ("all", "heldout_merchants", "short", "long"):
                if name in slices:
                    for metric in (*HEADLINE, "ece"):
                        metadata[f"{head}_{name}_{metric}"] = round(slices[name][metric], 4)
        return metadata

    return memoized_output(
        context,
        artifact_store,
        asset="model_evaluation",
        code=CODE,
        params=section,
        inputs={
            "onnx_model": onnx_model,
            "training_features": training_features,
            "multitask_model": multitask_model,
            "baseline_model": baseline_model,
        },
        build=build,
    )
