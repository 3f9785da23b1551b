"""multitask_model: the MLM backbone finetuned with one classification head per label."""

from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
)
from ml_assets.core.io import ArtifactRef, atomic_write_json
from ml_assets.core.labels import label_ids, label_vocabularies
from ml_assets.core.layouts import TOKENIZER_DIR, copy_tokenizer, read_features
from ml_assets.core.params import MultitaskModelParams
from ml_assets.core.plots import line_chart_png, markdown_image
from ml_assets.core.vocab import load_tokenizer
from ml_assets.training.data import encode_texts
from ml_assets.training.finetune import FinetuneConfig, LabeledSet, evaluate, finetune
from ml_assets.training.model import MultiTaskModel, pick_device
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(
    __name__, "multitask_model", ("torch", "transformers", "tokenizers", "safetensors")
)


def labeled_set(
    frame: pl.DataFrame, tokenizer, heads: dict[str, list[str]], max_length: int
) -> LabeledSet:
    return LabeledSet(
        sequences=encode_texts(tokenizer, frame["text"].to_list(), max_length),
        labels={head: label_ids(frame[head], names) for head, names in heads.items()},
    )


@dg.asset(
    group_name="finetuning",
    kinds={"pytorch", "safetensors"},
    code_version=CODE.version,
    automation_condition=automation_condition(),
    description=(
        "Shared MLM-pretrained backbone plus one linear head per label (category, transaction_type) on "
        "[CLS], trained on labeled training rows with validation every N steps and early stopping on "
        "mean macro-F1. Reports test accuracy and macro-F1 per head, overall and on held-out merchants."
    ),
)
def multitask_model(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    transaction_features: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    mlm_backbone: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.section("multitask_model", config.overrides)
    settings = MultitaskModelParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        features = read_features(transaction_features).filter(pl.col("labeled"))
        heads = label_vocabularies(features, settings.heads)
        tokenizer = load_tokenizer(pruned_tokenizer.dir)
        split = {
            name: features.filter(pl.col("split") == name) for name in ("train", "valid", "test")
        }
        for name, frame in split.items():
            if frame.height == 0:
                raise ValueError(
                    f"no labeled rows in the {name} split; add labeled data or change the split shares"
                )
        sets = {
            name: labeled_set(frame, tokenizer, heads, settings.max_length)
            for name, frame in split.items()
        }
        heldout = split["test"].filter(pl.col("heldout_merchant"))
        device = pick_device()
        net = MultiTaskModel.from_backbone(mlm_backbone.dir, heads, settings.dropout)
        result = finetune(
            net,
            sets["train"],
            sets["valid"],
            FinetuneConfig(
                batch_size=settings.batch_size,
                max_epochs=settings.max_epochs,
                max_steps=settings.max_steps,
                eval_every=settings.eval_every,
                patience=settings.patience,
                learning_rate=settings.learning_rate,
                head_learning_rate=settings.head_learning_rate,
                weight_decay=settings.weight_decay,
                warmup_steps=settings.warmup_steps,
                seed=settings.seed,
            ),
            pad_id=tokenizer.pad_token_id,
            device=device,
            log=context.log.info,
        )
        test = evaluate(net, sets["test"], 128, tokenizer.pad_token_id, device)
        test_heldout = (
            evaluate(
                net,
                labeled_set(heldout, tokenizer, heads, settings.max_length),
                128,
                tokenizer.pad_token_id,
                device,
            )
            if heldout.height
            else {}
        )
        curve = {"valid mean macro-F1": [(h["step"], h["valid_macro_f1"]) for h in result.history]}
        curve_png = line_chart_png(curve, "Validation during finetuning", "step", "macro-F1")
        net.cpu().save(folder)
        copy_tokenizer(pruned_tokenizer.dir, folder / TOKENIZER_DIR)
        atomic_write_json(
            folder / "metrics.json", {"test": test, "test_heldout_merchants": test_heldout}
        )
        atomic_write_json(folder / "history.json", result.history)
        (folder / "valid_curve.png").write_bytes(curve_png)
        metadata = {
            "heads": {head: len(names) for head, names in heads.items()},
            "train_rows": split["train"].height,
            "valid_rows": split["valid"].height,
            "test_rows": split["test"].height,
            "test_heldout_merchant_rows": heldout.height,
            "steps": result.steps,
            "best_step": result.best_step,
            "best_valid_mean_macro_f1": round(result.best_score, 4),
            "stopped_early": result.stopped_early,
            "train_seconds": round(result.seconds, 2),
            "samples_per_second": round(result.samples / result.seconds, 1)
            if result.seconds
            else 0.0,
            "device": str(device),
            "valid_curve": dg.MetadataValue.md(markdown_image(curve_png, "validation curve")),
        }
        for head in heads:
            if test[head]["n"] == 0:
                continue
            metadata[f"test_{head}_accuracy"] = round(test[head]["accuracy"], 4)
            metadata[f"test_{head}_macro_f1"] = round(test[head]["macro_f1"], 4)
            if test_heldout and test_heldout[head]["n"] > 0:
                metadata[f"heldout_{head}_accuracy"] = round(test_heldout[head]["accuracy"], 4)
                metadata[f"heldout_{head}_macro_f1"] = round(test_heldout[head]["macro_f1"], 4)
        metadata["test_mean_accuracy"] = round(
            float(np.mean([m["accuracy"] for m in test.values() if m["n"]])), 4
        )
        return metadata

    return memoized_output(
        context,
        artifact_store,
        asset="multitask_model",
        code=CODE,
        params=section,
        inputs={
            "transaction_features": transaction_features,
            "pruned_tokenizer": pruned_tokenizer,
            "mlm_backbone": mlm_backbone,
        },
        build=build,
    )
