"""Training on "GCP": the real google-cloud-batch client against a local fake of the Batch REST
API (tests/fake_gcp_batch.py), Pipes context/messages and checkpoints through the real
fake-gcs-server, Spot preemption injected the way GCE does it (SIGTERM, grace, SIGKILL, exit
50001, Batch retry)."""

from __future__ import annotations

import random

import dagster as dg
import pytest
from dagster._core.pipes import utils as pipes_utils

from tests.fake_gcp_batch import FakeBatch, Preemption
from tests.graph import copy_store
from tests.launch_harness import (
    LONG_MLM,
    REPO,
    batch_launcher,
    gcs_bucket,
    materialization,
    materialize_training,
    upstream_of,
    weights_digest,
)
from tests.slack_receiver import SlackReceiver

pytestmark = pytest.mark.slow
# A Pipes session that ends without the process's "closed" message (a job Batch gave up on or
# cancelled) makes Dagster's message reader wait for late log lines until more than this many
# whole seconds have passed: 10. The fake's tasks have written their last lines by then; the
# tests that end such sessions set 1 (a wait of about 2 s).
PIPES_WAIT_SECONDS = 1


@pytest.fixture(scope="module")
def upstream(tiny_graph, tmp_path_factory):
    return upstream_of(tiny_graph.root, tmp_path_factory.mktemp("upstream") / "store")


@pytest.fixture(scope="module")
def uninterrupted(upstream, gcs_emulator, tmp_path_factory):
    """One clean Batch run of the long MLM config: the reference for every resume test."""
    root = copy_store(upstream, tmp_path_factory.mktemp("clean") / "store")
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        launcher = batch_launcher(batch.url, gcs_bucket())
        result = materialize_training(root, launcher, instance, overrides=LONG_MLM)
        logs = [e.message for e in instance.all_logs(result.run_id) if e.message]
        again = materialize_training(root, launcher, instance, overrides=LONG_MLM)
        return materialization(result), logs, batch, materialization(again)


def test_batch_job_materializes_with_logs_and_cost(uninterrupted):
    metadata, logs, batch, _ = uninterrupted
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


@pytest.fixture(scope="module")
def preempted_twice(upstream, gcs_emulator, tmp_path_factory):
    """The long MLM config on the fake, preempted at two random steps. Attempt 0: SIGTERM
    with a grace period (emergency checkpoint, nothing lost); attempt 1: hard stop with no
    grace (only the periodic checkpoint survives)."""
    rng = random.Random(20261130)
    first, second = sorted(rng.sample(range(2, LONG_MLM["steps"] - 2), 2))
    root = copy_store(upstream, tmp_path_factory.mktemp("preempted") / "store")
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        batch.preemptions = {
            0: Preemption(at_step=first, grace_seconds=20),
            1: Preemption(at_step=second, grace_seconds=0),
        }
        result = materialize_training(
            root, batch_launcher(batch.url, gcs_bucket()), instance, overrides=LONG_MLM
        )
        yield result, instance, batch, root


def test_unchanged_fingerprint_submits_nothing_and_reports_the_cost_saved(uninterrupted):
    first, _, batch, again = uninterrupted
    assert len(batch.jobs) == 1  # the second materialization never reached Batch
    assert again["memoized"] is True
    assert again["cost_saved_usd"] == first["estimated_cost_usd"] > 0
    assert again["gpu_hours_saved"] == first["gpu_hours"]
    assert again["estimated_cost_usd"] == 0.0


def test_two_preemptions_resume_bit_identical(uninterrupted, preempted_twice):
    reference, _, _, _ = uninterrupted
    result, instance, batch, _ = preempted_twice
    metadata = materialization(result)
    job = next(iter(batch.jobs.values()))
    assert job.exit_codes == [50001, 50001, 0], job.logs[-20:]
    assert metadata["attempts"] == 3 and metadata["preemptions"] == 2
    assert 0 <= metadata["steps_lost"] <= LONG_MLM["checkpoint_every"]
    assert metadata["steps"] == LONG_MLM["steps"]
    assert weights_digest(metadata) == weights_digest(reference)
    assert metadata["final_mlm_loss"] == reference["final_mlm_loss"]
    assert any("SIGTERM received" in line for line in job.logs)
    assert metadata["sigterm_to_checkpoint_seconds_max"] > 0  # the graceful preemption
    observations = [
        r.event_log_entry.asset_observation.metadata
        for r in instance.fetch_observations(dg.AssetKey("mlm_backbone"), limit=10).records
    ]
    assert [o["gpu_event"].value for o in observations].count("preempted") == 2


