"""Verified, resumable, parallel ranged downloads against a real local S3 (moto server) and GCS
(fake-gcs-server): an interrupted download resumes from its chunks on disk, and tampered or
corrupted bytes fail verification with a clear error."""

from __future__ import annotations

import hashlib
import os

import pytest

from ml_assets.core.infra.transfer import ChecksumMismatch, GCSSource, S3Source, download_verified

CHUNK = 256 * 1024
PAYLOAD = os.urandom(5 * CHUNK + 1234)  # 6 chunks, the last one short


class Flaky:
    """Passes ``ok`` range reads through, then fails like a dropped connection."""

    def __init__(self, source, ok: int):
        self.source, self.ok, self.calls = source, ok, 0

    def read_range(self, key, start, end):
        self.calls += 1
        if self.calls > self.ok:
            raise ConnectionError("connection reset by peer")
        return self.source.read_range(key, start, end)


class Counting(Flaky):
    def __init__(self, source):
        super().__init__(source, ok=10**9)


class Corrupting(Flaky):
    def __init__(self, source):
        super().__init__(source, ok=10**9)

    def read_range(self, key, start, end):
        data = bytearray(super().read_range(key, start, end))
        if start == 0:
            data[10] ^= 0xFF  # one flipped bit in transit
        return bytes(data)


@pytest.fixture
def s3(moto_endpoint, monkeypatch):
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1")
    bucket = f"raw-{os.urandom(4).hex()}"  # the server lives for the module: a bucket per test
    client.create_bucket(Bucket=bucket)
    client.put_object(Bucket=bucket, Key="exports/big.jsonl", Body=PAYLOAD)
    return client, S3Source(client, bucket)


@pytest.fixture
def gcs(gcs_emulator):
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    client = storage.Client(project="test", credentials=AnonymousCredentials())
    bucket = client.create_bucket(f"raw-{os.urandom(4).hex()}")
    bucket.blob("exports/big.jsonl").upload_from_string(PAYLOAD)
    return client, GCSSource(client, bucket.name)


@pytest.fixture(params=["s3", "gcs"])
def source(request):
    return request.getfixturevalue(request.param)[1]


def test_interrupted_download_resumes_from_its_chunks(source, tmp_path):
    obj = source.describe("exports/big.jsonl")
    dest = tmp_path / "big.jsonl"
    flaky = Flaky(source, ok=2)
    flaky.describe = source.describe
    with pytest.raises(ConnectionError):
        download_verified(flaky, obj, dest, chunk_size=CHUNK, workers=2)
    assert not dest.exists()
    assert len(list((tmp_path / "big.jsonl.parts").glob("part-*"))) == 2
    counting = Counting(source)
    report = download_verified(counting, obj, dest, chunk_size=CHUNK, workers=2)
    assert (report.chunks, report.chunks_fetched, counting.calls) == (6, 4, 4)
    assert dest.read_bytes() == PAYLOAD
    assert report.verified_by in {"md5-etag", "crc32c"}
    assert not (tmp_path / "big.jsonl.parts").exists()


def test_corruption_in_transit_fails_verification(source, tmp_path):
    obj = source.describe("exports/big.jsonl")
    with pytest.raises(ChecksumMismatch, match="big.jsonl: (md5-etag|crc32c)"):
        download_verified(Corrupting(source), obj, tmp_path / "big.jsonl", chunk_size=CHUNK)
    assert not (tmp_path / "big.jsonl").exists()
    assert not (tmp_path / "big.jsonl.parts").exists()  # never resumed from bad parts


def test_sha256_sidecar_is_the_reference_and_catches_a_tampered_object(s3, tmp_path):
    client, source = s3
    client.put_object(
        Bucket=source.bucket,
        Key="exports/big.jsonl.sha256",
        Body=hashlib.sha256(PAYLOAD).hexdigest().encode(),
    )
    report = download_verified(
        source, source.describe("exports/big.jsonl"), tmp_path / "a", chunk_size=CHUNK
    )
    assert report.verified_by == "sha256-sidecar"
    # the object is replaced behind the sidecar's back (same size): the sidecar catches it
    client.put_object(Bucket=source.bucket, Key="exports/big.jsonl", Body=bytes(reversed(PAYLOAD)))
    with pytest.raises(ChecksumMismatch, match="sha256-sidecar"):
        download_verified(
            source, source.describe("exports/big.jsonl"), tmp_path / "b", chunk_size=CHUNK
        )


def test_parts_of_a_changed_object_are_discarded(s3, tmp_path):
    client, source = s3
    obj = source.describe("exports/big.jsonl")
    flaky = Flaky(source, ok=3)
    with pytest.raises(ConnectionError):
        download_verified(flaky, obj, tmp_path / "big.jsonl", chunk_size=CHUNK, workers=1)
    new = os.urandom(len(PAYLOAD))
    client.put_object(Bucket=source.bucket, Key="exports/big.jsonl", Body=new)
    counting = Counting(source)
    download_verified(
        counting, source.describe("exports/big.jsonl"), tmp_path / "big.jsonl", chunk_size=CHUNK
    )
    assert counting.calls == 6 and (tmp_path / "big.jsonl").read_bytes() == new


def test_a_completed_download_is_reverified_not_refetched(source, tmp_path):
    obj = source.describe("exports/big.jsonl")
    download_verified(source, obj, tmp_path / "big.jsonl", chunk_size=CHUNK)
    counting = Counting(source)
    report = download_verified(counting, obj, tmp_path / "big.jsonl", chunk_size=CHUNK)
    assert counting.calls == 0 and report.chunks_fetched == 0
    data = bytearray((tmp_path / "big.jsonl").read_bytes())
    data[5] ^= 1  # local corruption is caught by the re-verification, and fetched again
    (tmp_path / "big.jsonl").write_bytes(bytes(data))
    report = download_verified(counting, obj, tmp_path / "big.jsonl", chunk_size=CHUNK)
    assert counting.calls == 6 and (tmp_path / "big.jsonl").read_bytes() == PAYLOAD
