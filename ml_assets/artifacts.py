"""Glue shared by the asset wrappers: write an artifact entry and return it as an Output."""

from __future__ import annotations

import inspect
import warnings
from types import ModuleType
from typing import Any

import dagster as dg

from ml_assets.core.io import ArtifactRef, atomic_write_json, sha256_json


def entry_key(context: dg.AssetExecutionContext) -> str:
    """One entry per run (and partition): artifacts of earlier runs are never overwritten."""
    key = context.run.run_id
    if context.has_partition_key:
        key = f"{context.partition_key}/{key}"
    return key


def code_digest(*modules: ModuleType) -> str:
    """Hash of the source of the given modules (a resumable run's checkpoints are keyed by it,
    so changed training code never resumes from checkpoints written by the old code)."""
    return sha256_json([inspect.getsource(module) for module in modules])[:16]


def save_params(directory, section: dict[str, Any]) -> None:
    """The resolved config is stored beside every artifact it produced."""
    atomic_write_json(directory / "params.json", section)


def artifact_output(ref: ArtifactRef, metadata: dict[str, Any]) -> dg.Output[ArtifactRef]:
    """The artifact's content hash is its data version: identical bytes -> downstream stays fresh."""
    full = {
        "artifact_path": dg.MetadataValue.path(ref.path),
        "artifact_digest": ref.digest,
        **metadata,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)  # user data versions are "beta" since 1.x
        return dg.Output(ref, metadata=full, data_version=dg.DataVersion(ref.digest))


def table_preview(frame, rows: int = 10) -> dg.TableMetadataValue:
    """A few rows as a Dagster table (values stringified where Dagster needs scalars)."""
    head = frame.head(rows)
    columns = [dg.TableColumn(name, str(dtype)) for name, dtype in head.schema.items()]
    records = [
        dg.TableRecord(
            {
                k: (v if isinstance(v, int | float | bool) or v is None else str(v))
                for k, v in row.items()
            }
        )
        for row in head.iter_rows(named=True)
    ]
    return dg.MetadataValue.table(records=records, schema=dg.TableSchema(columns=columns))
