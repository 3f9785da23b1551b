"""Installing the project into a fresh venv: the shipped installer (``venv_install`` of
scripts/venv_install.sh: uv, pip's find-links passed on) against plain pip, both from cold
caches (their own, in a temporary folder), the same requirements (CPU torch and the project
with its dev extras). Both measured in this run, one after the other; neither byte-compiles
(as in CI).

    python3 benchmarks/venv_install.py
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REQUIREMENTS = ["torch==2.13.0", "-e", f"{REPO}[dev]"]


def timed_install(folder: Path, installer: str) -> float:
    venv.create(folder / "venv", with_pip=True)
    python = str(folder / "venv" / "bin" / "python")
    env = {**os.environ, "PIP_CACHE_DIR": str(folder / "pip-cache"),
           "UV_CACHE_DIR": str(folder / "uv-cache")}  # fmt: skip

    def run(*argv: str) -> str:
        done = subprocess.run(argv, env=env, cwd=REPO, check=True, capture_output=True, text=True)
        return done.stderr

    started = time.perf_counter()
    if installer == "uv":
        script = 'source scripts/venv_install.sh && venv_install "$@"'
        env["TXN_PIP_NO_COMPILE"] = "1"
        said = run("bash", "-c", script, "venv_install", str(folder / "venv"), *REQUIREMENTS)
        assert "uv failed" not in said, said  # the fallback would time pip twice
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
