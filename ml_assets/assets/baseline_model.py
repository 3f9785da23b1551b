"""baseline_model: a plain finetune without domain pretraining, the control the candidate must beat."""

import dagster as dg

from ml_assets.artifacts import automation_condition
from ml_assets.core.infra.io import ArtifactRef
from ml_assets.core.infra.job_protocol import CORPUS_INPUT, TOKENIZER_INPUT
from ml_assets.core.params import BaselineModelParams
from ml_assets.daily import single_run_asset
from ml_assets.gpu_training import GPU_POOL, TrainingConfig, training_outputs
from ml_assets.heads import heads_with_labels
from ml_assets.run_config import section_config
from ml_assets.stage import Stage
from ml_assets.training import job as training_job  # what the launcher runs: in the code version
from ml_assets.training_checks import data_wait_spec
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from resources.params import ParamsResource

# per-run overrides of the BaselineModel section (the launchpad's fields) and where to run
BaselineModelConfig = section_config(
    BaselineModelParams, "BaselineModelConfig", base=TrainingConfig
)


def fingerprint_section(params, store=None, overrides: dict | None = None) -> dict:
    """multitask_model's finetuning params with the plain recipe's keys (baseline_model section)
    in place of its own, and the backbone's architecture."""
    mlm = params.section("mlm_backbone")
    plain = params.section(STAGE.key, overrides) if overrides else params.section(STAGE.key)
    return {
        "multitask_model": {**params.section("multitask_model"), **plain},
        "num_layers": mlm["num_layers"],  # the same architecture as the pretrained backbone
        "init_seed": mlm["seed"],
    }


STAGE = Stage(
    key="baseline_model",
    module=__name__,
    libraries=("torch", "transformers", "tokenizers", "safetensors", "peft"),
    sections=("multitask_model", "baseline_model", "mlm_backbone"),
    fingerprint_section=fingerprint_section,
)


@single_run_asset(
    group_name="finetuning",
    kinds={"pytorch", "safetensors"},
    automation_condition=automation_condition(),
    check_specs=[data_wait_spec(STAGE.key)],
    pool=GPU_POOL,
    description=(
        "The control: a plain finetune as a notebook would write it (baseline_model section: "
        "one learning rate, no frozen embeddings, early stopping on all valid rows) of the same "
        "multitask model, data and depth, from the un-adapted backbone (no MLM pretraining). "
        "model_evaluation sets it beside the candidate."
    ),
)
def baseline_model(
    context: dg.AssetExecutionContext,
    config: BaselineModelConfig,
    tokenized_corpus: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
    launcher: TrainingLauncher,
):
    from ml_assets.core.training_data.corpus import corpus_labels
    from ml_assets.training.stages import VALID_CURVE_PNG

    settings = fingerprint_section(params, overrides=config.overrides)
    finetune = settings["multitask_model"]
    heads, notes = heads_with_labels(
        context, corpus_labels(tokenized_corpus.dir), finetune["heads"]
    )
    yield from training_outputs(
        context,
        STAGE,
        params=params,
        settings=settings,
        inputs={"tokenized_corpus": tokenized_corpus, "pruned_tokenizer": pruned_tokenizer},
        job_inputs={CORPUS_INPUT: tokenized_corpus, TOKENIZER_INPUT: pruned_tokenizer},
        config=config,
        launcher=launcher,
        store=artifact_store,
        entrypoint=training_job.__name__,
        pictures={"valid_curve": (VALID_CURVE_PNG, "validation curve")},
        notes=notes,
        job_settings={**settings, "multitask_model": {**finetune, "heads": heads}},
    )
