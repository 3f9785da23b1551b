"""Slack notifications for GPU jobs: preemptions and on-demand fallbacks (recorded by the
launcher as AssetObservations on the GPU assets), and failed runs. The webhook URL comes from
SLACK_WEBHOOK_URL through the SlackNotifier resource and is never logged."""

from __future__ import annotations

import dagster as dg

from ml_assets.wiring.gpu_training import GPU_POOL
from resources.launchers import GPU_EVENT
from resources.notifications import SlackNotifier


def pool_assets(repository: dg.RepositoryDefinition, pool: str = GPU_POOL) -> list[str]:
    """The assets whose steps take a slot of `pool` (for `gpu`: the ones the training launcher
    runs, locally or on Cloud Batch), read from the definitions the sensor is loaded with, so an
    asset that joins the pool is watched without a list to keep up to date."""
    return sorted(
        key.to_user_string()
        for key, asset in repository.assets_defs_by_key.items()
        if asset.is_executable and asset.op.pool == pool
    )


def gpu_event_text(asset: str, metadata: dict) -> str:
    event = metadata.get(GPU_EVENT)
    job = metadata.get("job", "?")
    attempt = metadata.get("attempt", "?")
    lost = metadata.get("steps_lost", "?")
    if event == "preempted":
        return (
            f":warning: GPU job for `{asset}` was preempted (Batch job `{job}`, attempt {attempt}, "
            f"{lost} step(s) lost; {metadata.get('provisioning', 'SPOT')}). It resumes from its last checkpoint."
        )
    if event == "fell_back_to_on_demand":
        return (
            f":moneybag: GPU job for `{asset}` falls back to on-demand after "
            f"{metadata.get('preemptions', '?')} preemption(s) (previous job `{job}`, next attempt {attempt})."
        )
    return f"GPU job event {event!r} for `{asset}` (job `{job}`, attempt {attempt})"


def _plain(metadata) -> dict:
    return {key: getattr(value, "value", value) for key, value in metadata.items()}


@dg.sensor(
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Posts GPU preemptions and on-demand fallbacks of the training assets to Slack.",
)
def gpu_job_events_to_slack(context: dg.SensorEvaluationContext, slack: SlackNotifier):
    after = int(context.cursor) if context.cursor else None
    records = []
    for asset in pool_assets(context.repository_def):
        result = context.instance.fetch_observations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), after_storage_id=after),
            limit=200,
            ascending=True,
        )
        records.extend((record, asset) for record in result.records)
    if not records:
        return dg.SkipReason("no new GPU job events")
    posted = 0
    for record, asset in sorted(records, key=lambda pair: pair[0].storage_id):
        observation = record.event_log_entry.asset_observation
        metadata = _plain(observation.metadata) if observation else {}
        if GPU_EVENT in metadata and slack.post(gpu_event_text(asset, metadata), log=context.log):
            posted += 1
    context.update_cursor(str(max(record.storage_id for record, _ in records)))
    return dg.SkipReason(f"posted {posted} GPU job event(s) to Slack")


@dg.run_failure_sensor(
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Posts failed runs to Slack (job, failed steps, GPU attempts and steps lost).",
)
def slack_on_run_failure(context: dg.RunFailureSensorContext, slack: SlackNotifier):
    run = context.dagster_run
    steps = sorted(
        {event.step_key for event in context.get_step_failure_events() if event.step_key}
    )
    lost = attempts = 0
    for asset in pool_assets(context.repository_def):
        result = context.instance.fetch_observations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset)), limit=200
        )
        for record in result.records:
            if record.event_log_entry.run_id != run.run_id:
                continue
            metadata = _plain(record.event_log_entry.asset_observation.metadata)
            if metadata.get(GPU_EVENT) == "preempted":
                attempts += 1
                lost += int(metadata.get("steps_lost") or 0)
    message = (context.failure_event.message or "").splitlines()[0][:300]
    retry = run.tags.get("dagster/retry_number", "0")
    slack.post(
        f":x: Dagster run `{run.run_id[:8]}` of job `{run.job_name}` failed (run attempt {int(retry) + 1}); "
        f"failed steps: {', '.join(steps) or 'none'}; GPU preemptions in this run: {attempts}, "
        f"steps lost: {lost}. {message}",
        log=context.log,
    )
