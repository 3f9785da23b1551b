"""multitask_model: the MLM backbone finetuned with one classification head per label."""

import dagster as dg

from ml_assets.artifacts import automation_condition, memoized_output
from ml_assets.core.io import ArtifactRef
from ml_assets.core.job_protocol import BACKBONE_INPUT, CORPUS_INPUT, TOKENIZER_INPUT
from ml_assets.core.params import MultitaskModelParams
from ml_assets.daily import single_run_asset
from ml_assets.gpu_training import GPU_POOL, TrainingConfig, run_training
from ml_assets.run_config import section_config
from ml_assets.stage import Stage
from ml_assets.training import job as training_job  # what the launcher runs: in the code version
from ml_assets.training_checks import data_wait_result, data_wait_spec
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from resources.params import ParamsResource

# per-run overrides of the MultitaskModel section (the launchpad's fields) and where to run
MultitaskModelConfig = section_config(
    MultitaskModelParams, "MultitaskModelConfig", base=TrainingConfig
)


STAGE = Stage(
    key="multitask_model",
    module=__name__,
    libraries=("torch", "transformers", "tokenizers", "safetensors", "peft"),
)


@single_run_asset(
    group_name="finetuning",
    kinds={"pytorch", "safetensors"},
    automation_condition=automation_condition(),
    check_specs=[data_wait_spec(STAGE.key)],
    pool=GPU_POOL,
    description=(
        "Shared MLM-pretrained backbone plus one linear head per label (category, transaction_type) on "
        "[CLS], trained on labeled training rows of the tokenized corpus with validation every N steps "
        "and early stopping on mean macro-F1 (optionally LoRA adapters). Runs as a Pipes job through "
        "the launcher (local or GCP Batch GPUs). Reports test accuracy and "
        "macro-F1 per head, overall and on held-out merchants."
    ),
)
def multitask_model(
    context: dg.AssetExecutionContext,
    config: MultitaskModelConfig,
    tokenized_corpus: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    mlm_backbone: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
    launcher: TrainingLauncher,
):
    section = params.section(STAGE.key, config.overrides)

    def build(folder, fingerprint: str) -> dict:
        from ml_assets.training.stages import VALID_CURVE_PNG

        return run_training(
            context,
            launcher=launcher,
            store=artifact_store,
            gpu=params.section("gpu"),
            config=config,
            stage=STAGE.key,
            entrypoint=training_job.__name__,
            settings=section,
            inputs={
                CORPUS_INPUT: tokenized_corpus,
                TOKENIZER_INPUT: pruned_tokenizer,
                BACKBONE_INPUT: mlm_backbone,
            },
            folder=folder,
            fingerprint=fingerprint,
            pictures={"valid_curve": (VALID_CURVE_PNG, "validation curve")},
        )

    output = memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=section,
        inputs={
            "tokenized_corpus": tokenized_corpus,
            "pruned_tokenizer": pruned_tokenizer,
            "mlm_backbone": mlm_backbone,
        },
        build=build,
    )
    yield output
    yield data_wait_result(STAGE.key, output.metadata)
