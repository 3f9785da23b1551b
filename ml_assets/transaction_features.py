"""transaction_features: validated, normalized, split transactions as zstd Parquet."""

import time

import dagster as dg

from ml_assets.artifacts import artifact_output, entry_key, save_params, table_preview
from ml_assets.core.features import build_features, split_summary
from ml_assets.core.ingest import read_transactions
from ml_assets.core.io import ArtifactRef
from ml_assets.core.layouts import FEATURES_FILE, RAW_FILE
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource


@dg.asset(
    group_name="features",
    kinds={"polars", "parquet"},
    description=(
        "One row per raw transaction: the description normalized by the same function serving uses, "
        "amount sign and log2 bucket, weekday, day of month, a merchant key, and a deterministic "
        "train/valid/test split by merchant hash (held-out merchants never appear in train). "
        "Malformed input fails with the file, line and field named."
    ),
)
def transaction_features(
    context: dg.AssetExecutionContext,
    raw_transactions: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    config = params.load().transaction_features
    started = time.perf_counter()
    raw = read_transactions(raw_transactions.dir / RAW_FILE, fmt="jsonl")
    features = build_features(
        raw,
        max_description_chars=config.max_description_chars,
        heldout_test_pct=config.heldout_test_merchant_pct,
        heldout_valid_pct=config.heldout_valid_merchant_pct,
        seen_test_pct=config.seen_test_row_pct,
        seen_valid_pct=config.seen_valid_row_pct,
        salt=config.split_salt,
    )
    with artifact_store.write("transaction_features", entry_key(context)) as tmp:
        features.write_parquet(tmp / FEATURES_FILE, compression="zstd")
        save_params(tmp, config.model_dump(mode="json"))
    ref = artifact_store.ref("transaction_features", entry_key(context))
    parquet_bytes = (ref.dir / FEATURES_FILE).stat().st_size
    jsonl_bytes = (raw_transactions.dir / RAW_FILE).stat().st_size
    summary = split_summary(features)
    splits = dg.MetadataValue.table(
        records=[dg.TableRecord({"split": name, **values}) for name, values in summary.items()],
        schema=dg.TableSchema(
            columns=[dg.TableColumn("split", "string")]
            + [dg.TableColumn(c, "int") for c in next(iter(summary.values()))]
        ),
    )
    return artifact_output(
        ref,
        {
            "rows": features.height,
            **{f"rows_{name}": values["rows"] for name, values in summary.items()},
            **{f"labeled_{name}": values["labeled"] for name, values in summary.items()},
            "splits": splits,
            "merchants": features["merchant_key"].n_unique(),
            "parquet_bytes": parquet_bytes,
            "jsonl_bytes": jsonl_bytes,
            "parquet_to_jsonl_ratio": round(parquet_bytes / jsonl_bytes, 4),
            "seconds": round(time.perf_counter() - started, 2),
            "dagster/column_schema": dg.TableSchema(
                columns=[
                    dg.TableColumn(name, str(dtype)) for name, dtype in features.schema.items()
                ]
            ),
            "preview": table_preview(
                features.select("text", "merchant_key", "split", "category", "transaction_type")
            ),
        },
    )
