"""Blob backends against real servers: local disk, moto_server (S3) and fake-gcs-server (GCS).

Each server runs once per module as a subprocess on a free 127.0.0.1 port and is stopped at the
end (SIGINT, then SIGKILL); nothing here can reach real AWS or GCP. Every test gets backends
under its own fresh prefix in one shared bucket, so tests never see each other's keys.
"""

from __future__ import annotations

import base64
import hashlib
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from resources.blob_backends import (
    BlobBackend,
    BlobNotFound,
    BlobStoreError,
    GCSBlobBackend,
    LocalBlobBackend,
    S3BlobBackend,
    gcs_backend_from_resource,
    s3_backend_from_resource,
)

BUCKET = "blob-tests"
MISSING_BUCKET = "no-such-bucket"
BAD_KEYS = ["", "../x", "/abs", "a/../b", "a//b", "a/./b", "a/", "..", "a\\b"]


@pytest.fixture(scope="module")
def s3_resource(moto_endpoint):
    from dagster_aws.s3 import S3Resource

    # Built the way a user configures it; explicit keys, so no ambient AWS config is read.
    resource = S3Resource(
        endpoint_url=moto_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    resource.get_client().create_bucket(Bucket=BUCKET)
    return resource


@pytest.fixture(scope="module")
def s3_client(s3_resource):
    # Building a boto3 client takes ~0.2 s; tests that poke S3 directly share this one.
    return s3_resource.get_client()


@pytest.fixture(scope="module")
def gcs_resource(gcs_emulator):
    from dagster_gcp import GCSResource

    # GCSResource builds storage.Client(project=...); with STORAGE_EMULATOR_HOST set, the
    # client targets the emulator with anonymous credentials, so no test-only client is needed.
    resource = GCSResource(project="test-project")
    resource.get_client().create_bucket(BUCKET)
    return resource


@pytest.fixture(scope="module")
def gcs_client(gcs_resource):
    return gcs_resource.get_client()


# --------------------------------------------------------------------------- one harness per backend


@dataclass
class Harness:
    kind: str
    make: Callable[[str], BlobBackend]  # a backend under this test's run + the given prefix
    make_broken: Callable[[], BlobBackend]  # one whose writes must fail (no bucket / bad root)
    raw_put: Callable[[BlobBackend, str, bytes], None]  # write bytes behind the backend's back


def _local_harness(tmp_path: Path) -> Harness:
    root = tmp_path / "bucket"
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")

    def raw_put(backend: BlobBackend, key: str, data: bytes) -> None:
        assert isinstance(backend, LocalBlobBackend)
        (backend.root / key).write_bytes(data)

    return Harness(
        "local",
        make=lambda prefix: LocalBlobBackend(root / prefix),
        make_broken=lambda: LocalBlobBackend(blocker / "root"),
        raw_put=raw_put,
    )


def _s3_harness(s3_resource, client, run: str) -> Harness:
    def raw_put(backend: BlobBackend, key: str, data: bytes) -> None:
        assert isinstance(backend, S3BlobBackend)
        client.put_object(Bucket=BUCKET, Key=f"{backend.prefix}/{key}", Body=data)

    return Harness(
        "s3",
        make=lambda prefix: s3_backend_from_resource(s3_resource, BUCKET, f"{run}/{prefix}"),
        make_broken=lambda: s3_backend_from_resource(s3_resource, MISSING_BUCKET, run),
        raw_put=raw_put,
    )


def _gcs_harness(gcs_resource, client, run: str) -> Harness:
    def raw_put(backend: BlobBackend, key: str, data: bytes) -> None:
        assert isinstance(backend, GCSBlobBackend)
        client.bucket(BUCKET).blob(f"{backend.prefix}/{key}").upload_from_string(data)

    return Harness(
        "gcs",
        make=lambda prefix: gcs_backend_from_resource(gcs_resource, BUCKET, f"{run}/{prefix}"),
        make_broken=lambda: gcs_backend_from_resource(gcs_resource, MISSING_BUCKET, run),
        raw_put=raw_put,
    )


@pytest.fixture(params=["local", "s3", "gcs"])
def harness(request, tmp_path) -> Harness:
    # Servers are requested lazily, so the local cases run (and pass) without them.
    run = f"run-{uuid.uuid4().hex[:12]}"
    if request.param == "s3":
        resource, client = (request.getfixturevalue(f) for f in ("s3_resource", "s3_client"))
        return _s3_harness(resource, client, run)
    if request.param == "gcs":
        resource, client = (request.getfixturevalue(f) for f in ("gcs_resource", "gcs_client"))
        return _gcs_harness(resource, client, run)
    return _local_harness(tmp_path)


@pytest.fixture
def backend(harness) -> BlobBackend:
    return harness.make("store")


# --------------------------------------------------------------------------- behaviour, all backends


def test_backend_satisfies_protocol_and_names_its_uri(harness, backend):
    assert isinstance(backend, BlobBackend)
    scheme = {"local": "file:///", "s3": f"s3://{BUCKET}/", "gcs": f"gs://{BUCKET}/"}
    assert backend.uri_prefix.startswith(scheme[harness.kind])
    assert backend.uri_prefix.endswith("/store")
    assert backend.uri("a/b.bin") == f"{backend.uri_prefix}/a/b.bin"


def test_file_round_trip_is_byte_identical(backend, tmp_path):
    data = os.urandom(3 * 1024 * 1024)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    backend.put_file("entries/abc123/model/model.onnx", src)

    dest = tmp_path / "download" / "deep" / "model.onnx"  # parents do not exist yet
    backend.get_file("entries/abc123/model/model.onnx", dest)
    assert dest.read_bytes() == data

    dest.write_bytes(b"stale")  # an existing file is replaced whole
    backend.get_file("entries/abc123/model/model.onnx", dest)
    assert dest.read_bytes() == data
    assert [p.name for p in dest.parent.iterdir()] == ["model.onnx"]  # no temp files left


def test_bytes_round_trip_and_exists(backend):
    backend.put_bytes("entries/abc123/MANIFEST.json", b'{"format": 1}')
    backend.put_bytes("empty", b"")

    assert backend.get_bytes("entries/abc123/MANIFEST.json") == b'{"format": 1}'
    assert backend.get_bytes("empty") == b""
    assert backend.exists("entries/abc123/MANIFEST.json")
    assert backend.exists("empty")
    assert not backend.exists("entries/abc123")  # a "folder" is not a blob
    assert not backend.exists("entries/abc123/MANIFEST")
    assert not backend.exists("never-written")


def test_list_keys_is_sorted_relative_and_prefix_filtered(backend):
    keys = ["b/2.bin", "a/10.bin", "MANIFEST.json", "a/1.bin", "ab.bin"]
    for key in keys:
        backend.put_bytes(key, key.encode())

    assert backend.list_keys() == ["MANIFEST.json", "a/1.bin", "a/10.bin", "ab.bin", "b/2.bin"]
    assert backend.list_keys("a/") == ["a/1.bin", "a/10.bin"]
    assert backend.list_keys("a") == ["a/1.bin", "a/10.bin", "ab.bin"]  # a string prefix
    assert backend.list_keys("b/2.bin") == ["b/2.bin"]
    assert backend.list_keys("zzz") == []


def test_delete_removes_and_tolerates_missing(backend):
    backend.put_bytes("x/y.bin", b"data")
    backend.put_bytes("x/z.bin", b"keep")

    backend.delete("x/y.bin")
    assert not backend.exists("x/y.bin")
    assert backend.list_keys() == ["x/z.bin"]
    with pytest.raises(BlobNotFound):
        backend.get_bytes("x/y.bin")

    backend.delete("x/y.bin")  # already gone
    backend.delete("never/written.bin")
    assert backend.get_bytes("x/z.bin") == b"keep"


def test_missing_key_raises_blob_not_found_naming_uri(backend, tmp_path):
    with pytest.raises(BlobNotFound) as info:
        backend.get_bytes("entries/missing/MANIFEST.json")
    assert isinstance(info.value, KeyError)
    assert str(info.value) == f"{backend.uri('entries/missing/MANIFEST.json')}: no such blob"

    dest = tmp_path / "download" / "model.onnx"
    with pytest.raises(BlobNotFound, match="entries/missing/model.onnx"):
        backend.get_file("entries/missing/model.onnx", dest)
    assert not dest.exists()
    assert not dest.parent.exists() or list(dest.parent.iterdir()) == []  # no temp file left


@pytest.mark.parametrize("key", BAD_KEYS)
def test_invalid_keys_raise_value_error(backend, tmp_path, key):
    src = tmp_path / "src.bin"
    src.write_bytes(b"x")
    calls = [
        lambda: backend.put_bytes(key, b"x"),
        lambda: backend.put_file(key, src),
        lambda: backend.get_bytes(key),
        lambda: backend.get_file(key, tmp_path / "out.bin"),
        lambda: backend.exists(key),
        lambda: backend.delete(key),
        lambda: backend.uri(key),
    ]
    for call in calls:
        with pytest.raises(ValueError):
            call()
    assert backend.list_keys() == []  # nothing was written anywhere


@pytest.mark.parametrize("prefix", ["/abs", "../", "a/../b", "a/./"])
def test_invalid_list_prefix_raises_value_error(backend, prefix):
    with pytest.raises(ValueError):
        backend.list_keys(prefix)


def test_prefixes_in_one_bucket_are_isolated(harness):
    # "team" is a string prefix of "team-b": listing must still stop at the '/' boundary.
    team, team_b = harness.make("team"), harness.make("team-b")
    team.put_bytes("x", b"A")
    team_b.put_bytes("x", b"B")
    team_b.put_bytes("only-b", b"B2")

    assert team.list_keys() == ["x"]
    assert team_b.list_keys() == ["only-b", "x"]
    assert team.get_bytes("x") == b"A"
    assert team_b.get_bytes("x") == b"B"
    assert not team.exists("only-b")

    team.delete("x")
    assert team_b.get_bytes("x") == b"B"


def test_get_returns_what_is_stored_now(harness, backend, tmp_path):
    # Tampering is caught by the store's manifest sha256; the backend's part is never to serve
    # a cached or stale copy, so the store hashes exactly what the remote holds.
    backend.put_bytes("entries/e1/weights.bin", b"original")
    assert backend.get_bytes("entries/e1/weights.bin") == b"original"

    harness.raw_put(backend, "entries/e1/weights.bin", b"tampered!")
    assert backend.get_bytes("entries/e1/weights.bin") == b"tampered!"
    dest = tmp_path / "weights.bin"
    backend.get_file("entries/e1/weights.bin", dest)
    assert dest.read_bytes() == b"tampered!"


def test_other_failures_raise_blob_store_error_naming_uri(harness, tmp_path):
    broken = harness.make_broken()
    src = tmp_path / "src.bin"
    src.write_bytes(b"x")
    for call in (lambda: broken.put_bytes("k.bin", b"x"), lambda: broken.put_file("k.bin", src)):
        with pytest.raises(BlobStoreError) as info:
            call()
        assert str(info.value).startswith(f"{broken.uri('k.bin')}: ")
        assert info.value.__cause__ is not None  # the client's own error is kept


# --------------------------------------------------------------------------- backend specifics


def test_s3_uploads_carry_a_sha256_checksum(s3_resource, s3_client, tmp_path):
    backend = s3_backend_from_resource(s3_resource, BUCKET, f"run-{uuid.uuid4().hex[:12]}")
    data = os.urandom(256 * 1024)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    backend.put_file("f.bin", src)
    backend.put_bytes("b.bin", data)

    # moto 5.2 records the SHA256 botocore sends but, unlike S3, does not reject a wrong one;
    # what this pins is that every upload path asks for SHA256.
    expected = base64.b64encode(hashlib.sha256(data).digest()).decode()
    for key in ("f.bin", "b.bin"):
        head = s3_client.head_object(
            Bucket=BUCKET, Key=f"{backend.prefix}/{key}", ChecksumMode="ENABLED"
        )
        assert head["ChecksumSHA256"] == expected


def test_local_listing_skips_interrupted_writes(tmp_path):
    backend = LocalBlobBackend(tmp_path / "root")
    backend.put_bytes("a/b.bin", b"x")
    # What a crash between "write temp" and "rename" leaves behind.
    (tmp_path / "root" / "a" / f".c.bin.tmp-{uuid.uuid4().hex}").write_bytes(b"partial")
    assert backend.list_keys() == ["a/b.bin"]


def test_local_refuses_a_symlink_out_of_root(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(b"s")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(outside)
    backend = LocalBlobBackend(root)
    with pytest.raises(ValueError, match="escapes"):
        backend.get_bytes("link/secret")


def test_prefix_and_bucket_normalization():
    assert S3BlobBackend(None, "bkt", "/a/b/").uri("k") == "s3://bkt/a/b/k"
    assert S3BlobBackend(None, "bkt").uri("k") == "s3://bkt/k"
    assert GCSBlobBackend(None, "bkt", "p").uri_prefix == "gs://bkt/p"
    with pytest.raises(ValueError):
        S3BlobBackend(None, "bkt/sub")
    with pytest.raises(ValueError):
        GCSBlobBackend(None, "bkt", "a/../b")
