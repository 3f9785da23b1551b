"""A tiny code location for the production tests (tests/test_production*.py): a step in the
project's `gpu` pool that records its process and can be held until released, and a schedule
that ticks every minute. The control folder comes from $TXN_PRODUCTION_TEST_DIR."""

import json
import os
import time
from pathlib import Path

import dagster as dg

from ml_assets.wiring.gpu_training import GPU_POOL
from resources.dead_runs import sweeping

HOLD_LIMIT_SECONDS = 180  # a held step never outlives a failed test by much


class GpuStepConfig(dg.Config):
    hold: bool = False  # wait for the file `release` in the control folder
    seconds: float = 1.0  # how long the step "trains"


def control_dir() -> Path:
    return Path(os.environ["TXN_PRODUCTION_TEST_DIR"])


@dg.asset(pool=GPU_POOL)
def gpu_step(context: dg.AssetExecutionContext, config: GpuStepConfig) -> None:
    # the process and when it began: the tests kill it and compare step windows by these
    started = {"pid": os.getpid(), "start": time.time()}
    (control_dir() / f"{context.run_id}.started").write_text(json.dumps(started))
    deadline = time.monotonic() + HOLD_LIMIT_SECONDS
    while config.hold and not (control_dir() / "release").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("never released")
        time.sleep(0.1)
    time.sleep(config.seconds)


@dg.asset
def scheduled_marker(context: dg.AssetExecutionContext) -> None:
    (control_dir() / f"{context.run_id}.scheduled").write_text("")


# in process: the run worker is the step's process, so killing one kills the other; the
# pipeline's executor (which sweeps dead runs first on a local instance)
EXECUTOR = sweeping(dg.in_process_executor)
gpu_job = dg.define_asset_job("gpu_job", ["gpu_step"], executor_def=EXECUTOR)
marker_job = dg.define_asset_job(
    "marker_job", ["scheduled_marker"], executor_def=dg.in_process_executor
)
every_minute = dg.ScheduleDefinition(
    name="every_minute",
    job=marker_job,
    cron_schedule="* * * * *",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)

defs = dg.Definitions(
    assets=[gpu_step, scheduled_marker],
    jobs=[gpu_job, marker_job],
    schedules=[every_minute],
    executor=EXECUTOR,
)
