"""kill -9 of a local run (the Dagster process and its training process together) at a seeded
random step, then a plain rerun: it resumes, reports the attempts and the lost steps truthfully,
ends bit-identical to an uninterrupted run, and leaves no checkpoint or temp folder behind.
Two identical runs started at once both succeed without touching each other's temp folders."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from ml_assets.core.attempt_ledger import LEDGER_DIR, current_job
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from tests.graph import copy_store
from tests.launch_harness import LONG_MLM, materialization, materialize_training, weights_digest

REPO = Path(__file__).resolve().parents[1]
RUN_ONE = """
import sys, dagster as dg
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from tests.launch_harness import LONG_MLM, materialize_training
with dg.instance_for_test() as instance:
    result = materialize_training(sys.argv[1], TrainingLauncher(), instance, overrides=LONG_MLM)
    sys.exit(0 if result.success else 1)
"""


def start_run(root: Path) -> subprocess.Popen:
    """A whole Dagster run in its own process group, as `dagster asset materialize` would be."""
    return subprocess.Popen(
        [sys.executable, "-c", RUN_ONE, str(root)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def ledger_records(root: Path) -> list[dict]:
    """The records of the job being written now (the copied store holds finished ones too)."""
    records = [f for f in (root / "_checkpoints" / "mlm_backbone").glob(f"*/{LEDGER_DIR}/*.json")]
    if not records:
        return []
    newest = max(records, key=lambda f: f.stat().st_mtime)
    return current_job(newest.parent.parent)


@pytest.fixture(scope="module")
def uninterrupted(tiny_graph, tmp_path_factory) -> str:
    root = copy_store(tiny_graph.root, tmp_path_factory.mktemp("clean") / "store")
    with dg.instance_for_test() as instance:
        result = materialize_training(root, TrainingLauncher(), instance, overrides=LONG_MLM)
    return weights_digest(materialization(result))


def test_a_rerun_after_kill_9_resumes_and_accounts_for_the_attempt(
    tiny_graph, uninterrupted, tmp_path
):
    kill_at = random.Random(20261201).randrange(7, LONG_MLM["steps"] - 4)
    root = copy_store(tiny_graph.root, tmp_path / "store")
    run = start_run(root)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        records = ledger_records(root)
        if records and (records[-1].get("last_step") or 0) >= kill_at:
            break
        assert run.poll() is None, run.stdout.read().decode()[-3000:]
        time.sleep(0.05)
    else:
        pytest.fail(f"training never reached step {kill_at}")
    os.killpg(run.pid, signal.SIGKILL)  # the run and its training process, no chance to clean up
    run.wait()
    killed_at = ledger_records(root)[-1]["last_step"]

    with dg.instance_for_test() as instance:
        result = materialize_training(root, TrainingLauncher(), instance, overrides=LONG_MLM)
    metadata = materialization(result)
    assert metadata["attempts"] == 2 and metadata["killed_attempts"] == 1
    resumed = metadata["resumed_from_step"]
    assert 0 < resumed <= killed_at
    assert metadata["steps_lost"] == killed_at - resumed
    assert weights_digest(metadata) == uninterrupted

    checkpoints = root / "_checkpoints" / "mlm_backbone" / metadata["fingerprint"]
    assert [p.name for p in checkpoints.iterdir()] == [LEDGER_DIR]  # released after the commit
    entries = root / "mlm_backbone"
    assert not [p for p in entries.iterdir() if p.name.startswith(".tmp-")]
    records = json.loads((checkpoints / LEDGER_DIR / "attempt-0002.json").read_text())
    assert records["outcome"] == "finished" and records["resumed_from"] == resumed


def test_two_identical_runs_at_once_both_succeed(tiny_graph, uninterrupted, tmp_path):
    root = copy_store(tiny_graph.root, tmp_path / "store")
    runs = [start_run(root), start_run(root)]
    outputs = [run.communicate(timeout=300)[0].decode() for run in runs]
    assert [run.returncode for run in runs] == [0, 0], "\n".join(o[-3000:] for o in outputs)
    assert "ArtifactIntegrityError" not in "".join(outputs)
    entry = ArtifactStore(root=str(root)).current_ref("mlm_backbone").verified()
    assert weights_digest({"artifact_path": entry.path}) == uninterrupted
