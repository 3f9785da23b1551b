"""raw_transactions: the built-in synthetic bank data, or the user's own exports, as JSONL."""

import time
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
    table_preview,
)
from ml_assets.core.ingest import QUARANTINE_SCHEMA, scan_transactions
from ml_assets.core.io import ArtifactRef, atomic_write_json, read_json, sha256_file
from ml_assets.core.layouts import INGEST_REPORT_FILE, QUARANTINE_FILE, RAW_FILE
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.synthetic import generate_transactions
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource
from resources.raw_sources import fetch_exports, is_remote, listing_fingerprint

CODE = stage_code_version(__name__, "raw_transactions", ("polars",))


def source_digests(path: Path) -> dict[str, str]:
    """sha256 of every input file: user data that changes changes the fingerprint."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {
        str(f.relative_to(path.parent if path.is_file() else path)): sha256_file(f) for f in files
    }


def fingerprint_params(section: dict) -> dict:
    """The params that identify this root's output; for user files their bytes count too
    (for an S3/GCS prefix: each object's ETag or generation)."""
    if section.get("source") != "files":
        return section
    if is_remote(section["path"]):
        return {
            **section,
            "_source_objects": listing_fingerprint(section["path"], section["format"]),
        }
    return {**section, "_source_files": source_digests(Path(section["path"]))}


@dg.asset(
    group_name="ingest",
    kinds={"polars", "json"},
    code_version=CODE.version,
    automation_condition=automation_condition(),
    description=(
        "Bank transactions in the raw form banks hand over (JSONL): id, account, posted date, amount, "
        "currency, the description as printed on statements, an optional merchant, and `category` / "
        "`transaction_type` labels on a minority of rows. Source: the seeded synthetic generator "
        "(default) or your files (JSONL/CSV/Parquet) via `raw_transactions.source: files`."
    ),
)
def raw_transactions(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.section("raw_transactions", config.overrides)
    settings = RawTransactionsParams.model_validate(section)
    section = fingerprint_params(section)  # user files' bytes are this root's input

    def build(folder: Path, fingerprint: str) -> dict:
        started = time.perf_counter()
        if settings.source == "synthetic":
            frame = generate_transactions(
                settings.n_rows,
                seed=settings.seed,
                labeled_fraction=settings.labeled_fraction,
                start_date=settings.start_date,
                days=settings.days,
            )
            source = f"synthetic(seed={settings.seed})"
            quarantined = pl.DataFrame(schema=QUARANTINE_SCHEMA)
            accounting = {"rows_in": frame.height, "rows_kept": frame.height}
        else:
            files, transfer = None, {}
            if is_remote(settings.path):
                files, transfer = fetch_exports(
                    settings.path,
                    settings.format,
                    artifact_store.root_path / "_downloads",
                    log=context.log.info,
                )
            result = scan_transactions(
                Path(settings.path),
                settings.format,
                settings.column_map,
                settings.date_format,
                settings.max_description_chars,
                files=files,
            )
            if result.quarantined_share > settings.max_quarantine_share:
                raise dg.Failure(
                    f"{result.quarantined.height} of {result.rows_in} rows "
                    f"({result.quarantined_share:.1%}) failed validation, above "
                    f"raw_transactions.max_quarantine_share={settings.max_quarantine_share}: "
                    f"{result.summary()}. Fix the export or its column_map/date_format."
                )
            frame, source, quarantined = result.kept, str(settings.path), result.quarantined
            accounting = {
                "rows_in": result.rows_in,
                "rows_kept": frame.height,
                "rows_quarantined": result.quarantined.height,
                "duplicates_dropped": result.duplicates,
                "quarantined_share": round(result.quarantined_share, 6),
                "quarantine_by_reason": dict(result.reasons),
                **transfer,
            }
            if result.quarantined.height:
                context.log.warning(
                    f"quarantined {result.quarantined.height} rows: {result.summary()}"
                )
        accounting.setdefault("rows_quarantined", 0)
        accounting.setdefault("duplicates_dropped", 0)
        quarantined.write_parquet(folder / QUARANTINE_FILE, compression="zstd")
        atomic_write_json(folder / INGEST_REPORT_FILE, accounting)
        frame.write_ndjson(folder / RAW_FILE)
        labeled = frame.filter(
            pl.col("category").is_not_null() | pl.col("transaction_type").is_not_null()
        ).height
        seconds = time.perf_counter() - started
        return {
            "source": source,
            "rows": frame.height,
            "seconds": round(seconds, 3),
            "rows_per_second": round(accounting["rows_in"] / max(seconds, 1e-9)),
            **accounting,
            "labeled_rows": labeled,
            "labeled_share": round(labeled / frame.height, 4),
            "bytes": (folder / RAW_FILE).stat().st_size,
            "date_min": frame["posted_date"].min(),
            "date_max": frame["posted_date"].max(),
            "preview": table_preview(frame),
        }

    return memoized_output(
        context,
        artifact_store,
        asset="raw_transactions",
        code=CODE,
        params=section,
        inputs={},
        build=build,
    )


@dg.asset_check(
    asset=raw_transactions,
    blocking=True,
    description=(
        "Nothing lost: rows in = rows kept + rows quarantined + duplicates dropped, recounted from "
        "the stored files (transactions.jsonl lines, quarantine.parquet rows) against the report."
    ),
)
def raw_rows_accounted_for(raw_transactions: ArtifactRef) -> dg.AssetCheckResult:
    report = read_json(raw_transactions.dir / INGEST_REPORT_FILE)
    with open(raw_transactions.dir / RAW_FILE, "rb") as handle:
        kept = sum(1 for line in handle if line.strip())
    quarantined = (
        pl.scan_parquet(raw_transactions.dir / QUARANTINE_FILE).select(pl.len()).collect().item()
    )
    accounted = kept + quarantined + report["duplicates_dropped"]
    return dg.AssetCheckResult(
        passed=accounted == report["rows_in"] and kept == report["rows_kept"],
        metadata={
            "rows_in": report["rows_in"],
            "rows_kept": kept,
            "rows_quarantined": quarantined,
            "duplicates_dropped": report["duplicates_dropped"],
            "unaccounted": report["rows_in"] - accounted,
        },
    )
