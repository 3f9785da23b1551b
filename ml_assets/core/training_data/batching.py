"""Right-padding of token-id sequences: one function for training batches and serving."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pad_sequences(sequences: Sequence[np.ndarray], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """int64 input_ids and attention_mask, padded to the longest sequence of the batch."""
    width = max(len(s) for s in sequences)
    ids = np.full((len(sequences), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(sequences), width), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask
