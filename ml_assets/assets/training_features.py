"""training_features: the window of daily feature partitions a model trains on, snapshotted."""

import time
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.assets.transaction_features import STAGE as TRANSACTION_FEATURES
from ml_assets.core.infra.io import ArtifactRef
from ml_assets.core.infra.layouts import FEATURES_FILE
from ml_assets.core.intake.partitions import scan_window, window_days
from ml_assets.core.params import TrainingFeaturesParams
from ml_assets.core.training_data.merchant_spread import CROWDED_ADVICE, merchant_spread
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
    split_table,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource


def window_inputs(digests_by_day: dict[str, str], section: dict) -> dict[str, str]:
    """The fingerprint inputs: each day of the window and its data version."""
    settings = TrainingFeaturesParams.model_validate(section)
    end = settings.end_date.isoformat() if settings.end_date else None
    days = window_days(sorted(digests_by_day), settings.window_days, end)
    return {f"transaction_features[{day}]": digests_by_day[day] for day in days}


# per-run overrides of the TrainingFeatures section: the launchpad's fields
TrainingFeaturesConfig = section_config(TrainingFeaturesParams, "TrainingFeaturesConfig")


STAGE = Stage(
    key="training_features",
    module=__name__,
    section=TrainingFeaturesParams,
    libraries=("polars", "pyarrow"),
    window_inputs=window_inputs,
)


@single_run_asset(
    group_name="features",
    kinds={"polars", "parquet"},
    deps=[TRANSACTION_FEATURES.key],
    automation_condition=automation_condition(),
    description=(
        "The days of transaction_features that training reads (`training_features.window_days` "
        "up to `end_date`, default every materialized day), read by a lazy polars scan of the "
        "hive-partitioned dataset whose date predicate skips the other days' files, and kept "
        "as one Parquet file: what a model was trained on stays inspectable."
    ),
)
def training_features(
    context: dg.AssetExecutionContext,
    config: TrainingFeaturesConfig,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.fingerprinted(STAGE, config.overrides)
    settings = TrainingFeaturesParams.model_validate(section)
    available = artifact_store.partition_refs(TRANSACTION_FEATURES.key)
    end = settings.end_date.isoformat() if settings.end_date else None
    days = window_days(sorted(available), settings.window_days, end)
    if not days:
        raise dg.Failure(
            "training_features: no transaction_features partition in the window "
            f"(window_days={settings.window_days}, end_date={end}; materialized days: "
            f"{min(available, default='none')}..{max(available, default='none')}). "
            "Materialize raw_transactions and transaction_features for some days first."
        )
    refs = {day: available[day].verified() for day in days}  # checksums, before reading

    def build(folder: Path, fingerprint: str) -> dict:
        started = time.perf_counter()
        for day, ref in refs.items():  # the pointers are the truth; repair a stale link
            artifact_store.publish_hive_partition(TRANSACTION_FEATURES.key, day, ref, FEATURES_FILE)
        frame = scan_window(
            artifact_store.hive_dataset(TRANSACTION_FEATURES.key), days[0], days[-1]
        ).collect()
        expected = sum(
            pl.scan_parquet(ref.dir / FEATURES_FILE).select(pl.len()).collect().item()
            for ref in refs.values()
        )
        if frame.height != expected:  # e.g. a stray file in the dataset folder
            raise dg.Failure(
                f"training_features: the window scan read {frame.height} rows, the "
                f"{len(refs)} partitions hold {expected}; check "
                f"{artifact_store.hive_dataset(TRANSACTION_FEATURES.key)} for foreign files"
            )
        frame.write_parquet(folder / FEATURES_FILE, compression="zstd")
        by_split = frame.group_by("split").agg(
            rows=pl.len(), labeled=pl.col("labeled").sum().cast(pl.Int64)
        )
        summary = {
            r["split"]: {"rows": r["rows"], "labeled": r["labeled"]}
            for r in by_split.sort("split").iter_rows(named=True)
        }
        merchants, top, share, crowded = merchant_spread(frame["merchant_key"])
        if crowded:
            context.log.warning(
                f"training_features: merchant key {top!r} holds {share:.0%} of the rows "
                f"({merchants} keys): {CROWDED_ADVICE}"
            )
        return {
            "rows": frame.height,
            "days": len(days),
            "first_day": days[0],
            "last_day": days[-1],
            "days_materialized": len(available),
            "days_outside_window": len(available) - len(days),
            **{f"rows_{name}": values["rows"] for name, values in summary.items()},
            **{f"labeled_{name}": values["labeled"] for name, values in summary.items()},
            "splits": split_table(summary) if summary else dg.MetadataValue.md("(empty)"),
            "merchant_keys": merchants,
            "largest_merchant_share": round(share, 4),
            "parquet_bytes": (folder / FEATURES_FILE).stat().st_size,
            "seconds": round(time.perf_counter() - started, 3),
        }

    return memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=section,
        inputs={f"transaction_features[{day}]": ref for day, ref in refs.items()},
        build=build,
    )
