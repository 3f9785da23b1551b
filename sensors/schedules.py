"""Schedules (stopped by default; switch them on in the UI under Automation)."""

from __future__ import annotations

import dagster as dg

full_pipeline_job = dg.define_asset_job(
    "full_pipeline",
    selection=dg.AssetSelection.all(),
    description="Materialize the whole graph: raw transactions to the int8 ONNX model.",
)

nightly_full_pipeline = dg.ScheduleDefinition(
    name="nightly_full_pipeline",
    job=full_pipeline_job,
    cron_schedule="0 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Rebuild everything at 03:00 UTC.",
)
