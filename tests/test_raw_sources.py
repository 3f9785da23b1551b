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
    import json as _json

    uri, put = prefix
    lines, expected = planted_defects()
    put("exports/2026-03-01.jsonl", b"\n".join(lines))
    put("exports/2026-03-02.jsonl.gz", gzip.compress(GOOD_ROWS + b"\n"))
    put("exports/README.txt", b"not an export")
    overrides = {"source": "files", "path": uri, "max_quarantine_share": 1.0}
    one_day = _materialize_raw(tmp_path / "a", overrides, "2026-03-01")
    assert one_day.success
    metadata = _metadata(one_day)
    assert metadata["objects"] == 1  # a day reads only the exports named for it
    assert (metadata["rows_in"], metadata["rows_kept"]) == (13, 2)
    assert metadata["quarantine_by_reason"] == expected
    assert set(metadata["verified_by"]) <= {"md5-etag", "crc32c"}

    both = _materialize_raw(tmp_path / "b", overrides, "2026-03-01", last_day="2026-03-02")
    assert both.success
    metadata = _metadata(both)
    assert metadata["objects"] == 2 and metadata["partitions"] == 2
    assert metadata["rows_in"] == 13 + 5 and metadata["rows_kept"] == 2 + 5
    # the run's verdict; each day has its own too
    (check,) = [c for c in both.get_asset_check_evaluations() if c.partition is None]
    assert all(c.passed for c in both.get_asset_check_evaluations())
    assert check.passed and check.metadata["partitions_checked"].value == 2
    # the rows of an export named for 03-02 stay in 03-02 (a finished day never changes),
    # even though they were posted on 03-01
    report = tmp_path / "b" / "store" / "raw_transactions" / "CURRENT" / "2026-03-02.json"
    entry = tmp_path / "b" / "store" / _json.loads(report.read_text())["entry"]
    assert (entry / "transactions.jsonl").read_text().count("\n") == 5


def _metadata(result) -> dict:
    (event,) = result.get_asset_materialization_events()[:1]
    return {k: v.value for k, v in event.event_specific_data.materialization.metadata.items()}


def test_a_rewritten_object_changes_the_fingerprint_of_its_days_only(s3_prefix):
    from ml_assets.assets.raw_transactions import fingerprint_params, source_listing

    uri, put = s3_prefix
    put("exports/2026-03-04.jsonl", GOOD_ROWS)
    put("exports/2026-03-05.jsonl", GOOD_ROWS)
    section = {"source": "files", "path": uri, "format": "auto"}

    def fingerprints():
        listing = source_listing(section)
        return {d: fingerprint_params(section, d, listing) for d in ("2026-03-04", "2026-03-05")}

    before = fingerprints()
    assert fingerprints() == before
    put("exports/2026-03-05.jsonl", GOOD_ROWS + b"\n")  # a bank re-sends a corrected file
    after = fingerprints()
    assert after["2026-03-04"] == before["2026-03-04"]
    assert after["2026-03-05"] != before["2026-03-05"]
    put("exports/undated.jsonl", GOOD_ROWS)  # an undated export may feed any day
    assert all(fingerprints()[d] != after[d] for d in after)


def test_sensor_requests_the_affected_days_once(prefix, tmp_path):
    import dagster as dg
    import yaml

    from ml_assets.wiring.daily import RANGE_END, RANGE_START
    from resources.artifact_store import ArtifactStore
    from resources.params import ParamsResource
    from sensors.raw_exports import new_raw_exports
    from tests.launch_harness import REPO

    uri, put = prefix
    data = yaml.safe_load((REPO / "params.yaml").read_text())
    data["raw_transactions"].update({"source": "files", "path": uri})
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    params = ParamsResource(path=str(tmp_path / "params.yaml"))
    store = ArtifactStore(root=str(tmp_path / "store"))

    def tick(cursor):
        context = dg.build_sensor_context(
            cursor=cursor, resources={"params": params, "artifact_store": store}
        )
        return new_raw_exports(context)

    def requested(result) -> list[tuple[str, str]]:
        return [
            (r.partition_key, r.partition_key)
            if r.partition_key
            else (r.tags[RANGE_START], r.tags[RANGE_END])
            for r in result.run_requests
        ]

    put("exports/2026-03-01.jsonl", GOOD_ROWS)
    put("exports/2026-03-02.jsonl", GOOD_ROWS)
    put("exports/2026-03-07.jsonl", GOOD_ROWS)
    first = tick(None)
    # contiguous days share one run; a gap starts another
    assert requested(first) == [("2026-03-01", "2026-03-02"), ("2026-03-07", "2026-03-07")]
    assert first.run_requests[0].tags["raw_exports_count"] == "2"
    second = tick(first.cursor)
    assert not second.run_requests  # nothing new: nothing requested twice
    put("exports/2026-03-03.jsonl", GOOD_ROWS)
    third = tick(second.cursor)
    assert requested(third) == [("2026-03-03", "2026-03-03")]
    assert third.run_requests[0].tags["raw_exports"] == "2026-03-03.jsonl"
    put("exports/2026-03-01.jsonl", GOOD_ROWS + b"\n")  # a bank re-sends a corrected file
    fourth = tick(third.cursor)
    assert requested(fourth) == [("2026-03-01", "2026-03-01")]
    assert fourth.run_requests[0].run_key != first.run_requests[0].run_key
    # an undated export feeds the days its rows were posted on (GOOD_ROWS: 2026-03-01)
    put("exports/backfill.jsonl", GOOD_ROWS)
    fifth = tick(fourth.cursor)
    assert requested(fifth) == [("2026-03-01", "2026-03-01")]
    # an export for a day that is not a partition yet waits, and is requested later
    put("exports/2099-01-01.jsonl", GOOD_ROWS)
    sixth = tick(fifth.cursor)
    assert not sixth.run_requests and "2099-01-01.jsonl" not in sixth.cursor
