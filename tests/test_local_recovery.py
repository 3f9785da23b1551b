"""Two identical local runs started at once both succeed without touching each other's temp
folders, and end with the weights of a run alone. (kill -9 of a local run and its rerun:
tests/test_kill_anywhere.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from tests.graph import copy_store
from tests.launch_harness import LONG_MLM, materialization, materialize_training, weights_digest

REPO = Path(__file__).resolve().parents[1]
RUN_ONE = """
import json, sys, dagster as dg
from resources.artifact_store import ArtifactStore
from resources.launchers import TrainingLauncher
from tests.launch_harness import LONG_MLM, materialization, materialize_training
with dg.instance_for_test() as instance:
    result = materialize_training(sys.argv[1], TrainingLauncher(), instance, overrides=LONG_MLM)
    print("METADATA", json.dumps(materialization(result), default=str))
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


@pytest.fixture(scope="module")
def uninterrupted(tiny_graph, tmp_path_factory) -> str:
    root = copy_store(tiny_graph.root, tmp_path_factory.mktemp("clean") / "store")
    with dg.instance_for_test() as instance:
        result = materialize_training(root, TrainingLauncher(), instance, overrides=LONG_MLM)
    return weights_digest(materialization(result))


def test_two_identical_runs_at_once_both_succeed(tiny_graph, uninterrupted, tmp_path):
    root = copy_store(tiny_graph.root, tmp_path / "store")
    runs = [start_run(root), start_run(root)]
    outputs = [run.communicate(timeout=300)[0].decode() for run in runs]
    assert [run.returncode for run in runs] == [0, 0], "\n".join(o[-3000:] for o in outputs)
    assert "ArtifactIntegrityError" not in "".join(outputs)
    # each run that trained counts its own attempt; the other's, running at the same time, is
    # concurrent, not killed
    trained = [
        json.loads(line.removeprefix("METADATA "))
        for output in outputs
        for line in output.splitlines()
        if line.startswith("METADATA ")
    ]
    trained = [m for m in trained if not m["memoized"]]
    assert trained and all(m["killed_attempts"] == 0 for m in trained), trained
    entry = ArtifactStore(root=str(root)).current_ref("mlm_backbone").verified()
    assert weights_digest({"artifact_path": entry.path}) == uninterrupted


def test_releasing_a_committed_entrys_checkpoints_spares_a_live_writers(tmp_path):
    """The run that commits first releases the checkpoints; the identical run still training
    keeps the checkpoint it is writing (its owner is alive), a dead writer's goes."""
    import socket

    from ml_assets.core.infra.io import temp_name

    store = ArtifactStore(root=str(tmp_path))
    root = store.checkpoint_root("mlm_backbone", "f" * 32)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (root / "attempts").mkdir(parents=True)
    (root / "step-00000005").mkdir()
    live = root / temp_name("step-00000010")  # this process: alive
    live.mkdir()
    gone = root / f".tmp-step-00000010.{int(dead.stdout)}@{socket.gethostname()}.0123456789ab"
    gone.mkdir()
    store.release_checkpoints("mlm_backbone", "f" * 32)
    assert sorted(p.name for p in root.iterdir()) == sorted(["attempts", live.name])
