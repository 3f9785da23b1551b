"""Pure parts of GPU training: tiers, placement, cost, steps lost, the Batch job spec and its
retry policy, task attempts from status events, and the GCS checkpoint mirror."""

from __future__ import annotations

import datetime as dt

import pytest

from ml_assets.core.infra.gpu_cost import (
    Attempt,
    accounting,
    choose_tier,
    placement_for,
    steps_lost_per_resume,
    steps_since_checkpoint,
)
from ml_assets.core.infra.job_protocol import EXIT_PREEMPTED
from ml_assets.core.params import load_params

GPU = load_params().gpu


def test_auto_tier_uses_eight_gpus_only_for_big_models():
    assert choose_tier(GPU, None, 22_000_000) == "standard"
    assert choose_tier(GPU, "auto", 600_000_000) == "large"
    assert choose_tier(GPU, "debug", 600_000_000) == "debug"


def test_spot_until_enough_preemptions_then_on_demand():
    assert placement_for(GPU, "standard", 0).spot
    assert placement_for(GPU, "standard", GPU.on_demand_after_preemptions - 1).spot
    assert not placement_for(GPU, "standard", GPU.on_demand_after_preemptions).spot
    assert not placement_for(GPU, "standard", 0, spot=False).spot


def test_cost_is_priced_per_gpu_hour_from_params():
    spot = placement_for(GPU, "large", 0)
    on_demand = placement_for(GPU, "large", 99)
    report = accounting(
        [Attempt(spot, 1800, "preempted", steps_lost=7), Attempt(on_demand, 3600, "succeeded")],
        GPU,
    )
    price = GPU.prices_usd_per_gpu_hour["nvidia-tesla-a100"]
    assert report["gpu_hours"] == pytest.approx(8 * 1.5)
    assert report["estimated_cost_usd"] == pytest.approx(8 * (0.5 * price.spot + price.on_demand))
    assert report["on_demand_cost_usd"] == pytest.approx(8 * 1.5 * price.on_demand)
    assert report["preemptions"] == 1 and report["steps_lost"] == 7
    assert report["fell_back_to_on_demand"] and report["provisioning"] == "STANDARD"


def test_steps_lost_from_the_jobs_messages():
    messages = [
        {"event": "resumed", "step": 0},
        {"event": "progress", "step": 4},
        {"event": "checkpoint", "step": 5},
        {"event": "progress", "step": 8},  # hard kill after step 8: 3 steps redone
        {"event": "resumed", "step": 5},
        {"event": "checkpoint", "step": 9},
        {"event": "preempted", "step": 9},  # graceful: nothing redone
        {"event": "resumed", "step": 9},
    ]
    assert steps_lost_per_resume(messages) == [3, 0]
    assert steps_since_checkpoint(messages[:4]) == 3
    assert steps_since_checkpoint(messages[:7]) == 0


def test_batch_job_retries_only_preemptions_and_runs_torchrun_on_multi_gpu():
    from resources.gcp_batch import batch_job_spec

    single = batch_job_spec(
        image="us-docker.pkg.dev/p/r/txn-ml:abc",
        env={"DAGSTER_PIPES_CONTEXT": "x"},
        placement=placement_for(GPU, "debug", 0),
        region="us-central1",
        service_account="trainer@p.iam.gserviceaccount.com",
        task_retries=3,
        labels={"asset": "mlm-backbone"},
    )
    task = single["task_groups"][0]["task_spec"]
    retry = [p for p in task["lifecycle_policies"] if p["action"] == "RETRY_TASK"]
    assert retry[0]["action_condition"]["exit_codes"] == [50001, EXIT_PREEMPTED]
    assert task["max_retry_count"] == 3
    policy = single["allocation_policy"]["instances"][0]["policy"]
    assert policy["provisioning_model"] == "SPOT"
    assert policy["accelerators"] == [{"type_": "nvidia-tesla-t4", "count": 1}]
    assert task["runnables"][0]["container"]["entrypoint"] == "python"
    large = batch_job_spec(
        image="img",
        env={},
        placement=placement_for(GPU, "large", 5),
        region="us-central1",
        service_account=None,
        task_retries=0,
        labels={},
    )
    container = large["task_groups"][0]["task_spec"]["runnables"][0]["container"]
    assert container["entrypoint"] == "torchrun"
    assert "--nproc_per_node=8" in container["commands"]
    assert large["allocation_policy"]["instances"][0]["policy"]["provisioning_model"] == "STANDARD"
    # the real client accepts the spec
    from google.cloud import batch_v1

    assert batch_v1.Job(single).task_groups[0].task_spec.max_retry_count == 3


