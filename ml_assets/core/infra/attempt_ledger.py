"""Attempts of one training job, recorded where its checkpoints live, so they outlive a kill.

A local training run can die with everything that watches it (``kill -9`` of the Dagster run
and its training process): nothing is left to say how far it got. So the job itself keeps one
small JSON record per attempt beside its checkpoints and rewrites it as it goes (started,
resumed from step N, last step reached, how it ended). The next attempt resumes from the
newest checkpoint, and the launcher reads the records back: how many attempts this job took,
which of them were interrupted, and the steps redone after each resume.

A record whose attempt never wrote an end is an attempt that was killed. The records of one
fingerprint's job end with the attempt that finished; a later job for the same fingerprint (its
entry removed and recomputed) starts counting after that.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from ml_assets.core.infra.io import atomic_write_json
from ml_assets.core.infra.processes import is_running

LEDGER_DIR = "attempts"
RUNNING, PREEMPTED, FINISHED, FAILED = "running", "preempted", "finished", "failed"


def _records(root: Path) -> list[tuple[Path, dict]]:
    folder = root / LEDGER_DIR
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("attempt-*.json")):
        try:
            found.append((path, json.loads(path.read_text())))
        except (OSError, ValueError):
            continue  # a record cut by a crash mid-write counts as no record
    return found


def begin_attempt(root: Path) -> Path:
    """Record a new attempt (outcome ``running`` until it ends); returns its record's path."""
    folder = root / LEDGER_DIR
    folder.mkdir(parents=True, exist_ok=True)
    number = max((r["attempt"] for _, r in _records(root)), default=0) + 1
    while True:  # claim the number: two attempts that start together never share one
        path = folder / f"attempt-{number:04d}.json"
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            break
        except FileExistsError:
            number += 1
    atomic_write_json(
        path,
        {
            "attempt": number,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started_at": time.time(),
            "resumed_from": None,
            "last_step": None,
            "last_checkpoint": None,
            "outcome": RUNNING,
        },
    )
    return path


def update_attempt(path: Path, **fields) -> None:
    """Merge ``fields`` into an attempt's record (atomically: a kill leaves old or new)."""
    record = json.loads(path.read_text())
    record.update(fields)
    atomic_write_json(path, record)


def current_job(root: Path) -> list[dict]:
    """The records of the job in progress or just finished: those after the last finished one
    before it (a finished attempt ends a job)."""
    records = [r for _, r in _records(root)]
    start = 0
    for i, record in enumerate(records[:-1]):
        if record.get("outcome") == FINISHED:
            start = i + 1
    return records[start:]


def summarize(records: list[dict]) -> dict:
    """attempts, interrupted attempts, steps lost (redone after each resume: the previous
    attempt's last recorded step minus where the next one resumed; the last few steps before a
    hard kill may go unrecorded, so this is a lower bound) and the final resume step."""
    # an attempt another live process is still running (two identical runs at once) was not
    # interrupted: it is counted apart, and its steps are not this job's losses
    concurrent = [r for r in records[:-1] if still_running(r)]
    records = [r for r in records if r not in concurrent]
    lost = 0
    for before, after in zip(records, records[1:], strict=False):
        reached, resumed = before.get("last_step"), after.get("resumed_from")
        if reached is not None and resumed is not None:
            lost += max(0, reached - resumed)
    return {
        "attempts": len(records),
        "interrupted_attempts": sum(r.get("outcome") != FINISHED for r in records[:-1]),
        "preemptions": sum(r.get("outcome") == PREEMPTED for r in records[:-1]),
        "killed_attempts": sum(r.get("outcome") == RUNNING for r in records[:-1]),
        "steps_lost": lost,
        "resumed_from_step": records[-1].get("resumed_from") if records else None,
        "concurrent_attempts": len(concurrent),
    }


def still_running(record: dict) -> bool:
    """A record marked running whose process still runs on this host (the same process, not a
    later one with its number, nor a zombie): an attempt in progress elsewhere, not one that was
    killed. Records of other hosts count as killed."""
    pid = record.get("pid")
    return (
        record.get("outcome") == RUNNING
        and record.get("host") == socket.gethostname()
        and pid is not None
        and pid != os.getpid()
        and is_running(pid, record["started_at"])
    )
