"""transaction_features: validated, normalized, split transactions as zstd Parquet."""

import time
from pathlib import Path

import dagster as dg

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
    table_preview,
)
from ml_assets.core.features import build_features, split_summary
from ml_assets.core.ingest import read_validated_jsonl
from ml_assets.core.io import ArtifactRef
from ml_assets.core.layouts import FEATURES_FILE, RAW_FILE
from ml_assets.core.params import TransactionFeaturesParams
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(__name__, "transaction_features", ("polars", "pyarrow"))


def split_table(summary: dict[str, dict[str, int]]) -> dg.TableMetadataValue:
    columns = [dg.TableColumn("split", "string")] + [
        dg.TableColumn(c, "int") for c in next(iter(summary.values()))
    ]
    return dg.MetadataValue.table(
        records=[dg.TableRecord({"split": name, **values}) for name, values in summary.items()],
        schema=dg.TableSchema(columns=columns),
    )


@dg.asset(
    group_name="features",
    kinds={"polars", "parquet"},
    code_version=CODE.version,
    automation_condition=automation_condition(),
    description=(
        "One row per raw transaction: the description normalized by the same function serving uses, "
        "amount sign and log2 bucket, weekday, day of month, a merchant key, and a deterministic "
        "train/valid/test split by merchant hash (held-out merchants never appear in train). "
        "Malformed input fails with the file, line and field named."
    ),
)
def transaction_features(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    raw_transactions: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.section("transaction_features", config.overrides)
    settings = TransactionFeaturesParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        started = time.perf_counter()
        raw = read_validated_jsonl(raw_transactions.dir / RAW_FILE)
        features = build_features(
            raw,
            max_description_chars=settings.max_description_chars,
            heldout_test_pct=settings.heldout_test_merchant_pct,
            heldout_valid_pct=settings.heldout_valid_merchant_pct,
            seen_test_pct=settings.seen_test_row_pct,
            seen_valid_pct=settings.seen_valid_row_pct,
            salt=settings.split_salt,
        )
        features.write_parquet(folder / FEATURES_FILE, compression="zstd")
        parquet_bytes = (folder / FEATURES_FILE).stat().st_size
        jsonl_bytes = (raw_transactions.dir / RAW_FILE).stat().st_size
        summary = split_summary(features)
        seconds = time.perf_counter() - started
        return {
            "rows": features.height,
            "seconds": round(seconds, 3),
            "rows_per_second": round(features.height / max(seconds, 1e-9)),
            **{f"rows_{name}": values["rows"] for name, values in summary.items()},
            **{f"labeled_{name}": values["labeled"] for name, values in summary.items()},
            "splits": split_table(summary),
            "merchants": features["merchant_key"].n_unique(),
            "parquet_bytes": parquet_bytes,
            "jsonl_bytes": jsonl_bytes,
            "parquet_to_jsonl_ratio": round(parquet_bytes / jsonl_bytes, 4),
            "dagster/column_schema": dg.TableSchema(
                columns=[
                    dg.TableColumn(name, str(dtype)) for name, dtype in features.schema.items()
                ]
            ),
            "preview": table_preview(
                features.select("text", "merchant_key", "split", "category", "transaction_type")
            ),
        }

    return memoized_output(
        context,
        artifact_store,
        asset="transaction_features",
        code=CODE,
        params=section,
        inputs={"raw_transactions": raw_transactions},
        build=build,
    )
