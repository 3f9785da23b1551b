"""Training on "GCP": the real google-cloud-batch client against a local fake of the Batch REST
API (tests/fake_gcp_batch.py), Pipes context/messages and checkpoints through the real
fake-gcs-server, Spot preemption injected the way GCE does it (SIGTERM, grace, SIGKILL, exit
50001, Batch retry)."""

from __future__ import annotations

import random

import dagster as dg
import pytest

from tests.fake_gcp_batch import FakeBatch, Preemption
from tests.launch_harness import (
    LONG_MLM,
    REPO,
    batch_launcher,
    build_upstream,
    copy_store,
    gcs_bucket,
    materialization,
    materialize_training,
    weights_digest,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    root = tmp_path_factory.mktemp("upstream")
    build_upstream(root)
    return root


@pytest.fixture(scope="module")
def uninterrupted(upstream, gcs_emulator, tmp_path_factory):
    """One clean Batch run of the long MLM config: the reference for every resume test."""
    root = copy_store(upstream, tmp_path_factory.mktemp("clean") / "store")
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        result = materialize_training(
            root, batch_launcher(batch.url, gcs_bucket()), instance, overrides=LONG_MLM
        )
        logs = [e.message for e in instance.all_logs(result.run_id) if e.message]
        return materialization(result), logs, batch


def test_batch_job_materializes_with_logs_and_cost(uninterrupted):
    metadata, logs, batch = uninterrupted
    assert metadata["launcher"] == "gcp_batch"
    assert metadata["steps"] == LONG_MLM["steps"]
    assert metadata["attempts"] == 1 and metadata["preemptions"] == 0
    assert metadata["provisioning"] == "SPOT" and metadata["tier"] == "standard"
    assert metadata["gpu_type"] == "nvidia-tesla-a100" and metadata["gpu_count"] == 1
    assert metadata["gpu_hours"] > 0
    # priced from params: spot A100 at 1.47 USD/GPU-h; on-demand at 3.67
    assert metadata["estimated_cost_usd"] == pytest.approx(metadata["gpu_hours"] * 1.47, rel=1e-3)
    assert metadata["spot_savings_usd"] > 0
    job = next(iter(batch.jobs.values()))
    assert job.state == "SUCCEEDED" and metadata["batch_job"] == job.name
    spec = job.spec["taskGroups"][0]["taskSpec"]
    assert spec["environment"]["variables"]["TXN_PIPES_TRANSPORT"] == "gcs"
    # the process's own log lines arrived in the Dagster run through GCS
    assert any("checkpoint saved" in line for line in logs)
    assert any("submitted Cloud Batch job" in line for line in logs)


def test_two_preemptions_resume_bit_identical(uninterrupted, upstream, gcs_emulator, tmp_path):
    reference, _, _ = uninterrupted
    rng = random.Random(20261130)
    first, second = sorted(rng.sample(range(2, LONG_MLM["steps"] - 2), 2))
    root = copy_store(upstream, tmp_path / "store")
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        # attempt 0: SIGTERM with a grace period (emergency checkpoint, nothing lost);
        # attempt 1: hard stop, no grace (the periodic checkpoint is all there is)
        batch.preemptions = {
            0: Preemption(at_step=first, grace_seconds=20),
            1: Preemption(at_step=second, grace_seconds=0),
        }
        result = materialize_training(
            root, batch_launcher(batch.url, gcs_bucket()), instance, overrides=LONG_MLM
        )
        observations = [
            r.event_log_entry.asset_observation.metadata
            for r in instance.fetch_observations(dg.AssetKey("mlm_backbone"), limit=10).records
        ]
    metadata = materialization(result)
    job = next(iter(batch.jobs.values()))
    assert job.exit_codes == [50001, 50001, 0], job.logs[-20:]
    assert metadata["attempts"] == 3 and metadata["preemptions"] == 2
    assert 0 <= metadata["steps_lost"] <= LONG_MLM["checkpoint_every"]
    assert metadata["steps"] == LONG_MLM["steps"]
    assert weights_digest(metadata) == weights_digest(reference)
    assert metadata["final_mlm_loss"] == reference["final_mlm_loss"]
    assert any("emergency" in line or "SIGTERM received" in line for line in job.logs)
    events = [o["gpu_event"].value for o in observations]
    assert events.count("preempted") == 2


def test_batch_gives_up_then_launcher_resubmits_on_demand(upstream, gcs_emulator, tmp_path):
    """Batch's retry budget exhausted by preemptions -> the launcher resubmits; after
    `on_demand_after_preemptions` it asks for STANDARD VMs (and records the fallback)."""
    root = copy_store(upstream, tmp_path / "store")
    params = tmp_path / "params.yaml"
    params.write_text(
        (REPO / "params.yaml")
        .read_text()
        .replace("batch_task_retries: 3", "batch_task_retries: 0")
        .replace("on_demand_after_preemptions: 3", "on_demand_after_preemptions: 1")
    )
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        batch.preemptions = {0: Preemption(at_step=3, grace_seconds=20)}
        result = materialize_training(
            root,
            batch_launcher(batch.url, gcs_bucket()),
            instance,
            overrides=LONG_MLM,
            params_path=str(params),
        )
        events = [
            r.event_log_entry.asset_observation.metadata["gpu_event"].value
            for r in instance.fetch_observations(dg.AssetKey("mlm_backbone"), limit=10).records
        ]
    metadata = materialization(result)
    jobs = list(batch.jobs.values())
    assert [j.state for j in jobs] == ["FAILED", "SUCCEEDED"]
    models = [
        j.spec["allocationPolicy"]["instances"][0]["policy"]["provisioningModel"] for j in jobs
    ]
    assert [str(m) for m in models] in (["SPOT", "STANDARD"], ["2", "1"])
    assert metadata["provisioning"] == "STANDARD" and metadata["fell_back_to_on_demand"]
    assert metadata["attempts"] == 2 and metadata["preemptions"] == 1
    assert sorted(events) == ["fell_back_to_on_demand", "preempted"]
