"""mlm_backbone: the pretrained BERT sliced to the pruned vocabulary, MLM-adapted to transactions."""

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.job_protocol import CORPUS_INPUT, TOKENIZER_INPUT
from ml_assets.core.params import MlmBackboneParams
from ml_assets.training import job as training_job  # what the launcher runs: in the code version
from ml_assets.wiring.artifacts import automation_condition
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.gpu_training import GPU_POOL, TrainingConfig, training_outputs
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import Stage
from ml_assets.wiring.training_checks import data_wait_spec
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from resources.params import ParamsResource

# per-run overrides of the MlmBackbone section (the launchpad's fields) and where to run
MlmBackboneConfig = section_config(MlmBackboneParams, "MlmBackboneConfig", base=TrainingConfig)


STAGE = Stage(
    key="mlm_backbone",
    module=__name__,
    section=MlmBackboneParams,
    libraries=("torch", "transformers", "tokenizers", "safetensors"),
    trainer="ml_assets.training.trainers:MLM",
    pictures=("loss_curve",),
)


@single_run_asset(
    group_name="pretraining",
    kinds={"pytorch", "safetensors"},
    automation_condition=automation_condition(),
    check_specs=[data_wait_spec(STAGE.key)],
    pool=GPU_POOL,
    description=(
        "The backbone (default all-MiniLM-L6-v2) with word embeddings and the tied MLM decoder sliced "
        "to the pruned vocabulary, then masked-LM pretrained on the training split of the tokenized "
        "corpus (labeled and unlabeled). Runs as a Pipes job through the launcher (local or GCP "
        "Batch Spot GPUs); checkpoints every N steps under the fingerprint and on SIGTERM, so a "
        "preempted or rerun job resumes exactly. Reports cost, attempts, preemptions, tokens/s, data-wait and padding shares, peak memory and (GPU) MFU."
    ),
)
def mlm_backbone(
    context: dg.AssetExecutionContext,
    config: MlmBackboneConfig,
    tokenized_corpus: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
    launcher: TrainingLauncher,
):
    from ml_assets.training.stages import MLM_CURVE_PNG

    def profiler_trace(metadata: dict, folder, fingerprint: str) -> dict:
        if (folder / "profile").is_dir():
            trace = artifact_store.entry_path(STAGE.key, fingerprint) / "profile"
            metadata["profiler_trace"] = dg.MetadataValue.path(str(trace))  # valid after commit
        return metadata

    yield from training_outputs(
        context,
        STAGE,
        params=params,
        settings=params.fingerprinted(STAGE, config.overrides),
        inputs=by_asset(tokenized_corpus, pruned_tokenizer),
        job_inputs={CORPUS_INPUT: tokenized_corpus, TOKENIZER_INPUT: pruned_tokenizer},
        config=config,
        launcher=launcher,
        store=artifact_store,
        entrypoint=training_job.__name__,
        pictures={"loss_curve": (MLM_CURVE_PNG, "MLM loss curve")},
        finish=profiler_trace,
    )