def test_slack_hears_preemptions_and_failures_without_the_secret(preempted_twice, monkeypatch):
    from ml_assets.definitions import build_definitions
    from resources.notifications import SlackNotifier
    from sensors.notifications import gpu_job_events_to_slack, pool_assets, slack_on_run_failure

    repository = build_definitions().get_repository_def()
    # every asset the training launcher runs, and only those
    assert pool_assets(repository) == ["baseline_model", "mlm_backbone", "multitask_model"]
    result, instance, batch, root = preempted_twice
    with SlackReceiver() as slack:
        notifier = SlackNotifier(webhook_url=slack.url)
        context = dg.build_sensor_context(
            instance=instance, resources={"slack": notifier}, repository_def=repository
        )
        gpu_job_events_to_slack(context)
        assert len(slack.messages) == 2
        job = next(iter(batch.jobs.values())).name
        for text in slack.messages:
            assert "preempted" in text and "mlm_backbone" in text and job in text
            assert "attempt" in text and "step(s) lost" in text
        # the cursor moved: nothing is posted twice
        context = dg.build_sensor_context(
            instance=instance,
            cursor=context.cursor,
            resources={"slack": notifier},
            repository_def=repository,
        )
        gpu_job_events_to_slack(context)
        assert len(slack.messages) == 2

        failed = materialize_training(
            root,
            batch_launcher(batch.url, "unused"),
            instance,
            tier="h100-please",
            raise_on_error=False,
        )
        assert not failed.success
        failure = instance.all_logs(failed.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)[0]
        run_context = dg.build_run_status_sensor_context(
            sensor_name="slack_on_run_failure",
            dagster_instance=instance,
            dagster_run=instance.get_run_by_id(failed.run_id),
            dagster_event=failure.dagster_event,
            resources={"slack": notifier},
            repository_def=repository,
        ).for_run_failure()
        slack_on_run_failure(run_context)
        assert len(slack.messages) == 3
        assert failed.run_id[:8] in slack.messages[2] and "mlm_backbone" in slack.messages[2]
        # the webhook URL (a secret) is nowhere in the event logs
        for run_id in (result.run_id, failed.run_id):
            for entry in instance.all_logs(run_id):
                assert "s3cr3tT0k3n" not in repr(entry)


def test_batch_gives_up_then_launcher_resubmits_on_demand(
    upstream, gcs_emulator, tmp_path, monkeypatch
):
    """Batch's retry budget exhausted by preemptions -> the launcher resubmits; after
    `on_demand_after_preemptions` it asks for STANDARD VMs (and records the fallback)."""
    monkeypatch.setattr(pipes_utils, "WAIT_FOR_LOGS_AFTER_EXECUTION_INTERVAL", PIPES_WAIT_SECONDS)
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


