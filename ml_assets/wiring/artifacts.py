"""Glue shared by the asset wrappers: fingerprint, look up, compute on a miss, report.

Every asset body is ``memoized_output(...)`` around a ``build(folder) -> metadata`` function:
  fingerprint = sha256(code files + library versions, effective params, input data versions)
  hit  -> no work; the same entry and data version are reported with ``memoized: true``
  miss -> build into a temp folder, commit it under the fingerprint, report what it took.
"""

import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, atomic_write_json, read_json, sha256_json
from ml_assets.core.infra.layouts import PARAMS_FILE
from ml_assets.core.infra.versioning import CodeVersion
from resources.artifact_store import ArtifactStore

MEMO_FILE = "memo.json"  # provenance: fingerprint components, producing run, seconds, metadata

# The tags Dagster reads a materialization's data version and its inputs' versions from. Dagster
# exports no name for them (only ``dg.Output(data_version=...)``, which a per-day
# ``AssetMaterialization`` cannot take); tests/test_day_versions.py checks them against
# Dagster's own, so an upgrade that renames them fails there, not silently here.
DATA_VERSION_TAG = "dagster/data_version"
DATA_VERSION_IS_USER_PROVIDED_TAG = "dagster/data_version_is_user_provided"
INPUT_DATA_VERSION_TAG_PREFIX = "dagster/input_data_version/"  # + the input asset's key


def fingerprint_components(
    code: CodeVersion, params: dict[str, Any], input_digests: dict[str, str]
) -> dict:
    """What a fingerprint hashes (and ``plan`` explains): code, effective params, the data
    version of each input."""
    return {
        "code": {"files": code.files, "libraries": code.libraries},
        "params": params,
        "inputs": dict(sorted(input_digests.items())),
    }


def fingerprint_of(components: dict) -> str:
    return sha256_json(components)[:32]


def _plain(metadata: dict[str, Any]) -> dict[str, Any]:
    """The JSON-able part of metadata (numbers, strings, markdown), kept for memo hits."""
    kept = {}
    for key, value in metadata.items():
        scalar = isinstance(value, bool | int | float | str) or value is None
        flat_dict = isinstance(value, dict) and all(
            isinstance(v, int | float | str) for v in value.values()
        )
        if scalar or flat_dict:
            kept[key] = value
        elif isinstance(value, dg.MarkdownMetadataValue):
            kept[key] = {"__markdown__": value.md_str}
    return kept


def _revive(metadata: dict[str, Any]) -> dict[str, Any]:
    return {
        key: dg.MetadataValue.md(value["__markdown__"])
        if isinstance(value, dict) and "__markdown__" in value
        else value
        for key, value in metadata.items()
    }


def _savings(recorded: dict[str, Any]) -> dict[str, Any]:
    """A hit costs nothing: what the producing run spent on GPUs is reported as saved."""
    if "estimated_cost_usd" not in recorded:
        return {}
    return {
        "cost_saved_usd": recorded["estimated_cost_usd"],
        "gpu_hours_saved": recorded.get("gpu_hours", 0.0),
        "estimated_cost_usd": 0.0,
        "gpu_hours": 0.0,
    }


def memoized_output(
    context: dg.AssetExecutionContext,
    store: ArtifactStore,
    *,
    asset: str,
    code: CodeVersion,
    params: dict[str, Any],
    inputs: dict[str, ArtifactRef],
    build: Callable[[Path, str], dict[str, Any]],
) -> dg.Output[ArtifactRef]:
    """Reuse the entry for this fingerprint if one verifies; otherwise ``build(folder, fingerprint)``."""
    ref, metadata = memoized_entry(
        context, store, asset=asset, code=code, params=params, inputs=inputs, build=build
    )
    return artifact_output(ref, metadata)


def memoized_entry(
    context: dg.AssetExecutionContext,
    store: ArtifactStore,
    *,
    asset: str,
    code: CodeVersion,
    params: dict[str, Any],
    inputs: dict[str, ArtifactRef],
    build: Callable[[Path, str], dict[str, Any]],
    label: str | None = None,
) -> tuple[ArtifactRef, dict[str, Any]]:
    """One fingerprinted entry: a verified hit, or built, committed and verified now."""
    components = fingerprint_components(
        code, params, {name: ref.digest for name, ref in inputs.items()}
    )
    fingerprint = fingerprint_of(components)
    name = f"{asset}[{label}]" if label else asset
    hit = store.lookup(asset, fingerprint, warn=context.log.warning)
    if hit is not None:
        memo = read_json(hit.dir / MEMO_FILE)
        context.log.info(
            f"{name}: fingerprint {fingerprint} unchanged; reusing {hit.path} (no compute)"
        )
        return hit, {
            **_revive(memo["metadata"]),
            "memoized": True,
            "fingerprint": fingerprint,
            "produced_by_run": memo["run_id"],
            "seconds_saved": memo["seconds"],
            **_savings(memo["metadata"]),
        }
    started = time.perf_counter()
    with store.write(asset, fingerprint, meta={"asset": asset}) as folder:
        metadata = build(folder, fingerprint)
        seconds = round(time.perf_counter() - started, 2)
        atomic_write_json(folder / PARAMS_FILE, params)
        atomic_write_json(
            folder / MEMO_FILE,
            {
                "fingerprint": fingerprint,
                "components": components,
                "run_id": context.run.run_id,
                "seconds": seconds,
                "created_at": time.time(),
                "metadata": _plain(metadata),
            },
        )
    return store.ref(asset, fingerprint), {
        **metadata,
        "memoized": False,
        "fingerprint": fingerprint,
        "produced_by_run": context.run.run_id,
        "compute_seconds": seconds,
    }


