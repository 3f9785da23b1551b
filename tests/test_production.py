"""The production deployment (deploy/) on real parts: a PostgreSQL server (pgserver's binaries),
the moto S3 server, and deploy/'s scripts starting two code servers, `dagster-daemon run` and
`dagster-webserver` against a DAGSTER_HOME holding deploy/dagster.yaml unchanged. Runs are
submitted through the webserver's GraphQL API and go through the run queue.

Proves: the project's `new_raw_exports` sensor turns a new S3 object into a queued run that
ingests its day; a schedule tick runs; two runs that need the `gpu` pool do not overlap; a run
worker killed with SIGKILL is failed, its `gpu` slot freed and the queued GPU run proceeds, and
the dead run is retried, with no manual step. Recovery times are printed (-s) for the README.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

from tests.cloud_servers import _answers, _free_port
from tests.postgres_server import postgres  # noqa: F401 - a fixture
from tests.test_production_local import wait_for

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CHECKS = "production_checks"  # the test code location (tests/production_defs.py)
PIPELINE = "txn_ml"
DAY = "2026-03-01"


class Deployment(NamedTuple):
    url: str
    control: Path  # the folder tests/production_defs.py reports to
    put_object: Callable[[str, bytes], object]  # into the watched S3 prefix
    logs: Path
    procs: dict[str, subprocess.Popen]  # by name: code-pipeline, code-checks, daemon, webserver
    start: Callable[[str], subprocess.Popen]  # (re)start one of them by its name

    def kill(self, name: str) -> None:
        """SIGKILL a process and everything it started."""
        os.killpg(self.procs[name].pid, signal.SIGKILL)
        self.procs[name].wait(timeout=10)

    def graphql(self, query: str, **variables) -> dict:
        body = json.dumps({"query": query, "variables": variables}).encode()
        request = urllib.request.Request(  # noqa: S310 - a local URL the fixture built
            f"{self.url}/graphql", body, {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                payload = json.loads(response.read())
        except urllib.error.HTTPError as err:
            raise AssertionError(f"{err}: {err.read()[-3000:]!r}") from err
        assert "errors" not in payload, payload
        return payload["data"]

    def launch(self, job: str, config: dict | None = None) -> str:
        data = self.graphql(
            """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) {
                 __typename ... on LaunchRunSuccess { run { runId } }
                 ... on PythonError { message } ... on InvalidStepError { invalidStepKey }
                 ... on RunConfigValidationInvalid { errors { message } } } }""",
            params={
                "selector": {
                    "repositoryLocationName": CHECKS,
                    "repositoryName": "__repository__",
                    "jobName": job,
                },
                "runConfigData": config or {},
            },
        )["launchRun"]
        assert data["__typename"] == "LaunchRunSuccess", data
        return data["run"]["runId"]


def gpu_config(**config) -> dict:
    return {"ops": {"gpu_step": {"config": config}}}


def _start(name: str, argv: list[str], env: dict, logs: Path) -> subprocess.Popen:
    with open(logs / f"{name}.log", "ab") as log:
        # own session: stopping it stops what it started (gRPC server, run workers)
        return subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop_all(procs: list[subprocess.Popen], grace: float = 5.0) -> None:
    """SIGTERM every process group at once, give them one shared grace period, then SIGKILL
    what is left. One of them has taken over 20 s to stop after SIGTERM; nothing after the
    tests reads what a graceful stop would write, so the grace is short."""
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of the group is left
        proc.wait(timeout=10)


def _pipeline_params(path: Path, s3_uri: str) -> Path:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["raw_transactions"].update({"source": "files", "path": s3_uri})
    path.write_text(yaml.safe_dump(params))
    return path


@pytest.fixture(scope="module")
def deployment(postgres, moto_endpoint, tmp_path_factory) -> Iterator[Deployment]:  # noqa: F811
    import boto3

    root = tmp_path_factory.mktemp("production")
    home, control, logs = root / "home", root / "control", root / "logs"
    for folder in (home, control, logs):
        folder.mkdir()
    shutil.copy(REPO / "deploy/dagster.yaml", home / "dagster.yaml")  # unchanged
    bucket = f"bank-{os.urandom(4).hex()}"
    aws = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "TXN_S3_ENDPOINT_URL": moto_endpoint,
    }
    s3 = boto3.client(
        "s3",
        endpoint_url=moto_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    s3.create_bucket(Bucket=bucket)
    ports = {name: _free_port() for name in (PIPELINE, CHECKS, "web")}
    workspace = root / "workspace.yaml"
    workspace.write_text(
        yaml.safe_dump(
            {
                "load_from": [
                    {"grpc_server": {"host": "127.0.0.1", "port": ports[n], "location_name": n}}
                    for n in (PIPELINE, CHECKS)
                ]
            }
        )
    )
    env = {
        **os.environ,
        **postgres.env(),
        **aws,
        "DAGSTER_HOME": str(home),
        "DAGSTER_WORKSPACE": str(workspace),
        "DAGSTER_CODE_SERVER_HOST": "127.0.0.1",
        "DAGSTER_WEBSERVER_PORT": str(ports["web"]),
        "TXN_PRODUCTION_TEST_DIR": str(control),
        "TXN_PARAMS": str(_pipeline_params(root / "params.yaml", f"s3://{bucket}/exports/")),
        "TXN_PARAMS_PROFILE": "tiny",
        "TXN_ARTIFACTS_DIR": str(root / "artifacts"),
    }
    env.pop("DAGSTER_WEBSERVER_HOST", None)  # the script's default: 127.0.0.1
    code = {"DAGSTER_CODE_SERVER_PORT": str(ports[PIPELINE])}
    checks = {
        "DAGSTER_CODE_SERVER_PORT": str(ports[CHECKS]),
        "DAGSTER_CODE_MODULE": "tests.production_defs",
        "DAGSTER_CODE_LOCATION": CHECKS,
    }
    processes = {
        "code-pipeline": ("deploy/code_server.sh", code),
        "code-checks": ("deploy/code_server.sh", checks),
        "daemon": ("deploy/daemon.sh", {}),
        "webserver": ("deploy/webserver.sh", {}),
    }
    procs: dict[str, subprocess.Popen] = {}

    def start(name: str) -> subprocess.Popen:
        script, extra = processes[name]
        procs[name] = _start(name, [script], {**env, **extra}, logs)
        return procs[name]

    try:
        # the daemon last, once both code locations answer: its scheduler then sees
        # `every_minute` on its first iteration and ticks at the next minute; started beside the
        # code servers, it finds no schedule until its iteration a minute later
        for name in processes:
            if name != "daemon":
                start(name)
        deployment = Deployment(
            f"http://127.0.0.1:{ports['web']}",
            control,
            lambda key, body: s3.put_object(Bucket=bucket, Key=key, Body=body),
            logs,
            procs,
            start,
        )

        def up() -> bool:
            for proc in procs.values():
                if proc.poll() is not None:
                    pytest.fail(f"{proc.args} exited:\n{_tails(logs)}")
            return _answers(ports["web"], "/server_info") and _loaded(deployment)

        wait_for(up, 120, "webserver and both code locations")
        start("daemon")
        with pytest.MonkeyPatch.context() as mp:
            for key, value in env.items():
                mp.setenv(key, value)  # this process reads the same instance (Postgres)
            yield deployment
    finally:
        _stop_all(list(reversed(procs.values())))


def _loaded(deployment: Deployment) -> bool:
    data = deployment.graphql(
        """{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus
             locationOrLoadError { __typename } } } } }"""
    )
    entries = data["workspaceOrError"]["locationEntries"]
    return len(entries) == 2 and all(
        e["loadStatus"] == "LOADED"
        and e["locationOrLoadError"]["__typename"] == "RepositoryLocation"
        for e in entries
    )


def _tails(logs: Path) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}" for p in sorted(logs.glob("*.log")))


def _instance():
    import dagster as dg

    return dg.DagsterInstance.get()


def _run(instance, run_id: str):
    return instance.get_run_by_id(run_id)


def _finished(instance, run_id: str):
    """The run's record (status, start and end times) once it has finished, else None."""
    record = instance.get_run_record_by_id(run_id)
    return record if record and record.dagster_run.is_finished else None


