"""A tiny blob interface for the artifact store's remote copy: local disk, S3 or GCS.

The store decides which keys to write and verifies every entry's sha256 manifest after a
download; this module only moves bytes, reliably:

- keys are relative, '/'-separated and validated (no '', no leading '/', no '.'/'..' segments),
  and are joined to a backend's prefix with exactly one '/';
- ``get_file`` writes a temp file beside the target and ``os.replace``-s it into place, so a
  reader sees either no file or the whole file, and a failed download leaves nothing behind;
- a missing key raises ``BlobNotFound`` (a ``KeyError``); every other failure raises
  ``BlobStoreError`` naming the URI, chained to the client's own exception;
- transfers carry checksums the server or client verifies in transit (S3: SHA256 on upload and
  ``ChecksumMode`` on download; GCS: CRC32C both ways).

Clients are passed in (a boto3 S3 client, a ``google.cloud.storage.Client``), so nothing here
imports dagster; ``s3_backend_from_resource`` / ``gcs_backend_from_resource`` adapt the Dagster
resources. Cloud libraries are imported lazily, so the local backend needs neither.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol, runtime_checkable

_TMP_MARK = ".tmp-"
_CHUNK = 1 << 20


class BlobNotFound(KeyError):
    """No blob under the key; the message names its URI."""

    def __str__(self) -> str:
        # KeyError's str() would wrap the message in quotes.
        return str(self.args[0]) if self.args else ""


class BlobStoreError(RuntimeError):
    """A blob operation failed for a reason other than a missing key (network, auth, bucket...)."""


@runtime_checkable
class BlobBackend(Protocol):
    """Where the artifact store's remote copy lives. Keys are relative to ``uri_prefix``."""

    uri_prefix: str

    def uri(self, key: str) -> str: ...
    def put_file(self, key: str, path: Path) -> None: ...
    def get_file(self, key: str, path: Path) -> None: ...
    def put_bytes(self, key: str, data: bytes) -> None: ...
    def get_bytes(self, key: str) -> bytes: ...
    def exists(self, key: str) -> bool: ...
    def list_keys(self, prefix: str = "") -> list[str]: ...
    def delete(self, key: str) -> None: ...


# --------------------------------------------------------------------------- keys and paths


