"""Serving: the int8 ONNX scorer. Text goes through the same ``normalize_texts`` and pruned
tokenizer as the features and training data, so there is no train-serve skew."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort

from ml_assets.core.text.normalize import normalize_texts
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.training_data.batching import pad_sequences


def encode_for_model(
    tokenizer: FolderTokenizer, texts: Sequence[str], max_length: int
) -> list[np.ndarray]:
    """Raw descriptions -> token ids, exactly as training saw them (normalize, then tokenize)."""
    encoded = tokenizer.encode(normalize_texts(texts), max_length)
    return [np.asarray(ids, dtype=np.int64) for ids in encoded]


AMOUNT_INPUT = "amount"  # the graph input of a model that reads amounts (float32, one per row)


def pad_batch(
    sequences: Sequence[np.ndarray], pad_id: int, amounts: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """A session's feed; with ``amounts``, the ``amount`` input too."""
    ids, mask = pad_sequences(sequences, pad_id)
    feed = {"input_ids": ids, "attention_mask": mask}
    if amounts is not None:
        feed[AMOUNT_INPUT] = np.asarray(amounts, dtype=np.float32)
    return feed


def session_reads_amount(session: ort.InferenceSession) -> bool:
    return any(i.name == AMOUNT_INPUT for i in session.get_inputs())


def checked_amounts(reads_amount: bool, amounts, rows: int) -> np.ndarray | None:
    """The amounts a model's feed takes: None for a model that does not read them."""
    if not reads_amount:
        return None
    if amounts is None:
        raise ValueError(
            "this model reads each transaction's amount beside its description: pass the "
            "amounts (one per description, negative for spending)"
        )
    amounts = np.asarray(amounts, dtype=np.float64)
    if amounts.shape != (rows,) or not np.isfinite(amounts).all():
        raise ValueError(
            f"amounts: expected {rows} finite numbers, one per description; got shape "
            f"{amounts.shape}" + ("" if np.isfinite(amounts).all() else " with NaN or inf")
        )
    return amounts


def cpu_session(model: Path | bytes, threads: int) -> ort.InferenceSession:
    """An onnxruntime CPU session as serving runs it: ``threads`` intra-op threads, one
    inter-op thread, every graph optimization. Every timed or compared session uses it."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    source = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


class OnnxScorer:
    def __init__(
        self,
        model_path: Path,
        tokenizer_dir: Path,
        heads: dict[str, list[str]],
        max_length: int,
        threads: int,
    ):
        self.threads = threads
        self.session = cpu_session(model_path, threads)
        self.tokenizer_dir = tokenizer_dir
        self.tokenizer = FolderTokenizer.load(tokenizer_dir)
        self.heads = heads
        self.max_length = max_length
        self.pad_id = self.tokenizer.pad_token_id
        self.reads_amount = session_reads_amount(self.session)

    def logits(
        self, sequences: Sequence[np.ndarray], batch_size: int = 64, amounts=None
    ) -> dict[str, np.ndarray]:
        """Logits per head in input order; batches are sorted by length (padding costs ~3x).
        ``amounts`` (one per sequence) is required by a model that reads them, else unused."""
        amounts = checked_amounts(self.reads_amount, amounts, len(sequences))
        order = np.argsort([len(s) for s in sequences], kind="stable")
        parts = {name: [] for name in self.heads}
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            feed = pad_batch(
                [sequences[i] for i in rows],
                self.pad_id,
                None if amounts is None else amounts[rows],
            )
            for name, out in zip(self.heads, self.session.run(None, feed), strict=True):
                parts[name].append(out)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        return {name: np.concatenate(chunks)[inverse] for name, chunks in parts.items()}

    def predict(
        self, texts: Sequence[str], batch_size: int = 64, amounts=None
    ) -> dict[str, list[str]]:
        sequences = encode_for_model(self.tokenizer, texts, self.max_length)
        logits = self.logits(sequences, batch_size, amounts)
        return {
            name: [self.heads[name][i] for i in logits[name].argmax(axis=1)] for name in self.heads
        }


def scorer_for(entry: Path, threads: int) -> OnnxScorer:
    """The int8 scorer of an onnx_model entry, configured by its serving.json."""
    import json

    serving = json.loads((entry / "serving.json").read_text())
    return OnnxScorer(
        entry / serving["model"],
        entry / serving["tokenizer"],
        serving["heads"],
        serving["max_length"],
        threads,
    )
