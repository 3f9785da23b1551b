"""Shared pieces of the launcher tests: upstream artifacts from the session's tiny graph, a GCS
bucket on the emulator, and a helper that materializes one training asset with a given launcher."""

from __future__ import annotations

import uuid
from pathlib import Path

import dagster as dg

from ml_assets.core.infra.io import sha256_file
from ml_assets.definitions import ASSETS, build_resources
from resources.launchers import TrainingLauncher
from tests.graph import copy_store

UPSTREAM = (
    "raw_transactions",
    "transaction_features",
    "training_features",
    "pruned_tokenizer",
    "tokenized_corpus",
)
# long enough to be preempted twice, short enough for CI: about 0.4 s a step on 2 CPU cores
# through the GCS emulator, its checkpoints included
LONG_MLM = {"steps": 16, "checkpoint_every": 4, "warmup_steps": 2}
REPO = Path(__file__).resolve().parents[1]


def upstream_of(graph_root: Path, root: Path) -> Path:
    """A store holding only the training steps' upstream, copied from the session's tiny graph
    (the same profile and days: the very entries a fresh build would compute)."""
    for asset in UPSTREAM:
        copy_store(graph_root / asset, root / asset)
    return root


def gcs_bucket(project: str = "test-project") -> str:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    name = f"txn-{uuid.uuid4().hex[:10]}"
    storage.Client(project=project, credentials=AnonymousCredentials()).create_bucket(name)
    return name


def batch_launcher(fake_url: str, bucket: str) -> TrainingLauncher:
    return TrainingLauncher(
        kind="gcp_batch",
        project="test-project",
        region="us-central1",
        bucket=bucket,
        prefix=f"run-{uuid.uuid4().hex[:8]}",
        image="localhost/txn-ml:test",
        batch_endpoint=fake_url,
        poll_interval_seconds=0.3,
    )


def materialize_training(
    root: Path,
    launcher: TrainingLauncher,
    instance,
    *,
    asset: str = "mlm_backbone",
    overrides: dict | None = None,
    tier: str | None = None,
    params_path: str | None = None,
    profile: str = "tiny",
    raise_on_error: bool = True,
):
    resources = build_resources(str(root), profile=profile, launcher=launcher)
    if params_path:
        from resources.params import ParamsResource

        resources["params"] = ParamsResource(path=params_path, profile=profile)
    return dg.materialize(
        ASSETS,
        selection=[asset],
        resources=resources,
        instance=instance,
        run_config={"ops": {asset: {"config": {**(overrides or {}), "tier": tier}}}},
        raise_on_error=raise_on_error,
    )


def materialization(result, asset: str = "mlm_backbone") -> dict:
    events = [
        e.event_specific_data.materialization
        for e in result.get_asset_materialization_events()
        if e.event_specific_data.materialization.asset_key.to_user_string() == asset
    ]
    assert len(events) == 1
    return {k: getattr(v, "value", v) for k, v in events[0].metadata.items()}


def weights_digest(metadata: dict) -> str:
    return sha256_file(Path(metadata["artifact_path"]) / "model.safetensors")
