"""baseline_model: a plain finetune without domain pretraining, the control set beside the candidate."""

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.job_protocol import CORPUS_INPUT, TOKENIZER_INPUT
from ml_assets.core.params import (
    BaselineModelParams,
    MlmBackboneParams,
    MultitaskModelParams,
    PipelineParams,
)
from ml_assets.training import job as training_job  # what the launcher runs: in the code version
from ml_assets.wiring.artifacts import automation_condition
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.gpu_training import GPU_POOL, TrainingConfig, training_outputs
from ml_assets.wiring.heads import heads_with_labels
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import FingerprintContext, Stage
from ml_assets.wiring.training_checks import data_wait_spec
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from resources.params import ParamsResource

# per-run overrides of the BaselineModel section (the launchpad's fields) and where to run
BaselineModelConfig = section_config(
    BaselineModelParams, "BaselineModelConfig", base=TrainingConfig
)


def fingerprint(params: PipelineParams, context: FingerprintContext) -> dict:
    """The training job's settings (``PlainFinetuneSettings``): multitask_model's finetuning
    params with the plain recipe's keys (its own section) in place of its own, and the
    backbone's architecture."""
    mlm = params.get(MlmBackboneParams)
    return {
        "finetune": {
            **params.get(MultitaskModelParams).model_dump(mode="json"),
            **params.get(BaselineModelParams).model_dump(mode="json"),
        },
        "num_layers": mlm.num_layers,  # the same architecture as the pretrained backbone
        "init_seed": mlm.seed,
    }


STAGE = Stage(
    key="baseline_model",
    module=__name__,
    libraries=("torch", "transformers", "tokenizers", "safetensors", "peft"),
    trainer="ml_assets.training.trainers:PLAIN_FINETUNE",
    section=BaselineModelParams,
    reads=(MultitaskModelParams, MlmBackboneParams),
    fingerprint=fingerprint,
    pictures=("valid_curve",),
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

    settings = params.fingerprinted(STAGE, config.overrides)
    finetune = settings["finetune"]
    heads, notes = heads_with_labels(
        context, corpus_labels(tokenized_corpus.dir), finetune["heads"]
    )
    yield from training_outputs(
        context,
        STAGE,
        params=params,
        settings=settings,
        inputs=by_asset(tokenized_corpus, pruned_tokenizer),
        job_inputs={CORPUS_INPUT: tokenized_corpus, TOKENIZER_INPUT: pruned_tokenizer},
        config=config,
        launcher=launcher,
        store=artifact_store,
        entrypoint=training_job.__name__,
        pictures={"valid_curve": (VALID_CURVE_PNG, "validation curve")},
        notes=notes,
        job_settings={**settings, "finetune": {**finetune, "heads": heads}},
    )
