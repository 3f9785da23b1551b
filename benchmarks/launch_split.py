"""A rerun of the whole graph where every asset is a memo hit, launched two ways, alternating in
the same hour: one run over the range of days with every asset (``dg launch --assets '*'
--partition-range``), and the quickstart's two runs (the days, then the models). Dagster plans
every asset check of a range run once per day, so the one run records a row per check and day.

Usage: python benchmarks/launch_split.py [--rounds N]   (from a checkout whose quickstart ran:
       its .dagster_home and artifacts/ hold the computed graph)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(*launches: list[str]) -> float:
    started = time.perf_counter()
    for launch in launches:
        subprocess.run(
            [str(Path(sys.executable).parent / "dg"), "launch", *launch],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    os.environ.setdefault("DAGSTER_HOME", str(REPO / ".dagster_home"))
    os.environ.update(HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    days = subprocess.run(
        [sys.executable, "-m", "ml_assets", "days"], cwd=REPO, check=True, capture_output=True,
        text=True,
    ).stdout.strip()  # fmt: skip
    one, two = [], []
    for _ in range(rounds):
        one.append(timed(["--assets", "*", "--partition-range", days]))
        two.append(timed(["--job", "daily_ingest", "--partition-range", days], ["--job", "models"]))
    print(f"one range run, every asset: {[round(s, 1) for s in one]} s")
    print(f"the days, then the models:  {[round(s, 1) for s in two]} s")
    print(f"ratio (one run / two runs): {statistics.mean(one) / statistics.mean(two):.2f}x")


if __name__ == "__main__":
    main()
