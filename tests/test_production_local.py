"""The local instance (scripts/init_dagster_home.sh) after kill -9: a rerun never waits on the
dead run's `gpu` slot, with no daemon running (the run's executor sweeps dead runs first,
resources/dead_runs.py). Real CLI processes on a real DAGSTER_HOME. And the script brings a
dagster.yaml it wrote in an earlier version up to date."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DAGSTER = str(Path(sys.executable).parent / "dagster")
HOLD = json.dumps({"ops": {"gpu_step": {"config": {"hold": True}}}})
QUICK = json.dumps({"ops": {"gpu_step": {"config": {"seconds": 0.1}}}})


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)
    return value


@pytest.fixture
def local_home(tmp_path, monkeypatch) -> Path:
    home, control = tmp_path / "home", tmp_path / "control"
    control.mkdir()
    subprocess.run(["bash", str(REPO / "scripts/init_dagster_home.sh"), str(home)], check=True)
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("TXN_PRODUCTION_TEST_DIR", str(control))
    return control


INIT = ["bash", str(REPO / "scripts/init_dagster_home.sh")]
EARLIER = sorted((REPO / "tests/fixtures/dagster_yaml").glob("version-*.yaml"))


@pytest.mark.parametrize("written", EARLIER, ids=lambda path: path.stem)
def test_a_file_an_earlier_version_wrote_is_brought_up_to_date(written, tmp_path):
    home = tmp_path / "a home, #1"  # characters YAML and sed would each trip on
    home.mkdir()
    (home / "dagster.yaml").write_text(written.read_text())
    subprocess.run([*INIT, str(home)], check=True)
    config = yaml.safe_load((home / "dagster.yaml").read_text())
    # Dagster's own instance and storage: nothing of the project's in the file
    assert "instance_class" not in config and "event_log_storage" not in config
    assert config["run_monitoring"]["enabled"] and config["concurrency"]["pools"]
    edited = (home / "dagster.yaml").read_text() + "# my own line\n"
    (home / "dagster.yaml").write_text(edited)
    subprocess.run([*INIT, str(home)], check=True)
    assert (home / "dagster.yaml").read_text() == edited  # edited by hand: left alone


def test_a_hand_edited_file_naming_a_class_no_longer_shipped_is_refused(tmp_path):
    (tmp_path / "dagster.yaml").write_text(EARLIER[-1].read_text() + "# my own line\n")
    done = subprocess.run([*INIT, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert "resources.dead_runs or resources.sqlite_event_log" in done.stderr


def materialize(config: str, **popen) -> subprocess.Popen:
    argv = [DAGSTER, "asset", "materialize", "-m", "tests.production_defs", "--select", "gpu_step"]
    return subprocess.Popen([*argv, "--config-json", config], cwd=REPO, **popen)


def test_rerun_after_kill_9_does_not_wait_on_the_dead_runs_gpu_slot(local_home, tmp_path):
    import dagster as dg

    log = open(tmp_path / "killed.log", "wb")  # noqa: SIM115 - closed below
    # its own session: kill -9 hits the CLI and its step subprocess, as a closed terminal would
    killed = materialize(HOLD, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    started = wait_for(lambda: list(local_home.glob("*.started")), 60, "the held step to start")
    dead_run_id = started[0].name.removesuffix(".started")
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(timeout=10)
    log.close()
    with dg.DagsterInstance.get() as instance:
        # the state kill -9 leaves: STARTED forever, the gpu slot held
        assert instance.get_run_by_id(dead_run_id).status == dg.DagsterRunStatus.STARTED
        claimed = instance.event_log_storage.get_concurrency_info("gpu").claimed_slots
        assert [slot.run_id for slot in claimed] == [dead_run_id]

    began = time.monotonic()
    rerun = materialize(QUICK, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, _ = rerun.communicate(timeout=120)  # a rerun that waited on the slot would hang here
    took = time.monotonic() - began
    assert rerun.returncode == 0, out.decode()[-3000:]
    print(f"rerun after kill -9 finished in {took:.1f} s (CLI start-up included)")

    with dg.DagsterInstance.get() as instance:
        assert type(instance) is dg.DagsterInstance  # Dagster's own
        dead_run = instance.get_run_by_id(dead_run_id)
        assert dead_run.status == dg.DagsterRunStatus.FAILURE
        (failure,) = instance.all_logs(dead_run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
        assert "processes (pid" in failure.message and "are gone" in failure.message
        assert not instance.event_log_storage.get_concurrency_info("gpu").claimed_slots
        statuses = sorted(r.status.value for r in instance.get_runs())
        assert statuses == ["FAILURE", "SUCCESS"]


def test_a_run_is_dead_only_when_every_process_it_recorded_is_gone():
    from resources.dead_runs import dead

    alive = {1: True, 2: False}.__getitem__
    assert not dead({})  # nothing recorded yet (queued, starting): never touched
    assert dead({2: 0.0}, lambda pid, t: alive(pid))
    # the CLI died but its step subprocess still runs (and holds the GPU): alive
    assert not dead({1: 0.0, 2: 0.0}, lambda pid, t: alive(pid))


def test_a_reused_pid_is_not_the_process_that_was_seen():
    from ml_assets.core.infra.processes import is_running

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        seen = time.time() + 1  # seen after it started: it is that process
        assert is_running(child.pid, seen)
        # a process that started after the pid was recorded only reuses the number
        assert not is_running(child.pid, seen - 3600)
    finally:
        child.kill()
        child.wait()
    assert not is_running(child.pid, seen)
