"""Runs whose processes are gone are failed and give back their concurrency slots.

A run started with `dg launch` or `dagster asset materialize` executes in the CLI's own process;
`kill -9` (or a closed laptop lid that ends in the OOM killer) leaves it STARTED forever, holding
its `gpu` pool slot, and the next run's GPU step waits on that slot for good. Dagster's run
monitoring frees such slots only where the daemon runs, and even the daemon cannot health-check
a CLI run. So every run of the pipeline first sweeps: its executor (`sweeping`, which the
definitions use) fails the runs whose every recorded process is gone and frees their slots,
before any step of the new run claims one. `python -m resources.dead_runs` does the same on
demand.

Which processes belong to a run: the ones that wrote its RUN_START (the orchestrating process:
the CLI, or the run worker under `dg dev`) and its STEP_STARTs (step subprocesses). A run with
any of them alive is left alone (an orphaned step still holds the GPU). Runs that recorded no
process yet (queued, starting) are left alone too. A process id means something only on its own
host, so the executor sweeps only an instance kept in SQLite files (the local one: every run of
it executes on this machine). In production (deploy/, Postgres) a run worker is a subprocess of
the code server that launched it, so deploy/code_server.sh runs this for its own code location
(`--location`) before it starts: the runs lost together with a previous code server (a lost host
or container) are failed and their slots freed; the daemon's run monitoring does the rest.

What it does not cover: a run already waiting on a slot when the holder dies keeps waiting until
the next run starts, `dg dev`'s daemon notices (runs it launched), or this module runs.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable, Mapping, Sequence

import dagster as dg

from ml_assets.core.infra.processes import is_running

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
    started = instance.get_run_records(
        filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])
    )
    for record in started:
        run = record.dagster_run
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
            finished = instance.get_run_records(
                filters=dg.RunsFilter(run_ids=list(holders), statuses=_FINISHED)
            )
            for record in finished:
                storage.free_concurrency_slots_for_run(record.dagster_run.run_id)
                logger.info(
                    "freed the concurrency slots of run %s (%s)",
                    record.dagster_run.run_id,
                    record.dagster_run.status,
                )
    return failed


def runs_execute_here(instance: dg.DagsterInstance) -> bool:
    """Whether every run of `instance` executes on this machine: its runs are kept in SQLite
    files, which only processes on this machine write (Dagster's SQLite storage is single-host).
    Told by the storage's class name: Dagster exports no public type to test against."""
    return type(instance.run_storage).__name__.startswith("Sqlite")


def sweeping(executor_def: dg.ExecutorDefinition) -> dg.ExecutorDefinition:
    """`executor_def` that first fails the instance's dead runs and frees their slots (on an
    instance whose runs all execute here). The executor is created in the run's orchestrating
    process when the run starts, before any of its steps claims a pool slot."""
    create = executor_def.executor_creation_fn
    assert create is not None, f"executor {executor_def.name} has no creation function"

    def sweep_then_create(init_context: dg.InitExecutorContext):
        if runs_execute_here(init_context.instance):
            try:
                for run_id in fail_dead_runs(init_context.instance):
                    logger.warning(
                        "run %s had no live process left: marked failed, slots freed", run_id
                    )
            except Exception:  # a clean-up: never the reason the starting run fails
                logger.warning("the dead-run sweep failed; the run goes on", exc_info=True)
        return create(init_context)

    return dg.ExecutorDefinition(
        name=executor_def.name,
        config_schema=executor_def.config_schema,
        requirements=executor_def.get_requirements,
        executor_creation_fn=sweep_then_create,
        description=f"Dagster's `{executor_def.name}` executor, after failing the dead runs of "
        "this host and freeing their pool slots (resources/dead_runs.py).",
    )


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
        if args.location is None and not runs_execute_here(instance):
            parser.error(
                "this instance's runs may execute on other hosts (its storage is not SQLite "
                "files): pass --location with the code location whose runs are this host's"
            )
        failed = fail_dead_runs(instance, args.location)
    print(f"failed {len(failed)} dead run(s): {' '.join(failed) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
