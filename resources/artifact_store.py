"""The content-addressed artifact store, and the IO manager that passes references between assets.

Entries are keyed by fingerprint: ``<asset>/<fingerprint>/`` holding the artifact's files and a
MANIFEST.json with the sha256 of each. Locally an entry is built in a temp folder and renamed
into place once manifested and verified; every read re-hashes it, and a corrupt or half-written
entry counts as missing (it is moved aside and recomputed).

With a remote backend (S3 via dagster-aws ``S3Resource``, GCS via dagster-gcp ``GCSResource``)
the local folder is a verified cache. Remote layout:
    blobs/<sha256>                      file contents, immutable, written first
    entries/<asset>/<fingerprint>.json  the manifest: the commit marker, written last
Two writers of the same fingerprint never corrupt each other: blobs are content-addressed and a
manifest is a single object put. Readers download blobs and check every sha256.
"""

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import dagster as dg
from pydantic import Field

from ml_assets.core.infra.attempt_ledger import LEDGER_DIR as ATTEMPTS_DIR
from ml_assets.core.infra.io import (
    ArtifactIntegrityError,
    ArtifactRef,
    atomic_write_json,
    canonical_json,
    folder_bytes,
    manifest_digest,
    read_json,
    remove_stale_temps,
    safe_join,
    sha256_file,
    staged_directory,
    temp_owner_gone,
    verify_entry,
)
from resources.blob_backends import (
    BlobNotFound,
    gcs_backend_from_resource,
    s3_backend_from_resource,
)

CORRUPT_PREFIX = ".corrupt-"  # an entry that failed verification, moved aside with its reason
CORRUPT_REASON = "CORRUPT_REASON.json"
CHECKPOINTS = "_checkpoints"

DEFAULT_ROOT = os.environ.get(
    "TXN_ARTIFACTS_DIR", str(Path(__file__).resolve().parents[1] / "artifacts")
)


