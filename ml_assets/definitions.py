"""The code location: every asset, check, job, schedule and resource of the pipeline."""

from __future__ import annotations

import os

import dagster as dg

from ml_assets.baseline_model import baseline_model
from ml_assets.batch_predictions import batch_predictions
from ml_assets.export_gates import GATES
from ml_assets.frozen_encoder_reference import frozen_encoder_reference
from ml_assets.mlm_backbone import mlm_backbone
from ml_assets.model_evaluation import model_evaluation
from ml_assets.multitask_model import multitask_model
from ml_assets.onnx_model import onnx_model
from ml_assets.plan import asset_graph, partitioned
from ml_assets.pruned_tokenizer import pruned_tokenizer, pruned_tokenizer_identical_on_training_text
from ml_assets.raw_transactions import raw_transactions
from ml_assets.registered_model import registered_model
from ml_assets.tfidf_reference import tfidf_reference
from ml_assets.tokenized_corpus import tokenized_corpus
from ml_assets.training_features import training_features
from ml_assets.transaction_features import transaction_features
from resources.artifact_store import ArtifactRefIOManager, ArtifactStore
from resources.launchers import TrainingLauncher
from resources.model_registry import ModelRegistry
from resources.notifications import SlackNotifier
from resources.params import ParamsResource
from sensors.notifications import gpu_job_events_to_slack, slack_on_run_failure
from sensors.raw_exports import new_raw_exports
from sensors.schedules import (
    daily_ingest_job,
    daily_ingest_schedule,
    evaluation_job,
    models_job,
    nightly_stale_assets,
    weekly_full_evaluation,
)

ASSETS = [
    raw_transactions,
    transaction_features,
    training_features,
    pruned_tokenizer,
    tokenized_corpus,
    mlm_backbone,
    multitask_model,
    baseline_model,
    tfidf_reference,
    frozen_encoder_reference,
    onnx_model,
    model_evaluation,
    registered_model,
    batch_predictions,
]
GRAPH = asset_graph(ASSETS)  # asset -> (module, upstream), topological: plan, dvc.yaml, tests
PARTITIONED = partitioned(ASSETS)  # the daily assets
# raw_rows_accounted_for and data_wait_below_5_percent are evaluated inside their assets' steps
CHECKS = [pruned_tokenizer_identical_on_training_text, *GATES]


def slack_notifier() -> SlackNotifier:
    """The webhook is a secret: read through EnvVar at run time, never stored in definitions."""
    if os.environ.get("SLACK_WEBHOOK_URL"):
        return SlackNotifier(webhook_url=dg.EnvVar("SLACK_WEBHOOK_URL"))
    return SlackNotifier()


def build_resources(
    artifacts_root: str | None = None,
    profile: str | None = None,
    launcher: TrainingLauncher | None = None,
) -> dict:
    store = ArtifactStore(root=artifacts_root) if artifacts_root else ArtifactStore()
    params = ParamsResource(profile=profile) if profile else ParamsResource()
    return {
        "artifact_store": store,
        "io_manager": ArtifactRefIOManager(store=store),
        "params": params,
        "launcher": launcher or TrainingLauncher(),
        "model_registry": ModelRegistry(),
        "slack": slack_notifier(),
    }


defs = dg.Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[daily_ingest_job, models_job, evaluation_job],
    schedules=[daily_ingest_schedule, nightly_stale_assets, weekly_full_evaluation],
    sensors=[gpu_job_events_to_slack, slack_on_run_failure, new_raw_exports],
    resources=build_resources(),
    # The graph is a chain whose heavy steps use every core themselves; one process per run
    # avoids re-importing torch for each step (~7 s each) and keeps a memoized run cheap.
    executor=dg.in_process_executor,
)