def partitions_output(
    entries: dict[str, tuple[ArtifactRef, dict[str, Any]]],
    summed: tuple[str, ...],
    extra: dict[str, Any] | None = None,
) -> dg.Output[dict[str, ArtifactRef]]:
    """The output of a run over one or more partitions. One partition: its own metadata and
    data version. Several (a single-run backfill): Dagster records one metadata set and one
    data version for all of them, so the metadata is a per-partition table plus totals and the
    data version is the hash of every partition's digest; each entry's memo.json keeps its own."""
    refs = {day: ref for day, (ref, _) in entries.items()}
    if len(entries) == 1:
        ((ref, metadata),) = entries.values()
        output = artifact_output(ref, {**metadata, **(extra or {})})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dg.BetaWarning)
            return dg.Output(refs, metadata=output.metadata, data_version=output.data_version)
    columns = [c for c in ("memoized", *summed) if all(c in m for _, m in entries.values())]
    table = dg.MetadataValue.table(
        records=[
            dg.TableRecord({"partition": day, **{c: metadata[c] for c in columns}})
            for day, (_, metadata) in sorted(entries.items())
        ],
        schema=dg.TableSchema(
            columns=[dg.TableColumn("partition", "string")]
            + [dg.TableColumn(c, "bool" if c == "memoized" else "float") for c in columns]
        ),
    )
    totals = {
        key: round(sum(m[key] for _, m in entries.values()), 3)
        for key in summed
        if all(key in m for _, m in entries.values())
    }
    digest = sha256_json({day: ref.digest for day, ref in sorted(refs.items())})
    metadata = {
        "memoized": all(m["memoized"] for _, m in entries.values()),
        "partitions": len(entries),
        "partitions_computed": sum(not m["memoized"] for _, m in entries.values()),
        "partitions_memoized": sum(bool(m["memoized"]) for _, m in entries.values()),
        **totals,
        **(extra or {}),
        "by_partition": table,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        return dg.Output(refs, metadata=metadata, data_version=dg.DataVersion(digest))


def day_materializations(
    context: dg.AssetExecutionContext,
    asset: str,
    entries: dict[str, tuple[ArtifactRef, dict[str, Any]]],
    upstream: dict[str, dict[str, ArtifactRef]] | None = None,
):
    """After a range run's output, one materialization per day carrying what a one-day run of
    that day records: the day's own data version (its entry's digest) and metadata.

    Dagster stamps a single-run backfill's one data version on every day. A later one-day run
    (a memo hit, same bytes) then records the day's own version, and Dagster reads the change
    as new data: every downstream day turned STALE with nothing changed. These events are
    logged after the output's, so they are each day's latest record; they keep the output's
    provenance tags (code version, input pointers) with the day's own versions, which is what
    Dagster's staleness compares for daily dependencies. ``upstream``: input name -> day -> ref.
    """
    if len(entries) < 2:
        return  # a one-day output already is the day's own record
    key = dg.AssetKey(asset)
    latest = context.instance.get_latest_materialization_event(key)
    provenance = (
        dict(latest.asset_materialization.tags or {})
        if latest is not None and latest.run_id == context.run.run_id
        else {}
    )
    for day, (ref, metadata) in sorted(entries.items()):
        tags = {
            **provenance,
            DATA_VERSION_TAG: ref.digest,
            DATA_VERSION_IS_USER_PROVIDED_TAG: "true",
        }
        for name, refs in (upstream or {}).items():
            tags[INPUT_DATA_VERSION_TAG_PREFIX + name] = refs[day].digest
        yield dg.AssetMaterialization(
            asset_key=key,
            partition=day,
            metadata=artifact_output(ref, metadata).metadata,
            tags=tags,
        )


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


def split_table(summary: dict[str, dict[str, int]]) -> dg.TableMetadataValue:
    columns = [dg.TableColumn("split", "string")] + [
        dg.TableColumn(c, "int") for c in next(iter(summary.values()))
    ]
    return dg.MetadataValue.table(
        records=[dg.TableRecord({"split": name, **values}) for name, values in summary.items()],
        schema=dg.TableSchema(columns=columns),
    )


def automation_condition() -> dg.AutomationCondition:
    """Materialize when missing, when an upstream produced a *different* data version, or when
    this asset's code version (source, params, libraries) changed. With memoization a run whose
    fingerprint is unchanged costs a lookup, so a spurious trigger is cheap."""
    on_new_upstream_data = dg.AutomationCondition.eager().replace(
        "newly_updated", dg.AutomationCondition.data_version_changed()
    )
    on_new_code = (
        dg.AutomationCondition.code_version_changed()
        & ~dg.AutomationCondition.in_progress()
        & ~dg.AutomationCondition.any_deps_missing()
    )
    # and never past a failed gate: an upstream whose blocking checks failed does not feed on
    gates_passed = dg.AutomationCondition.all_deps_blocking_checks_passed()
    # the UI shows the label's start on every asset page: say first that it acts only while
    # the automation sensor runs
    return ((on_new_upstream_data | on_new_code) & gates_passed).with_label(
        "sensor off by default; when on: new data, new code or missing, upstream gates passed"
    )