def test_task_attempts_from_status_events():
    from google.cloud import batch_v1

    from resources.gcp_batch import attempts_from_events

    t0 = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)

    def event(seconds, state, code=None):
        e = batch_v1.StatusEvent(
            event_time=t0 + dt.timedelta(seconds=seconds),
            task_state=batch_v1.TaskStatus.State[state],
            description=state,
        )
        if code is not None:
            e.task_execution = batch_v1.TaskExecution(exit_code=code)
        return e

    attempts = attempts_from_events(
        [
            event(0, "RUNNING"),
            event(600, "FAILED", 50001),
            event(660, "RUNNING"),
            event(1860, "SUCCEEDED", 0),
        ]
    )
    assert [(a.seconds, a.exit_code, a.preempted) for a in attempts] == [
        (600, 50001, True),
        (1200, 0, False),
    ]


def test_gcs_checkpoint_mirror_skips_an_uncommitted_upload(gcs_emulator, tmp_path):
    """A VM lost mid-upload leaves files without MANIFEST.json: restore takes the previous one."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    from ml_assets.core.infra.gcs_folders import (
        mirror_checkpoint,
        remote_checkpoints,
        restore_checkpoints,
    )
    from ml_assets.core.infra.io import staged_directory

    client = storage.Client(project="test", credentials=AnonymousCredentials())
    client.create_bucket("ckpt-mirror")
    uri = "gs://ckpt-mirror/checkpoints/mlm_backbone/fp"
    for step in (3, 6, 9):
        with staged_directory(tmp_path / "local" / f"step-{step:08d}") as folder:
            (folder / "model.safetensors").write_bytes(bytes([step]) * 1000)
        mirror_checkpoint(client, tmp_path / "local" / f"step-{step:08d}", uri, keep=2)
    assert remote_checkpoints(client, uri) == [6, 9]
    # step 12: the weights arrived, the manifest (commit marker) never did
    client.bucket("ckpt-mirror").blob(
        "checkpoints/mlm_backbone/fp/step-00000012/model.safetensors"
    ).upload_from_string(b"partial")
    assert remote_checkpoints(client, uri) == [6, 9]
    # step 9 corrupted after commit: restore falls back to 6
    client.bucket("ckpt-mirror").blob(
        "checkpoints/mlm_backbone/fp/step-00000009/model.safetensors"
    ).upload_from_string(b"flipped")
    warnings = []
    assert restore_checkpoints(client, uri, tmp_path / "restored", warn=warnings.append) == 6
    assert (tmp_path / "restored" / "step-00000006" / "model.safetensors").read_bytes() == bytes(
        [6]
    ) * 1000
    assert "step-00000009" in warnings[0] and "does not match" in warnings[0]
    assert not (tmp_path / "restored" / "step-00000009").exists()  # never committed locally


def test_gpu_assets_share_the_gpu_pool_limited_to_one_job(tmp_path, monkeypatch):
    import subprocess

    import dagster as dg

    from ml_assets.definitions import GRAPH, build_definitions
    from ml_assets.training.trainers import resolve_trainer

    repo = build_definitions().get_repository_def()
    pools = {k.to_user_string(): a.node_def.pool for k, a in repo.assets_defs_by_key.items()}
    gpu_assets = {asset for asset, pool in pools.items() if pool == "gpu"}
    assert gpu_assets == {"mlm_backbone", "multitask_model", "baseline_model"}
    # the training job runs exactly the pool's assets, each with the trainer its record names
    trained = {stage.key: stage.trainer for stage, _ in GRAPH.values() if stage.trainer}
    assert set(trained) == gpu_assets
    for trainer in trained.values():
        resolve_trainer(trainer)
    subprocess.run(["bash", "scripts/init_dagster_home.sh", str(tmp_path / "home")], check=True)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    with dg.DagsterInstance.get() as instance:
        assert instance.get_concurrency_config().pool_config.default_pool_limit == 1


def test_slack_webhook_is_read_through_envvar(monkeypatch):
    import dagster as dg

    from ml_assets.definitions import slack_notifier

    monkeypatch.delenv("SLACK_WEBHOOK_URL", raising=False)
    assert not slack_notifier().enabled
    monkeypatch.setenv("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T/B/secret")
    notifier = slack_notifier()
    # the definitions hold the variable's name, resolved only when a run or sensor starts
    assert isinstance(notifier.webhook_url, dg.EnvVar)
    assert notifier.webhook_url == "SLACK_WEBHOOK_URL"
    assert "secret" not in repr(vars(notifier))


def test_the_job_request_round_trips_and_names_what_is_missing():
    from ml_assets.core.infra.job_protocol import JobRequest

    request = JobRequest(
        stage="multitask_model",
        trainer="ml_assets.training.trainers:FINETUNE",
        settings={"seed": 1},
        inputs={
            "corpus": "gs://b/p/inputs/tokenized_corpus/abc",
            "tokenizer": "gs://b/p/inputs/pruned_tokenizer/def",
            "backbone": "gs://b/p/inputs/mlm_backbone/123",
        },
        output="/tmp/out",
        checkpoints="/tmp/ckpt",
        checkpoint_seconds=300,
    )
    assert JobRequest.from_extras(request.to_extras()) == request
    extras = request.to_extras()
    del extras["checkpoints"]
    with pytest.raises(ValueError, match=r"lack \['checkpoints'\].*TrainingLauncher"):
        JobRequest.from_extras(extras)


def test_the_job_runs_only_a_trainer_of_its_registry_with_the_inputs_it_reads():
    from ml_assets.core.infra.job_protocol import JobRequest
    from ml_assets.training.job import _trainer
    from ml_assets.training.trainers import FINETUNE, resolve_trainer

    assert resolve_trainer("ml_assets.training.trainers:FINETUNE") is FINETUNE
    with pytest.raises(ValueError, match="is not one of ml_assets.training.trainers's"):
        resolve_trainer("os:system")
    with pytest.raises(ValueError, match="names no Trainer"):
        resolve_trainer("ml_assets.training.trainers:resolve_trainer")
    request = JobRequest(
        stage="mlm_backbone",
        trainer="ml_assets.training.trainers:MLM",
        settings={},
        inputs={"corpus": "/c", "tokenizer": "/t", "backbone": "/b"},
        output="/tmp/out",
        checkpoints="/tmp/ckpt",
    )
    # the MLM trainer reads no backbone
    with pytest.raises(ValueError, match=r"inputs \['backbone', 'corpus', 'tokenizer'\], but"):
        _trainer(request)


@pytest.mark.parametrize("profile", [None, "tiny", "gpu"])
def test_every_training_stage_sends_what_its_trainer_validates(profile):
    """The payload a training asset fingerprints and sends is exactly what its trainer's
    settings model accepts, under every built-in profile (the default's differ from tiny's)."""
    from ml_assets.core.params import load_params
    from ml_assets.definitions import GRAPH
    from ml_assets.training.trainers import resolve_trainer
    from ml_assets.wiring.stage import FingerprintContext

    params = load_params(profile=profile)
    trained = [stage for stage, _ in GRAPH.values() if stage.trainer]
    assert trained
    for stage in trained:
        payload = stage.fingerprinted(params, FingerprintContext())
        model = resolve_trainer(stage.trainer).settings
        assert model.model_validate(payload).model_dump(mode="json") == payload, stage.key