def _event_time(instance, run_id: str, event_type, step_key: str | None = None) -> float | None:
    entries = [
        e for e in instance.all_logs(run_id, of_type=event_type) if e.step_key in (step_key, None)
    ]
    return entries[0].timestamp if entries else None


def test_the_instance_is_deploy_dagster_yaml_on_postgres(deployment):
    import dagster as dg

    with _instance() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert isinstance(instance.run_coordinator, dg.QueuedRunCoordinator)
        pools = instance.get_concurrency_config().pool_config
        assert (pools.default_pool_limit, pools.pool_granularity.value) == (1, "op")
        assert instance.run_monitoring_enabled and instance.run_retries_enabled
    secret = os.environ["DAGSTER_PG_PASSWORD"]
    assert secret not in (REPO / "deploy/dagster.yaml").read_text()
    statuses = deployment.graphql(
        "{ instance { daemonHealth { allDaemonStatuses { daemonType required healthy } } } }"
    )["instance"]["daemonHealth"]["allDaemonStatuses"]
    required = {s["daemonType"] for s in statuses if s["required"]}
    # EVENT_LOG_CONSUMER is the one that retries runs (run_retries)
    assert {"SENSOR", "SCHEDULER", "QUEUED_RUN_COORDINATOR", "MONITORING"} <= required
    assert "EVENT_LOG_CONSUMER" in required


