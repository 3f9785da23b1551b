"""mlm_backbone: the pretrained BERT sliced to the pruned vocabulary, MLM-adapted to transactions."""

from pathlib import Path

import dagster as dg

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
)
from ml_assets.core.backbones import resolve_backbone
from ml_assets.core.io import ArtifactRef, atomic_write_json
from ml_assets.core.layouts import entry_params, new_to_old_ids, read_features, training_texts
from ml_assets.core.params import MlmBackboneParams
from ml_assets.core.plots import line_chart_png, markdown_image
from ml_assets.core.vocab import load_tokenizer
from ml_assets.training.data import encode_texts
from ml_assets.training.mlm import MlmConfig, pretrain_mlm
from ml_assets.training.model import (
    count_parameters,
    load_pruned_mlm,
    pick_device,
)
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(
    __name__, "mlm_backbone", ("torch", "transformers", "tokenizers", "safetensors")
)


@dg.asset(
    group_name="pretraining",
    kinds={"pytorch", "safetensors"},
    code_version=CODE.version,
    automation_condition=automation_condition(),
    description=(
        "The backbone (default all-MiniLM-L6-v2) with word embeddings and the tied MLM decoder sliced "
        "to the pruned vocabulary, then masked-LM pretrained on training-split description text "
        "(labeled and unlabeled). Checkpoints every N steps under the fingerprint; a rerun resumes."
    ),
)
def mlm_backbone(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    transaction_features: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.section("mlm_backbone", config.overrides)
    settings = MlmBackboneParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        tokenizer = load_tokenizer(pruned_tokenizer.dir)
        texts = training_texts(read_features(transaction_features))
        sequences = encode_texts(
            tokenizer, texts, settings.max_length
        )  # tokenized once, not per step
        net, params_before = load_pruned_mlm(
            resolve_backbone(entry_params(pruned_tokenizer)["backbone"]),
            new_to_old_ids(pruned_tokenizer),
            settings.num_layers,
            settings.seed,
        )
        result = pretrain_mlm(
            net,
            sequences,
            MlmConfig(
                batch_size=settings.batch_size,
                steps=settings.steps,
                learning_rate=settings.learning_rate,
                weight_decay=settings.weight_decay,
                warmup_steps=settings.warmup_steps,
                mask_prob=settings.mask_prob,
                checkpoint_every=settings.checkpoint_every,
                seed=settings.seed,
            ),
            special_ids=tokenizer.all_special_ids,
            mask_id=tokenizer.mask_token_id,
            pad_id=tokenizer.pad_token_id,
            checkpoint_root=artifact_store.checkpoint_root("mlm_backbone", fingerprint),
            device=pick_device(),
            log=context.log.info,
        )
        curve_png = line_chart_png(
            {"MLM loss": result.loss_curve}, "MLM pretraining loss", "step", "loss"
        )
        net.cpu().save_pretrained(folder, safe_serialization=True)
        atomic_write_json(folder / "loss_curve.json", result.loss_curve)
        (folder / "loss_curve.png").write_bytes(curve_png)
        return {
            "params_before_pruning": params_before,
            "params_after_pruning": count_parameters(net),
            "vocab_size": net.config.vocab_size,
            "layers": net.config.num_hidden_layers,
            "steps": result.steps,
            "resumed_from_step": result.resumed_from_step,
            "training_texts": len(texts),
            "tokens_per_second": round(result.tokens_per_second, 1),
            "train_seconds": round(result.seconds, 2),
            "final_mlm_loss": round(result.final_loss, 4),
            "first_mlm_loss": round(result.loss_curve[0][1], 4) if result.loss_curve else None,
            "device": result.device,
            "loss_curve": dg.MetadataValue.md(markdown_image(curve_png, "MLM loss curve")),
        }

    return memoized_output(
        context,
        artifact_store,
        asset="mlm_backbone",
        code=CODE,
        params=section,
        inputs={"transaction_features": transaction_features, "pruned_tokenizer": pruned_tokenizer},
        build=build,
    )