class ArtifactStore(dg.ConfigurableResource):
    """Verified, fingerprint-keyed artifact entries on local disk, optionally mirrored to S3/GCS."""

    root: str = Field(
        default=DEFAULT_ROOT,
        description="Local folder of entries (TXN_ARTIFACTS_DIR); a cache when remote.",
    )
    backend: Literal["local", "s3", "gcs"] = Field(
        default_factory=lambda: os.environ.get("TXN_ARTIFACT_BACKEND", "local"),
        description="Where entries are shared: local only, S3 or GCS (TXN_ARTIFACT_BACKEND).",
    )
    bucket: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_ARTIFACT_BUCKET"),
        description="Bucket for s3/gcs.",
    )
    prefix: str = Field(
        default_factory=lambda: os.environ.get("TXN_ARTIFACT_PREFIX", "txn-ml"),
        description="Key prefix in the bucket.",
    )
    s3_endpoint_url: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_S3_ENDPOINT_URL"),
        description="S3-compatible endpoint (MinIO, SeaweedFS, moto); credentials come from the AWS provider chain.",
    )
    gcp_project: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_GCP_PROJECT"),
        description="GCP project for gcs.",
    )
    keep_checkpoints: bool = Field(
        default_factory=lambda: os.environ.get("TXN_KEEP_CHECKPOINTS", "") == "1",
        description=(
            "Keep a training stage's checkpoints after its entry is committed (TXN_KEEP_CHECKPOINTS"
            "=1). Off: they are removed once the entry verifies; only the attempt records stay."
        ),
    )

    @property
    def root_path(self) -> Path:
        return Path(self.root).expanduser().resolve()

    def _remote(self):
        if self.backend == "local":
            return None
        if not self.bucket:
            raise ValueError(
                f"artifact store backend {self.backend!r} needs a bucket (TXN_ARTIFACT_BUCKET)"
            )
        if self.backend == "s3":
            from dagster_aws.s3 import S3Resource

            return s3_backend_from_resource(
                S3Resource(endpoint_url=self.s3_endpoint_url), self.bucket, self.prefix
            )
        from dagster_gcp import GCSResource

        return gcs_backend_from_resource(
            GCSResource(project=self.gcp_project), self.bucket, self.prefix
        )

    def entry_path(self, asset: str, key: str) -> Path:
        return safe_join(self.root_path, asset, key)

    def lookup(
        self,
        asset: str,
        key: str,
        warn: Callable[[str], None] = print,
        repair: bool = True,
    ) -> ArtifactRef | None:
        """A verified entry for ``key``, from the local cache or the remote; None if absent.

        A corrupt local entry is reported through ``warn`` and, with ``repair`` (a run that is
        about to recompute it), moved aside with its reason, never deleted: ``gc`` removes it
        later and says so. Without ``repair`` (``plan``) nothing in the store changes: a remote
        entry is checked by its manifest, not downloaded."""
        entry = self.entry_path(asset, key)
        if entry.exists():
            try:
                return self._ref(asset, entry)
            except ArtifactIntegrityError as err:
                if not repair:
                    warn(f"{asset}: entry {key} is corrupt: {err}")
                    return None
                corrupt = entry.with_name(f"{CORRUPT_PREFIX}{key}-{int(time.time())}")
                os.replace(entry, corrupt)
                atomic_write_json(
                    corrupt / CORRUPT_REASON,
                    {"asset": asset, "key": key, "reason": str(err), "moved_at": time.time()},
                )
                warn(
                    f"{asset}: cached entry {key} is corrupt and will be recomputed: {err} "
                    f"(moved aside to {corrupt})"
                )
        remote, manifest = self._remote_manifest(asset, key)
        if manifest is None:
            return None
        if not repair:  # what the entry would be once pulled, from its manifest only
            return ArtifactRef(asset=asset, path=str(entry), digest=manifest_digest(manifest))
        try:
            with staged_directory(entry, meta=manifest.get("meta")) as tmp:
                for rel, info in manifest["files"].items():
                    target = safe_join(tmp, rel)
                    remote.get_file(f"blobs/{info['sha256']}", target)
                    actual = sha256_file(target)
                    if (
                        actual != info["sha256"]
                    ):  # the remote manifest is the reference, not the bytes
                        raise ArtifactIntegrityError(
                            f"{remote.uri_prefix}/blobs/{info['sha256']} ({rel}): sha256 {actual[:12]}... "
                            "does not match the manifest"
                        )
            return self._ref(asset, entry)
        except (ArtifactIntegrityError, BlobNotFound) as err:
            warn(
                f"{asset}: remote entry {key} is incomplete or corrupt and will be recomputed: {err}"
            )
            return None

    @contextlib.contextmanager
    def write(self, asset: str, key: str, meta: dict[str, Any] | None = None) -> Iterator[Path]:
        """Yield a temp folder to fill; it is manifested, verified, renamed, and then published."""
        final = self.entry_path(asset, key)
        remove_stale_temps(final.parent)  # left by writers killed mid-write; live ones stay
        with staged_directory(final, meta=meta) as tmp:
            yield tmp
        if not self.keep_checkpoints:
            self.release_checkpoints(asset, key)
        remote = self._remote()
        if remote is not None:
            manifest = verify_entry(final)
            for rel, info in manifest["files"].items():
                blob = f"blobs/{info['sha256']}"
                if not remote.exists(blob):
                    remote.put_file(blob, final / rel)
            remote.put_bytes(f"entries/{asset}/{key}.json", canonical_json(manifest).encode())

    def _remote_manifest(self, asset: str, key: str):
        """(remote backend, the entry's manifest there); (None or backend, None) when absent."""
        remote = self._remote()
        if remote is None:
            return None, None
        try:
            return remote, read_json_bytes(remote.get_bytes(f"entries/{asset}/{key}.json"))
        except BlobNotFound:
            return remote, None

    def _ref(self, asset: str, entry: Path) -> ArtifactRef:
        return ArtifactRef(
            asset=asset, path=str(entry), digest=manifest_digest(verify_entry(entry))
        )

    def ref(self, asset: str, key: str) -> ArtifactRef:
        return self._ref(asset, self.entry_path(asset, key))

    def checkpoint_root(self, asset: str, run_key: str) -> Path:
        """Stable per-fingerprint folder for resumable training checkpoints."""
        return safe_join(self.root_path, CHECKPOINTS, asset, run_key)

    def release_checkpoints(self, asset: str, run_key: str) -> int:
        """Remove a committed entry's checkpoints (they only served to resume building it);
        its attempt records stay, and so does a checkpoint a live process is still writing (an
        identical run training at the same time). Returns the bytes freed."""
        root = self.checkpoint_root(asset, run_key)
        freed = 0
        if not root.is_dir():
            return freed
        for child in root.iterdir():
            if not child.is_dir() or child.name == ATTEMPTS_DIR:
                continue
            if child.name.startswith(".tmp-") and not temp_owner_gone(child):
                continue
            freed += folder_bytes(child)
            shutil.rmtree(child, ignore_errors=True)
        return freed

    def current_ref(self, asset: str) -> ArtifactRef | None:
        """The entry the asset's last materialization points to (see ArtifactRefIOManager)."""
        path = ref_pointer_path(self.root_path, dg.AssetKey(asset), None)
        return self.read_pointer(path) if path.is_file() else None

    def partition_refs(self, asset: str) -> dict[str, ArtifactRef]:
        """partition key -> the entry each materialized partition points to (unverified)."""
        folder = ref_pointer_path(self.root_path, dg.AssetKey(asset), "x").parent
        if not folder.is_dir():
            return {}
        return {p.stem: self.read_pointer(p) for p in sorted(folder.glob("*.json"))}

    def hive_dataset(self, asset: str) -> Path:
        """``<asset>/dataset/``: the current partitions as hive-style ``date=YYYY-MM-DD/`` folders,
        for lazy scans that prune by date. Each file is a hard link to (or a copy of) the
        verified entry's file; the pointers stay the truth and a stale link is repaired."""
        return safe_join(self.root_path, asset, "dataset")

    def publish_hive_partition(self, asset: str, day: str, ref: ArtifactRef, name: str) -> Path:
        """Make ``dataset/date=<day>/part-0.parquet`` the entry's ``name``; atomic, idempotent."""
        source = ref.dir / name
        target = self.hive_dataset(asset) / f"date={day}" / "part-0.parquet"
        if target.exists() and os.path.samefile(source, target):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".part-0.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        try:
            os.link(source, tmp)
        except OSError:  # another filesystem, or no hard links: a copy, verified below
            shutil.copyfile(source, tmp)
            if sha256_file(tmp) != sha256_file(source):
                raise ArtifactIntegrityError(f"{tmp}: copy of {source} does not verify") from None
        os.replace(tmp, target)
        return target

    def write_pointer(self, path: Path, ref: ArtifactRef) -> None:
        """Pointers hold the entry relative to the store root, so a copied or pulled store works."""
        entry = Path(ref.path).resolve().relative_to(self.root_path).as_posix()
        atomic_write_json(path, {"asset": ref.asset, "entry": entry, "digest": ref.digest})

    def read_pointer(self, path: Path) -> ArtifactRef:
        data = read_json(path)
        return ArtifactRef(
            asset=data["asset"],
            path=str(safe_join(self.root_path, data["entry"])),
            digest=data["digest"],
        )


