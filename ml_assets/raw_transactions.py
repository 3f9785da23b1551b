"""raw_transactions: the built-in synthetic bank data, or the user's own exports, as JSONL."""

import time
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.artifacts import artifact_output, entry_key, save_params, table_preview
from ml_assets.core.ingest import read_transactions
from ml_assets.core.io import ArtifactRef
from ml_assets.core.layouts import RAW_FILE
from ml_assets.core.synthetic import generate_transactions
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource


@dg.asset(
    group_name="ingest",
    kinds={"polars", "json"},
    description=(
        "Bank transactions in the raw form banks hand over (JSONL): id, account, posted date, amount, "
        "currency, the description as printed on statements, and `category` / `transaction_type` labels "
        "on a minority of rows. Source: the seeded synthetic generator (default) or your files "
        "(JSONL/CSV/Parquet) via `raw_transactions.source: files` and a column map in params.yaml."
    ),
)
def raw_transactions(
    context: dg.AssetExecutionContext, params: ParamsResource, artifact_store: ArtifactStore
) -> dg.Output[ArtifactRef]:
    config = params.load().raw_transactions
    started = time.perf_counter()
    if config.source == "synthetic":
        frame = generate_transactions(
            config.n_rows,
            seed=config.seed,
            labeled_fraction=config.labeled_fraction,
            start_date=config.start_date,
            days=config.days,
        )
        source = f"synthetic(seed={config.seed})"
    else:
        frame = read_transactions(
            Path(config.path), config.format, config.column_map, config.date_format
        )
        source = str(config.path)
    with artifact_store.write("raw_transactions", entry_key(context)) as tmp:
        frame.write_ndjson(tmp / RAW_FILE)
        save_params(tmp, config.model_dump(mode="json"))
    ref = artifact_store.ref("raw_transactions", entry_key(context))
    labeled = frame.filter(
        pl.col("category").is_not_null() | pl.col("transaction_type").is_not_null()
    ).height
    return artifact_output(
        ref,
        {
            "source": source,
            "rows": frame.height,
            "labeled_rows": labeled,
            "labeled_share": round(labeled / frame.height, 4),
            "bytes": (ref.dir / RAW_FILE).stat().st_size,
            "date_min": frame["posted_date"].min(),
            "date_max": frame["posted_date"].max(),
            "seconds": round(time.perf_counter() - started, 2),
            "preview": table_preview(frame),
        },
    )
