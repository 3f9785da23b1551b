"""Glue shared by the GPU assets (mlm_backbone, multitask_model, baseline_model): per-run launch
config, the Dagster concurrency pool, and one training materialization (memoized; on a miss
the job runs through the launcher resource), followed by its data-wait check."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field

from ml_assets.core.infra.io import ArtifactRef, read_json
from ml_assets.core.infra.job_protocol import TOKENIZER_INPUT
from ml_assets.core.infra.layouts import PARAMS_FILE, TOKENIZER_ID_MAP
from ml_assets.core.params import GpuParams
from ml_assets.wiring.run_config import SectionConfig
from ml_assets.wiring.stage import Stage
from ml_assets.wiring.training_checks import data_wait_result
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from resources.params import ParamsResource

# code versions leave this module out: where a training job runs, not what it computes
AFFECTS_OUTPUTS = False

GPU_POOL = "gpu"  # `dagster instance concurrency set gpu N` caps concurrent GPU jobs across runs


class TrainingConfig(SectionConfig):
    """Where to run (not part of the fingerprint); each training asset adds its section's
    keys (``section_config(..., base=TrainingConfig)``), which are."""

    tier: str | None = Field(
        default=None, description="auto | debug | standard | large (default: params gpu.tier)"
    )
    spot: bool | None = Field(default=None, description="Spot VMs (default: params gpu.spot)")


def estimate_model_params(tokenizer: ArtifactRef) -> int:
    """Size of the pruned backbone, from its config (no weights loaded): picks the `auto` tier."""
    from ml_assets.core.infra.gpu_cost import estimate_encoder_parameters
    from ml_assets.core.text.backbones import backbone_file, resolve_backbone

    source = resolve_backbone(read_json(tokenizer.dir / PARAMS_FILE)["backbone"])
    found = backbone_file(source, "config.json")  # a folder's, or a hub id's from the HF cache
    if found is None:
        return 0  # `auto` falls back to one GPU
    config = read_json(found)
    config["vocab_size"] = len(read_json(tokenizer.dir / TOKENIZER_ID_MAP)["new_to_old"])
    return estimate_encoder_parameters(config)


def run_training(
    context: dg.AssetExecutionContext,
    *,
    launcher: TrainingLauncher,
    store: ArtifactStore,
    gpu: GpuParams,
    config: TrainingConfig,
    stage: str,
    trainer: str,
    entrypoint: str,
    settings: dict[str, Any],
    inputs: dict[str, ArtifactRef],  # by role: the trainer's inputs
    folder: Path,
    fingerprint: str,
    pictures: dict[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """Train ``stage`` into ``folder`` via the launcher; metadata with ``pictures`` (metadata key
    -> (PNG file in the artifact, alt text)) shown as images in the UI."""
    gpu_params = gpu
    if config.tier not in (None, "auto", *gpu_params.tiers):
        raise dg.Failure(
            f"{stage}: unknown tier {config.tier!r}; use auto or one of {sorted(gpu_params.tiers)}"
        )
    metadata = launcher.train(
        context,
        stage=stage,
        trainer=trainer,
        entrypoint=entrypoint,
        settings=settings,
        inputs=inputs,
        output=folder,
        checkpoints=store.checkpoint_root(stage, fingerprint),
        fingerprint=fingerprint,
        gpu=gpu_params,
        tier=config.tier,
        spot=config.spot,
        model_params=estimate_model_params(inputs[TOKENIZER_INPUT]),
    )
    from ml_assets.core.quality.plots import markdown_image
    from ml_assets.core.quality.sketches import FULL_SIZE_PICTURES
    from ml_assets.training.stages import SKETCH_SUFFIX

    # the sketches the UI draws in place, first, and the full PNGs behind one button
    sketches, full = {}, []
    for key, (name, alt) in (pictures or {}).items():
        sketches[key] = dg.MetadataValue.md((folder / name).with_suffix(SKETCH_SUFFIX).read_text())
        full.append(markdown_image((folder / name).read_bytes(), alt))
    metadata = {**sketches, **metadata}
    if full:
        metadata[FULL_SIZE_PICTURES] = dg.MetadataValue.md("\n\n".join(full))
    context.log.info(
        f"{stage}: {metadata['attempts']} attempt(s), {metadata['preemptions']} preemption(s), "
        f"{metadata['gpu_hours']:.4f} GPU-h, est. ${metadata['estimated_cost_usd']:.4f}"
    )
    return metadata


def training_outputs(
    context: dg.AssetExecutionContext,
    stage: Stage,
    *,
    params: ParamsResource,
    settings: dict[str, Any],
    inputs: dict[str, ArtifactRef],
    job_inputs: dict[str, ArtifactRef],
    config: TrainingConfig,
    launcher: TrainingLauncher,
    store: ArtifactStore,
    entrypoint: str,
    pictures: dict[str, tuple[str, str]] | None = None,
    finish: Callable[[dict[str, Any], Path, str], dict[str, Any]] | None = None,
    notes: dict[str, Any] | None = None,
    job_settings: dict[str, Any] | None = None,
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    """A training asset's materialization: its entry for (code, ``settings``, ``inputs``) if
    the store has one, else the job trained through the launcher (``job_inputs``: the same
    artifacts under the job's roles); then its data-wait check. ``finish(metadata, folder,
    fingerprint)`` adds to a computed entry's metadata; ``notes`` go into the output's
    metadata, hit or miss. ``job_settings``: what the job receives when not ``settings``
    itself (settings the data decided, such as the heads: the fingerprint keeps the
    configured ones, so ``plan`` computes the same fingerprint without reading the data)."""
    from ml_assets.wiring.artifacts import memoized_output

    if stage.trainer is None:
        raise TypeError(f"{stage.key}: its STAGE names no trainer (ml_assets/training/trainers.py)")

    def build(folder: Path, fingerprint: str) -> dict[str, Any]:
        metadata = run_training(
            context,
            launcher=launcher,
            store=store,
            gpu=params.get(GpuParams),
            config=config,
            stage=stage.key,
            trainer=stage.trainer,
            entrypoint=entrypoint,
            settings=settings if job_settings is None else job_settings,
            inputs=job_inputs,
            folder=folder,
            fingerprint=fingerprint,
            pictures=pictures,
        )
        return finish(metadata, folder, fingerprint) if finish else metadata

    output = memoized_output(
        context,
        store,
        asset=stage.key,
        code=stage.code(params.path, params.profile),
        params=settings,
        inputs=inputs,
        build=build,
    )
    if notes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dg.BetaWarning)  # user data versions are "beta"
            output = dg.Output(
                output.value,
                metadata={**output.metadata, **notes},
                data_version=output.data_version,
            )
    yield output
    yield data_wait_result(stage.key, output.metadata)
