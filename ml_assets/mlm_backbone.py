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
from ml_assets.core.layouts import entry_params, new_to_old_ids
from ml_assets.core.params import MlmBackboneParams
from ml_assets.training_checks import data_wait_result, data_wait_spec
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(
    __name__, "mlm_backbone", ("torch", "transformers", "tokenizers", "safetensors")
)


def accumulation_for(tokens_per_step: int | None, batch_size: int, mean_tokens: float) -> int:
    """Micro-batches per optimizer step so one step sees about ``tokens_per_step`` real tokens."""
    if not tokens_per_step:
        return 1
    return max(1, round(tokens_per_step / (batch_size * mean_tokens)))


@dg.asset(
    group_name="pretraining",
    kinds={"pytorch", "safetensors"},
    code_version=CODE.version,
    automation_condition=automation_condition(),
    check_specs=[data_wait_spec("mlm_backbone")],
    description=(
        "The backbone (default all-MiniLM-L6-v2) with word embeddings and the tied MLM decoder sliced "
        "to the pruned vocabulary, then masked-LM pretrained on the training split of the tokenized "
        "corpus (labeled and unlabeled). Checkpoints every N steps under the fingerprint; a rerun "
        "resumes. Reports tokens/s, data-wait and padding shares, peak memory and (GPU) MFU."
    ),
)
def mlm_backbone(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    tokenized_corpus: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
):
    section = params.section("mlm_backbone", config.overrides)
    settings = MlmBackboneParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        # torch/transformers load here, not when the definitions load (UI, CLI, plan stay fast)
        from ml_assets.core.corpus import TokenizedSplit
        from ml_assets.core.plots import line_chart_png, markdown_image
        from ml_assets.training.mlm import MlmConfig, pretrain_mlm, probe_batch_size
        from ml_assets.training.model import count_parameters, load_pruned_mlm, pick_device
        from ml_assets.training.perf import peak_flops_for

        device = pick_device()
        train = TokenizedSplit(tokenized_corpus.dir, "train", settings.max_length)
        meta = train.meta
        net, params_before = load_pruned_mlm(
            resolve_backbone(entry_params(pruned_tokenizer)["backbone"]),
            new_to_old_ids(pruned_tokenizer),
            settings.num_layers,
            settings.seed,
        )
        batch_size = settings.batch_size
        if settings.auto_batch_size:
            batch_size = probe_batch_size(net, settings.max_length, batch_size, 16384, device)
            context.log.info(
                f"batch size {batch_size} ({'probed' if device.type == 'cuda' else 'CPU: as configured'})"
            )
        accumulation = accumulation_for(
            settings.tokens_per_step, batch_size, float(train.lengths.mean())
        )
        result = pretrain_mlm(
            net,
            train,
            MlmConfig(
                batch_size=batch_size,
                steps=settings.steps,
                learning_rate=settings.learning_rate,
                weight_decay=settings.weight_decay,
                warmup_steps=settings.warmup_steps,
                mask_prob=settings.mask_prob,
                checkpoint_every=settings.checkpoint_every,
                seed=settings.seed,
                accumulation=accumulation,
                precision=settings.precision,
                compile=settings.compile,
                profile_dir=folder / "profile" if settings.profile else None,
                peak_flops=peak_flops_for(device, settings.peak_tflops),
            ),
            special_ids=meta["special_ids"],
            mask_id=meta["mask_id"],
            pad_id=meta["pad_id"],
            checkpoint_root=artifact_store.checkpoint_root("mlm_backbone", fingerprint),
            device=device,
            log=context.log.info,
        )
        curve_png = line_chart_png(
            {"MLM loss": result.loss_curve}, "MLM pretraining loss", "step", "loss"
        )
        net.cpu().save_pretrained(folder, safe_serialization=True)
        atomic_write_json(folder / "loss_curve.json", result.loss_curve)
        (folder / "loss_curve.png").write_bytes(curve_png)
        metadata = {
            "params_before_pruning": params_before,
            "params_after_pruning": count_parameters(net),
            "vocab_size": net.config.vocab_size,
            "layers": net.config.num_hidden_layers,
            "steps": result.steps,
            "resumed_from_step": result.resumed_from_step,
            "batch_size": batch_size,
            "accumulation": accumulation,
            "training_rows": len(train),
            "train_seconds": round(result.seconds, 2),
            "final_mlm_loss": round(result.final_loss, 4),
            "first_mlm_loss": round(result.loss_curve[0][1], 4) if result.loss_curve else None,
            "device": result.device,
            "precision": result.precision,
            **(result.perf if result.perf.get("timed_steps") else {}),
            "loss_curve": dg.MetadataValue.md(markdown_image(curve_png, "MLM loss curve")),
        }
        if settings.profile:
            trace = (
                artifact_store.entry_path("mlm_backbone", fingerprint) / "profile"
            )  # after commit
            metadata["profiler_trace"] = dg.MetadataValue.path(str(trace))
        return metadata

    output = memoized_output(
        context,
        artifact_store,
        asset="mlm_backbone",
        code=CODE,
        params=section,
        inputs={"tokenized_corpus": tokenized_corpus, "pruned_tokenizer": pruned_tokenizer},
        build=build,
    )
    yield output
    yield data_wait_result("mlm_backbone", output.metadata)
