"""model_evaluation: the full (tier-2) evaluation of the shipped int8 model on the test split."""

import time
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl

from ml_assets.assets.onnx_model import STAGE as ONNX_MODEL
from ml_assets.core.infra.io import ArtifactRef, atomic_write_json, by_asset, read_json
from ml_assets.core.infra.layouts import (
    EVALUATION_FILE,
    FP32_FILE,
    MODEL_HISTORY_FILE,
    MODEL_METRICS_FILE,
    PREDICTIONS_FILE,
    SERVING_CONFIG,
    TOKENIZER_DIR,
    read_features,
)
from ml_assets.core.params import ModelEvaluationParams, OnnxModelParams, PipelineParams
from ml_assets.core.quality.comparison import (
    BASELINE,
    CANDIDATE,
    FP32_TWIN,
    HEAD_TABLE_SLICES,
    champion_label,
    primary_head,
    short_slice,
)
from ml_assets.core.quality.sketches import FULL_SIZE_PICTURES, inline_table
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import FingerprintContext, Stage
from resources.artifact_store import ArtifactStore
from resources.model_registry import ModelRegistry
from resources.params import ParamsResource

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
    ("test_category_acc", "category accuracy"),
    ("test_category_f1", "category macro-F1"),
    ("heldout_category_acc", "category acc., held-out merchants"),
    ("test_transaction_type_acc", "transaction type accuracy"),
    ("best_step", "steps to best validation"),
    ("steps", "steps run"),
)


def training_summary(model_dir: Path) -> dict:
    """What a finetuning reported, read from its declared output files (``metrics.json``: the
    PyTorch test metrics per head, overall and on held-out merchants; ``history.json``: every
    validation pass): ``test_<head>_acc``/``_f1``, ``heldout_<head>_acc``/``_f1``,
    ``best_step`` (the first pass with the best validation score, the weights kept) and
    ``steps``."""
    metrics = read_json(model_dir / MODEL_METRICS_FILE)
    history = read_json(model_dir / MODEL_HISTORY_FILE)
    summary: dict = {}
    for prefix, split in (("test", "test"), ("heldout", "test_heldout_merchants")):
        for head, values in metrics.get(split, {}).items():
            if values.get("n"):
                summary[f"{prefix}_{head}_acc"] = round(values["accuracy"], 4)
                summary[f"{prefix}_{head}_f1"] = round(values["macro_f1"], 4)
    if history:
        # first of equals; macro-F1 where a history records no score
        best = max(history, key=lambda r: r.get("valid_score", r["valid_macro_f1"]))
        summary.update(best_step=best["step"], steps=history[-1]["step"])
    return summary


def uplift(pretrained: dict, baseline: dict) -> tuple[str, dict]:
    """The candidate's finetuning (multitask_model) next to the plain finetune (baseline_model):
    PyTorch fp32 test metrics each finetuning reported, and the differences (the candidate's
    recipe, MLM pretraining included when it is on, minus the plain recipe)."""

    def cell(values: dict, key: str) -> str:
        value = values.get(key)
        return f"{value:.4f}" if isinstance(value, float) else str(value)

    # one row per measure, a column per model: narrow enough for the UI's metadata column
    lines = [
        "| | candidate (multitask_model) | plain finetune (baseline_model) |",
        "|---|---|---|",
        *(
            f"| {label} | {cell(pretrained, key)} | {cell(baseline, key)} |"
            for key, label in UPLIFT_COLUMNS
        ),
    ]
    numbers = {}
    for key, name in (
        ("test_category_acc", "uplift_category_acc_pt"),
        ("test_category_f1", "uplift_category_f1_pt"),
        ("test_transaction_type_acc", "uplift_type_acc_pt"),
    ):
        if key in pretrained and key in baseline:
            numbers[name] = round((pretrained[key] - baseline[key]) * 100, 2)
    if pretrained.get("best_step") and baseline.get("best_step"):
        numbers["steps_to_best_ratio"] = round(pretrained["best_step"] / baseline["best_step"], 3)
    return "\n".join(lines), numbers