def read_json_bytes(data: bytes) -> dict:
    return json.loads(data)


def ref_pointer_path(root: Path, asset_key: dg.AssetKey, partition: str | None) -> Path:
    """``<asset>/CURRENT.json`` (or ``<asset>/CURRENT/<partition>.json``): the entry an asset
    points to now. It lives inside the asset's folder so that folder is self-contained (DVC
    tracks it as the stage's output)."""
    asset_dir = safe_join(root, *asset_key.path)
    return (
        safe_join(asset_dir, "CURRENT", f"{partition}.json")
        if partition
        else asset_dir / "CURRENT.json"
    )


class ArtifactRefIOManager(dg.ConfigurableIOManager):
    """Stores each asset's ArtifactRef as JSON in ``<root>/<asset>/CURRENT.json`` (no pickle);
    a partitioned asset's as ``CURRENT/<partition>.json``, one per partition of the run."""

    store: dg.ResourceDependency[ArtifactStore]

    def handle_output(
        self, context: dg.OutputContext, obj: ArtifactRef | dict[str, ArtifactRef]
    ) -> None:
        if not context.has_asset_partitions:
            self._point(context.asset_key, None, obj)
            return
        if not isinstance(obj, dict) or set(obj) != set(context.asset_partition_keys):
            raise TypeError(
                f"{context.asset_key}: a partitioned asset returns {{partition: ArtifactRef}} "
                f"for exactly its partitions {list(context.asset_partition_keys)}"
            )
        for partition, ref in sorted(obj.items()):
            self._point(context.asset_key, partition, ref)

    def _point(self, asset_key: dg.AssetKey, partition: str | None, ref: ArtifactRef) -> None:
        if not isinstance(ref, ArtifactRef):
            raise TypeError(
                f"{asset_key}: assets must return an ArtifactRef, got {type(ref).__name__}"
            )
        self.store.write_pointer(ref_pointer_path(self.store.root_path, asset_key, partition), ref)

    def load_input(self, context: dg.InputContext) -> ArtifactRef | dict[str, ArtifactRef]:
        """An ArtifactRef; for a partitioned upstream {partition: ArtifactRef} of the partitions
        this step reads (all must be materialized)."""
        if not context.has_asset_partitions:
            return self._load(context.asset_key, None)
        return {p: self._load(context.asset_key, p) for p in context.asset_partition_keys}

    def _load(self, asset_key: dg.AssetKey, partition: str | None) -> ArtifactRef:
        path = ref_pointer_path(self.store.root_path, asset_key, partition)
        if not path.is_file():
            what = asset_key.to_user_string() + (f" partition {partition}" if partition else "")
            raise FileNotFoundError(
                f"{what} has no artifact in {self.store.root_path}; "
                "materialize it first (or point TXN_ARTIFACTS_DIR at the store that holds it)"
            )
        return self.store.read_pointer(path).verified()
