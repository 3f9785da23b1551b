"""Threads per test worker: the whole tiny graph built by as many processes side by side as the
machine has cores (what the test suite's pytest-xdist workers do), each with torch's and BLAS's
default of one thread per core, against each with its share of the cores (``OMP_NUM_THREADS``,
as tests/conftest.py sets it). Both measured in this run; each graph goes to its own temporary
store and instance.

    .venv/bin/python benchmarks/worker_threads.py [--processes N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = "import sys; from pathlib import Path; from tests.graph import compute_tiny_graph; " + (
    "compute_tiny_graph(Path(sys.argv[1]))"
)


def side_by_side(processes: int, threads: int | None) -> float:
    """Seconds until every one of `processes` tiny-graph builds started at once has finished."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TOKENIZERS_PARALLELISM": "false"}
    env.pop("OMP_NUM_THREADS", None)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        builds = [
            subprocess.Popen(
                [sys.executable, "-c", BUILD, str(Path(scratch) / f"graph-{n}")],
                cwd=REPO,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for n in range(processes)
        ]
        for build in builds:
            _, err = build.communicate()
            assert build.returncode == 0, err.decode()[-3000:]
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    parser.add_argument("--processes", type=int, default=cores)
    args = parser.parse_args()
    share = max(1, cores // args.processes)
    default = side_by_side(args.processes, None)
    shared = side_by_side(args.processes, share)
    print(f"cores: {cores}, tiny graphs built side by side: {args.processes}")
    print(f"  a thread per core in each (default):  {default:6.1f} s")
    print(f"  {share} thread(s) each (OMP_NUM_THREADS):  {shared:6.1f} s")
    print(f"  speedup: {default / shared:.2f}x")


if __name__ == "__main__":
    main()
