"""The artifact store's S3 and GCS backends, against real local servers (moto, fake-gcs-server):
a second machine (another local cache) reuses what the first computed; tampering is caught."""

from pathlib import Path

import dagster as dg
import pytest

from ml_assets.assets.raw_transactions import raw_transactions
from ml_assets.assets.transaction_features import transaction_features
from ml_assets.core.infra.io import verify_entry
from ml_assets.definitions import ASSETS, build_resources
from resources.artifact_store import ArtifactRefIOManager, ArtifactStore
from tests.graph import TINY_DAYS, materialization_metadata

BUCKET = "txn-artifacts"


@pytest.fixture(scope="module")
def s3_store_config(moto_endpoint):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        import boto3

        boto3.client("s3", endpoint_url=moto_endpoint).create_bucket(Bucket=BUCKET)
        yield {"backend": "s3", "bucket": BUCKET, "s3_endpoint_url": moto_endpoint}


@pytest.fixture(scope="module")
def gcs_store_config(gcs_emulator):
    from google.cloud import storage

    storage.Client(project="test-project").create_bucket(BUCKET)
    yield {"backend": "gcs", "bucket": BUCKET, "gcp_project": "test-project"}


def materialize(root: Path, store_config: dict, prefix: str) -> dict[str, dict]:
    resources = build_resources(str(root), profile="tiny")
    store = ArtifactStore(root=str(root), prefix=prefix, **store_config)
    resources["artifact_store"] = store
    resources["io_manager"] = ArtifactRefIOManager(store=store)
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            ASSETS,
            selection=[raw_transactions, transaction_features],
            resources=resources,
            instance=instance,
            partition_key=TINY_DAYS[0],  # one day: its own entry, fingerprint and metadata
        )
    assert result.success
    return materialization_metadata(result)


@pytest.mark.parametrize("backend", ["s3", "gcs"])
def test_second_machine_reuses_remote_entries(backend, request, tmp_path):
    config = request.getfixturevalue(f"{backend}_store_config")
    prefix = f"run-{backend}-{tmp_path.name}"
    first = materialize(tmp_path / "machine-a", config, prefix)
    assert {md["memoized"] for md in first.values()} == {False}
    second = materialize(tmp_path / "machine-b", config, prefix)  # empty local cache
    assert {md["memoized"] for md in second.values()} == {True}
    for asset in first:
        assert second[asset]["artifact_digest"] == first[asset]["artifact_digest"]
        assert Path(second[asset]["artifact_path"]).is_relative_to(tmp_path / "machine-b")


def test_tampered_remote_blob_is_recomputed(s3_store_config, moto_endpoint, tmp_path):
    import boto3

    prefix = f"tamper-{tmp_path.name}"
    first = materialize(tmp_path / "a", s3_store_config, prefix)
    entry = Path(first["transaction_features"]["artifact_path"])
    sha = verify_entry(entry)["files"]["features.parquet"]["sha256"]
    boto3.client("s3", endpoint_url=moto_endpoint).put_object(
        Bucket=BUCKET, Key=f"{prefix}/blobs/{sha}", Body=b"evil"
    )
    warnings = []
    fresh = ArtifactStore(root=str(tmp_path / "b"), prefix=prefix, **s3_store_config)
    assert (
        fresh.lookup(
            "transaction_features",
            first["transaction_features"]["fingerprint"],
            warn=warnings.append,
        )
        is None
    )
    assert "corrupt" in warnings[0] and "does not match the manifest" in warnings[0]
    second = materialize(tmp_path / "b", s3_store_config, prefix)
    assert (
        second["transaction_features"]["memoized"] is False
        and second["raw_transactions"]["memoized"] is True
    )