def validate_key(key: str) -> str:
    """Return ``key`` if it is a safe relative blob key, else raise ValueError saying why."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"blob key must be a non-empty string, got {key!r}")
    if key.startswith("/"):
        raise ValueError(f"blob key {key!r} must be relative: drop the leading '/'")
    if "\\" in key or "\x00" in key:
        raise ValueError(f"blob key {key!r} must use '/' separators and no NUL bytes")
    if any(part in ("", ".", "..") for part in key.split("/")):
        raise ValueError(f"blob key {key!r} has an empty, '.' or '..' segment")
    return key


def _validate_list_prefix(prefix: str) -> str:
    # A listing prefix is a plain string prefix of keys ("step-00" matches "step-0001/x"),
    # so a partial or trailing-'/' segment is fine; escaping the backend's prefix is not.
    if not prefix:
        return ""
    if prefix.startswith("/") or any(p in (".", "..") for p in prefix.split("/")):
        raise ValueError(f"list prefix {prefix!r} must be relative, without '.' or '..' segments")
    return prefix


def _normalize_prefix(prefix: str) -> str:
    prefix = prefix.strip("/")
    return validate_key(prefix) if prefix else ""


def _tmp_sibling(path: Path) -> Path:
    return path.with_name(f".{path.name}{_TMP_MARK}{uuid.uuid4().hex}")


def _is_tmp_name(name: str) -> bool:
    head, mark, tail = name.rpartition(_TMP_MARK)
    return bool(mark) and head.startswith(".") and len(tail) == 32


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _atomic_target(path: Path) -> Iterator[Path]:
    """Yield a temp path beside ``path``; on a clean exit fsync it and move it into place.

    On any error the temp file is removed and ``path`` is untouched, so readers never see a
    partial file (the store's manifest check would catch one, but it should never exist).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_sibling(path)
    try:
        yield tmp
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


# --------------------------------------------------------------------------- local disk


class LocalBlobBackend:
    """Blobs as files under ``root`` (keys map to sub-paths); writes are atomic and durable."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.uri_prefix = self.root.as_uri()

    def uri(self, key: str) -> str:
        return f"{self.uri_prefix}/{validate_key(key)}"

    def _path(self, key: str) -> Path:
        path = (self.root / validate_key(key)).resolve()
        # Segments are validated above; this also refuses a symlink inside root pointing out.
        if not path.is_relative_to(self.root):
            raise ValueError(f"blob key {key!r} escapes {self.root}")
        return path

    @contextlib.contextmanager
    def _errors(self, key: str, action: str) -> Iterator[None]:
        try:
            yield
        except OSError as err:
            raise BlobStoreError(f"{self.uri(key)}: {action} failed: {err}") from err

    def put_file(self, key: str, path: Path) -> None:
        dest = self._path(key)
        with self._errors(key, f"upload of {path}"), _atomic_target(dest) as tmp:
            shutil.copyfile(path, tmp)

    def put_bytes(self, key: str, data: bytes) -> None:
        dest = self._path(key)
        with self._errors(key, "write"), _atomic_target(dest) as tmp:
            tmp.write_bytes(data)

    def _open(self, key: str) -> BinaryIO:
        try:
            return open(self._path(key), "rb")  # the caller closes it
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as err:
            raise BlobNotFound(f"{self.uri(key)}: no such blob") from err

    def get_file(self, key: str, path: Path) -> None:
        # Contexts enter left to right: the source opens first, so a missing key creates
        # nothing at the destination.
        with (
            self._errors(key, f"download to {path}"),
            self._open(key) as source,
            _atomic_target(Path(path)) as tmp,
            open(tmp, "wb") as out,
        ):
            shutil.copyfileobj(source, out, _CHUNK)

    def get_bytes(self, key: str) -> bytes:
        with self._errors(key, "read"), self._open(key) as source:
            return source.read()

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list_keys(self, prefix: str = "") -> list[str]:
        prefix = _validate_list_prefix(prefix)
        keys = []
        for dirpath, _dirs, files in os.walk(self.root):
            rel_dir = Path(dirpath).relative_to(self.root).as_posix()
            for name in files:
                if _is_tmp_name(name):
                    continue  # an in-flight or crashed atomic write, not a blob
                key = name if rel_dir == "." else f"{rel_dir}/{name}"
                if key.startswith(prefix):
                    keys.append(key)
        return sorted(keys)

    def delete(self, key: str) -> None:
        path = self._path(key)
        with self._errors(key, "delete"):
            path.unlink(missing_ok=True)


# --------------------------------------------------------------------------- S3


@functools.cache
def _s3_errors() -> tuple[type[BaseException], ...]:
    from boto3.exceptions import Boto3Error
    from botocore.exceptions import BotoCoreError, ClientError

    return (ClientError, BotoCoreError, Boto3Error, OSError)


class _RemoteBackend:
    """Key/prefix joining and error mapping shared by the S3 and GCS backends."""

    scheme: str

    def __init__(self, client: Any, bucket: str, prefix: str = "") -> None:
        if not bucket or "/" in bucket:
            raise ValueError(f"bucket must be a bare bucket name, got {bucket!r}")
        self.client = client
        self.bucket = bucket
        self.prefix = _normalize_prefix(prefix)
        # Every full name starts with _base, so prefixes "team" and "team-b" never overlap.
        self._base = f"{self.prefix}/" if self.prefix else ""
        self.uri_prefix = f"{self.scheme}://{bucket}" + (f"/{self.prefix}" if self.prefix else "")

    def uri(self, key: str) -> str:
        return f"{self.uri_prefix}/{validate_key(key)}"

    def _name(self, key: str) -> str:
        return self._base + validate_key(key)

    def _relative(self, names: list[str], prefix: str) -> list[str]:
        # Names ending in '/' are "folder" placeholders some tools create, never our keys.
        return sorted(
            name[len(self._base) :]
            for name in names
            if name.startswith(self._base + prefix) and not name.endswith("/")
        )

    def _client_errors(self) -> tuple[type[BaseException], ...]:
        raise NotImplementedError

    def _is_not_found(self, err: BaseException) -> bool:
        raise NotImplementedError

    def _failure(self, err: BaseException, key: str, action: str) -> Exception:
        """The exception to raise for a failed read: BlobNotFound or BlobStoreError."""
        if self._is_not_found(err):
            return BlobNotFound(f"{self.uri(key)}: no such blob")
        return BlobStoreError(f"{self.uri(key)}: {action} failed: {err}")

    def _write_failure(self, err: BaseException, key: str, action: str) -> Exception:
        # A not-found on a write means the bucket is missing: a config error, not a missing key.
        return BlobStoreError(f"{self.uri(key)}: {action} failed: {err}")

    def _list_failure(self, err: BaseException, prefix: str) -> Exception:
        return BlobStoreError(f"{self.uri_prefix}: listing {prefix!r} failed: {err}")


class S3BlobBackend(_RemoteBackend):
    """Blobs as S3 objects ``s3://bucket/prefix/key`` through a boto3 S3 client.

    Uploads ask for a SHA256 checksum (``ChecksumAlgorithm="SHA256"``): real S3 rejects an
    upload whose bytes do not match it, and stores it for later reads. Downloads set
    ``ChecksumMode="ENABLED"`` so botocore checks the stored checksum against the bytes read
    (single-part objects; multipart objects carry a composite checksum it skips). moto 5.2
    stores and returns the SHA256 but does not reject a mismatching one, so against moto the
    in-transit check is only exercised on the download side.
    """

    scheme = "s3"

    def _client_errors(self) -> tuple[type[BaseException], ...]:
        return _s3_errors()

    def _is_not_found(self, err: BaseException) -> bool:
        # get_object says NoSuchKey; head_object (and download_file, which heads first) only
        # has the status, so its code is "404".
        code = getattr(err, "response", {}).get("Error", {}).get("Code")
        return code in ("404", "NoSuchKey", "NotFound")

    def put_file(self, key: str, path: Path) -> None:
        name = self._name(key)
        try:
            self.client.upload_file(
                str(path), self.bucket, name, ExtraArgs={"ChecksumAlgorithm": "SHA256"}
            )
        except self._client_errors() as err:
            raise self._write_failure(err, key, f"upload of {path}") from err

    def put_bytes(self, key: str, data: bytes) -> None:
        name = self._name(key)
        try:
            self.client.put_object(
                Bucket=self.bucket, Key=name, Body=data, ChecksumAlgorithm="SHA256"
            )
        except self._client_errors() as err:
            raise self._write_failure(err, key, "write") from err

    def get_file(self, key: str, path: Path) -> None:
        name = self._name(key)
        try:
            with _atomic_target(Path(path)) as tmp:
                self.client.download_file(
                    self.bucket, name, str(tmp), ExtraArgs={"ChecksumMode": "ENABLED"}
                )
        except self._client_errors() as err:
            raise self._failure(err, key, f"download to {path}") from err

    def get_bytes(self, key: str) -> bytes:
        name = self._name(key)
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=name, ChecksumMode="ENABLED")
            with contextlib.closing(response["Body"]) as body:
                return body.read()
        except self._client_errors() as err:
            raise self._failure(err, key, "read") from err

    def exists(self, key: str) -> bool:
        name = self._name(key)
        try:
            self.client.head_object(Bucket=self.bucket, Key=name)
        except self._client_errors() as err:
            if self._is_not_found(err):
                return False
            raise self._failure(err, key, "existence check") from err
        return True

    def list_keys(self, prefix: str = "") -> list[str]:
        prefix = _validate_list_prefix(prefix)
        paginator = self.client.get_paginator("list_objects_v2")
        try:
            names = [
                obj["Key"]
                for page in paginator.paginate(Bucket=self.bucket, Prefix=self._base + prefix)
                for obj in page.get("Contents", [])
            ]
        except self._client_errors() as err:
            raise self._list_failure(err, prefix) from err
        return self._relative(names, prefix)

    def delete(self, key: str) -> None:
        name = self._name(key)
        try:
            self.client.delete_object(Bucket=self.bucket, Key=name)
        except self._client_errors() as err:
            # S3 answers 204 for a missing key; this covers S3-alikes that answer 404.
            if not self._is_not_found(err):
                raise self._failure(err, key, "delete") from err


# --------------------------------------------------------------------------- GCS


@functools.cache
def _gcs_errors() -> tuple[type[BaseException], ...]:
    from google.api_core.exceptions import GoogleAPICallError
    from google.auth.exceptions import GoogleAuthError
    from google.cloud.storage.exceptions import DataCorruption, InvalidResponse

    # requests' exceptions are OSErrors.
    return (GoogleAPICallError, GoogleAuthError, DataCorruption, InvalidResponse, OSError)


class GCSBlobBackend(_RemoteBackend):
    """Blobs as GCS objects ``gs://bucket/prefix/key`` through a ``google.cloud.storage.Client``.

    Transfers pass ``checksum="crc32c"`` explicitly: uploads send the CRC32C for the server to
    verify, downloads compare the object's CRC32C with the bytes received (the library's
    default, pinned here so a future default change cannot silently turn it off).
    """

    scheme = "gs"
    _CHECKSUM = "crc32c"

    def _client_errors(self) -> tuple[type[BaseException], ...]:
        return _gcs_errors()

    def _is_not_found(self, err: BaseException) -> bool:
        from google.api_core.exceptions import NotFound

        return isinstance(err, NotFound)

    def _blob(self, key: str) -> Any:
        return self.client.bucket(self.bucket).blob(self._name(key))

    def put_file(self, key: str, path: Path) -> None:
        blob = self._blob(key)
        try:
            blob.upload_from_filename(str(path), checksum=self._CHECKSUM)
        except self._client_errors() as err:
            raise self._write_failure(err, key, f"upload of {path}") from err

    def put_bytes(self, key: str, data: bytes) -> None:
        blob = self._blob(key)
        try:
            blob.upload_from_string(data, checksum=self._CHECKSUM)
        except self._client_errors() as err:
            raise self._write_failure(err, key, "write") from err

    def get_file(self, key: str, path: Path) -> None:
        blob = self._blob(key)
        try:
            with _atomic_target(Path(path)) as tmp:
                blob.download_to_filename(str(tmp), checksum=self._CHECKSUM)
        except self._client_errors() as err:
            raise self._failure(err, key, f"download to {path}") from err

    def get_bytes(self, key: str) -> bytes:
        blob = self._blob(key)
        try:
            return blob.download_as_bytes(checksum=self._CHECKSUM)
        except self._client_errors() as err:
            raise self._failure(err, key, "read") from err

    def exists(self, key: str) -> bool:
        blob = self._blob(key)
        try:
            return bool(blob.exists())
        except self._client_errors() as err:
            raise self._failure(err, key, "existence check") from err

    def list_keys(self, prefix: str = "") -> list[str]:
        prefix = _validate_list_prefix(prefix)
        try:
            names = [
                blob.name
                for blob in self.client.list_blobs(self.bucket, prefix=self._base + prefix)
            ]
        except self._client_errors() as err:
            raise self._list_failure(err, prefix) from err
        return self._relative(names, prefix)

    def delete(self, key: str) -> None:
        blob = self._blob(key)
        try:
            blob.delete()
        except self._client_errors() as err:
            if not self._is_not_found(err):
                raise self._failure(err, key, "delete") from err


# --------------------------------------------------------------------------- Dagster resources


def s3_backend_from_resource(s3_resource: Any, bucket: str, prefix: str = "") -> S3BlobBackend:
    """S3 backend from a ``dagster_aws.s3.S3Resource`` (its endpoint, region and credentials)."""
    return S3BlobBackend(s3_resource.get_client(), bucket, prefix)


def gcs_backend_from_resource(gcs_resource: Any, bucket: str, prefix: str = "") -> GCSBlobBackend:
    """GCS backend from a ``dagster_gcp.GCSResource``.

    ``GCSResource`` builds ``storage.Client(project=...)``; with ``STORAGE_EMULATOR_HOST`` set
    that client targets the emulator with anonymous credentials, so the same code path serves
    tests (fake-gcs-server) and production (application default credentials).
    """
    return GCSBlobBackend(gcs_resource.get_client(), bucket, prefix)
