"""On-disk layout contracts of each asset's artifact entry, and the readers downstream uses.

Asset modules import these instead of importing each other, so an asset's code version
depends only on code it actually runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from ml_assets.core.infra.io import ArtifactRef, read_json

SPLITS = ("train", "valid", "test")  # transaction_features.split values
LABEL_COLUMNS = ("category", "transaction_type")  # label columns, in this order everywhere
PARAMS_FILE = "params.json"  # resolved params section, beside every artifact
RAW_FILE = "transactions.jsonl"  # raw_transactions
QUARANTINE_FILE = (
    "quarantine.parquet"  # raw_transactions: rejected rows with reason and source line
)
INGEST_REPORT_FILE = "ingest_report.json"  # raw_transactions: rows in / kept / quarantined / dups
FEATURES_FILE = "features.parquet"  # transaction_features
TOKENIZER_ID_MAP = "id_map.json"  # pruned_tokenizer: {"new_to_old": [...], ...}
TOKENIZER_FILES = (  # pruned_tokenizer: everything AutoTokenizer.from_pretrained needs + the id map
    "tokenizer.json",
    "vocab.txt",
    "tokenizer_config.json",
    "special_tokens_map.json",
    TOKENIZER_ID_MAP,
)
# pruned_tokenizer: the backbone and what its files hold; content, not provenance, so new
# weights saved over a backbone folder change the entry's digest and every asset below it
BACKBONE_FILE = "backbone.json"
MODEL_METRICS_FILE = "metrics.json"  # multitask/baseline_model: PyTorch test metrics per head
MODEL_HISTORY_FILE = "history.json"  # multitask/baseline_model: every validation pass
TOKENIZER_DIR = "tokenizer"  # inside multitask_model and onnx_model entries
FP32_FILE = "model_fp32.onnx"  # onnx_model
INT8_FILE = "model_int8.onnx"
SERVING_CONFIG = "serving.json"
VERIFICATION_FILE = "verification.json"  # onnx_model: parity and latency (timings vary run to run)
PREDICTIONS_FILE = "predictions.parquet"  # model_evaluation, batch_predictions
EVALUATION_FILE = "evaluation.json"  # model_evaluation: every metric, per head and slice
REGISTRY_RECORD_FILE = (
    "registry_record.json"  # registered_model: the record + the champion after it
)


def read_features(ref: ArtifactRef) -> pl.DataFrame:
    return pl.read_parquet(ref.dir / FEATURES_FILE)


def training_texts(features: pl.DataFrame) -> list[str]:
    """Pruning and pretraining see only the train split, so held-out text stays unseen."""
    return features.filter(pl.col("split") == "train")["text"].to_list()


def entry_params(ref: ArtifactRef) -> dict:
    return read_json(ref.dir / PARAMS_FILE)


def new_to_old_ids(tokenizer: ArtifactRef) -> list[int]:
    return read_json(tokenizer.dir / TOKENIZER_ID_MAP)["new_to_old"]


def copy_tokenizer(tokenizer_dir: Path, destination: Path) -> None:
    """Model artifacts carry their tokenizer, so serving needs nothing else."""
    destination.mkdir()
    for name in TOKENIZER_FILES:
        shutil.copy2(tokenizer_dir / name, destination / name)