def test_a_new_s3_export_is_sensed_and_its_day_ingested_through_the_queue(deployment):
    import dagster as dg

    from tests.test_raw_sources import GOOD_ROWS

    deployment.put_object(f"exports/{DAY}.jsonl", GOOD_ROWS)
    started = deployment.graphql(
        """mutation($s: SensorSelector!) { startSensor(sensorSelector: $s) {
             __typename ... on Sensor { sensorState { status } } ... on PythonError { message } } }""",
        s={
            "repositoryLocationName": PIPELINE,
            "repositoryName": "__repository__",
            "sensorName": "new_raw_exports",
        },
    )["startSensor"]
    assert started["__typename"] == "Sensor", started
    with _instance() as instance:
        sensed = dg.RunsFilter(tags={"dagster/sensor_name": "new_raw_exports"})
        (run,) = wait_for(lambda: instance.get_runs(sensed), 90, "the sensor's run")
        run = wait_for(lambda: _finished(instance, run.run_id), 150, "the ingest run").dagster_run
        assert run.status == dg.DagsterRunStatus.SUCCESS, _tails(deployment.logs)
        assert run.tags["raw_exports"] == f"{DAY}.jsonl" and run.tags["dagster/partition"] == DAY
        # queued first, then launched by the daemon's run coordinator
        lifecycle = [
            e.dagster_event.event_type
            for e in instance.all_logs(run.run_id)
            if e.is_dagster_event and e.dagster_event.event_type.value.startswith("PIPELINE_")
        ]
        assert lifecycle[:3] == [
            dg.DagsterEventType.RUN_ENQUEUED,
            dg.DagsterEventType.RUN_STARTING,
            dg.DagsterEventType.RUN_START,
        ], lifecycle
        for asset in ("raw_transactions", "transaction_features"):
            event = instance.get_latest_materialization_event(dg.AssetKey(asset))
            assert event and event.run_id == run.run_id
            assert event.dagster_event.partition == DAY


def _gpu_window(instance, run_id: str) -> tuple[float, float]:
    """When the run's gpu step started and finished (event log timestamps)."""
    import dagster as dg

    start = _event_time(instance, run_id, dg.DagsterEventType.STEP_START, "gpu_step")
    end = _event_time(instance, run_id, dg.DagsterEventType.STEP_SUCCESS, "gpu_step")
    assert start and end, run_id
    return start, end