def champion_entry(
    store: ArtifactStore, registry: ModelRegistry, candidate_digest: str | None
) -> dict | None:
    """The model the candidate is compared with: the champion, or, when the candidate is the
    champion itself, the one promoted before it (so the candidate's own promotion does not
    change its comparison, and a rerun is a memo hit). None before any other promotion."""
    champion = registry.champion(store.root_path)
    if champion is None:
        return None
    candidate = candidate_digest[:32] if candidate_digest else None
    if champion["model_id"] != candidate:
        record = champion
    else:
        earlier = [
            r
            for r in registry.open(store.root_path).list()  # oldest first
            if r.get("status") == "promoted" and r["model_id"] != candidate
        ]
        if not earlier:
            return None
        record = earlier[-1]
    return {"model_id": record["model_id"], "onnx_model_key": record["onnx_model_key"]}


def fingerprint(params: PipelineParams, context: FingerprintContext) -> dict:
    """The section and the model the candidate is compared with (see ``champion_entry``)."""
    registry = context.registry or ModelRegistry()
    champion = champion_entry(context.store, registry, context.candidate_digest)
    return {**params.get(ModelEvaluationParams).model_dump(mode="json"), "_champion": champion}


def pytorch_probabilities(model_dir: Path, texts: list[str]) -> dict[str, np.ndarray]:
    """A finetuned PyTorch model's softmax on raw descriptions (its own tokenizer, fp32, CPU)."""
    import torch

    from ml_assets.core.quality.evaluation import softmax
    from ml_assets.core.serving.scoring import encode_for_model
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer
    from ml_assets.training.finetune import predict_logits
    from ml_assets.training.model import MultiTaskModel

    net = MultiTaskModel.load(model_dir)
    tokenizer = FolderTokenizer.load(model_dir / TOKENIZER_DIR)
    max_length = net.encoder.config.max_position_embeddings
    sequences = encode_for_model(tokenizer, texts, min(max_length, 512))
    logits = predict_logits(net, sequences, 256, tokenizer.pad_token_id, torch.device("cpu"))
    return {head: softmax(values) for head, values in logits.items()}


def md(text: str) -> dg.MarkdownMetadataValue:
    return dg.MetadataValue.md(text)


def merchants_table(wrong: list[dict]) -> str:
    """The held-out merchants with the most wrong rows, as many as fit inline."""
    return inline_table(
        ("merchant", "wrong", "label → predicted most"),
        [
            (m["merchant"], f"{m['wrong']}/{m['rows']}", f"{m['label']} → {m['predicted']}")
            for m in wrong
        ],
        most=10,
    )


def mistakes_table(counts: np.ndarray, names: list[str]) -> str:
    """The off-diagonal cells of a confusion matrix, the most rows first: which label is taken
    for which (the sketch beside it shows where; this names them)."""
    cells = [
        (int(counts[t, p]), names[t], names[p])
        for t in range(len(names))
        for p in range(len(names))
        if t != p and counts[t, p]
    ]
    cells.sort(key=lambda cell: (-cell[0], cell[1], cell[2]))
    return inline_table(("true", "predicted", "rows"), [(t, p, n) for n, t, p in cells], most=8)


def slices_table(slices: dict) -> str:
    """One head's metrics per slice of the test rows."""
    return inline_table(
        ("slice", "n", "accuracy", "macro-F1", "PR-AUC", "ECE"),
        [
            (
                short_slice(name),
                v["n"],
                f"{v['accuracy']:.4f}",
                f"{v['macro_f1']:.4f}",
                f"{v['pr_auc']:.4f}",
                f"{v['ece']:.4f}",
            )
            for name, v in slices.items()
        ],
    )


# per-run overrides of the ModelEvaluation section: the launchpad's fields
ModelEvaluationConfig = section_config(ModelEvaluationParams, "ModelEvaluationConfig")


STAGE = Stage(
    key="model_evaluation",
    module=__name__,
    libraries=("onnxruntime", "tokenizers", "transformers", "polars"),
    section=ModelEvaluationParams,
    fingerprint=fingerprint,
    candidate_input=ONNX_MODEL.key,
    pictures=("side_by_side", "<head>_confusion", "reliability"),
)


