"""A real PostgreSQL server for the production tests, from the binaries the `pgserver` wheel
ships (so a fresh machine needs only pip): initdb with a password, listening on a free
127.0.0.1 port, stopped and deleted at the end. Dagster connects to it over TCP with the same
`postgres_db` settings as deploy/dagster.yaml."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.cloud_servers import _free_port


class Postgres(NamedTuple):
    host: str
    port: int
    user: str
    password: str
    db_name: str
    pg_ctl: Callable[..., subprocess.CompletedProcess]  # pg_ctl(*args) on this server

    def restart(self) -> float:
        """Stop the server (fast: connections are cut) and start it again; seconds it was down."""
        began = time.monotonic()
        self.pg_ctl("-m", "fast", "-w", "restart").check_returncode()
        return time.monotonic() - began

    def env(self) -> dict[str, str]:
        """The variables deploy/dagster.yaml reads."""
        return {
            "DAGSTER_PG_HOST": self.host,
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_USER": self.user,
            "DAGSTER_PG_PASSWORD": self.password,
            "DAGSTER_PG_DB": self.db_name,
        }


def _run_as(user: str | None) -> dict:
    # postgres refuses to run as root; as root, use the unprivileged account pgserver itself uses
    return {"user": user} if user else {}


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    try:
        from pgserver._commands import POSTGRES_BIN_PATH
        from pgserver.utils import ensure_folder_permissions, ensure_user_exists
    except ImportError:
        pytest.skip("pgserver not installed: install the dev extra")
    user = None
    if os.geteuid() == 0:
        # pgserver runs `useradd`, which lives in /usr/sbin: not on every root's PATH
        with pytest.MonkeyPatch.context() as patch:
            paths = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
            patch.setenv("PATH", os.pathsep.join(dict.fromkeys([*paths, "/usr/sbin", "/sbin"])))
            user = ensure_user_exists("pgserver").pw_name
        ensure_folder_permissions(POSTGRES_BIN_PATH, 0o055)
        ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", 0o044)
    # its own folder in /tmp (world-traversable), owned by the server's account
    base = Path(tempfile.mkdtemp(prefix="txn-pg-"))
    base.chmod(0o755)
    pgdata, log = base / "data", base / "postgres.log"
    password = secrets.token_urlsafe(16)
    pwfile = base / "pw"
    pwfile.write_text(password)
    if user:
        shutil.chown(base, user)
        shutil.chown(pwfile, user)
    port = _free_port()
    bin_ = POSTGRES_BIN_PATH
    kw = _run_as(user)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, **kw}
    subprocess.run(
        [
            bin_ / "initdb",
            "-D",
            pgdata,
            "-U",
            "dagster",
            f"--pwfile={pwfile}",
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--no-sync",
        ],
        check=True,
        **quiet,
    )
    pwfile.unlink()
    options = f"-h 127.0.0.1 -p {port} -k {base} -c fsync=off -c max_connections=200"

    def pg_ctl(*args: str) -> subprocess.CompletedProcess:
        argv = [bin_ / "pg_ctl", "-D", pgdata, "-l", log, "-o", options, "-t", "60", *args]
        return subprocess.run(argv, **quiet)

    started = time.monotonic()
    proc = pg_ctl("-w", "start")
    if proc.returncode != 0:
        pytest.fail(f"postgres did not start: {proc.stderr!r}\n{log.read_text()}")
    env = {**os.environ, "PGPASSWORD": password}
    subprocess.run(
        [bin_ / "createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "dagster", "dagster"],
        check=True,
        env=env,
        **quiet,
    )
    print(f"postgres {port} up in {time.monotonic() - started:.1f} s")
    try:
        yield Postgres("127.0.0.1", port, "dagster", password, "dagster", pg_ctl)
    finally:
        pg_ctl("-m", "immediate", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)
