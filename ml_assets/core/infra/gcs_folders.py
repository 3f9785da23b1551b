"""Folders of the artifact contract (files + MANIFEST.json) moved to and from GCS by the job.

A folder is committed remotely by uploading its files first and MANIFEST.json last, so a
reader that finds the manifest finds every file; a download lands in a staged temp folder
and is verified against the manifest (sha256 of each file) before it is renamed into place.
Checkpoints are mirrored the same way: ``<root>/step-XXXXXXXX/...``, newest complete wins.

Only google-cloud-storage is used here (the job runs without dagster).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ml_assets.core.infra.io import (
    MANIFEST,
    ArtifactIntegrityError,
    safe_join,
    sha256_file,
    staged_directory,
    verify_entry,
)

# code versions leave this module out: how a remote job's folders travel, not what it computes
AFFECTS_OUTPUTS = False

_STEP = re.compile(r"step-(\d{8})$")


def split_gs_uri(uri: str) -> tuple[str, str]:
    if not uri.startswith("gs://"):
        raise ValueError(f"not a gs:// URI: {uri!r}")
    bucket, _, prefix = uri[len("gs://") :].partition("/")
    return bucket, prefix.strip("/")


def is_remote(location: str) -> bool:
    return location.startswith("gs://")


def upload_folder(client, local: Path, uri: str) -> None:
    """Upload a verified folder; MANIFEST.json goes last and is the commit marker."""
    manifest = verify_entry(local)
    bucket_name, prefix = split_gs_uri(uri)
    bucket = client.bucket(bucket_name)
    for rel in manifest["files"]:
        bucket.blob(f"{prefix}/{rel}").upload_from_filename(str(local / rel))
    bucket.blob(f"{prefix}/{MANIFEST}").upload_from_filename(str(local / MANIFEST))


def download_folder(client, uri: str, local: Path) -> Path:
    """Download a committed folder into ``local`` (staged, verified, renamed)."""
    bucket_name, prefix = split_gs_uri(uri)
    bucket = client.bucket(bucket_name)
    manifest_blob = bucket.blob(f"{prefix}/{MANIFEST}")
    if not manifest_blob.exists():
        raise ArtifactIntegrityError(f"{uri}: no {MANIFEST}; the folder was never committed")
    if local.exists():
        verify_entry(local)
        return local
    with staged_directory(local) as tmp:
        manifest = json.loads(manifest_blob.download_as_bytes())
        for rel, expected in manifest["files"].items():
            target = safe_join(tmp, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            bucket.blob(f"{prefix}/{rel}").download_to_filename(str(target))
            actual = sha256_file(target)
            if actual != expected["sha256"]:  # checked before the folder is committed locally
                raise ArtifactIntegrityError(
                    f"{uri}/{rel}: sha256 {actual[:12]}... does not match its manifest "
                    f"({expected['sha256'][:12]}...)"
                )
    return local


def remote_checkpoints(client, uri: str) -> list[int]:
    """Steps of the committed checkpoints under ``uri`` (those whose manifest exists), ascending."""
    bucket_name, prefix = split_gs_uri(uri)
    steps = set()
    for blob in client.list_blobs(bucket_name, prefix=f"{prefix}/step-"):
        folder, _, name = blob.name.rpartition("/")
        match = _STEP.search(folder)
        if match and name == MANIFEST:
            steps.add(int(match.group(1)))
    return sorted(steps)


def mirror_checkpoint(client, local_step: Path, uri: str, keep: int = 2) -> None:
    """Commit one local checkpoint folder under ``uri`` and drop all but the newest ``keep``."""
    upload_folder(client, local_step, f"{uri}/{local_step.name}")
    bucket_name, prefix = split_gs_uri(uri)
    for step in remote_checkpoints(client, uri)[:-keep]:
        for blob in client.list_blobs(bucket_name, prefix=f"{prefix}/step-{step:08d}/"):
            blob.delete()


def restore_checkpoints(client, uri: str, local_root: Path, warn=print) -> int | None:
    """Download the newest remote checkpoint that verifies into ``local_root``; its step or None."""
    for step in reversed(remote_checkpoints(client, uri)):
        name = f"step-{step:08d}"
        try:
            download_folder(client, f"{uri}/{name}", local_root / name)
            return step
        except ArtifactIntegrityError as err:
            warn(f"skipping remote checkpoint {name}: {err}")
    return None
