"""raw_transactions reading an S3 or GCS prefix (moto server, fake-gcs-server): objects are
fetched with verified downloads, validated and quarantined like local files, and a changed
object changes the fingerprint."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from tests.test_quarantine import GOOD, _materialize_raw, planted_defects

GOOD_ROWS = b"\n".join(json.dumps({**GOOD, "transaction_id": f"z{i}"}).encode() for i in range(5))


@pytest.fixture
def s3_prefix(moto_endpoint, monkeypatch):
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("TXN_S3_ENDPOINT_URL", moto_endpoint)
    client = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1")
    bucket = f"bank-{os.urandom(4).hex()}"
    client.create_bucket(Bucket=bucket)

    def put(key: str, body: bytes) -> None:
        client.put_object(Bucket=bucket, Key=key, Body=body)

    return f"s3://{bucket}/exports/", put


@pytest.fixture
def gcs_prefix(gcs_emulator, monkeypatch):
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    monkeypatch.setenv("TXN_GCP_PROJECT", "test")
    client = storage.Client(project="test", credentials=AnonymousCredentials())
    bucket = client.create_bucket(f"bank-{os.urandom(4).hex()}")

    def put(key: str, body: bytes) -> None:
        bucket.blob(key).upload_from_string(body)

    return f"gs://{bucket.name}/exports/", put


@pytest.fixture(params=["s3_prefix", "gcs_prefix"])
def prefix(request):
    return request.getfixturevalue(request.param)


def test_prefix_is_fetched_verified_and_quarantined(prefix, tmp_path):
    uri, put = prefix
    lines, expected = planted_defects()
    put("exports/2026-03-01.jsonl", b"\n".join(lines))
    put("exports/2026-03-02.jsonl.gz", gzip.compress(GOOD_ROWS + b"\n"))
    put("exports/README.txt", b"not an export")
    result = _materialize_raw(
        tmp_path, {"source": "files", "path": uri, "max_quarantine_share": 1.0}
    )
    assert result.success
    metadata = {
        k: v.value
        for k, v in result.get_asset_materialization_events()[
            0
        ].event_specific_data.materialization.metadata.items()
    }
    assert metadata["objects"] == 2
    assert metadata["rows_in"] == 13 + 5 and metadata["rows_kept"] == 2 + 5
    assert metadata["quarantine_by_reason"] == expected
    assert set(metadata["verified_by"]) <= {"md5-etag", "crc32c"}
    (check,) = result.get_asset_check_evaluations()
    assert check.passed


def test_a_rewritten_object_changes_the_fingerprint(s3_prefix):
    from ml_assets.raw_transactions import fingerprint_params

    uri, put = s3_prefix
    put("exports/a.jsonl", GOOD_ROWS)
    section = {"source": "files", "path": uri, "format": "auto"}
    before = fingerprint_params(section)
    assert fingerprint_params(section) == before
    put("exports/a.jsonl", GOOD_ROWS + b"\n")
    assert fingerprint_params(section) != before


def test_sensor_requests_runs_for_new_objects_once(prefix, tmp_path):
    import dagster as dg
    import yaml

    from resources.params import ParamsResource
    from sensors.raw_exports import new_raw_exports
    from tests.launch_harness import REPO

    uri, put = prefix
    data = yaml.safe_load((REPO / "params.yaml").read_text())
    data["raw_transactions"].update({"source": "files", "path": uri})
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    params = ParamsResource(path=str(tmp_path / "params.yaml"))

    def tick(cursor):
        context = dg.build_sensor_context(cursor=cursor, resources={"params": params})
        return new_raw_exports(context)

    put("exports/2026-03-01.jsonl", GOOD_ROWS)
    put("exports/2026-03-02.jsonl", GOOD_ROWS)
    first = tick(None)
    assert len(first.run_requests) == 1
    assert first.run_requests[0].tags["raw_exports_count"] == "2"
    second = tick(first.cursor)
    assert not second.run_requests  # nothing new: nothing requested twice
    put("exports/2026-03-03.jsonl", GOOD_ROWS)
    third = tick(second.cursor)
    assert third.run_requests[0].tags["raw_exports"].endswith("2026-03-03.jsonl")
    assert third.run_requests[0].tags["raw_exports_count"] == "1"
    put("exports/2026-03-01.jsonl", GOOD_ROWS + b"\n")  # a bank re-sends a corrected file
    fourth = tick(third.cursor)
    assert fourth.run_requests[0].tags["raw_exports"].endswith("2026-03-01.jsonl")
    assert fourth.run_requests[0].run_key != first.run_requests[0].run_key
