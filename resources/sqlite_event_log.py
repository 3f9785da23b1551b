"""The local instance's event log on SQLite, keeping its database connections between events.

Dagster's ``SqliteEventLogStorage`` builds a new SQLAlchemy engine for every read and write:
it opens the database file, compiles the statement afresh (the statement cache belongs to the
engine that is thrown away) and closes the file again. A run writes each of its events that
way, to its own database and to the index database, and a memo-hit run of the whole graph over
a month of days writes about 800 of them (``benchmarks/run_records.py``: half the run's time).

``PooledSqliteEventLogStorage`` is that storage with one engine per database file, kept for
the most recently used files (a webserver reading many runs does not keep them all open).
The files, tables and transactions are Dagster's own, so an instance can switch to it and back.
Access stays serialized by the storage's lock, as in Dagster's, and a forked child opens its own
connections instead of sharing its parent's.

Two things Dagster's storage got from closing the database after every event are kept:
- A process watching a run's log (the webserver streaming it live) is woken when the run's
  database file changes. The databases are in WAL mode: a kept connection commits into the
  ``-wal`` file, and the database file itself changes only at a checkpoint. So each stored
  event touches the run's database file.
- Wiping the instance deletes the run databases: its connections to them are let go first and
  after. (Another process that keeps connections, such as a running ``dg dev``, keeps reading
  the deleted files until it restarts: wipe with the webserver stopped.)
"""

from __future__ import annotations

import contextlib
import os
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
)
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine

KEPT_DATABASES = 16  # run databases and the index: a run uses two at a time


class PooledSqliteEventLogStorage(SqliteEventLogStorage):
    """``SqliteEventLogStorage`` that keeps one engine, and its connection, per database file.

    In dagster.yaml (scripts/init_dagster_home.sh writes it)::

        event_log_storage:
          module: resources.sqlite_event_log
          class: PooledSqliteEventLogStorage
          config:
            base_dir: /absolute/path/to/DAGSTER_HOME/history/runs
    """

    def __init__(self, base_dir: str, inst_data=None):
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_pid = os.getpid()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> PooledSqliteEventLogStorage:
        return cls(inst_data=inst_data, **config_value)

    def _engine(self, shard: str) -> Engine:
        """The shard's engine (the caller holds ``_db_lock``)."""
        if self._engines_pid != os.getpid():  # a forked child: its parent's connections stay its
            self._let_go_engines()
        engine = self._engines.get(shard)
        if engine is None:
            engine = create_engine(
                self.conn_string_for_shard(shard),
                pool_size=1,  # kept: the lock lets one connection out at a time
                max_overflow=4,  # opened and closed: creating a database's tables needs more
                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS},
            )
            self._engines[shard] = engine
            while len(self._engines) > KEPT_DATABASES:
                self._engines.popitem(last=False)[1].dispose()
        self._engines.move_to_end(shard)
        return engine

    def _let_go_engines(self) -> None:
        """Forget every kept engine, closing its connections unless they are a parent's (the
        caller holds ``_db_lock``)."""
        own = self._engines_pid == os.getpid()
        for engine in self._engines.values():
            engine.dispose(close=own)
        self._engines.clear()
        self._engines_pid = os.getpid()

    def _dispose_engines(self) -> None:
        with self._db_lock:
            self._let_go_engines()

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def store_event(self, event) -> None:
        super().store_event(event)
        with contextlib.suppress(FileNotFoundError):  # wiped meanwhile
            os.utime(self.path_for_shard(event.run_id))  # wakes watchers (module docstring)

    def wipe(self) -> None:
        self._dispose_engines()  # it deletes the run databases: no connection may outlive them
        super().wipe()
        self._dispose_engines()  # nor one another thread opened while they were being deleted

    def upgrade(self) -> None:
        self._dispose_engines()
        super().upgrade()
        self._dispose_engines()  # the schema changed under the kept connections

    def dispose(self) -> None:
        super().dispose()
        self._dispose_engines()


def instance_overrides(home: str) -> dict:
    """Overrides that give an instance in ``home`` this event log (``DagsterInstance.local_temp``,
    ``dg.instance_for_test``); the same files as Dagster's default layout."""
    return {
        "event_log_storage": {
            "module": __name__,
            "class": PooledSqliteEventLogStorage.__name__,
            "config": {"base_dir": os.path.join(os.path.abspath(home), "history", "runs")},
        }
    }
