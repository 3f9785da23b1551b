"""multitask_model: the MLM backbone finetuned with one classification head per label."""

from pathlib import Path

import dagster as dg

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
)
from ml_assets.core.io import ArtifactRef, atomic_write_json
from ml_assets.core.layouts import TOKENIZER_DIR, copy_tokenizer
from ml_assets.core.params import MultitaskModelParams
from ml_assets.training_checks import data_wait_result, data_wait_spec
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(
    __name__, "multitask_model", ("torch", "transformers", "tokenizers", "safetensors", "peft")
)
SPLITS = ("train", "valid", "test")


@dg.asset(
    group_name="finetuning",
    kinds={"pytorch", "safetensors"},
    code_version=CODE.version,
    automation_condition=automation_condition(),
    check_specs=[data_wait_spec("multitask_model")],
    description=(
        "Shared MLM-pretrained backbone plus one linear head per label (category, transaction_type) on "
        "[CLS], trained on labeled training rows of the tokenized corpus with validation every N steps "
        "and early stopping on mean macro-F1 (optionally LoRA adapters). Reports test accuracy and "
        "macro-F1 per head, overall and on held-out merchants."
    ),
)
def multitask_model(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    tokenized_corpus: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    mlm_backbone: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
):
    section = params.section("multitask_model", config.overrides)
    settings = MultitaskModelParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        # torch/transformers load here, not when the definitions load (UI, CLI, plan stay fast)
        import numpy as np

        from ml_assets.core.corpus import TokenizedSplit
        from ml_assets.core.plots import line_chart_png, markdown_image
        from ml_assets.training.finetune import (
            FinetuneConfig,
            LabeledSet,
            evaluate,
            finetune,
            head_vocabularies,
            labeled_view,
        )
        from ml_assets.training.model import MultiTaskModel, pick_device

        splits = {
            name: TokenizedSplit(tokenized_corpus.dir, name, settings.max_length) for name in SPLITS
        }
        meta = splits["train"].meta
        heads = head_vocabularies(meta, settings.heads)
        sets = {name: labeled_view(split, heads) for name, split in splits.items()}
        for name, data in sets.items():
            if len(data.sequences) == 0:
                raise ValueError(
                    f"no labeled rows in the {name} split; add labeled data or change the split shares"
                )
        test_rows = sets["test"].sequences.row_table()
        heldout_rows = np.flatnonzero(test_rows["heldout_merchant"].to_numpy())
        heldout = LabeledSet(
            sequences=sets["test"].sequences.subset(heldout_rows),
            labels={head: values[heldout_rows] for head, values in sets["test"].labels.items()},
        )
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
                precision=settings.precision,
                lora_r=settings.lora_r,
                lora_alpha=settings.lora_alpha,
            ),
            pad_id=meta["pad_id"],
            device=device,
            log=context.log.info,
        )
        test = evaluate(net, sets["test"], 128, meta["pad_id"], device)
        test_heldout = (
            evaluate(net, heldout, 128, meta["pad_id"], device) if len(heldout_rows) else {}
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
            **{f"{name}_rows": len(data.sequences) for name, data in sets.items()},
            "test_heldout_merchant_rows": len(heldout_rows),
            "steps": result.steps,
            "best_step": result.best_step,
            "best_valid_mean_macro_f1": round(result.best_score, 4),
            "stopped_early": result.stopped_early,
            "train_seconds": round(result.seconds, 2),
            "trainable_params": result.trainable_params,
            "lora_r": settings.lora_r,
            "device": str(device),
            **result.perf,
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

    output = memoized_output(
        context,
        artifact_store,
        asset="multitask_model",
        code=CODE,
        params=section,
        inputs={
            "tokenized_corpus": tokenized_corpus,
            "pruned_tokenizer": pruned_tokenizer,
            "mlm_backbone": mlm_backbone,
        },
        build=build,
    )
    yield output
    yield data_wait_result("multitask_model", output.metadata)