def test_run_termination_cancels_the_batch_job(upstream, gcs_emulator, tmp_path):
    """`dagster asset materialize` interrupted like a terminated run: the launcher cancels the
    Batch job, whose task then stops (an emergency checkpoint on its SIGTERM)."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    root = copy_store(upstream, tmp_path / "store")
    bucket = gcs_bucket()
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    with FakeBatch(cwd=str(REPO)) as batch:
        env = {
            **os.environ,
            "DAGSTER_HOME": str(tmp_path / "home"),
            "TXN_ARTIFACTS_DIR": str(root),
            "TXN_PARAMS_PROFILE": "tiny",
            "TXN_LAUNCHER": "gcp_batch",
            "TXN_GCP_PROJECT": "test-project",
            "TXN_GCP_BUCKET": bucket,
            "TXN_TRAINING_IMAGE": "localhost/txn-ml:test",
            "TXN_BATCH_ENDPOINT": batch.url,
            "TXN_BATCH_POLL_SECONDS": "0.3",
        }
        config = {"ops": {"mlm_backbone": {"config": {"steps": 100000}}}}
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",  # `python -m dagster`, with the short wait after the cancelled session
                "import dagster._core.pipes.utils as u; "
                f"u.WAIT_FOR_LOGS_AFTER_EXECUTION_INTERVAL = {PIPES_WAIT_SECONDS}; "
                "from dagster._cli import main; main()",
                "asset",
                "materialize",
                "-m",
                "ml_assets.definitions",
                "--select",
                "mlm_backbone",
                "--config-json",
                json.dumps(config),
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 240
            while not any(
                any(line.startswith("step ") for line in j.logs) for j in batch.jobs.values()
            ):
                assert proc.poll() is None, proc.stdout.read()[-3000:]
                assert time.monotonic() < deadline, "the Batch job never started training"
                time.sleep(0.5)
            proc.send_signal(signal.SIGINT)  # what terminating the run does to its worker
            output, _ = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        job = next(iter(batch.jobs.values()))
        assert batch.cancel_requests == [job.name], output[-3000:]
        deadline = time.monotonic() + 60
        while job.state != "CANCELLED" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert job.state == "CANCELLED"
        assert job.process.poll() is not None
        assert "cancelling Cloud Batch job" in output


def two_gpu_large_tier(tmp_path):
    """params.yaml with the `large` tier at 2 GPUs: 2 processes under torchrun, gloo on CPU."""
    params = tmp_path / "params.yaml"
    params.write_text(
        (REPO / "params.yaml")
        .read_text()
        .replace(
            "gpu_type: nvidia-tesla-a100, gpu_count: 8", "gpu_type: nvidia-tesla-a100, gpu_count: 2"
        )
    )
    return params


def test_large_tier_runs_torchrun_ddp_and_resumes_after_preemption(
    upstream, gcs_emulator, tmp_path
):
    """The multi-GPU path on CPU: the `large` tier (here 2 processes, gloo) starts the entrypoint
    under torchrun; preempted, every rank stops at the same step, rank 0 writes the emergency
    checkpoint, and the retry resumes from it under torchrun again."""
    root = copy_store(upstream, tmp_path / "store")
    params = two_gpu_large_tier(tmp_path)
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        batch.preemptions = {0: Preemption(at_step=6, grace_seconds=30)}
        result = materialize_training(
            root,
            batch_launcher(batch.url, gcs_bucket()),
            instance,
            overrides={"steps": 12, "checkpoint_every": 5, "warmup_steps": 2},
            tier="large",
            params_path=str(params),
        )
    metadata = materialization(result)
    job = next(iter(batch.jobs.values()))
    container = job.spec["taskGroups"][0]["taskSpec"]["runnables"][0]["container"]
    assert container["entrypoint"] == "torchrun" and "--nproc_per_node=2" in container["commands"]
    assert job.exit_codes[0] == 50001 and job.exit_codes[-1] == 0, job.logs[-30:]
    assert metadata["world_size"] == 2 and metadata["gpu_count"] == 2
    assert metadata["steps"] == 12 and metadata["resumed_from_step"] >= 5
    assert metadata["preemptions"] == 1 and metadata["steps_lost"] <= 5


def test_finetuning_under_torchrun_trains_on_rank_0_alone(tiny_graph, gcs_emulator, tmp_path):
    """The `large` tier for `multitask_model` (here 2 processes, gloo): finetuning has no
    data-parallel loop, so rank 0 trains and writes and rank 1 stages its inputs and exits;
    every step is taken once, not once per rank."""
    root = copy_store(tiny_graph.root, tmp_path / "store")  # mlm_backbone included
    params = two_gpu_large_tier(tmp_path)
    with FakeBatch(cwd=str(REPO)) as batch, dg.instance_for_test() as instance:
        result = materialize_training(
            root,
            batch_launcher(batch.url, gcs_bucket()),
            instance,
            asset="multitask_model",
            overrides={"max_steps": 12, "eval_every": 6},  # a new fingerprint: it trains
            tier="large",
            params_path=str(params),
        )
    metadata = materialization(result, "multitask_model")
    job = next(iter(batch.jobs.values()))
    container = job.spec["taskGroups"][0]["taskSpec"]["runnables"][0]["container"]
    assert container["entrypoint"] == "torchrun" and "--nproc_per_node=2" in container["commands"]
    assert job.exit_codes == [0], job.logs[-30:]
    assert metadata["gpu_count"] == 2
    assert any("rank 1: multitask_model trains on rank 0 only" in line for line in job.logs)
    for step in (1, 6, 12):
        taken = [line for line in job.logs if line.startswith(f"step {step} loss ")]
        assert len(taken) == 1, (step, job.logs[-40:])
    assert metadata["steps"] == 12
