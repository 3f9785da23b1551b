"""Jobs and schedules (stopped by default; switch them on in the UI under Automation)."""

import dagster as dg

full_pipeline_job = dg.define_asset_job(
    "full_pipeline",
    selection=dg.AssetSelection.all(),
    description=(
        "Materialize the whole graph: raw transactions to the int8 ONNX model. Assets whose "
        "fingerprint is unchanged reuse their stored artifact, so this costs only what changed."
    ),
)

nightly_full_pipeline = dg.ScheduleDefinition(
    name="nightly_full_pipeline",
    job=full_pipeline_job,
    cron_schedule="0 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Rebuild everything at 03:00 UTC (memoized: unchanged assets cost a lookup).",
)


@dg.schedule(
    name="nightly_stale_assets",
    job=full_pipeline_job,
    cron_schedule="30 2 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="At 02:30 UTC, materialize only assets Dagster reports as stale or missing.",
)
def nightly_stale_assets(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    # stale_assets_only narrows the job's selection to Unsynced/missing assets at launch time
    return dg.RunRequest(stale_assets_only=True)
