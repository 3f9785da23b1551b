"""batch_predictions' input and output, without the model: the rows to score, read and
validated exactly as raw_transactions reads exports, and the predictions table, which has the
same columns whether zero or a million rows were scored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ml_assets.core.intake.accounting import IngestResult
from ml_assets.core.intake.raw_days import scan_exports
from ml_assets.core.params import BatchPredictionsParams, RawTransactionsParams
from ml_assets.core.quality.evaluation import softmax

SCORED_COLUMNS = ("transaction_id", "posted_date", "amount", "description")


def batch_reading(
    raw: RawTransactionsParams, batch: BatchPredictionsParams
) -> RawTransactionsParams:
    """raw_transactions' reading settings (preset, ids, encoding, description limit), with
    batch_predictions' own format, column_map and date_format where it sets them."""
    own = {"format": batch.format} if batch.format != "auto" else {}
    own |= {"column_map": batch.column_map} if batch.column_map else {}
    own |= {"date_format": batch.date_format} if batch.date_format else {}
    merged = {**raw.model_dump(), "source": "files", "path": batch.source, **own}
    return RawTransactionsParams.model_validate(merged)


def read_batch_source(raw: RawTransactionsParams, batch: BatchPredictionsParams) -> IngestResult:
    """Every row of batch_predictions.source kept, quarantined or a dropped duplicate."""
    return scan_exports(Path(batch.source or ""), batch_reading(raw, batch))


def predictions_frame(
    rows: pl.DataFrame, heads: dict[str, list[str]], logits: dict[str, np.ndarray] | None
) -> pl.DataFrame:
    """The scored rows with, per head, its label, confidence and probabilities. ``logits`` is
    None when there was nothing to score (every row rejected): the table is empty, not missing."""
    out = rows.select(SCORED_COLUMNS)
    for head, names in heads.items():
        if logits is None or rows.height == 0:
            probs = np.zeros((0, len(names)), dtype=np.float32)
        else:
            probs = softmax(logits[head]).astype(np.float32)
        out = out.with_columns(
            pl.Series(head, [names[i] for i in probs.argmax(axis=1)], dtype=pl.Utf8),
            pl.Series(f"{head}_confidence", probs.max(axis=1, initial=0.0), dtype=pl.Float32),
            pl.Series(f"{head}_probs", probs),
        )
    return out
