"""Installing the project into a fresh venv: uv (what scripts/install.sh uses) against pip,
both from cold caches (their own, in a temporary folder), the same requirements (CPU torch and
the project with its dev extras), pip's find-links setting passed to uv as the installer does.
Both measured in this run, one after the other; neither byte-compiles (as in CI).

    python3 benchmarks/venv_install.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REQUIREMENTS = ["torch==2.13.0", "-e", f"{REPO}[dev]"]


def find_links() -> list[str]:
    links = os.environ.get("PIP_FIND_LINKS", "").split()
    configured = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return links + configured.stdout.split()


def timed_install(folder: Path, installer: str) -> float:
    venv.create(folder / "venv", with_pip=True)
    python = str(folder / "venv" / "bin" / "python")
    env = {**os.environ, "PIP_CACHE_DIR": str(folder / "pip-cache"),
           "UV_CACHE_DIR": str(folder / "uv-cache")}  # fmt: skip
    run = lambda *argv: subprocess.run(argv, env=env, check=True, capture_output=True)  # noqa: E731
    started = time.perf_counter()
    if installer == "uv":
        run(python, "-m", "pip", "install", "--quiet", "uv>=0.9,<1")
        links = [arg for link in find_links() for arg in ("--find-links", link)]
        run(str(folder / "venv" / "bin" / "uv"), "pip", "install", "--quiet", "--python", python,
            *links, *REQUIREMENTS)  # fmt: skip
    else:
        run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        run(python, "-m", "pip", "install", "--quiet", "--no-compile", *REQUIREMENTS)
    return time.perf_counter() - started


def main() -> None:
    seconds = {}
    for installer in ("pip", "uv"):
        with tempfile.TemporaryDirectory() as scratch:
            seconds[installer] = timed_install(Path(scratch), installer)
        print(f"{installer}: {seconds[installer]:.1f} s")
    print(f"ratio pip / uv: {seconds['pip'] / seconds['uv']:.2f}x")


if __name__ == "__main__":
    main()
