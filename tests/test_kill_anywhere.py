"""kill -9 anywhere in the whole graph, several times in a row, and no hands on the keyboard.

The whole graph in one `dg launch --assets '*'` over every day, as a user may launch it (on the local
instance `scripts/init_dagster_home.sh` writes) is killed with its training
process, at seeded points: part-way through ingestion's days, part-way through the features'
days, mid-pretraining, mid-finetuning, and mid-export. Each time the very same command is
simply launched again. The launch after the last kill completes the graph, and what it built is
bit-identical to the uninterrupted tiny graph: every day's rows and quarantine, every features
file, the backbone's and the finetuned model's weights, the int8 ONNX model. The killed runs
are failed and their `gpu` slots freed by the instance itself, the training accounts for every
attempt and lost step, and nothing of a dead writer is left in the store.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pytest

from ml_assets.core.infra.attempt_ledger import FINISHED, LEDGER_DIR, RUNNING, current_job
from ml_assets.core.infra.io import sha256_file
from ml_assets.core.params import load_params
from tests.graph import TINY_DAYS

REPO = Path(__file__).resolve().parents[1]
DG = str(Path(sys.executable).parent / "dg")
SEED = 20261201
ENTRY = re.compile(r"^[0-9a-f]{32}$")
# the files whose bytes a run must reproduce, per asset (the rest is metadata: times, run ids)
PRODUCTS = {
    "raw_transactions": ("transactions.jsonl", "quarantine.parquet"),
    "transaction_features": ("features.parquet",),
    "mlm_backbone": ("model.safetensors",),
    "multitask_model": ("model.safetensors",),
    "onnx_model": ("model_int8.onnx", "model_fp32.onnx"),
}

pytestmark = pytest.mark.slow


def entries(store: Path, asset: str) -> list[Path]:
    folder = store / asset
    return [p for p in folder.iterdir() if ENTRY.match(p.name)] if folder.is_dir() else []


def products(store: Path) -> dict[str, list[str]]:
    """Per asset, the sorted sha256 of its products over all its entries."""
    digests = {}
    for asset, names in PRODUCTS.items():
        digests[asset] = sorted(
            f"{name}:{sha256_file(entry / name)}"
            for entry in entries(store, asset)
            for name in names
            if (entry / name).exists()
        )
    return digests


def attempt_records(store: Path, asset: str) -> list[dict]:
    jobs = list((store / "_checkpoints" / asset).glob(f"*/{LEDGER_DIR}"))
    return current_job(jobs[0].parent) if jobs else []


class Launches:
    """The user's command, launched again and again on one store and one DAGSTER_HOME."""

    def __init__(self, tmp_path: Path):
        self.home, self.store, self.logs = tmp_path / "home", tmp_path / "store", tmp_path
        subprocess.run(
            ["bash", str(REPO / "scripts/init_dagster_home.sh"), str(self.home)], check=True
        )
        self.env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "DAGSTER_HOME": str(self.home),
            "TXN_ARTIFACTS_DIR": str(self.store),
            "TXN_PARAMS_PROFILE": "tiny",
            "TXN_REGISTRY_SQLITE": str(tmp_path / "registry.sqlite"),
        }
        self.count = 0
        self.seconds: list[float] = []  # each launch, start to exit or kill

    def start(self) -> subprocess.Popen:
        self.count += 1
        log = open(self.logs / f"launch-{self.count}.log", "wb")  # noqa: SIM115 - the child owns it
        argv = [
            DG,
            "launch",
            "--assets",
            "*",
            "--partition-range",
            f"{TINY_DAYS[0]}...{TINY_DAYS[-1]}",
        ]
        # its own session: killpg reaches the CLI and the training process it started
        return subprocess.Popen(
            argv,
            cwd=REPO,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        return (self.logs / f"launch-{self.count}.log").read_text(errors="replace")[-4000:]

    def kill_when(self, ready: Callable[[], bool], what: str) -> None:
        began, run = time.monotonic(), self.start()
        deadline = time.monotonic() + 300
        while not ready():
            if run.poll() is not None:
                pytest.fail(f"launch {self.count} ended before {what}:\n{self.output()}")
            if time.monotonic() > deadline:
                os.killpg(run.pid, signal.SIGKILL)
                pytest.fail(f"launch {self.count} never reached {what}")
            time.sleep(0.02)
        os.killpg(run.pid, signal.SIGKILL)  # the run and its training process, no clean-up
        run.wait(timeout=30)
        self.seconds.append(time.monotonic() - began)

    def run_to_the_end(self) -> None:
        began, run = time.monotonic(), self.start()
        assert run.wait(timeout=600) == 0, self.output()
        self.seconds.append(time.monotonic() - began)

    def instance(self) -> dg.DagsterInstance:
        return dg.DagsterInstance.from_config(str(self.home))


def newest_run_steps(instance: dg.DagsterInstance, event: dg.DagsterEventType) -> set[str]:
    (run,) = instance.get_runs(limit=1)
    return {e.step_key for e in instance.all_logs(run.run_id, of_type=event)}


def computed(instance: dg.DagsterInstance, asset: str) -> list[dict]:
    """Metadata of the materializations that computed `asset` (not memo hits), oldest first."""
    records = instance.fetch_materializations(dg.AssetKey(asset), limit=1000).records
    found = []
    for record in reversed(records):
        metadata = record.asset_materialization.metadata
        if "memoized" in metadata and not metadata["memoized"].value:
            found.append({k: v.value for k, v in metadata.items()})
    return found


def assert_accounted(metadata: dict, records: list[dict], checkpoint_every: int) -> None:
    """The job's own records (one per attempt) agree with what it reported: every killed
    attempt was followed by one that resumed from a checkpoint it had written, and the steps
    lost are exactly those redone after each resume."""
    assert [r["outcome"] for r in records] == [RUNNING] * (len(records) - 1) + [FINISHED]
    for killed, resumed in zip(records, records[1:], strict=False):
        step = resumed["resumed_from"]
        assert step is not None and step % checkpoint_every == 0, (killed, resumed)
        # from the newest checkpoint the killed attempt recorded (or one committed just after)
        assert 0 < killed["last_checkpoint"] <= step <= killed["last_step"], (killed, resumed)
    assert metadata["attempts"] == len(records)
    assert metadata["killed_attempts"] == len(records) - 1
    assert metadata["resumed_from_step"] == records[-1]["resumed_from"]
    lost = sum(
        k["last_step"] - r["resumed_from"] for k, r in zip(records, records[1:], strict=False)
    )
    assert metadata["steps_lost"] == lost


def test_kill_9_anywhere_several_times_in_a_row_then_one_plain_launch_completes(request, tmp_path):
    rng = random.Random(SEED)
    days = len(TINY_DAYS)
    launches = Launches(tmp_path)
    store = launches.store
    kills: list[tuple[str, str]] = []  # (step killed in, where)

    def in_progress(step: str) -> None:
        with launches.instance() as instance:
            started = newest_run_steps(instance, dg.DagsterEventType.STEP_START)
            succeeded = newest_run_steps(instance, dg.DagsterEventType.STEP_SUCCESS)
        assert step in started and step not in succeeded, f"the kill missed {step}: {kills}"

    # ingestion and features: after a seeded number of their days is committed
    for asset in ("raw_transactions", "transaction_features"):
        target = len(entries(store, asset)) + rng.randint(1, days // 2)
        launches.kill_when(
            lambda a=asset, t=target: len(entries(store, a)) >= t, f"{asset} day {target}"
        )
        # (on a busy machine the last days may commit between the poll and the kill: a kill
        # after the last day's commit and before the step's success is a kill in it too)
        in_progress(asset)
        kills.append((asset, f"{len(entries(store, asset))} of {days} days committed"))

    # training: once this launch's attempt record (rewritten every half second and at each
    # checkpoint) reaches a seeded step: pretraining past its first checkpoint (tiny: step 3
    # of 6), finetuning past its second checkpoint (every 10 steps) (the checkpoint recorded
    # too: under load a step's progress is written before its checkpoint). Killed twice in a
    # row and resumed each time: tests/test_gcp_launcher.py's preemptions.
    training = [("mlm_backbone", 3, 3), ("multitask_model", rng.randint(21, 25), 20)]
    for asset, step, checkpoint in training:
        earlier = len(attempt_records(store, asset))

        def reached(a=asset, s=step, c=checkpoint, n=earlier) -> bool:
            records = attempt_records(store, a)
            return (
                len(records) > n
                and records[-1]["outcome"] == RUNNING
                and (records[-1].get("last_step") or 0) >= s
                and (records[-1].get("last_checkpoint") or 0) >= c
            )

        launches.kill_when(reached, f"{asset} step {step}")
        in_progress(asset)
        record = attempt_records(store, asset)[-1]
        assert record["outcome"] == RUNNING  # killed mid-training, never told
        kills.append((asset, f"attempt {record['attempt']} at step {record['last_step']}"))

    # export: a seeded moment after its step started (it takes seconds; a kill after it ended
    # would fail the check below)
    delay = rng.uniform(0.0, 1.0)

    def exporting(instance: dg.DagsterInstance) -> bool:
        if "onnx_model" not in newest_run_steps(instance, dg.DagsterEventType.STEP_START):
            return False
        time.sleep(delay)
        return True

    # one instance for all the polls: opening one every 20 ms took CPU from the launch
    with launches.instance() as watching:
        launches.kill_when(lambda: exporting(watching), "onnx_model")
    in_progress("onnx_model")
    kills.append(("onnx_model", f"{delay:.2f} s into the export"))

    launches.run_to_the_end()
    print("killed at:", json.dumps(kills))
    print("launch seconds:", [round(s, 1) for s in launches.seconds])

    # what the interrupted launches built equals what the uninterrupted graph built (asked for
    # only now: another worker computes it while these launches run)
    tiny_graph = request.getfixturevalue("tiny_graph")
    assert products(store) == products(tiny_graph.root)
    for asset in PRODUCTS:
        assert len(entries(store, asset)) == len(entries(tiny_graph.root, asset)), asset

    with launches.instance() as instance:
        runs = instance.get_runs()
        assert [r.status for r in runs] == [dg.DagsterRunStatus.SUCCESS] + [
            dg.DagsterRunStatus.FAILURE
        ] * len(kills)
        assert not instance.event_log_storage.get_concurrency_info("gpu").claimed_slots
        (mlm,) = computed(instance, "mlm_backbone")
        (finetune,) = computed(instance, "multitask_model")

    # the training accounted for every attempt, from its own records beside the checkpoints
    tiny = load_params(profile="tiny")
    assert_accounted(
        mlm, attempt_records(store, "mlm_backbone"), tiny.mlm_backbone.checkpoint_every
    )
    assert_accounted(
        finetune, attempt_records(store, "multitask_model"), tiny.multitask_model.eval_every
    )
    assert (mlm["attempts"], mlm["killed_attempts"]) == (2, 1)
    assert (finetune["attempts"], finetune["killed_attempts"]) == (2, 1)

    # nothing of a dead writer is left: no temp folder or file, no checkpoint past its commit
    leftovers = [p for p in store.rglob("*") if ".tmp-" in p.name]
    assert not leftovers, leftovers
    for asset in ("mlm_backbone", "multitask_model"):
        for job in (store / "_checkpoints" / asset).iterdir():
            assert [p.name for p in job.iterdir()] == [LEDGER_DIR]
