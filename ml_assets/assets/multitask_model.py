"""multitask_model: the MLM backbone finetuned with one classification head per label."""

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.job_protocol import BACKBONE_INPUT, CORPUS_INPUT, TOKENIZER_INPUT
from ml_assets.core.params import MultitaskModelParams
from ml_assets.training import job as training_job  # what the launcher runs: in the code version
from ml_assets.wiring.artifacts import automation_condition
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.gpu_training import GPU_POOL, TrainingConfig, training_outputs
from ml_assets.wiring.heads import heads_with_labels
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import Stage
from ml_assets.wiring.training_checks import data_wait_spec
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
    section=MultitaskModelParams,
    libraries=("torch", "transformers", "tokenizers", "safetensors", "peft"),
    trainer="ml_assets.training.trainers:FINETUNE",
    pictures=("valid_curve",),
)


@single_run_asset(
    group_name="finetuning",
    kinds={"pytorch", "safetensors"},
    automation_condition=automation_condition(),
    check_specs=[data_wait_spec(STAGE.key)],
    pool=GPU_POOL,
    description=(
        "The candidate: the backbone from mlm_backbone plus one linear head per label (category, "
        "transaction_type) on its tokens pooled as the backbone was trained (all-MiniLM-L6-v2: "
        "mean), trained on the labeled training rows of the tokenized corpus, validated every N "
        "steps and stopped early on the score `early_stopping_rows` names (default: the mean of "
        "accuracy on seen and on held-out merchants); optionally LoRA adapters. Beside it an "
        "n-gram bag (TF-IDF + naive-Bayes-weighted logistic regression over the token ids and "
        "the characters of their words, in the same model) mixed in per row by how much of the row training has seen "
        "(`ngram_bag`), and what each amount's bucket says of the labels where the valid split "
        "shows it pays (`amount_prior`). Runs as a Pipes "
        "job through the launcher (local or GCP Batch GPUs). Reports test accuracy and macro-F1 "
        "per head, overall and on held-out merchants, and with the encoder alone."
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
    from ml_assets.core.training_data.corpus import corpus_labels
    from ml_assets.training.stages import VALID_CURVE_PNG

    settings = params.fingerprinted(STAGE, config.overrides)
    heads, notes = heads_with_labels(
        context, corpus_labels(tokenized_corpus.dir), settings["heads"]
    )
    yield from training_outputs(
        context,
        STAGE,
        params=params,
        settings=settings,
        inputs=by_asset(tokenized_corpus, pruned_tokenizer, mlm_backbone),
        job_inputs={
            CORPUS_INPUT: tokenized_corpus,
            TOKENIZER_INPUT: pruned_tokenizer,
            BACKBONE_INPUT: mlm_backbone,
        },
        config=config,
        launcher=launcher,
        store=artifact_store,
        entrypoint=training_job.__name__,
        pictures={"valid_curve": (VALID_CURVE_PNG, "validation curve")},
        notes=notes,
        job_settings={**settings, "heads": heads},
    )
