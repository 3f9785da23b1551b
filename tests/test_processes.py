"""Whether a recorded process (pid, seen at a unix time) is still the one running: alive, not a
zombie, and started no later than it was seen (a later process only reuses its number)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil
import pytest

from ml_assets.core.infra import processes
from ml_assets.core.infra.processes import is_running, process_start_time


@pytest.fixture
def sleeper():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child
    child.kill()
    child.wait()


def test_a_running_process_seen_after_it_started_is_running(sleeper):
    started = process_start_time(sleeper.pid)
    assert started is not None and started <= time.time()
    assert is_running(sleeper.pid, time.time())
    assert is_running(os.getpid(), time.time())


def test_a_process_that_started_after_it_was_seen_only_reuses_the_number(sleeper):
    started = process_start_time(sleeper.pid)
    assert not is_running(sleeper.pid, started - processes.START_TIME_SLACK_SECONDS - 60)
    assert is_running(sleeper.pid, started)  # seen as it started, within the slack


def test_a_zombie_is_not_running(sleeper):
    sleeper.kill()  # dead but not reaped: a zombie until wait()
    deadline = time.monotonic() + 10
    while psutil.Process(sleeper.pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the killed child never became a zombie"
        time.sleep(0.01)
    assert process_start_time(sleeper.pid) is None
    assert not is_running(sleeper.pid, time.time())


def test_a_reaped_process_and_impossible_pids_are_not_running(sleeper):
    seen = time.time()
    sleeper.kill()
    sleeper.wait()
    assert not is_running(sleeper.pid, seen)
    for pid in (0, -1):
        assert process_start_time(pid) is None
        assert not is_running(pid, seen)


def test_a_process_the_system_will_not_describe_counts_as_running(monkeypatch):
    def denied(pid):
        raise psutil.AccessDenied(pid)

    monkeypatch.setattr(processes.psutil, "Process", denied)
    assert is_running(4242, time.time())
