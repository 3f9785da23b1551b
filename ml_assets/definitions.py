"""The code location: every asset, check, job, schedule and resource of the pipeline.

Importing this module reads no file and hashes nothing: ``defs`` is a factory
(``@dg.definitions``) that Dagster calls when it loads the code location; it attaches each
asset's code version (its Stage's source closure, resolved params and libraries) and the
configured daily partitions. ``build_definitions`` is the same with a chosen store and profile.
"""

from __future__ import annotations

import functools
import os

import dagster as dg

from ml_assets.assets.baseline_model import baseline_model
from ml_assets.assets.batch_predictions import batch_predictions
from ml_assets.assets.export_gates import GATES
from ml_assets.assets.frozen_encoder_reference import frozen_encoder_reference
from ml_assets.assets.label_check import heads_have_labels
from ml_assets.assets.mlm_backbone import mlm_backbone
from ml_assets.assets.model_evaluation import model_evaluation
from ml_assets.assets.multitask_model import multitask_model
from ml_assets.assets.onnx_model import onnx_model
from ml_assets.assets.pruned_tokenizer import (
    pruned_tokenizer,
    pruned_tokenizer_identical_on_training_text,
)
from ml_assets.assets.raw_transactions import raw_transactions
from ml_assets.assets.registered_model import registered_model
from ml_assets.assets.tfidf_reference import tfidf_reference
from ml_assets.assets.tokenized_corpus import tokenized_corpus
from ml_assets.assets.training_features import training_features
from ml_assets.assets.transaction_features import transaction_features
from ml_assets.core.intake.raw_days import source_end
from ml_assets.core.params import PARAMS_ENV, PROFILE_ENV, load_params, resolve_params_path
from ml_assets.core.quality.sketches import FULL_SIZE_PICTURES
from ml_assets.wiring.daily import daily_partitions
from ml_assets.wiring.plan import asset_graph, partitioned
from ml_assets.wiring.stage import stage_of
from resources.artifact_store import ArtifactRefIOManager, ArtifactStore
from resources.dead_runs import sweeping
from resources.launchers import TrainingLauncher
from resources.model_registry import ModelRegistry
from resources.notifications import SlackNotifier
from resources.params import ParamsResource
from sensors.automation import automation_condition_sensor
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

# code versions leave this module out: wires the code location
AFFECTS_OUTPUTS = False

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
GRAPH = asset_graph(ASSETS)  # asset -> (Stage, upstream), topological: plan, dvc.yaml, tests
PARTITIONED = partitioned(ASSETS)  # the daily assets
# raw_rows_accounted_for and data_wait_below_5_percent are evaluated inside their assets' steps
CHECKS = [heads_have_labels, pruned_tokenizer_identical_on_training_text, *GATES]


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


def versioned_assets(
    assets: list[dg.AssetsDefinition] = ASSETS, profile: str | None = None
) -> list[dg.AssetsDefinition]:
    """The assets as the code location serves them: each with its code version (what the UI
    compares to say an asset is stale, and automation's ``code_version_changed``), the daily
    ones with params.yaml's first day."""
    profile = profile or os.environ.get(PROFILE_ENV) or None
    text = resolve_params_path().read_text()  # part of the key: an edited file is reread
    return list(_served(tuple(assets), profile, os.environ.get(PARAMS_ENV), text))


@functools.lru_cache(maxsize=8)
def _served(
    assets: tuple[dg.AssetsDefinition, ...], profile: str | None, params_path: str | None, text: str
) -> tuple[dg.AssetsDefinition, ...]:
    """Cached: Dagster calls the definitions factory several times while loading a location."""
    params = load_params(params_path, profile=profile)
    days = daily_partitions(params.partitions.start_date, source_end(params.raw_transactions))

    def serve(assets_def: dg.AssetsDefinition) -> dg.AssetsDefinition:
        stage = stage_of(assets_def)
        version = stage.code(params_path, profile).version
        daily = assets_def.partitions_def is not None
        return assets_def.map_asset_specs(
            lambda spec: spec.replace_attributes(
                code_version=version,
                description=described(spec, stage.pictures),
                **({"partitions_def": days} if daily else {}),
            )
        )

    return tuple(serve(a) for a in assets)


def described(spec: dg.AssetSpec, pictures: tuple[str, ...]) -> str:
    """The asset's description, then what it reads and where its pictures are: the asset page
    shows the description first, so a reader learns there where to look."""
    text = spec.description or ""
    reads = sorted(dep.asset_key.to_user_string() for dep in spec.deps)
    if reads:
        text += "\n\n**Reads** " + ", ".join(f"`{name}`" for name in reads) + "."
    if pictures:
        names = ", ".join(f"`{name}`" for name in pictures)
        text += (
            f"\n\n**Pictures** drawn in place under Metadata: {names}; full size behind "
            f"`{FULL_SIZE_PICTURES}`."
        )
    return text


def build_definitions(
    artifacts_root: str | None = None,
    profile: str | None = None,
    launcher: TrainingLauncher | None = None,
) -> dg.Definitions:
    return dg.Definitions(
        assets=versioned_assets(ASSETS, profile),
        asset_checks=CHECKS,
        jobs=[daily_ingest_job, models_job, evaluation_job],
        schedules=[daily_ingest_schedule, nightly_stale_assets, weekly_full_evaluation],
        sensors=[
            gpu_job_events_to_slack,
            slack_on_run_failure,
            new_raw_exports,
            automation_condition_sensor,
        ],
        resources=build_resources(artifacts_root, profile, launcher),
        # The graph is a chain whose heavy steps use every core themselves; one process per run
        # avoids re-importing torch for each step (~7 s each) and keeps a memoized run cheap.
        # Each run first frees the pool slots of runs killed on this host (resources/dead_runs.py).
        executor=sweeping(dg.in_process_executor),
    )


@dg.definitions
def defs() -> dg.Definitions:
    """What ``dg`` / ``dagster`` load: the pipeline with the environment's store and params."""
    return build_definitions()