@single_run_asset(
    group_name="evaluation",
    kinds={"onnx", "parquet"},
    automation_condition=automation_condition(),
    description=(
        "One inference pass of the shipped int8 model over the full test split, stored as "
        "predictions.parquet (probabilities per head) and reused by every metric: accuracy, "
        "macro-F1, PR-AUC, calibration (ECE) and per-class precision/recall/F1 per head, on all "
        "rows, merchants the split held out vs merchants with a labeled training row (seen) and "
        "short vs long descriptions; a confusion matrix and "
        "a reliability diagram; the held-out slice merchant by merchant (the mean over "
        "merchants, and the merchants with the most wrong rows); regressions against the "
        "champion are flagged. Side "
        "by side on the same rows and slices: the int8 candidate, its fp32 twin, baseline_model "
        "(the plain finetune), tfidf_reference, frozen_encoder_reference and the current champion "
        "(a table and a picture); and the recipe's uplift: multitask_model next to the plain "
        "finetune, both in PyTorch."
    ),
)
def model_evaluation(
    context: dg.AssetExecutionContext,
    config: ModelEvaluationConfig,
    onnx_model: ArtifactRef,
    training_features: ArtifactRef,
    multitask_model: ArtifactRef,
    baseline_model: ArtifactRef,
    tfidf_reference: ArtifactRef,
    frozen_encoder_reference: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
    model_registry: ModelRegistry,
) -> dg.Output[ArtifactRef]:
    resolved = params.load(ModelEvaluationParams, config.overrides)
    section = STAGE.fingerprinted(
        resolved,
        FingerprintContext(
            store=artifact_store, registry=model_registry, candidate_digest=onnx_model.digest
        ),
    )
    settings = ModelEvaluationParams.model_validate(
        {k: v for k, v in section.items() if k != "_champion"}
    )
    champion = section["_champion"]
    threads = resolved.get(OnnxModelParams).intra_op_num_threads

    def build(folder: Path, fingerprint: str) -> dict:
        from ml_assets.core.quality.comparison import (
            accuracy_grid,
            head_table,
            short_name,
        )
        from ml_assets.core.quality.eval_plots import comparison_png, confusion_png, reliability_png
        from ml_assets.core.quality.evaluation import (
            confusion_matrix,
            evaluate_slices,
            merchant_breakdown,
            regressions,
            reliability,
            seen_in_training,
            slice_masks,
            softmax,
        )
        from ml_assets.core.quality.lead_interval import heldout_lead, interval_words
        from ml_assets.core.quality.plots import markdown_image
        from ml_assets.core.quality.sketches import bars_sketch, heatmap_sketch, reliability_sketch
        from ml_assets.core.serving.scoring import encode_for_model, scorer_for
        from ml_assets.core.training_data.labels import IGNORE_INDEX, label_ids

        started = time.perf_counter()
        serving = read_json(onnx_model.dir / SERVING_CONFIG)
        heads: dict[str, list[str]] = serving["heads"]
        scorer = scorer_for(onnx_model.dir, threads)
        features = read_features(training_features)
        test = features.filter(pl.col("split") == "test")
        train = features.filter(pl.col("split") == "train")
        seen = seen_in_training(
            test["merchant_key"].to_numpy(),
            train["merchant_key"].to_numpy(),
            train["labeled"].to_numpy(),
        )
        sequences = encode_for_model(
            scorer.tokenizer, test["description"].to_list(), scorer.max_length
        )
        inference_started = time.perf_counter()
        logits = scorer.logits(sequences, settings.batch_size, test["amount"].to_numpy())
        probs = {h: softmax(x) for h, x in logits.items()}
        inference_seconds = time.perf_counter() - inference_started
        predictions = test.select(
            "transaction_id", "description", "merchant_key", "heldout_merchant", "description_chars"
        ).with_columns(seen_merchant=pl.Series(seen))
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
            seen,
            test["description_chars"].to_numpy(),
            settings.short_description_chars,
        )
        report = evaluate_slices(labels, probs, heads, masks, IGNORE_INDEX)
        # inline sketches first (the UI draws them in place), the full PNGs behind one button
        curves, sketches, mistakes, full = {}, {}, {}, []
        for head, names in heads.items():
            keep = labels[head] != IGNORE_INDEX
            if not keep.any():
                continue
            y, p = labels[head][keep], probs[head][keep]
            curves[head] = reliability(y, p, settings.calibration_bins)
            counts = confusion_matrix(y, p.argmax(axis=1), len(names))
            sketches[f"{head}_confusion"] = heatmap_sketch(counts, f"{head} confusion matrix")
            mistakes[f"{head}_mistakes"] = mistakes_table(counts, names)
            full.append(
                markdown_image(
                    confusion_png(counts, names, f"{head}: confusion on the test split (int8)"),
                    f"{head} confusion matrix",
                )
            )
        if curves:
            sketches["reliability"] = reliability_sketch(curves, "reliability diagram")
            full.append(
                markdown_image(
                    reliability_png(curves, "Calibration (test split, int8)"), "reliability"
                )
            )
        comparison = {CANDIDATE: report}
        references = reference_probabilities(
            test, heads, by_asset(tfidf_reference, frozen_encoder_reference)
        )
        comparison.update(
            compare_models(
                test, heads, labels, masks, threads, settings.batch_size,
                fp32=onnx_model.dir / FP32_FILE,
                baseline=baseline_model.dir,
                references=references,
                champion=None
                if champion is None
                else (champion["model_id"], artifact_store.ref(ONNX_MODEL.key, champion["onnx_model_key"])),
            )
        )  # fmt: skip
        primary = primary_head(heads)
        # the held-out slice merchant by merchant: a few frequent merchants can decide its
        # row accuracy, so the mean over merchants and the merchants it misses are shown too
        on_heldout = masks["heldout_merchants"] & (labels[primary] != IGNORE_INDEX)
        merchant_mean, missed = (
            merchant_breakdown(
                test["merchant_key"].to_numpy()[on_heldout],
                labels[primary][on_heldout],
                probs[primary][on_heldout].argmax(axis=1),
                heads[primary],
            )
            if on_heldout.any()
            else (None, [])
        )
        # how sure these held-out merchants can be of the margin the promotion judges
        lead = heldout_lead(
            labels[primary],
            probs[primary],
            {name: by_head[primary] for name, by_head in references.items()},
            masks["heldout_merchants"],
            test["merchant_key"].to_numpy(),
        )
        grid = accuracy_grid(comparison, primary)
        short_grid = {
            short_name(model): {
                short_slice(k): v for k, v in values.items() if k in HEAD_TABLE_SLICES
            }
            for model, values in grid.items()
        }
        sketches = {"side_by_side": bars_sketch(short_grid, "side by side"), **sketches}
        full.insert(
            0,
            markdown_image(
                comparison_png(
                    grid, f"{primary} accuracy by slice, every model on the same test rows"
                ),
                "side by side",
            ),
        )
        # regressions against the champion, re-scored above on these rows (a declared input,
        # part of the fingerprint), never against this asset's own earlier output
        flat = headline(report)
        against = champion_label(champion["model_id"]) if champion else None
        before = headline(comparison[against]) if against in comparison else {}
        dropped = regressions(flat, before, settings.max_regression_pt)
        if dropped:
            context.log.warning(
                f"regressions beyond {settings.max_regression_pt} pt vs the champion "
                f"({against}): {dropped}"
            )
        atomic_write_json(
            folder / EVALUATION_FILE,
            {
                "report": report,
                "reliability": curves,
                "compared_with": against,
                "regressions": dropped,
                "heldout_merchants": {"mean_accuracy": merchant_mean, "missed": missed},
                "comparison": comparison,
                "heldout_lead": lead,
                "champion": champion,
            },
        )
        table, uplift_numbers = uplift(
            training_summary(multitask_model.dir), training_summary(baseline_model.dir)
        )
        metadata = {
            **{f"{head}_by_model": md(head_table(comparison, head)) for head in heads},
            **{key: md(value) for key, value in sketches.items()},
            **{key: md(value) for key, value in mistakes.items()},
            **{f"{head}_slices": md(slices_table(report[head])) for head in report},
            **(
                {
                    "heldout_merchant_mean": round(merchant_mean, 4),
                    "heldout_missed": md(merchants_table(missed)),
                }
                if merchant_mean is not None
                else {}
            ),
            **(
                {
                    "heldout_lead": f"{lead['lead_pt']:+.1f} pt over {lead['against']}, "
                    + interval_words(lead)
                }
                if lead
                else {}
            ),
            "recipe_uplift": md(table),
            **uplift_numbers,
            "champion": champion["model_id"] if champion else "none",
            "compared_with_champion": bool(before),
            "regressions": len(dropped),
            "regressed_metrics": ", ".join(f"{k} -{v} pt" for k, v in dropped.items()) or "none",
            # the numbers the Plots view follows from run to run
            **{
                f"heldout_acc_{short_name(name)}": round(
                    other[primary]["heldout_merchants"]["accuracy"], 4
                )
                for name, other in comparison.items()
                if "heldout_merchants" in other.get(primary, {})
            },
            **{
                f"{head}_{short_slice(name)}_{short}": round(slices[name][metric], 4)
                for head, slices in report.items()
                for name in HEAD_TABLE_SLICES
                if name in slices
                for metric, short in (("accuracy", "acc"), ("macro_f1", "f1"))
            },
            **{f"{head}_ece": round(slices["all"]["ece"], 4) for head, slices in report.items()},
            "test_rows": test.height,
            "inference_seconds": round(inference_seconds, 3),
            "rows_per_second": round(test.height / max(inference_seconds, 1e-9)),
            "seconds": round(time.perf_counter() - started, 3),
            FULL_SIZE_PICTURES: md("\n\n".join(full)),
        }
        return metadata

    return memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=section,
        inputs=by_asset(
            onnx_model,
            training_features,
            multitask_model,
            baseline_model,
            tfidf_reference,
            frozen_encoder_reference,
        ),
        build=build,
    )