def test_two_runs_that_need_the_gpu_pool_run_one_after_the_other(deployment):
    import dagster as dg

    first = deployment.launch("gpu_job", gpu_config(seconds=3))
    second = deployment.launch("gpu_job", gpu_config(seconds=3))
    with _instance() as instance:
        for run_id in (first, second):
            run = wait_for(lambda r=run_id: _finished(instance, r), 120, run_id).dagster_run
            assert run.status == dg.DagsterRunStatus.SUCCESS, _tails(deployment.logs)
        (a_start, a_end), (b_start, b_end) = sorted(
            _gpu_window(instance, r) for r in (first, second)
        )
        assert a_end <= b_start, "the two gpu steps overlapped"
        print(f"gpu steps: {a_start:.1f}-{a_end:.1f}, then {b_start:.1f}-{b_end:.1f}")
        assert not instance.event_log_storage.get_concurrency_info("gpu").claimed_slots


def test_a_killed_run_is_failed_its_gpu_slot_freed_and_the_queue_moves_on(deployment):
    import dagster as dg

    (deployment.control / "release").unlink(missing_ok=True)
    held = deployment.launch("gpu_job", gpu_config(hold=True, seconds=0))
    started = deployment.control / f"{held}.started"
    wait_for(started.exists, 120, "the held gpu step to start")
    waiting = deployment.launch("gpu_job", gpu_config(seconds=0.5))
    with _instance() as instance:
        # the next GPU run is queued or blocked on the slot the held run owns
        wait_for(lambda: _run(instance, waiting), 10, "the second run to be stored")
        claimed = instance.event_log_storage.get_concurrency_info("gpu").claimed_slots
        assert [slot.run_id for slot in claimed] == [held]

        os.kill(json.loads(started.read_text())["pid"], signal.SIGKILL)  # the run worker
        killed_at = time.time()
        (deployment.control / "release").touch()  # the automatic retry need not wait
        dead = wait_for(lambda: _finished(instance, held), 60, "the killed run to be failed")
        failed_after = dead.end_time - killed_at
        assert dead.dagster_run.status == dg.DagsterRunStatus.FAILURE
        messages = " ".join(e.message for e in instance.all_logs(held))
        assert "was terminated by signal 9 (SIGKILL)" in messages, messages[-2000:]

        run = wait_for(lambda: _finished(instance, waiting), 120, "the queued GPU run").dagster_run
        assert run.status == dg.DagsterRunStatus.SUCCESS, _tails(deployment.logs)
        retried = dg.RunsFilter(tags={"dagster/parent_run_id": held})
        (retry,) = wait_for(lambda: instance.get_runs(retried), 60, "the automatic retry")
        retry = wait_for(lambda: _finished(instance, retry.run_id), 120, "the retry to finish")
        assert retry.dagster_run.status == dg.DagsterRunStatus.SUCCESS
        assert not instance.event_log_storage.get_concurrency_info("gpu").claimed_slots

        # the queued run and the retry took the freed slot one after the other, in either
        # order, and neither before the monitoring daemon's free_slots_after_run_end_seconds
        # had passed (Dagster 1.13 does not log what it freed). No upper bound: on a busy
        # machine the daemon's ticks come late, and a test must not flip with the load.
        (first_start, first_end), (second_start, _) = sorted(
            _gpu_window(instance, r) for r in (waiting, retry.dagster_run.run_id)
        )
        assert first_end <= second_start, "the queued run and the retry shared the gpu slot"
        hold_on = instance.run_monitoring_settings["free_slots_after_run_end_seconds"]
        assert first_start - dead.end_time >= hold_on
        recovered_after = first_start - killed_at
    print(
        f"SIGKILL -> run failed in {failed_after:.1f} s; -> next GPU step running in "
        f"{recovered_after:.1f} s; retry finished {retry.end_time - killed_at:.1f} s after kill"
    )


def test_runs_queued_while_the_daemon_is_down_start_when_it_is_back(deployment):
    import dagster as dg

    deployment.kill("daemon")
    queued = deployment.launch("gpu_job", gpu_config(seconds=0.1))  # the webserver still queues
    with _instance() as instance:
        assert _run(instance, queued).status == dg.DagsterRunStatus.QUEUED
        restarted = time.time()
        deployment.start("daemon")  # what systemd's Restart= (or a container restart) does
        record = wait_for(lambda: _finished(instance, queued), 120, "the queued run")
        assert record.dagster_run.status == dg.DagsterRunStatus.SUCCESS
    print(
        f"daemon SIGKILL -> restarted; queued run started {record.start_time - restarted:.1f} s "
        f"and finished {record.end_time - restarted:.1f} s after the restart"
    )


