"""Input path for training: tokenize once, length-bucketed batches, vectorized MLM masking.

Batch order is a pure function of (seed, epoch), so a loader position (epoch, batch index)
saved in a checkpoint reproduces the exact next batch on resume.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.training_data.batching import pad_sequences
from ml_assets.core.training_data.labels import IGNORE_INDEX  # noqa: F401  (re-exported)


def encode_texts(
    tokenizer: FolderTokenizer, texts: Sequence[str], max_length: int
) -> list[np.ndarray]:
    """Token ids (with [CLS]/[SEP], truncated, unpadded) for every text, in one batch call."""
    return [np.asarray(ids, dtype=np.int32) for ids in tokenizer.encode(texts, max_length)]


@dataclass
class LoaderPosition:
    epoch: int = 0
    batch: int = 0  # index of the next batch within the epoch


class BucketedBatches:
    """Shuffle, then sort by length inside windows of ``batch_size * window`` rows so batches
    hold similar lengths (little padding) while their order stays random."""

    def __init__(self, lengths: Sequence[int], batch_size: int, seed: int, window: int = 50):
        self.lengths = np.asarray(lengths)
        self.batch_size = batch_size
        self.seed = seed
        self.window = window

    def epoch_batches(self, epoch: int) -> list[np.ndarray]:
        rng = np.random.default_rng([self.seed, epoch])
        order = rng.permutation(len(self.lengths))
        span = self.batch_size * self.window
        batches = []
        for start in range(0, len(order), span):
            chunk = order[start : start + span]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches.extend(
                chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)
            )
        permuted = rng.permutation(len(batches))
        return [batches[i] for i in permuted]

    def iterate(self, position: LoaderPosition):
        """Yield (position_after, indices) forever, starting at ``position``."""
        epoch, batch = position.epoch, position.batch
        while True:
            batches = self.epoch_batches(epoch)
            for index in range(batch, len(batches)):
                yield LoaderPosition(epoch, index + 1), batches[index]
            epoch, batch = epoch + 1, 0


def collate(sequences: Sequence[np.ndarray], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad to the longest sequence in the batch; return input_ids and attention_mask."""
    ids, mask = pad_sequences(sequences, pad_id)
    return torch.from_numpy(ids), torch.from_numpy(mask)


def length_sorted_batches(
    sequences: Sequence[np.ndarray], batch_size: int, pad_id: int
) -> tuple[Iterator[tuple[torch.Tensor, torch.Tensor]], np.ndarray]:
    """Inference batches (input_ids, attention_mask) of the sequences sorted by length, so a
    batch holds little padding, and the permutation that puts per-row results back in input
    order: ``np.concatenate(per_batch_results)[inverse]``."""
    order = np.argsort([len(s) for s in sequences], kind="stable")
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    batches = (
        collate([sequences[i] for i in order[start : start + batch_size]], pad_id)
        for start in range(0, len(order), batch_size)
    )
    return batches, inverse


def sorted_slices(
    values: np.ndarray | None, inverse: np.ndarray, batch_size: int
) -> Iterator[np.ndarray | None]:
    """Per-row ``values`` (input order) cut as ``length_sorted_batches`` cuts its batches,
    from the ``inverse`` it returned; None for every batch where ``values`` is None (endless:
    zip it with the batches, not strictly)."""
    if values is None:
        return itertools.repeat(None)
    order = np.empty_like(inverse)
    order[inverse] = np.arange(len(inverse))
    values = np.asarray(values)[order]
    return (values[start : start + batch_size] for start in range(0, len(values), batch_size))


def mask_tokens(
    input_ids: torch.Tensor,
    special: torch.Tensor,
    *,
    mask_prob: float,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT masking: choose ``mask_prob`` of the non-special tokens; of those 80 % -> [MASK],
    10 % -> a random token, 10 % unchanged. Returns (inputs, labels with -100 elsewhere)."""
    probs = torch.full(input_ids.shape, mask_prob)
    probs.masked_fill_(special, 0.0)
    chosen = torch.bernoulli(probs, generator=generator).bool()
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    inputs = input_ids.clone()
    roll = torch.rand(input_ids.shape, generator=generator)
    to_mask = chosen & (roll < 0.8)
    to_random = chosen & (roll >= 0.8) & (roll < 0.9)
    inputs[to_mask] = mask_id
    random_tokens = torch.randint(vocab_size, input_ids.shape, generator=generator)
    inputs[to_random] = random_tokens[to_random]
    return inputs, labels


def mask_pieces(
    input_ids: torch.Tensor,
    keep: torch.Tensor,
    *,
    prob: float,
    mask_id: int,
    generator: torch.Generator,
) -> torch.Tensor:
    """Finetuning augmentation: replace ``prob`` of the pieces not in ``keep`` (special tokens,
    padding) with [MASK]; the label stays, so the heads learn to read the whole description."""
    chosen = torch.rand(input_ids.shape, generator=generator) < prob
    return input_ids.masked_fill(chosen & ~keep, mask_id)


class Prefetcher:
    """Builds the next batches on a background thread while the device computes.

    Pays on GPUs, where a step is milliseconds and host-side padding/masking would otherwise
    stall the card; on a 2-core CPU the thread only competes with the matmuls (measured:
    single-process data wait is ~1 % there), so the CPU path does not use it. The stream it
    wraps is deterministic, so prefetching never changes which batches are produced.
    """

    _DONE = object()

    def __init__(self, iterator, depth: int = 2):
        import queue
        import threading

        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._stop = threading.Event()

        def fill() -> None:
            try:
                for item in iterator:
                    while not self._stop.is_set():
                        try:
                            self._queue.put(item, timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if self._stop.is_set():
                        return
            except BaseException as err:  # surfaced in the consumer, never swallowed
                self._error = err
            self._queue.put(self._DONE)

        self._thread = threading.Thread(target=fill, name="batch-prefetch", daemon=True)
        self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        item = self._queue.get()
        if item is self._DONE:
            if self._error is not None:
                raise self._error
            raise StopIteration
        return item

    def close(self) -> None:
        self._stop.set()
