"""batch_predictions: new transactions scored in bulk by the champion (the promoted int8 model)."""

import os
import time
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl

from ml_assets.artifacts import (
    StageConfig,
    automation_condition,
    memoized_output,
    stage_code_version,
    table_preview,
)
from ml_assets.core.io import ArtifactRef, read_json
from ml_assets.core.layouts import (
    PREDICTIONS_FILE,
    QUARANTINE_FILE,
    RAW_FILE,
    SERVING_CONFIG,
)
from ml_assets.core.layouts import (
    REGISTRY_RECORD_FILE as RECORD_FILE,
)
from ml_assets.core.params import BatchPredictionsParams
from ml_assets.daily import SINGLE_RUN
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CODE = stage_code_version(
    __name__, "batch_predictions", ("onnxruntime", "tokenizers", "transformers", "polars")
)


def input_identity(settings: BatchPredictionsParams, store: ArtifactStore) -> dict:
    """What is scored, as fingerprint input: the files' sha256, or the newest raw day's entry."""
    if settings.source:
        from ml_assets.core.raw_days import local_listing

        return {"files": local_listing(Path(settings.source), settings.format)}
    days = store.partition_refs("raw_transactions")
    if not days:
        return {"raw_day": None}  # nothing to score yet; the asset says so when it runs
    newest = max(days)
    return {"raw_day": newest, "digest": days[newest].digest}


def champion_model(store: ArtifactStore, registered: ArtifactRef) -> tuple[str, ArtifactRef]:
    """The champion after registered_model's decision (kept in its entry) and its verified
    onnx_model entry; a clear error before any promotion."""
    champion = read_json(registered.dir / RECORD_FILE).get("champion")
    if champion is None:
        raise dg.Failure(
            "batch_predictions: there is no champion yet (no candidate was promoted); "
            "see registered_model's candidate_promoted check for why the last one was rejected"
        )
    return champion["model_id"], store.ref("onnx_model", champion["onnx_model_key"])


def fingerprint_section(params, store: ArtifactStore, overrides: dict | None = None) -> dict:
    """The section and what it scores (the files' sha256, or the newest raw day's entry); the
    model that scores it comes from the registered_model input."""
    section = (
        params.section("batch_predictions", overrides)
        if overrides
        else params.section("batch_predictions")
    )
    settings = BatchPredictionsParams.model_validate(section)
    return {**section, "_input": input_identity(settings, store)}


@dg.asset(
    group_name="serving",
    kinds={"onnx", "parquet"},
    code_version=CODE.version,
    # scores the newest raw day (unless batch_predictions.source is set): that day is the dep
    deps=[dg.AssetDep("raw_transactions", partition_mapping=dg.LastPartitionMapping())],
    backfill_policy=SINGLE_RUN,  # lets one CLI run cover a range of days and the models
    automation_condition=automation_condition(),
    description=(
        "Transactions scored by the champion, the int8 ONNX model the registry promoted (after "
        "its export gates and the promotion gate passed): "
        "`batch_predictions.source` (a file or folder) or the newest raw day. Batches sorted by "
        "length, every core; Parquet with each head's label, confidence and probabilities."
    ),
)
def batch_predictions(
    context: dg.AssetExecutionContext,
    config: StageConfig,
    registered_model: ArtifactRef,  # runs after the promotion decision; scores the champion
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    fingerprinted = fingerprint_section(params, artifact_store, config.overrides)
    settings = BatchPredictionsParams.model_validate(
        {k: v for k, v in fingerprinted.items() if not k.startswith("_")}
    )
    identity = fingerprinted["_input"]
    if not settings.source and identity["raw_day"] is None:
        raise dg.Failure(
            "batch_predictions: no raw_transactions day is materialized and "
            "batch_predictions.source is not set; materialize a day or point source at a file"
        )
    champion_id, onnx_model = champion_model(artifact_store, registered_model)

    def build(folder: Path, fingerprint: str) -> dict:
        from ml_assets.core.evaluation import softmax
        from ml_assets.core.ingest import scan_transactions
        from ml_assets.core.scoring import encode_for_model, scorer_for

        if settings.source:
            result = scan_transactions(
                Path(settings.source),
                settings.format,
                settings.column_map,
                settings.date_format,
            )
            rows, source = result.kept, settings.source
            result.quarantined.write_parquet(folder / QUARANTINE_FILE, compression="zstd")
            rejected = result.quarantined.height + result.duplicates
        else:
            day = artifact_store.partition_refs("raw_transactions")[identity["raw_day"]].verified()
            rows, source, rejected = (
                pl.read_ndjson(day.dir / RAW_FILE),
                f"raw_transactions {identity['raw_day']}",
                0,
            )
        serving = read_json(onnx_model.dir / SERVING_CONFIG)
        threads = settings.threads or os.cpu_count() or 1
        scorer = scorer_for(onnx_model.dir, threads)
        started = time.perf_counter()
        sequences = encode_for_model(
            scorer.tokenizer, rows["description"].to_list(), scorer.max_length
        )
        logits = scorer.logits(sequences, settings.batch_size)  # sorted by length inside
        seconds = time.perf_counter() - started
        out = rows.select("transaction_id", "posted_date", "amount", "description")
        for head, names in serving["heads"].items():
            probs = softmax(logits[head])
            out = out.with_columns(
                pl.Series(f"{head}", [names[i] for i in probs.argmax(axis=1)]),
                pl.Series(f"{head}_confidence", probs.max(axis=1).astype(np.float32)),
                pl.Series(f"{head}_probs", probs.astype(np.float32)),
            )
        out.write_parquet(folder / PREDICTIONS_FILE, compression="zstd")
        return {
            "champion": champion_id,
            "source": source,
            "rows": out.height,
            "rows_rejected": rejected,
            "seconds": round(seconds, 3),
            "rows_per_second": round(out.height / max(seconds, 1e-9)),
            "threads": threads,
            "parquet_bytes": (folder / PREDICTIONS_FILE).stat().st_size,
            "preview": table_preview(out.drop([c for c in out.columns if c.endswith("_probs")])),
        }

    return memoized_output(
        context,
        artifact_store,
        asset="batch_predictions",
        code=CODE,
        params=fingerprinted,
        inputs={"registered_model": registered_model},
        build=build,
    )
