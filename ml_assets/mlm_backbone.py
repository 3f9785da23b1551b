"""mlm_backbone: the pretrained BERT sliced to the pruned vocabulary, MLM-adapted to transactions."""

import dagster as dg

from ml_assets.artifacts import artifact_output, code_digest, entry_key, save_params
from ml_assets.core.io import ArtifactRef, atomic_write_json, sha256_json
from ml_assets.core.layouts import entry_params, new_to_old_ids, read_features, training_texts
from ml_assets.core.plots import line_chart_png, markdown_image
from ml_assets.core.vocab import load_tokenizer
from ml_assets.training import checkpoint, data, mlm, model, optim
from ml_assets.training.data import encode_texts
from ml_assets.training.mlm import MlmConfig, pretrain_mlm
from ml_assets.training.model import (
    count_parameters,
    load_pruned_mlm,
    pick_device,
    resolve_backbone,
)
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource


@dg.asset(
    group_name="pretraining",
    kinds={"pytorch", "safetensors"},
    description=(
        "The backbone (default all-MiniLM-L6-v2) with word embeddings and the tied MLM decoder sliced "
        "to the pruned vocabulary, then masked-LM pretrained on training-split description text "
        "(labeled and unlabeled). Checkpoints every N steps; a rerun with the same inputs resumes."
    ),
)
def mlm_backbone(
    context: dg.AssetExecutionContext,
    transaction_features: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    config = params.load().mlm_backbone
    tokenizer = load_tokenizer(pruned_tokenizer.dir)
    texts = training_texts(read_features(transaction_features))
    sequences = encode_texts(tokenizer, texts, config.max_length)  # tokenized once, not per step
    net, params_before = load_pruned_mlm(
        resolve_backbone(entry_params(pruned_tokenizer)["backbone"]),
        new_to_old_ids(pruned_tokenizer),
        config.num_layers,
        config.seed,
    )
    run_key = sha256_json(
        {
            "params": config.model_dump(mode="json"),
            "inputs": [transaction_features.digest, pruned_tokenizer.digest],
            "code": code_digest(checkpoint, data, mlm, model, optim),
        }
    )[:16]
    result = pretrain_mlm(
        net,
        sequences,
        MlmConfig(
            batch_size=config.batch_size,
            steps=config.steps,
            learning_rate=config.learning_rate,
            weight_decay=config.weight_decay,
            warmup_steps=config.warmup_steps,
            mask_prob=config.mask_prob,
            checkpoint_every=config.checkpoint_every,
            seed=config.seed,
        ),
        special_ids=tokenizer.all_special_ids,
        mask_id=tokenizer.mask_token_id,
        pad_id=tokenizer.pad_token_id,
        checkpoint_root=artifact_store.checkpoint_root("mlm_backbone", run_key),
        device=pick_device(),
        log=context.log.info,
    )
    curve_png = line_chart_png(
        {"MLM loss": result.loss_curve}, "MLM pretraining loss", "step", "loss"
    )
    with artifact_store.write("mlm_backbone", entry_key(context)) as tmp:
        net.cpu().save_pretrained(tmp, safe_serialization=True)
        atomic_write_json(tmp / "loss_curve.json", result.loss_curve)
        (tmp / "loss_curve.png").write_bytes(curve_png)
        save_params(tmp, config.model_dump(mode="json"))
    ref = artifact_store.ref("mlm_backbone", entry_key(context))
    return artifact_output(
        ref,
        {
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
            "checkpoint_key": run_key,
            "loss_curve": dg.MetadataValue.md(markdown_image(curve_png, "MLM loss curve")),
        },
    )
