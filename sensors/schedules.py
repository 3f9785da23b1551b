"""Jobs and schedules (stopped by default; switch them on in the UI under Automation).

- ``daily_ingest_schedule``: every night, yesterday's partition of raw_transactions and
  transaction_features (a new day processes only that day).
- ``nightly_stale_assets``: then the model half of the graph, only the assets whose
  fingerprint (code, params, input data) changed, as ``python -m ml_assets plan`` reports.
- ``weekly_full_evaluation``: the full evaluation of the shipped model once a week.
"""

import dagster as dg

from ml_assets.assets import (
    model_evaluation,
    onnx_model,
    raw_transactions,
    training_features,
    transaction_features,
)
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

INGEST_ASSETS = (raw_transactions.STAGE.key, transaction_features.STAGE.key)

daily_ingest_job = dg.define_asset_job(
    "daily_ingest",
    selection=list(INGEST_ASSETS),  # partitioned by day, like the assets
    description="One day (or a range of days) of raw transactions and their features.",
)

models_job = dg.define_asset_job(
    "models",
    selection=dg.AssetSelection.assets(training_features.STAGE.key).downstream(),
    description=(
        "From the training window to the int8 ONNX model. Assets whose fingerprint is unchanged "
        "reuse their stored artifact, so this costs only what changed."
    ),
)

evaluation_job = dg.define_asset_job(
    "full_evaluation",
    selection=dg.AssetSelection.assets(onnx_model.STAGE.key, model_evaluation.STAGE.key),
    description=(
        "The export gates (parity, latency, size) and the full evaluation of the shipped model "
        "on the test split (model_evaluation)."
    ),
)

daily_ingest_schedule = dg.build_schedule_from_partitioned_job(
    daily_ingest_job,
    name="daily_ingest_schedule",
    hour_of_day=1,
    minute_of_hour=0,
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="At 01:00 UTC, ingest and featurize yesterday's partition.",
)


@dg.schedule(
    name="nightly_stale_assets",
    job=models_job,
    cron_schedule="30 2 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description=(
        "At 02:30 UTC, materialize only the model assets whose fingerprint changed (new days in "
        "the training window, new code or params); skipped when everything is fresh."
    ),
)
def nightly_stale_assets(
    context: dg.ScheduleEvaluationContext, artifact_store: ArtifactStore, params: ParamsResource
):
    from ml_assets.wiring.plan import build_plan

    model_assets = {
        key.to_user_string() for key in models_job.selection.resolve(_asset_graph(context))
    }
    # the plan of the assets this schedule is evaluated with: the code location's own
    assets = context.repository_def.assets_defs_by_key.values()
    plans = build_plan(artifact_store, assets, params.path, params.profile)
    stale = [p.asset for p in plans if p.status != "fresh" and p.asset in model_assets]
    if not stale:
        return dg.SkipReason("every model asset is fresh (fingerprints unchanged)")
    return dg.RunRequest(asset_selection=[dg.AssetKey(a) for a in stale])


def _asset_graph(context: dg.ScheduleEvaluationContext):
    return context.repository_def.asset_graph


weekly_full_evaluation = dg.ScheduleDefinition(
    name="weekly_full_evaluation",
    job=evaluation_job,
    cron_schedule="0 4 * * 1",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Mondays 04:00 UTC: the gates and the full evaluation of the current model.",
)
