"""The one place that writes artifacts: temp path -> fsync -> verify -> rename, with checksums.

Artifact directory contract (version 1):
    <entry>/                 any files the producer wrote (no pickle: Parquet, JSON, safetensors, ONNX)
    <entry>/MANIFEST.json    {"format": 1, "files": {relpath: {"sha256", "bytes"}}, "meta": {...}}
An entry without a valid MANIFEST.json is incomplete and must never be read. ``verify_entry``
re-hashes every file on read, so a flipped byte or a truncated file is detected, not trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "MANIFEST.json"
MANIFEST_FORMAT = 1
_CHUNK = 1 << 20


class ArtifactIntegrityError(RuntimeError):
    """An artifact is missing, incomplete or does not match its manifest."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_json(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex}")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_bytes(
        path, (json.dumps(data, indent=2, sort_keys=True, default=str) + "\n").encode()
    )


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError as err:
        raise ArtifactIntegrityError(f"missing file: {path}") from err
    except json.JSONDecodeError as err:
        raise ArtifactIntegrityError(f"{path}: not valid JSON ({err})") from err


def build_manifest(entry: Path, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    files = {}
    for file in sorted(p for p in entry.rglob("*") if p.is_file()):
        rel = file.relative_to(entry).as_posix()
        if rel == MANIFEST:
            continue
        files[rel] = {"sha256": sha256_file(file), "bytes": file.stat().st_size}
    return {"format": MANIFEST_FORMAT, "files": files, "meta": meta or {}}


# Files that record how an entry was made (run id, timings, resolved params), not what it is.
# They are verified like every file but left out of the content digest, so recomputing the
# same bytes in another run yields the same data version and downstream stays fresh.
PROVENANCE_FILES = frozenset({"memo.json", "params.json", "verification.json"})
PROVENANCE_DIRS = ("profile/",)  # torch.profiler traces: timings, not content


def manifest_digest(manifest: dict[str, Any]) -> str:
    """Content hash of an entry: file names and bytes of the artifact itself, not provenance."""
    content = {
        k: v
        for k, v in manifest["files"].items()
        if k not in PROVENANCE_FILES and not k.startswith(PROVENANCE_DIRS)
    }
    return sha256_json(content)


def verify_entry(entry: Path) -> dict[str, Any]:
    """Re-hash every file of ``entry`` against its manifest; return the manifest."""
    manifest_path = entry / MANIFEST
    if not manifest_path.is_file():
        raise ArtifactIntegrityError(
            f"{entry}: no {MANIFEST}; the entry is incomplete (crashed write?). Rematerialize it."
        )
    manifest = read_json(manifest_path)
    if manifest.get("format") != MANIFEST_FORMAT:
        raise ArtifactIntegrityError(
            f"{manifest_path}: unknown manifest format {manifest.get('format')}"
        )
    for rel, expected in manifest["files"].items():
        file = entry / rel
        if not file.is_file():
            raise ArtifactIntegrityError(f"{entry}: file {rel} listed in the manifest is missing")
        actual = sha256_file(file)
        if actual != expected["sha256"]:
            raise ArtifactIntegrityError(
                f"{file}: sha256 {actual[:12]}... does not match the manifest "
                f"({expected['sha256'][:12]}...); the artifact is corrupt. Rematerialize it."
            )
    return manifest


@contextlib.contextmanager
def staged_directory(final: Path, meta: dict[str, Any] | None = None) -> Iterator[Path]:
    """Yield an empty temp directory; on success write its manifest, verify, rename to ``final``.

    On any exception the temp directory is removed and ``final`` is untouched. If ``final``
    already holds a valid entry (a concurrent writer won), the new copy is discarded.
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / temp_name(final.name)
    tmp.mkdir()
    try:
        yield tmp
        manifest = build_manifest(tmp, meta)
        atomic_write_json(tmp / MANIFEST, manifest)
        verify_entry(tmp)
        for file in tmp.rglob("*"):
            if file.is_file():
                with open(file, "rb") as handle:
                    os.fsync(handle.fileno())
        for _ in range(3):
            if final.exists():
                try:
                    verify_entry(final)
                    return  # an identical-keyed, valid entry exists; keep it
                except (ArtifactIntegrityError, FileNotFoundError):
                    # corrupt, or being removed by another process (an old checkpoint pruned)
                    shutil.rmtree(final, ignore_errors=True)
            try:
                os.replace(tmp, final)
                break
            except OSError:
                # a concurrent writer committed the same key between our check and our
                # rename: keep theirs if it verifies (ours is discarded in `finally`)
                continue
        else:
            verify_entry(final)  # three lost races: fail loudly unless theirs is valid
            return
        _fsync_dir(final.parent)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


_OWNED_TEMP = re.compile(r"^\.tmp-.*\.(?P<pid>\d+)@(?P<host>.+)\.[0-9a-f]{12}$")
UNOWNED_TEMP_GRACE_SECONDS = 3600


def temp_name(name: str) -> str:
    """A temp folder name that says who owns it (pid and host), so that cleanup can tell a
    live writer's folder (another run writing the same key right now) from a dead one's."""
    return f".tmp-{name}.{os.getpid()}@{socket.gethostname()}.{uuid.uuid4().hex[:12]}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by another user
    return True


def temp_owner_gone(path: Path) -> bool:
    """True when a ``.tmp-`` folder's writer is certainly gone: its process no longer exists on
    this host. A folder of another host is never judged gone; one without an owner (written by
    an older version) only after an hour without change."""
    match = _OWNED_TEMP.match(path.name)
    if match is None:
        try:
            return time.time() - path.stat().st_mtime > UNOWNED_TEMP_GRACE_SECONDS
        except FileNotFoundError:
            return False
    if match["host"] != socket.gethostname():
        return False
    return int(match["pid"]) != os.getpid() and not _pid_alive(int(match["pid"]))


def remove_stale_temps(folder: Path, prefix: str = ".tmp-") -> list[Path]:
    """Remove the temp folders in ``folder`` whose writers are gone (a kill mid-write leaves
    them); a live writer's folder is never touched. Returns what was removed."""
    removed = []
    if not folder.is_dir():
        return removed
    for leftover in folder.glob(f"{prefix}*"):
        if leftover.is_dir() and temp_owner_gone(leftover):
            shutil.rmtree(leftover, ignore_errors=True)
            removed.append(leftover)
    return removed


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def safe_join(root: Path, *parts: str) -> Path:
    """Join user-influenced path parts under ``root``, refusing anything that escapes it."""
    candidate = (root / Path(*parts)).resolve()
    if not candidate.is_relative_to(root.resolve()):
        raise ValueError(f"path {Path(*parts)} escapes {root}")
    return candidate


@dataclass(frozen=True)
class ArtifactRef:
    """A pointer to a committed artifact entry: what flows between assets (as JSON)."""

    asset: str
    path: str
    digest: str  # content hash of the entry (manifest_digest); also the asset's data version

    @property
    def dir(self) -> Path:
        return Path(self.path)

    def verified(self) -> ArtifactRef:
        """Re-hash the entry; raise ArtifactIntegrityError if it changed since it was written."""
        manifest = verify_entry(self.dir)
        if manifest_digest(manifest) != self.digest:
            raise ArtifactIntegrityError(
                f"{self.path}: content digest changed since {self.asset} was materialized"
            )
        return self


def by_asset(*refs: ArtifactRef) -> dict[str, ArtifactRef]:
    """Input entries keyed by the asset that wrote each (what a fingerprint takes)."""
    return {ref.asset: ref for ref in refs}
