"""transaction_features: validated, normalized, split transactions as zstd Parquet."""

import functools
import time
from pathlib import Path

import dagster as dg

from ml_assets.assets.raw_transactions import STAGE as RAW_TRANSACTIONS
from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.layouts import FEATURES_FILE, RAW_FILE
from ml_assets.core.intake.records import read_validated_jsonl
from ml_assets.core.params import TransactionFeaturesParams
from ml_assets.core.training_data.features import build_features, split_summary
from ml_assets.core.training_data.label_placeholders import (
    merged_counts,
    placeholder_message,
    unlabel_placeholders,
)
from ml_assets.wiring.artifacts import (
    automation_condition,
    day_materializations,
    memoized_entry,
    partitions_output,
    split_table,
    table_preview,
)
from ml_assets.wiring.daily import DAILY_PARTITIONS, single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

SUMMED = ("rows", "bytes_in", "parquet_bytes", "seconds")


# per-run overrides of the TransactionFeatures section: the launchpad's fields
TransactionFeaturesConfig = section_config(TransactionFeaturesParams, "TransactionFeaturesConfig")


STAGE = Stage(
    key="transaction_features",
    module=__name__,
    section=TransactionFeaturesParams,
    libraries=("polars", "pyarrow"),
)


@single_run_asset(
    group_name="features",
    kinds={"polars", "parquet"},
    partitions_def=DAILY_PARTITIONS,
    automation_condition=automation_condition(),
    description=(
        "One row per raw transaction, one partition per day, also published as hive-partitioned "
        "zstd Parquet (`dataset/date=YYYY-MM-DD/`): the description normalized by the same "
        "function serving uses, amount sign and log2 bucket, weekday, day of month, a merchant "
        "key, and a deterministic train/valid/test split by merchant hash (held-out merchants "
        "never appear in train)."
    ),
)
def transaction_features(
    context: dg.AssetExecutionContext,
    config: TransactionFeaturesConfig,
    raw_transactions: dict[str, ArtifactRef],
    params: ParamsResource,
    artifact_store: ArtifactStore,
):
    section = params.fingerprinted(STAGE, config.overrides)
    settings = TransactionFeaturesParams.model_validate(section)

    def build(day: str, folder: Path, fingerprint: str) -> dict:
        started = time.perf_counter()
        raw_file = raw_transactions[day].dir / RAW_FILE
        raw, placeholders = unlabel_placeholders(
            read_validated_jsonl(raw_file), settings.no_label_values
        )
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
        jsonl_bytes = raw_file.stat().st_size
        summary = split_summary(features)
        seconds = time.perf_counter() - started
        return {
            "partition": day,
            "rows": features.height,
            "seconds": round(seconds, 3),
            "rows_per_second": round(features.height / max(seconds, 1e-9)),
            **{f"rows_{name}": values["rows"] for name, values in summary.items()},
            **{f"labeled_{name}": values["labeled"] for name, values in summary.items()},
            "splits": split_table(summary),
            "merchants": features["merchant_key"].n_unique(),
            # label cells read as no label: {"category: Uncategorized": rows}
            "labels_read_as_none": placeholders,
            "bytes_in": jsonl_bytes,
            "parquet_bytes": parquet_bytes,
            "parquet_to_jsonl_ratio": round(parquet_bytes / max(jsonl_bytes, 1), 4),
            "dagster/column_schema": dg.TableSchema(
                columns=[
                    dg.TableColumn(name, str(dtype)) for name, dtype in features.schema.items()
                ]
            ),
            "preview": table_preview(
                features.select("text", "merchant_key", "split", "category", "transaction_type")
            ),
        }

    entries = {}
    for day in context.partition_keys:
        entries[day] = memoized_entry(
            context,
            artifact_store,
            asset=STAGE.key,
            code=STAGE.code(params.path, params.profile),
            params=section,
            inputs=by_asset(raw_transactions[day]),
            build=functools.partial(build, day),
            label=day,
        )
        artifact_store.publish_hive_partition(STAGE.key, day, entries[day][0], FEATURES_FILE)
    placeholders = merged_counts(m.get("labels_read_as_none") for _, m in entries.values())
    if placeholders:
        context.log.warning(placeholder_message(placeholders))
    totals = {
        key: sum(m[key] for _, m in entries.values())
        for key in ("bytes_in", "parquet_bytes", "seconds", "rows")
    }
    yield partitions_output(
        entries,
        SUMMED,
        {
            "parquet_to_jsonl_ratio": round(
                totals["parquet_bytes"] / max(totals["bytes_in"], 1), 4
            ),
            "rows_per_second": round(totals["rows"] / max(totals["seconds"], 1e-9)),
            "dataset": dg.MetadataValue.path(str(artifact_store.hive_dataset(STAGE.key))),
            "labels_read_as_none": placeholders,
        },
    )
    yield from day_materializations(
        context, STAGE.key, entries, {RAW_TRANSACTIONS.key: raw_transactions}
    )
