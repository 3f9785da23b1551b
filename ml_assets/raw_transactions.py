"""raw_transactions: the built-in synthetic bank data, or the user's own exports, as JSONL."""

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
from ml_assets.core.ingest import read_transactions
from ml_assets.core.io import ArtifactRef, sha256_file
from ml_assets.core.layouts import RAW_FILE
from ml_assets.core.params import RawTransactionsParams
from ml_assets.core.synthetic import generate_transactions
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(__name__, "raw_transactions", ("polars",))


def source_digests(path: Path) -> dict[str, str]:
    """sha256 of every input file: user data that changes changes the fingerprint."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {
        str(f.relative_to(path.parent if path.is_file() else path)): sha256_file(f) for f in files
    }


def fingerprint_params(section: dict) -> dict:
    """The params that identify this root's output; for user files their bytes count too."""
    if section.get("source") == "files":
        return {**section, "_source_files": source_digests(Path(section["path"]))}
    return section


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
        if settings.source == "synthetic":
            frame = generate_transactions(
                settings.n_rows,
                seed=settings.seed,
                labeled_fraction=settings.labeled_fraction,
                start_date=settings.start_date,
                days=settings.days,
            )
            source = f"synthetic(seed={settings.seed})"
        else:
            frame = read_transactions(
                Path(settings.path), settings.format, settings.column_map, settings.date_format
            )
            source = str(settings.path)
        frame.write_ndjson(folder / RAW_FILE)
        labeled = frame.filter(
            pl.col("category").is_not_null() | pl.col("transaction_type").is_not_null()
        ).height
        return {
            "source": source,
            "rows": frame.height,
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
