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


def pad_batch(sequences: Sequence[np.ndarray], pad_id: int) -> dict[str, np.ndarray]:
    ids, mask = pad_sequences(sequences, pad_id)
    return {"input_ids": ids, "attention_mask": mask}


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

    def logits(
        self, sequences: Sequence[np.ndarray], batch_size: int = 64
    ) -> dict[str, np.ndarray]:
        """Logits per head in input order; batches are sorted by length (padding costs ~3x)."""
        order = np.argsort([len(s) for s in sequences], kind="stable")
        parts = {name: [] for name in self.heads}
        for start in range(0, len(order), batch_size):
            feed = pad_batch([sequences[i] for i in order[start : start + batch_size]], self.pad_id)
            for name, out in zip(self.heads, self.session.run(None, feed), strict=True):
                parts[name].append(out)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        return {name: np.concatenate(chunks)[inverse] for name, chunks in parts.items()}

    def predict(self, texts: Sequence[str], batch_size: int = 64) -> dict[str, list[str]]:
        logits = self.logits(encode_for_model(self.tokenizer, texts, self.max_length), batch_size)
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
