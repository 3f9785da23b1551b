"""raw_transactions: the built-in synthetic bank data, or the user's own exports, as JSONL."""

import functools
import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.core.infra.io import ArtifactRef, atomic_write_json, read_json
from ml_assets.core.infra.layouts import INGEST_REPORT_FILE, QUARANTINE_FILE, RAW_FILE
from ml_assets.core.intake.export_formats import skipped_files, skipped_notes
from ml_assets.core.intake.quarantine import quarantine_verdict
from ml_assets.core.intake.raw_days import (
    IntakeSplit,
    export_homes,
    feeding,
    files_split,
    local_files,
    local_listing,
    synthetic_split,
    synthetic_start,
)
from ml_assets.core.params import RawTransactionsParams
from ml_assets.wiring.artifacts import (
    automation_condition,
    day_materializations,
    memoized_entry,
    partitions_output,
    table_preview,
)
from ml_assets.wiring.check_reasons import logged_check
from ml_assets.wiring.daily import DAILY_PARTITIONS, single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource
from resources.raw_sources import fetch_exports, is_remote, listing_fingerprint

SUMMED = (
    "rows_in",
    "rows_kept",
    "rows_quarantined",
    "duplicates_dropped",
    "duplicates_across_files",
    "duplicates_same_balance",
    "balance_breaks",
    "bytes",
    "seconds",
)


def source_listing(section: dict) -> dict[str, str]:
    """{export name: sha256, or size:ETag/generation for an S3/GCS object}: the files' bytes
    are this root asset's input."""
    if section.get("source") != "files":
        return {}
    if is_remote(section["path"]):
        return listing_fingerprint(section["path"], section["format"])
    return local_listing(Path(section["path"]), section["format"])


def source_homes(section: dict, listing: dict[str, str]) -> dict[str, str | None]:
    """export name -> the day all its rows belong to, or None (split by posted date)."""
    if section.get("source") != "files":
        return {}
    settings = RawTransactionsParams.model_validate(section)
    path = settings.path or ""
    files = None if is_remote(path) else local_files(Path(path), settings.format)
    return export_homes(settings, listing, files)


def fingerprint_params(
    section: dict, day: str, listing: dict[str, str], homes: dict[str, str | None] | None = None
) -> dict:
    """What identifies one day's entry: the section, the day, and the exports that feed it."""
    if section.get("source") != "files":
        if section.get("synthetic_window") == "live":  # a day's rows depend on the window
            start = synthetic_start(RawTransactionsParams.model_validate(section))
            return {**section, "_partition": day, "_window_start": start.isoformat()}
        return {**section, "_partition": day}
    if homes is None:
        homes = source_homes(section, listing)
    return {**section, "_partition": day, "_source_files": feeding(listing, homes, day)}


# per-run overrides of the RawTransactions section: the launchpad's fields
RawTransactionsConfig = section_config(RawTransactionsParams, "RawTransactionsConfig")


STAGE = Stage(
    key="raw_transactions",
    module=__name__,
    section=RawTransactionsParams,
    libraries=("polars",),
    source_listing=source_listing,
    fingerprint_params=fingerprint_params,
)
ROWS_ACCOUNTED_FOR = dg.AssetCheckSpec(
    "raw_rows_accounted_for",
    asset=STAGE.key,
    blocking=True,
    description=(
        "Nothing lost, per day: rows in = rows kept + rows quarantined + duplicates dropped, "
        "recounted from the stored files (transactions.jsonl lines, quarantine.parquet rows) "
        "against each day's ingest report. Evaluated in the same step, for the run's days."
    ),
)


