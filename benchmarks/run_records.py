"""What a memoized run's records cost: the whole tiny graph re-materialized on a store that
already holds every entry (nothing is computed), recorded on
- Dagster's SQLite event log (``dg.instance_for_test``; what the local instance uses: it opens
  and closes the database for every event),
- an in-memory instance (``DagsterInstance.ephemeral``, what the memoization tests use; the
  baseline: the run's own work with nearly free records).
Same store, same process, interleaved rounds; the instances live in TMPDIR (tmpfs in the test
suite, so run it with TMPDIR on a disk too).

    .venv/bin/python benchmarks/run_records.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import dagster as dg

    from tests.graph import TINY_RANGE, compute_tiny_graph, materialize_tiny_graph

    with tempfile.TemporaryDirectory() as scratch:
        _, _, root = compute_tiny_graph(Path(scratch) / "graph")

        def memo_hit(instance) -> float:
            started = time.perf_counter()
            assert materialize_tiny_graph(root, instance).success
            return time.perf_counter() - started

        seconds: dict[str, list[float]] = {"sqlite": [], "in_memory": []}
        for _ in range(args.rounds):
            with dg.instance_for_test() as instance:
                seconds["sqlite"].append(memo_hit(instance))
            with dg.DagsterInstance.ephemeral() as instance:
                seconds["in_memory"].append(memo_hit(instance))
        with dg.DagsterInstance.ephemeral() as instance:  # what a run writes, counted once
            events = len(instance.all_logs(materialize_tiny_graph(root, instance).run_id))
    sqlite, memory = (statistics.median(seconds[k]) for k in ("sqlite", "in_memory"))
    print(f"tiny graph, every asset a memo hit ({events} events a run; {TINY_RANGE}):")
    for name, values in seconds.items():
        print(f"  {name:10s} median {statistics.median(values):5.2f} s  rounds {values}")
    print(f"ratio sqlite / in-memory: {sqlite / memory:.2f}x")


if __name__ == "__main__":
    main()
