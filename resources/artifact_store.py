"""Where artifacts live, and the IO manager that passes references to them between assets.

Assets write large artifacts (Parquet, tokenizer, safetensors, ONNX) into entries of the
``ArtifactStore``; only a small JSON ``ArtifactRef`` travels through Dagster's IO manager.
Every load re-verifies the entry's sha256 manifest, so a corrupt artifact is never used.
"""

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field

from ml_assets.core.io import (
    ArtifactRef,
    atomic_write_json,
    manifest_digest,
    read_json,
    safe_join,
    staged_directory,
    verify_entry,
)

DEFAULT_ROOT = os.environ.get(
    "TXN_ARTIFACTS_DIR", str(Path(__file__).resolve().parents[1] / "artifacts")
)


class ArtifactStore(dg.ConfigurableResource):
    """A local folder of verified artifact entries: ``<root>/<asset>/<key>/`` + MANIFEST.json."""

    root: str = Field(
        default=DEFAULT_ROOT, description="Folder holding artifact entries (TXN_ARTIFACTS_DIR)."
    )

    @property
    def root_path(self) -> Path:
        return Path(self.root).expanduser().resolve()

    @contextlib.contextmanager
    def write(self, asset: str, key: str, meta: dict[str, Any] | None = None) -> Iterator[Path]:
        """Yield a temp folder to fill; it is manifested, verified and renamed on success."""
        final = safe_join(self.root_path, asset, key)
        with staged_directory(final, meta=meta) as tmp:
            yield tmp

    def ref(self, asset: str, key: str) -> ArtifactRef:
        entry = safe_join(self.root_path, asset, key)
        return ArtifactRef(
            asset=asset, path=str(entry), digest=manifest_digest(verify_entry(entry))
        )

    def checkpoint_root(self, asset: str, run_key: str) -> Path:
        """Stable per-configuration folder for resumable training checkpoints."""
        return safe_join(self.root_path, "_checkpoints", asset, run_key)


class ArtifactRefIOManager(dg.ConfigurableIOManager):
    """Stores each asset's ArtifactRef as JSON under ``<root>/_refs/`` (no pickle)."""

    store: dg.ResourceDependency[ArtifactStore]

    def _ref_path(self, asset_key: dg.AssetKey, partition: str | None) -> Path:
        parts = list(asset_key.path) + ([partition] if partition else [])
        return safe_join(self.store.root_path, "_refs", *parts[:-1], f"{parts[-1]}.json")

    def handle_output(self, context: dg.OutputContext, obj: ArtifactRef) -> None:
        if not isinstance(obj, ArtifactRef):
            raise TypeError(
                f"{context.asset_key}: assets must return an ArtifactRef, got {type(obj).__name__}"
            )
        partition = context.asset_partition_key if context.has_asset_partitions else None
        atomic_write_json(self._ref_path(context.asset_key, partition), obj.to_json())

    def load_input(self, context: dg.InputContext) -> ArtifactRef:
        partition = context.asset_partition_key if context.has_asset_partitions else None
        path = self._ref_path(context.asset_key, partition)
        if not path.is_file():
            raise FileNotFoundError(
                f"{context.asset_key.to_user_string()} has no artifact in {self.store.root_path}; "
                "materialize it first (or point TXN_ARTIFACTS_DIR at the store that holds it)"
            )
        return ArtifactRef.from_json(read_json(path)).verified()
