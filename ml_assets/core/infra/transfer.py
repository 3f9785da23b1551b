"""Verified, resumable, parallel downloads of large objects from S3 or GCS.

An object is fetched in ranged GETs of ``chunk_size`` bytes by a thread pool. Each finished
chunk is written to ``<dest>.parts/part-NNNNNN`` atomically (temp file, length checked,
rename), so an interrupted download resumes from the chunks already on disk instead of
starting over; ``state.json`` pins the object's identity (size + ETag / generation) so parts of
an object that changed since are discarded, never mixed in. When all chunks are there they are
joined into a temp file, the whole file is verified, and only then renamed to ``dest``:

- a ``<key>.sha256`` sidecar object, when present, is the reference (sha256 of the file);
- else GCS's CRC32C, or S3's ETag where it is an MD5 (a single-part upload);
- else (S3 multipart upload, no sidecar) only the size can be checked: reported as such.

Clients are passed in (boto3 S3 client, ``google.cloud.storage.Client``): no dagster here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

DEFAULT_CHUNK = 8 << 20
_PART = "part-{:06d}"


class TransferError(RuntimeError):
    """A download could not be completed or verified; the message names the object."""


class ChecksumMismatch(TransferError):
    """The downloaded bytes do not match the object's checksum: tampered or corrupted."""


@dataclass(frozen=True)
class RemoteObject:
    uri: str
    key: str
    size: int
    identity: str  # ETag (S3) or generation (GCS): changes when the object is rewritten
    md5_hex: str | None = None
    crc32c_b64: str | None = None
    sha256_hex: str | None = None  # from a .sha256 sidecar


class RangeSource(Protocol):
    def describe(self, key: str) -> RemoteObject: ...
    def read_range(self, key: str, start: int, end: int) -> bytes: ...  # end inclusive
    def list(self, prefix: str) -> list[RemoteObject]: ...


def _sidecar_sha256(read: Callable[[], bytes]) -> str | None:
    try:
        text = read().decode().strip()
    except Exception:  # noqa: BLE001  (no sidecar is the common case; any error = none)
        return None
    digest = text.split()[0].lower() if text else ""
    return digest if len(digest) == 64 else None


class S3Source:
    def __init__(self, client, bucket: str):
        self.client, self.bucket = client, bucket

    def _object(self, key: str, size: int, etag: str) -> RemoteObject:
        etag = etag.strip('"')
        return RemoteObject(
            uri=f"s3://{self.bucket}/{key}",
            key=key,
            size=size,
            identity=etag,
            md5_hex=None if "-" in etag else etag,  # multipart ETags are not an MD5
            sha256_hex=_sidecar_sha256(
                lambda: self.client.get_object(Bucket=self.bucket, Key=f"{key}.sha256")[
                    "Body"
                ].read()
            ),
        )

    def describe(self, key: str) -> RemoteObject:
        head = self.client.head_object(Bucket=self.bucket, Key=key)
        return self._object(key, head["ContentLength"], head["ETag"])

    def read_range(self, key: str, start: int, end: int) -> bytes:
        response = self.client.get_object(Bucket=self.bucket, Key=key, Range=f"bytes={start}-{end}")
        return response["Body"].read()

    def list(self, prefix: str) -> list[RemoteObject]:
        found = []
        for page in self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=prefix
        ):
            for item in page.get("Contents", []):
                if not item["Key"].endswith((".sha256", "/")):
                    found.append(self._object(item["Key"], item["Size"], item["ETag"]))
        return found


class GCSSource:
    def __init__(self, client, bucket: str):
        self.client, self.bucket = client, client.bucket(bucket)

    def _object(self, blob) -> RemoteObject:
        sidecar = self.bucket.blob(f"{blob.name}.sha256")
        return RemoteObject(
            uri=f"gs://{self.bucket.name}/{blob.name}",
            key=blob.name,
            size=blob.size,
            identity=str(blob.generation),
            crc32c_b64=blob.crc32c,
            sha256_hex=_sidecar_sha256(sidecar.download_as_bytes),
        )

    def describe(self, key: str) -> RemoteObject:
        blob = self.bucket.get_blob(key)
        if blob is None:
            raise TransferError(f"gs://{self.bucket.name}/{key} does not exist")
        return self._object(blob)

    def read_range(self, key: str, start: int, end: int) -> bytes:
        return self.bucket.blob(key).download_as_bytes(start=start, end=end, checksum=None)

    def list(self, prefix: str) -> list[RemoteObject]:
        return [
            self._object(blob)
            for blob in self.client.list_blobs(self.bucket, prefix=prefix)
            if not blob.name.endswith((".sha256", "/"))
        ]


