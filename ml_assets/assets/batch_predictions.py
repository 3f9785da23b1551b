"""batch_predictions: new transactions scored in bulk by the champion (the promoted int8 model)."""

import os
import time
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.assets.onnx_model import STAGE as ONNX_MODEL
from ml_assets.assets.raw_transactions import STAGE as RAW_TRANSACTIONS
from ml_assets.core.infra.io import ArtifactRef, by_asset, read_json
from ml_assets.core.infra.layouts import (
    PREDICTIONS_FILE,
    QUARANTINE_FILE,
    RAW_FILE,
    SERVING_CONFIG,
)
from ml_assets.core.infra.layouts import (
    REGISTRY_RECORD_FILE as RECORD_FILE,
)
from ml_assets.core.params import BatchPredictionsParams, PipelineParams, RawTransactionsParams
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
    table_preview,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import FingerprintContext, Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource


def input_identity(settings: BatchPredictionsParams, store: ArtifactStore) -> dict:
    """What is scored, as fingerprint input: the files' sha256, or the newest raw day's entry."""
    if settings.source:
        from ml_assets.core.intake.raw_days import local_listing

        return {"files": local_listing(Path(settings.source), settings.format)}
    days = store.partition_refs(RAW_TRANSACTIONS.key)
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
    return champion["model_id"], store.ref(ONNX_MODEL.key, champion["onnx_model_key"])


def fingerprint(params: PipelineParams, context: FingerprintContext) -> dict:
    """The section and what it scores (the files' sha256, or the newest raw day's entry); the
    model that scores it comes from the registered_model input. A source file's rows are
    validated with raw_transactions' reading settings (params.yaml's: a run's overrides are
    batch_predictions' own), so those are part of it too."""
    settings = params.get(BatchPredictionsParams)
    section = settings.model_dump(mode="json")
    if not settings.source:
        return {**section, "_input": input_identity(settings, context.store)}
    from ml_assets.core.serving.predictions import batch_reading

    reading = batch_reading(params.get(RawTransactionsParams), settings).model_dump(mode="json")
    kept = ("format", "csv_preset", "column_map", "date_format", "encoding", "transaction_ids")
    reading = {k: reading[k] for k in (*kept, "max_description_chars")}
    return {**section, "_input": input_identity(settings, context.store), "_reading": reading}


# per-run overrides of the BatchPredictions section: the launchpad's fields
BatchPredictionsConfig = section_config(BatchPredictionsParams, "BatchPredictionsConfig")


STAGE = Stage(
    key="batch_predictions",
    module=__name__,
    libraries=("onnxruntime", "tokenizers", "polars"),
    section=BatchPredictionsParams,
    reads=(RawTransactionsParams,),
    fingerprint=fingerprint,
)


@single_run_asset(
    group_name="serving",
    kinds={"onnx", "parquet"},
    # scores the newest raw day (unless batch_predictions.source is set): that day is the dep
    deps=[dg.AssetDep(RAW_TRANSACTIONS.key, partition_mapping=dg.LastPartitionMapping())],
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
    config: BatchPredictionsConfig,
    registered_model: ArtifactRef,  # runs after the promotion decision; scores the champion
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    resolved = params.load(BatchPredictionsParams, config.overrides)
    fingerprinted = STAGE.fingerprinted(resolved, FingerprintContext(store=artifact_store))
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
        from ml_assets.core.intake.accounting import QUARANTINE_SCHEMA
        from ml_assets.core.intake.records import read_validated_jsonl
        from ml_assets.core.serving.predictions import predictions_frame, read_batch_source
        from ml_assets.core.serving.scoring import encode_for_model, scorer_for

        if settings.source:
            result = read_batch_source(resolved.get(RawTransactionsParams), settings)
            rows, source, quarantined = result.kept, settings.source, result.quarantined
            rejected = result.quarantined.height + result.duplicates
            if quarantined.height:
                context.log.warning(
                    f"batch_predictions: {quarantined.height} of {result.rows_in} rows rejected "
                    f"({QUARANTINE_FILE} in the entry): {result.summary()}"
                )
        else:
            day = artifact_store.partition_refs(RAW_TRANSACTIONS.key)[
                identity["raw_day"]
            ].verified()
            rows, source, rejected = (
                read_validated_jsonl(day.dir / RAW_FILE),
                f"raw_transactions {identity['raw_day']}",
                0,
            )
            quarantined = pl.DataFrame(schema=QUARANTINE_SCHEMA)  # raw_transactions kept its own
        quarantined.write_parquet(folder / QUARANTINE_FILE, compression="zstd")
        serving = read_json(onnx_model.dir / SERVING_CONFIG)
        threads = settings.threads or os.cpu_count() or 1
        started = time.perf_counter()
        logits = None
        if rows.height:  # an all-rejected file scores nothing and still writes its table
            scorer = scorer_for(onnx_model.dir, threads)
            sequences = encode_for_model(
                scorer.tokenizer, rows["description"].to_list(), scorer.max_length
            )
            # sorted by length inside; the amounts are read where the model reads them
            logits = scorer.logits(sequences, settings.batch_size, rows["amount"].to_numpy())
        else:
            context.log.warning(f"batch_predictions: no valid row in {source}; nothing scored")
        seconds = time.perf_counter() - started
        out = predictions_frame(rows, serving["heads"], logits)
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
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=fingerprinted,
        inputs=by_asset(registered_model),
        build=build,
    )