def compare_models(
    test: pl.DataFrame,
    heads: dict[str, list[str]],
    labels: dict[str, np.ndarray],
    masks: dict[str, np.ndarray],
    threads: int,
    batch_size: int,
    *,
    fp32: Path,
    baseline: Path,
    references: dict[str, dict[str, np.ndarray]],
    champion: tuple[str, ArtifactRef] | None,
) -> dict[str, dict]:
    """Every other model's report on exactly the candidate's test rows and slices
    (``references``: each reference's ``reference_probabilities``)."""
    from ml_assets.core.quality.comparison import by_label_name
    from ml_assets.core.quality.evaluation import evaluate_slices, softmax
    from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model, scorer_for
    from ml_assets.core.training_data.labels import IGNORE_INDEX

    texts, amounts = test["description"].to_list(), test["amount"].to_numpy()

    def onnx_report(scorer: OnnxScorer) -> dict:
        """Scored by label name on the heads it shares with the candidate: a champion trained
        on other heads or labels is compared where it can be (a label it lacks scores 0)."""
        sequences = encode_for_model(scorer.tokenizer, texts, scorer.max_length)
        logits = scorer.logits(sequences, batch_size, amounts)
        shared = [h for h in heads if h in scorer.heads]
        probs = {h: by_label_name(softmax(logits[h]), scorer.heads[h], heads[h]) for h in shared}
        return evaluate_slices({h: labels[h] for h in shared}, probs, heads, masks, IGNORE_INDEX)

    reports = {}
    int8 = scorer_for(fp32.parent, threads)
    reports[FP32_TWIN] = onnx_report(
        OnnxScorer(fp32, int8.tokenizer_dir, int8.heads, int8.max_length, threads)
    )
    reports[BASELINE] = evaluate_slices(
        labels, pytorch_probabilities(baseline, texts), heads, masks, IGNORE_INDEX
    )
    for name, probs in references.items():
        reports[name] = evaluate_slices(labels, probs, heads, masks, IGNORE_INDEX)
    if champion is not None:
        model_id, ref = champion
        reports[champion_label(model_id)] = onnx_report(scorer_for(ref.dir, threads))
    return reports


def reference_probabilities(
    test: pl.DataFrame, heads: dict[str, list[str]], references: dict[str, ArtifactRef]
) -> dict[str, dict[str, np.ndarray]]:
    """Each reference's saved test probabilities, aligned to ``test``'s rows and the
    candidate's label order per head."""
    from ml_assets.core.quality.comparison import aligned_probabilities
    from ml_assets.training.references import REFERENCE_LABELS

    return {
        name: aligned_probabilities(
            pl.read_parquet(ref.dir / PREDICTIONS_FILE),
            read_json(ref.dir / REFERENCE_LABELS),
            test["transaction_id"],
            heads,
        )
        for name, ref in references.items()
    }