@dataclass
class DownloadReport:
    uri: str
    bytes: int
    chunks: int
    chunks_fetched: int  # this call; fewer than ``chunks`` when resumed
    verified_by: str  # sha256-sidecar | crc32c | md5-etag | size-only


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _verify(obj: RemoteObject, path: Path) -> str:
    """Check the joined file against the strongest checksum the object has."""
    sha256, md5 = hashlib.sha256(), hashlib.md5()  # noqa: S324 (MD5 only to compare ETags)
    crc = None
    if obj.crc32c_b64:
        import google_crc32c

        crc = google_crc32c.Checksum()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            sha256.update(block)
            md5.update(block)
            if crc is not None:
                crc.update(block)
    checks = []
    if obj.sha256_hex:
        checks.append(("sha256-sidecar", obj.sha256_hex, sha256.hexdigest()))
    if crc is not None:
        checks.append(("crc32c", obj.crc32c_b64, base64.b64encode(crc.digest()).decode()))
    if obj.md5_hex:
        checks.append(("md5-etag", obj.md5_hex, md5.hexdigest()))
    for kind, expected, actual in checks:
        if expected != actual:
            raise ChecksumMismatch(
                f"{obj.uri}: {kind} of the downloaded bytes is {actual}, the object says {expected}; "
                "the object was corrupted or tampered with. Re-upload it (and its .sha256 sidecar)."
            )
    return checks[0][0] if checks else "size-only"


def download_verified(
    source: RangeSource,
    obj: RemoteObject,
    dest: Path,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    workers: int = 4,
) -> DownloadReport:
    """Fetch ``obj`` to ``dest`` in parallel ranged chunks, resuming from parts on disk."""
    marker = dest.with_name(f".{dest.name}.identity")  # which object version dest holds
    if dest.is_file() and marker.is_file() and marker.read_text() == obj.identity:
        try:  # already here: re-verify the local bytes (cheap) instead of fetching them again
            if dest.stat().st_size == obj.size:
                return DownloadReport(obj.uri, obj.size, 0, 0, _verify(obj, dest))
        except ChecksumMismatch:
            pass  # the local copy rotted: fetch it again below
        dest.unlink()
        marker.unlink()
    parts = dest.with_name(f"{dest.name}.parts")
    state = {"uri": obj.uri, "size": obj.size, "identity": obj.identity, "chunk_size": chunk_size}
    if parts.exists():
        try:
            previous = json.loads((parts / "state.json").read_text())
        except (OSError, json.JSONDecodeError):
            previous = None
        if previous != state:  # the object changed (or chunking did): start over
            shutil.rmtree(parts)
    parts.mkdir(parents=True, exist_ok=True)
    _atomic_write(parts / "state.json", json.dumps(state).encode())
    count = max(1, -(-obj.size // chunk_size))

    def done(index: int) -> bool:
        part = parts / _PART.format(index)
        expected = min(chunk_size, obj.size - index * chunk_size)
        return part.is_file() and part.stat().st_size == expected

    todo = [i for i in range(count) if not done(i)]

    def fetch(index: int) -> None:
        start = index * chunk_size
        end = min(obj.size, start + chunk_size) - 1
        data = source.read_range(obj.key, start, end) if obj.size else b""
        if len(data) != end - start + 1:
            raise TransferError(f"{obj.uri}: range {start}-{end} returned {len(data)} bytes")
        _atomic_write(parts / _PART.format(index), data)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(fetch, index) for index in todo]:
            future.result()  # the first failure propagates; finished parts stay for a resume
    joined = dest.with_name(f".{dest.name}.joining")
    with open(joined, "wb") as out:
        for index in range(count):
            with open(parts / _PART.format(index), "rb") as part:
                shutil.copyfileobj(part, out)
        out.flush()
        os.fsync(out.fileno())
    try:
        verified_by = _verify(obj, joined)
    except ChecksumMismatch:
        joined.unlink()
        shutil.rmtree(parts)  # the parts are what mismatched: never resume from them
        raise
    os.replace(joined, dest)
    _atomic_write(marker, obj.identity.encode())
    shutil.rmtree(parts)
    return DownloadReport(obj.uri, obj.size, count, len(todo), verified_by)


def split_uri(uri: str) -> tuple[str, str, str]:
    """('s3'|'gs', bucket, key prefix) of s3://bucket/prefix or gs://bucket/prefix."""
    scheme, _, rest = uri.partition("://")
    if scheme not in ("s3", "gs") or not rest:
        raise ValueError(f"expected s3://bucket/prefix or gs://bucket/prefix, got {uri!r}")
    bucket, _, prefix = rest.partition("/")
    return scheme, bucket, prefix
