"""The local instance's event log (resources/sqlite_event_log.py): Dagster's SQLite files and
tables, written through connections it keeps instead of one per event."""

from __future__ import annotations

import multiprocessing
import subprocess
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.utils import make_new_run_id

import resources.sqlite_event_log as event_log
from resources.sqlite_event_log import PooledSqliteEventLogStorage

REPO = Path(__file__).resolve().parents[1]


@dg.asset
def numbers() -> list[int]:
    return [1, 2, 3]


@dg.asset
def total(numbers: list[int]) -> int:
    return sum(numbers)


def entry(run_id: str, message: str) -> dg.EventLogEntry:
    return dg.EventLogEntry(
        error_info=None, level="INFO", user_message=message, run_id=run_id, timestamp=time.time()
    )


@pytest.fixture
def home(tmp_path) -> Path:
    subprocess.run(["bash", str(REPO / "scripts/init_dagster_home.sh"), str(tmp_path)], check=True)
    return tmp_path


def run_records(home: Path, run_id: str) -> list:
    """The run's events as Dagster's own SQLite storage reads them from the same files."""
    plain = SqliteEventLogStorage(str(home / "history" / "runs"))
    try:
        return plain.get_logs_for_run(run_id)
    finally:
        plain.dispose()


def test_the_local_instance_writes_dagsters_files_through_kept_connections(home, monkeypatch):
    engines = []
    real_create_engine = event_log.create_engine
    monkeypatch.setattr(
        event_log,
        "create_engine",
        lambda *a, **k: engines.append(a[0]) or real_create_engine(*a, **k),
    )
    with dg.DagsterInstance.from_config(str(home)) as instance:
        storage = instance.event_log_storage
        assert isinstance(storage, PooledSqliteEventLogStorage)
        first = dg.materialize([numbers, total], instance=instance)
        second = dg.materialize([numbers, total], instance=instance)
        events = instance.all_logs(second.run_id)
        # Dagster's storage builds an engine per read and write; this one per database file
        assert len(events) > 20 and len(engines) <= 3
        assert instance.get_latest_materialization_event(dg.AssetKey("total")).run_id == (
            second.run_id
        )
    for result in (first, second):
        assert len(run_records(home, result.run_id)) == len(events)


def test_it_keeps_only_the_most_recent_databases_open(home, monkeypatch):
    monkeypatch.setattr(event_log, "KEPT_DATABASES", 2)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        runs = [dg.materialize([numbers], instance=instance).run_id for _ in range(3)]
        storage = instance.event_log_storage
        assert set(storage._engines) == {runs[-1], "index"}
        for run_id in runs:  # a database whose engine was let go opens again
            assert instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_SUCCESS)


def test_a_wiped_run_database_is_written_afresh_not_through_its_old_connection(home):
    with dg.DagsterInstance.from_config(str(home)) as instance:
        run_id = dg.materialize([numbers], instance=instance).run_id
        storage = instance.event_log_storage
        storage.wipe()  # deletes the run's database file, whose connection was kept
        assert not instance.all_logs(run_id)
        storage.store_event(entry(run_id, "after the wipe"))
    # in the file on disk, not in the deleted one
    assert [e.user_message for e in run_records(home, run_id)] == ["after the wipe"]


def _in_child(storage: PooledSqliteEventLogStorage, run_id: str, out) -> None:
    """The child's count of the run's events, and of the engines it built to read them."""
    built = []
    real_create_engine = event_log.create_engine
    event_log.create_engine = lambda *a, **k: built.append(a[0]) or real_create_engine(*a, **k)
    out.put((len(storage.get_logs_for_run(run_id)), len(built)))


def test_a_forked_child_opens_its_own_connections(home):
    with dg.DagsterInstance.from_config(str(home)) as instance:
        result = dg.materialize([numbers], instance=instance)
        storage = instance.event_log_storage
        expected = len(storage.get_logs_for_run(result.run_id))
        fork = multiprocessing.get_context("fork")
        out = fork.Queue()
        child = fork.Process(target=_in_child, args=(storage, result.run_id, out))
        child.start()
        child.join(timeout=60)
        assert child.exitcode == 0
        events, engines_built = out.get(timeout=5)
        assert events == expected and engines_built >= 1  # not the parent's connection
        # the parent's kept connections still work after the child closed its own
        again = dg.materialize([numbers], instance=instance)
        assert instance.all_logs(again.run_id)


def test_a_process_watching_a_run_sees_each_event_as_it_is_stored(home):
    """What the webserver does to stream a run's log live: it is woken by the run's database
    file changing, which a kept connection in WAL mode would not do by itself."""
    run_id = make_new_run_id()
    seen: list[str] = []
    with (
        dg.DagsterInstance.from_config(str(home)) as writer,
        dg.DagsterInstance.from_config(str(home)) as webserver,
    ):
        writer.event_log_storage.store_event(entry(run_id, "the run's database is created"))
        callback = lambda event, _cursor: seen.append(event.user_message)  # noqa: E731
        webserver.event_log_storage.watch(run_id, None, callback)
        for number in range(3):
            writer.event_log_storage.store_event(entry(run_id, f"event {number}"))
        expected = ["event 0", "event 1", "event 2"]
        deadline = time.monotonic() + 20
        while seen[-3:] != expected and time.monotonic() < deadline:
            time.sleep(0.1)
        webserver.event_log_storage.end_watch(run_id, callback)
    assert seen[-3:] == expected, seen