def test_a_postgres_restart_is_ridden_out(deployment, postgres):  # noqa: F811
    import dagster as dg

    down = postgres.restart()  # every connection is cut
    back = time.time()
    refused = []

    def launched() -> str | None:
        # a request that meets a connection from before the restart fails once (PythonError
        # "server closed the connection unexpectedly"); the next one connects afresh
        try:
            return deployment.launch("gpu_job", gpu_config(seconds=0.1))
        except AssertionError as err:
            assert "server closed the connection" in str(err) or "OperationalError" in str(err)
            refused.append(time.time() - back)
            return None

    run_id = wait_for(launched, 60, "the webserver to accept a run again")
    accepted = time.time() - back
    with _instance() as instance:
        record = wait_for(lambda: _finished(instance, run_id), 120, "a run after the restart")
        assert record.dagster_run.status == dg.DagsterRunStatus.SUCCESS
    for proc in deployment.procs.values():
        assert proc.poll() is None, _tails(deployment.logs)  # nothing crashed meanwhile
    print(
        f"postgres restart ({down:.1f} s down): {len(refused)} request(s) refused, run accepted "
        f"{accepted:.1f} s and finished {record.end_time - back:.1f} s after it was back"
    )


def test_a_schedule_tick_runs(deployment):
    import dagster as dg

    # `every_minute` (tests/production_defs.py) is RUNNING by default: the daemon's scheduler
    # takes it up on its first iteration (the daemon starts once the code locations are loaded)
    # and ticks at the next minute, so by now (over a minute in) it has ticked or is about to
    ticked = dg.RunsFilter(tags={"dagster/schedule_name": "every_minute"})
    with _instance() as instance:
        runs = wait_for(lambda: instance.get_runs(ticked), 120, "a run from the schedule")
        run = wait_for(lambda: _finished(instance, runs[-1].run_id), 60, "the run").dagster_run
        assert run.status == dg.DagsterRunStatus.SUCCESS
    assert (deployment.control / f"{run.run_id}.scheduled").exists()


def test_a_run_lost_with_its_code_server_is_failed_when_the_code_server_restarts(deployment):
    import dagster as dg

    (deployment.control / "release").unlink(missing_ok=True)
    held = deployment.launch("gpu_job", gpu_config(hold=True, seconds=0))
    started = deployment.control / f"{held}.started"
    wait_for(started.exists, 120, "the held gpu step to start")
    deployment.kill("code-checks")  # the code server and its run worker together: a lost host
    (deployment.control / "release").touch()  # a retry of the lost run need not wait
    with _instance() as instance:

        def holders() -> list[str]:
            return [
                s.run_id
                for s in instance.event_log_storage.get_concurrency_info("gpu").claimed_slots
            ]

        # nobody is left to notice: the run stays STARTED, holding the gpu slot
        assert _run(instance, held).status == dg.DagsterRunStatus.STARTED
        assert holders() == [held]
        restarted = time.time()
        deployment.start("code-checks")  # deploy/code_server.sh sweeps its location's dead runs
        dead = wait_for(lambda: _finished(instance, held), 60, "the lost run to be failed")
        assert dead.dagster_run.status == dg.DagsterRunStatus.FAILURE
        # the sweep frees the slot just after it fails the run (a retry may hold it by then)
        wait_for(lambda: held not in holders(), 30, "the lost run's slot to be freed")
        freed = time.time() - restarted
        (failure,) = instance.all_logs(held, of_type=dg.DagsterEventType.RUN_FAILURE)
        assert "resources/dead_runs.py" in failure.message
        # run retries re-run it when the code server answers by then, else a person does
        retries = instance.get_runs(dg.RunsFilter(tags={"dagster/parent_run_id": held}))
    print(
        f"code server lost with its run: failed {dead.end_time - restarted:.1f} s and its slot "
        f"freed {freed:.1f} s after the code server was restarted; retried: {bool(retries)}"
    )
