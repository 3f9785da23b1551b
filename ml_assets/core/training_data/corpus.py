"""The tokenized corpus: every split tokenized once into memory-mappable arrays.

Layout contract (format 3), one set per split in ("train", "valid", "test"):
    <split>.ids.npy        uint16 (uint32 if the vocabulary needs it) token ids of all rows,
                           concatenated; each row is [CLS] ... [SEP], truncated to max_length
    <split>.offsets.npy    int64, rows + 1 entries: row i is ids[offsets[i]:offsets[i + 1]]
    <split>.labels.npy     int16, rows x len(LABEL_COLUMNS), -100 where unlabeled
    <split>.rows.parquet   transaction_id, merchant_key, heldout_merchant, labeled, amount (row
                           order of the arrays)
    corpus.json            format, label vocabularies, special token ids, sizes
Arrays are plain .npy (never pickled) and opened with mmap, so training reads only the pages
it touches and every stage (pretraining, finetuning, evaluation) shares one tokenization.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from ml_assets.core.infra.layouts import LABEL_COLUMNS, SPLITS
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.training_data.labels import IGNORE_INDEX, label_vocabularies

CORPUS_FILE = "corpus.json"
CORPUS_FORMAT = 3


def write_corpus(
    folder: Path, tokenizer: FolderTokenizer, features: pl.DataFrame, max_length: int
) -> dict:
    """Tokenize every split in one fast batch call each and write the arrays; return corpus.json."""
    vocab_size = len(tokenizer)
    dtype = np.uint16 if vocab_size <= np.iinfo(np.uint16).max + 1 else np.uint32
    label_names = label_vocabularies(features, LABEL_COLUMNS)
    splits = {}
    for split in SPLITS:
        part = features.filter(pl.col("split") == split)
        texts = part["text"].to_list()
        encoded = tokenizer.encode(texts, max_length)
        lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        ids = np.fromiter((t for e in encoded for t in e), dtype=dtype, count=int(offsets[-1]))
        labels = (
            np.stack(
                [
                    part[c]
                    .replace_strict(
                        {n: i for i, n in enumerate(label_names[c])},
                        default=IGNORE_INDEX,
                        return_dtype=pl.Int16,
                    )
                    .to_numpy()
                    for c in LABEL_COLUMNS
                ],
                axis=1,
            )
            if part.height
            else np.zeros((0, len(LABEL_COLUMNS)), dtype=np.int16)
        )
        np.save(folder / f"{split}.ids.npy", ids, allow_pickle=False)
        np.save(folder / f"{split}.offsets.npy", offsets, allow_pickle=False)
        np.save(folder / f"{split}.labels.npy", labels.astype(np.int16), allow_pickle=False)
        part.select(
            "transaction_id", "merchant_key", "heldout_merchant", "labeled", "amount"
        ).write_parquet(folder / f"{split}.rows.parquet")
        splits[split] = {
            "rows": part.height,
            "tokens": int(offsets[-1]),
            "truncated": int((lengths >= max_length).sum()),
        }
    meta = {
        "format": CORPUS_FORMAT,
        "max_length": max_length,
        "dtype": np.dtype(dtype).name,
        "vocab_size": vocab_size,
        "pad_id": tokenizer.pad_token_id,
        "mask_id": tokenizer.mask_token_id,
        "sep_id": tokenizer.sep_token_id,
        "special_ids": sorted(tokenizer.all_special_ids),
        "label_columns": list(LABEL_COLUMNS),
        "labels": label_names,
        "splits": splits,
    }
    (folder / CORPUS_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True))
    return meta


def corpus_labels(folder: Path) -> dict[str, list[str]]:
    """Each label column's classes in a tokenized corpus folder (what its heads can learn)."""
    return json.loads((folder / CORPUS_FILE).read_text())["labels"]


class TokenizedSplit(Sequence):
    """One split of the corpus as a sequence of token-id arrays (memory-mapped, read-only).

    ``max_length`` shortens rows at read time ([CLS] ... [SEP] is kept), so stages with a
    shorter context share the corpus instead of re-tokenizing.
    """

    def __init__(
        self,
        folder: Path,
        split: str,
        max_length: int | None = None,
        rows: np.ndarray | None = None,
    ):
        self.meta = json.loads((folder / CORPUS_FILE).read_text())
        if self.meta["format"] != CORPUS_FORMAT:
            raise ValueError(
                f"{folder}: corpus format {self.meta['format']}, expected {CORPUS_FORMAT}; "
                "materialize tokenized_corpus again"
            )
        self.folder, self.split = folder, split
        self.ids = np.load(folder / f"{split}.ids.npy", mmap_mode="r")
        self.offsets = np.load(folder / f"{split}.offsets.npy", mmap_mode="r")
        self.all_labels = np.load(folder / f"{split}.labels.npy")
        self.max_length = min(max_length or self.meta["max_length"], self.meta["max_length"])
        self.rows = np.arange(len(self.offsets) - 1) if rows is None else np.asarray(rows)

    def subset(self, rows: np.ndarray) -> TokenizedSplit:
        """A view of some rows (indices into this view), sharing the memory maps."""
        view = TokenizedSplit.__new__(TokenizedSplit)
        view.__dict__.update(self.__dict__)
        view.rows = self.rows[np.asarray(rows)]
        return view

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> np.ndarray:
        row = self.rows[index]
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        if end - start <= self.max_length:
            return np.asarray(self.ids[start:end])
        return np.append(self.ids[start : start + self.max_length - 1], self.meta["sep_id"]).astype(
            self.ids.dtype
        )

    @property
    def lengths(self) -> np.ndarray:
        return np.minimum(np.diff(self.offsets)[self.rows], self.max_length)

    def labels(self, column: str) -> np.ndarray:
        """Label ids of this view's rows for one label column (-100 where unlabeled)."""
        return self.all_labels[self.rows, self.meta["label_columns"].index(column)].astype(np.int64)

    def row_table(self) -> pl.DataFrame:
        return pl.read_parquet(self.folder / f"{self.split}.rows.parquet")[self.rows.tolist()]
