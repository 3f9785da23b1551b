"""The attempt records a training job keeps beside its checkpoints: numbers are claimed, so two
attempts that start together never share one; a record left running by a process that still
runs (an identical run at the same time) is not counted as a killed attempt."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from ml_assets.core.infra.attempt_ledger import (
    FINISHED,
    RUNNING,
    begin_attempt,
    current_job,
    summarize,
    update_attempt,
)


def test_an_attempt_never_takes_a_number_another_has_claimed(tmp_path):
    first = begin_attempt(tmp_path)
    # another attempt claimed number 2 and has not written its record yet
    (tmp_path / "attempts" / "attempt-0002.json").touch()
    third = begin_attempt(tmp_path)
    assert [first.name, third.name] == ["attempt-0001.json", "attempt-0003.json"]


def record(attempt: int, pid: int, outcome: str, last_step: int | None, resumed=None) -> dict:
    return {
        "attempt": attempt,
        "pid": pid,
        "host": socket.gethostname(),
        "started_at": time.time(),
        "resumed_from": resumed,
        "last_step": last_step,
        "outcome": outcome,
    }


def test_a_running_record_of_a_live_process_is_concurrent_not_killed():
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(gone.stdout)
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as alive:
        try:
            records = [
                record(1, dead_pid, RUNNING, 14),  # killed at step 14
                record(2, alive.pid, RUNNING, 7, resumed=10),  # still training elsewhere
                record(3, 0, FINISHED, 30, resumed=10),
            ]
            summary = summarize(records)
        finally:
            alive.kill()
    assert summary["attempts"] == 2 and summary["killed_attempts"] == 1
    assert summary["concurrent_attempts"] == 1
    assert summary["steps_lost"] == 14 - 10


def test_current_job_starts_after_the_last_finished_attempt(tmp_path):
    for outcome in (FINISHED, RUNNING, FINISHED):
        update_attempt(begin_attempt(tmp_path), outcome=outcome)
    assert [r["attempt"] for r in current_job(tmp_path)] == [2, 3]
