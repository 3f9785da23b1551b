"""Runs whose processes are gone are failed and give back their concurrency slots.

A run started with `dagster asset materialize` executes in the CLI's own process; `kill -9`
(or a closed laptop lid that ends in the OOM killer) leaves it STARTED forever, holding its
`gpu` pool slot, and the next run's GPU step waits on that slot for good. Nothing frees it
without the daemon (run monitoring needs `dagster-daemon`, and even the daemon cannot health-
check a CLI run). So the local instance (scripts/init_dagster_home.sh) is a `DeadRunSafeInstance`:
when a run starts, and when a step is blocked by a pool limit, it first fails the runs whose
every recorded process is gone and frees their slots. `python -m resources.dead_runs` does the same on demand.

Which processes belong to a run: the ones that wrote its RUN_START (the orchestrating process:
the CLI, or the run worker under `dagster dev`) and its STEP_STARTs (step subprocesses). A run
with any of them alive is left alone (an orphaned step still holds the GPU). Runs that recorded
no process yet (queued, starting) are left alone too. This is only sound where every run of the
instance executes on this machine, which is what the local instance is. In production (deploy/)
a run worker is a subprocess of the code server that launched it, so deploy/code_server.sh runs
this for its own code location (`--location`) before it starts: the runs lost together with a
previous code server (a lost host or container) are failed and their slots freed.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable, Mapping, Sequence

import dagster as dg

from ml_assets.core.processes import is_running

logger = logging.getLogger(__name__)

_PROCESS_EVENTS = {dg.DagsterEventType.RUN_START, dg.DagsterEventType.STEP_START}
_FINISHED = [dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED]


def run_processes(instance: dg.DagsterInstance, run_id: str) -> dict[int, float]:
    """pid -> when it was first seen, for the processes that started the run or one of its steps."""
    seen: dict[int, float] = {}
    for entry in instance.all_logs(run_id, of_type=_PROCESS_EVENTS):
        pid = entry.dagster_event.pid if entry.dagster_event else None
        if pid is not None:
            seen[pid] = min(seen.get(pid, entry.timestamp), entry.timestamp)
    return seen


def dead(processes: Mapping[int, float], alive: Callable[[int, float], bool] = is_running) -> bool:
    """A run is dead when it recorded processes and none of them runs any more."""
    return bool(processes) and not any(alive(pid, t) for pid, t in processes.items())


def launched_from(run: dg.DagsterRun, location: str | None) -> bool:
    """Whether the run belongs to code location `location` (None: any run)."""
    origin = run.remote_job_origin
    return location is None or (origin is not None and origin.location_name == location)


def fail_dead_runs(instance: dg.DagsterInstance, location: str | None = None) -> list[str]:
    """Fail every STARTED run (of code location `location`, if given) whose processes are all
    gone and free the concurrency slots of those and of any finished run still holding one.
    Returns the ids of the runs it failed."""
    failed = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
        if not launched_from(run, location):
            continue
        processes = run_processes(instance, run.run_id)
        if not dead(processes):
            continue
        run = instance.get_run_by_id(run.run_id)  # another process may have swept it meanwhile
        if run is None or run.status != dg.DagsterRunStatus.STARTED:
            continue
        pids = ", ".join(str(p) for p in sorted(processes))
        instance.report_run_failed(
            run,
            f"The run's processes (pid {pids}) are gone (killed or crashed): marked failed and "
            "its concurrency slots freed (resources/dead_runs.py).",
        )
        failed.append(run.run_id)
    storage = instance.event_log_storage
    if storage.supports_global_concurrency_limits:
        holders = storage.get_concurrency_run_ids()
        if holders:
            finished = instance.get_runs(
                filters=dg.RunsFilter(run_ids=list(holders), statuses=_FINISHED)
            )
            for run in finished:
                storage.free_concurrency_slots_for_run(run.run_id)
                logger.info("freed the concurrency slots of run %s (%s)", run.run_id, run.status)
    return failed


def may_wait_on_a_slot(event: dg.EventLogEntry) -> bool:
    """A run starting, or a step blocked by a pool limit ("Step blocked by limit for pool gpu",
    logged when it starts waiting and every 5 minutes while it waits)."""
    dagster_event = event.dagster_event
    if dagster_event is None:
        return False
    if dagster_event.event_type == dg.DagsterEventType.RUN_START:
        return True
    data = dagster_event.engine_event_data if dagster_event.is_engine_event else None
    return bool(data and "pool" in data.metadata)


class DeadRunSafeInstance(dg.DagsterInstance):
    """The local instance: sweeps dead runs (above) when a run starts and when a step is blocked
    by a pool limit, whichever way runs are started (`dagster asset materialize`, `dagster dev`,
    tests). Selected in dagster.yaml with
    `instance_class: {module: resources.dead_runs, class: DeadRunSafeInstance}`."""

    @classmethod
    def config_schema(cls) -> Mapping:
        return {}  # no settings of its own

    @staticmethod
    def config_defaults(base_dir: str) -> Mapping:
        from dagster._core.instance.ref import InstanceRef

        return InstanceRef.config_defaults(base_dir)

    def handle_new_event(self, event: dg.EventLogEntry, *, batch_metadata=None) -> None:
        # every event of every run passes here: the one place that sees a run start or a step
        # wait, in whichever process runs it
        if may_wait_on_a_slot(event):
            for run_id in fail_dead_runs(self):
                logger.warning(
                    "run %s had no live process left: marked failed, slots freed", run_id
                )
        super().handle_new_event(event, batch_metadata=batch_metadata)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m resources.dead_runs",
        description="Fail the runs of $DAGSTER_HOME whose processes are gone; free their slots. "
        "Only sound on the host where those runs executed.",
    )
    parser.add_argument(
        "--location",
        help="only runs launched from this code location (deploy/code_server.sh passes its own: "
        "its runs are its subprocesses, on its host)",
    )
    args = parser.parse_args(argv)
    with dg.DagsterInstance.get() as instance:
        failed = fail_dead_runs(instance, args.location)
    print(f"failed {len(failed)} dead run(s): {' '.join(failed) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