@single_run_asset(
    group_name="ingest",
    kinds={"polars", "json"},
    partitions_def=DAILY_PARTITIONS,
    check_specs=[ROWS_ACCOUNTED_FOR],
    automation_condition=automation_condition(),
    description=(
        "Bank transactions in the raw form banks hand over (JSONL), one partition per posted day: "
        "id, account, posted date, amount, currency, the description as printed on statements, an "
        "optional merchant, and `category` / `transaction_type` labels on a minority of rows. "
        "Source: the seeded synthetic generator (default) or your exports (JSONL, CSV with issuer "
        "presets, preambles and European conventions, XLSX, Parquet, OFX/QFX, QIF, CAMT.053, "
        "MT940, optionally gzip; a folder, an s3:// or gs:// prefix) via "
        "`raw_transactions.source: files`; ids derived where the bank gives none, overlapping "
        "downloads deduplicated, running balances checked. Bad rows go to quarantine.parquet "
        "with file, line and reason. The partitions are the days the source can have: the "
        "generator's window, or with exports every day up to yesterday (a day no export covers "
        "yet shows as missing). The check records a verdict per day."
    ),
)
def raw_transactions(
    context: dg.AssetExecutionContext,
    config: RawTransactionsConfig,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    section = params.fingerprinted(STAGE, config.overrides)
    settings = RawTransactionsParams.model_validate(section)
    days = list(context.partition_keys)
    listing = source_listing(section)
    homes = source_homes(section, listing)
    shared: dict = {}  # the run's rows by day: read once, on the first day not memoized

    def rows_by_day() -> tuple[IntakeSplit, float]:
        if not shared:
            started = time.perf_counter()
            shared["split"] = read_days(
                context, settings, listing, homes, days, artifact_store, shared
            )
            for warning in shared["split"].warnings:
                context.log.warning(warning)
            check_split(shared["split"], settings)
            shared["seconds"] = time.perf_counter() - started
        return shared["split"], shared["seconds"]

    def build(day: str, folder: Path, fingerprint: str) -> dict:
        started = time.perf_counter()
        split, read_seconds = rows_by_day()
        result = split.days[day]
        if result.quarantined.height:
            context.log.warning(
                f"{day}: quarantined {result.quarantined.height} rows: {result.summary()}"
            )
        frame = result.kept
        accounting = {
            "rows_in": result.rows_in,
            "rows_kept": frame.height,
            "rows_quarantined": result.quarantined.height,
            "duplicates_dropped": result.duplicates,
            "duplicates_across_files": result.duplicates_across_files,
            "quarantined_share": round(result.quarantined_share, 6),
            "quarantine_by_reason": dict(result.reasons),
        }
        result.quarantined.write_parquet(folder / QUARANTINE_FILE, compression="zstd")
        atomic_write_json(folder / INGEST_REPORT_FILE, {"partition": day, **accounting})
        frame.write_ndjson(folder / RAW_FILE)
        labeled = frame.filter(
            pl.col("category").is_not_null() | pl.col("transaction_type").is_not_null()
        ).height
        # the run's one read of the exports is shared by its days in proportion to their rows
        seconds = (
            time.perf_counter() - started + read_seconds * result.rows_in / max(split.rows_read, 1)
        )
        return {
            "partition": day,
            "source": describe_source(settings),
            "source_files": len(feeding(listing, homes, day)) if listing else 0,
            "rows": frame.height,
            "seconds": round(seconds, 3),
            "rows_per_second": round(result.rows_in / max(seconds, 1e-9)),
            **accounting,
            # of duplicates_dropped: rows repeated with the same running balance; and rows
            # whose running balance does not follow (kept, flagged with file and line)
            **split.day_notes(day),
            "labeled_rows": labeled,
            "bytes": (folder / RAW_FILE).stat().st_size,
            "preview": table_preview(frame),
        }

    entries = {
        day: memoized_entry(
            context,
            artifact_store,
            asset=STAGE.key,
            code=STAGE.code(params.path, params.profile),
            params=fingerprint_params(section, day, listing, homes),
            inputs={},
            build=functools.partial(build, day),
            label=day,
        )
        for day in days
    }
    extra = {}
    if shared:
        split = shared["split"]
        extra = {
            "rows_read": split.rows_read,
            "rows_for_other_days": split.rows_for_other_days,
            "read_seconds": round(shared["seconds"], 3),
            **shared.get("transfer", {}),
        }
        if split.notes:  # per export: header line, preamble, balances, breaks, repeats
            extra["exports"] = [notes.metadata() for _, notes in sorted(split.notes.items())]
        if split.rows_for_other_days:
            context.log.info(
                f"{split.rows_for_other_days} rows were posted on days outside this run; they "
                "are ingested when those days are materialized"
            )
    yield partitions_output(entries, SUMMED, extra)
    yield from day_materializations(context, STAGE.key, entries)
    per_day = {day: day_counts(ref) for day, (ref, _) in entries.items()}
    # a run over several days plans the check once per day: each day gets its own verdict
    # (logged as an evaluation of that partition), the run's days together the step's result
    for day, counts in sorted(per_day.items()):
        context.log_event(day_accounted_for(day, counts))
    yield logged_check(context, rows_accounted_for(per_day))


def check_split(split: IntakeSplit, settings: RawTransactionsParams) -> None:
    """Stop the load before any day is written: no rows at all, or too many bad ones."""
    if settings.source == "files" and split.per_file and split.rows_read == 0:
        raise dg.Failure(
            f"raw_transactions: {settings.path} holds no transaction for these days "
            f"({len(split.per_file)} export(s) read, 0 rows: empty, or a header only); "
            "check the export, or run `python -m ml_assets days` for the days it covers"
        )
    verdict = quarantine_verdict(
        split, settings.max_quarantine_share, settings.quarantine_min_day_rows
    )
    if verdict is not None:
        raise dg.Failure(verdict)


def describe_source(settings: RawTransactionsParams) -> str:
    if settings.source == "synthetic":
        return f"synthetic(seed={settings.seed})"
    return str(settings.path)


def read_days(
    context: dg.AssetExecutionContext,
    settings: RawTransactionsParams,
    listing: dict[str, str],
    homes: dict[str, str | None],
    days: list[str],
    store: ArtifactStore,
    shared: dict,
) -> IntakeSplit:
    """The run's rows by day: generated, or read from the exports that feed these days
    (remote ones fetched with verified, resumable downloads into the store's cache)."""
    if settings.source == "synthetic":
        return synthetic_split(settings, days)
    wanted = set(days)
    names = {n for n in listing if homes.get(n) is None or homes[n] in wanted}
    if is_remote(settings.path):
        files, shared["transfer"] = fetch_exports(
            settings.path, settings.format, store.root_path / "_downloads", names, context.log.info
        )
    else:
        files = {
            n: p for n, p in local_files(Path(settings.path), settings.format).items() if n in names
        }
        folder = Path(settings.path)
        for note in skipped_notes(folder, skipped_files(folder, settings.format)):
            context.log.warning(f"{settings.path}: skipped {note}")
    return files_split(files, settings, days, {n: homes.get(n) for n in files})


COUNTS = ("rows_in", "rows_kept", "rows_quarantined", "duplicates_dropped")


def day_counts(ref: ArtifactRef) -> dict[str, int]:
    """One day's ingest report, with the kept and quarantined rows recounted from its files;
    ``unaccounted``: rows in that are none of kept, quarantined or dropped as duplicates."""
    report = read_json(ref.dir / INGEST_REPORT_FILE)
    with open(ref.dir / RAW_FILE, "rb") as handle:
        kept = sum(1 for line in handle if line.strip())
    quarantined = pl.scan_parquet(ref.dir / QUARANTINE_FILE).select(pl.len()).collect().item()
    return {
        "rows_in": report["rows_in"],
        "rows_kept": kept,
        "rows_quarantined": quarantined,
        "duplicates_dropped": report["duplicates_dropped"],
        "unaccounted": report["rows_in"] - (kept + quarantined + report["duplicates_dropped"]),
        "report_disagrees": int(kept != report["rows_kept"]),
    }


def day_accounted_for(day: str, counts: dict[str, int]) -> dg.AssetCheckEvaluation:
    """The check's verdict on one day: its row in the check's history, by partition."""
    return dg.AssetCheckEvaluation(
        asset_key=dg.AssetKey(STAGE.key),
        check_name=ROWS_ACCOUNTED_FOR.name,
        passed=not (counts["unaccounted"] or counts["report_disagrees"]),
        partition=day,
        metadata={key: counts[key] for key in (*COUNTS, "unaccounted")},
    )


def rows_accounted_for(per_day: dict[str, dict[str, int]]) -> dg.AssetCheckResult:
    """The check's verdict on the run's days together."""
    bad_days = [
        day for day, c in sorted(per_day.items()) if c["unaccounted"] or c["report_disagrees"]
    ]
    return dg.AssetCheckResult(
        check_name=ROWS_ACCOUNTED_FOR.name,
        passed=not bad_days,
        metadata={
            "partitions_checked": len(per_day),
            **{key: sum(c[key] for c in per_day.values()) for key in COUNTS},
            "unaccounted": sum(c["unaccounted"] for c in per_day.values()),
            "days_not_accounted": ", ".join(bad_days[:20]) or "none",
        },
    )
