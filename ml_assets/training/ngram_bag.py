"""A bag of token n-grams beside the encoder: what TF-IDF + logistic regression knows, inside
the one model that ships.

A finetuned encoder generalizes to merchants it never saw; a linear model over n-grams
remembers the exact strings of merchants it did see, and on data with many merchants seen
only a few times in training the two are complementary. The bag reads the same token ids as
the encoder (unigrams, and bi- and trigrams hashed into ``buckets`` slots each), so serving,
export and quantization see one graph with the same two inputs, and no second artifact.

With ``pieces`` (the tokenizer's token strings), each token also brings the character 2- to
5-grams of its own characters (a word-initial piece led by a space): what TF-IDF's ``char_wb``
analyzer sees of a word, from the ids alone, so a truncated or inflected merchant word shares
most of its features with the whole one. The regression's weights of those n-grams fold into
one row per token (``char_score``, and ``char_sq`` for the norm), so the graph stays a gather.

Features of a text: each n-gram occurrence weighted by its inverse document frequency on the
labeled training rows, divided by the L2 norm of those weights (sublinear TF-IDF's shape,
computable from the ids alone). One multinomial logistic regression per head, C chosen on the
validation rows.

The two are mixed per row, as log-probabilities: ``(1 - w) * encoder + w * bag``. The weight
follows how much of the row the bag has seen: its coverage ``c``, the share of the row's bi-
and trigrams (each weighed by its idf: a merchant's rare name says more than "pos debit")
that occur in a labeled training row, gives ``w = low + (high - low) * sigmoid(SHARPNESS *
(c - threshold))``: a merchant seen in training (coverage near 1) leans on the bag's memory,
an unseen one on the encoder. ``(threshold, low, high)`` per head is chosen
on the validation rows by the mean of the accuracies on seen and on held-out merchants, so
neither slice pays for the other, each merchant counting as at most ``MERCHANT_ROW_CAP`` rows;
``low`` (the bag's share for rows it has not seen) stays 0
unless a share gains a clear margin there (``choose_gates``).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import nn

# hashing: (a * PRIME + b) mod buckets chains; int64 never overflows for ids < 2**31
PRIME = 1_000_003
SHARPNESS = 20.0
THRESHOLDS = (0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
# the bag's share of rows it has not seen, up to all of it: on a long tail the encoder reads
# poorly the bag carries unseen merchants too. The merchant cap and ``LOW_GAIN_PT`` keep one
# chain among the valid split's few dozen held-out merchants from choosing it alone
LOWS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.85, 1.0)
HIGHS = (0.5, 0.7, 0.85, 1.0)
LOW_GAIN_PT = 1.0  # what a share of the bag for unseen rows must gain on validation
# rows of one merchant that count at most in the gate's validation score: one big merchant
# (a chain with hundreds of rows among a few dozen held-out merchants) must not choose alone
MERCHANT_ROW_CAP = 20
GRAM_SIZES = (2, 3, 4, 5)  # character n-grams of a token, as TF-IDF's char_wb (2, 5)


def piece_texts(pieces: Sequence[str | None], special_ids: Sequence[int] = ()) -> list[str]:
    """Each token's characters as they sit in a word: a word-initial piece led by a space, a
    continuation without its marker; "" for special and unknown ids. WordPiece marks
    continuations ("##"); SentencePiece and byte-level BPE mark word starts ("▁", "Ġ")."""
    special = set(special_ids)
    wordpiece = any(p.startswith("##") for p in pieces if p)
    texts = []
    for i, piece in enumerate(pieces):
        if not piece or i in special:
            texts.append("")
        elif wordpiece:
            texts.append(piece[2:] if piece.startswith("##") else " " + piece)
        else:
            texts.append(" " + piece[1:] if piece[:1] in ("▁", "Ġ") else piece)
    return texts


def token_grams(texts: Sequence[str], buckets: int):
    """(tokens x buckets) sparse counts of each token's hashed character n-grams."""
    from scipy.sparse import csr_matrix

    rows, columns = [], []
    for token, text in enumerate(texts):
        for n in GRAM_SIZES:
            for start in range(len(text) - n + 1):
                rows.append(token)
                columns.append(zlib.crc32(text[start : start + n].encode()) % buckets)
    ones = np.ones(len(rows), dtype=np.float64)
    return csr_matrix((ones, (rows, columns)), shape=(len(texts), buckets))


def token_counts(sequences: Sequence[np.ndarray], vocab_size: int):
    """(rows x vocab) sparse counts of each sequence's token ids."""
    from scipy.sparse import csr_matrix

    lengths = [len(s) for s in sequences]
    columns = np.concatenate([np.asarray(s) for s in sequences]) if sequences else np.zeros(0)
    rows = np.repeat(np.arange(len(sequences)), lengths)
    ones = np.ones(len(columns), dtype=np.float64)
    return csr_matrix((ones, (rows, columns.astype(np.int64))), shape=(len(sequences), vocab_size))


def ngram_keys_numpy(ids: np.ndarray, vocab_size: int, buckets: int) -> np.ndarray:
    """Row indices into the bag's table for one sequence: unigrams, then hashed bi- and
    trigrams (exactly what ``NgramBag.keys`` computes in the graph)."""
    ids = ids.astype(np.int64)
    bigrams = (ids[:-1] * PRIME + ids[1:]) % buckets
    trigrams = ((ids[:-2] * PRIME + ids[1:-1]) % buckets * PRIME + ids[2:]) % buckets
    return np.concatenate([ids, vocab_size + bigrams, vocab_size + buckets + trigrams])


def key_matrix(sequences: Sequence[np.ndarray], vocab_size: int, buckets: int, idf: np.ndarray):
    """(token n-gram features, each occurrence weighted by its idf and not normalized; the
    sum of the squared weights of each row) as a sparse matrix (scipy CSR) and an array."""
    from scipy.sparse import csr_matrix

    keys = [ngram_keys_numpy(np.asarray(s), vocab_size, buckets) for s in sequences]
    lengths = np.fromiter((len(k) for k in keys), dtype=np.int64, count=len(keys))
    columns = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    weights = idf[columns].astype(np.float64)
    rows = np.repeat(np.arange(len(keys)), lengths)
    squares = np.bincount(rows, weights=weights**2, minlength=len(keys))
    return csr_matrix((weights, (rows, columns)), shape=(len(keys), idf.shape[0])), squares


def bag_matrix(
    sequences: Sequence[np.ndarray],
    vocab_size: int,
    buckets: int,
    idf: np.ndarray,
    grams=None,
    gram_idf: np.ndarray | None = None,
):
    """The rows' features as a sparse matrix (scipy CSR), as the graph computes them: the token
    n-grams, then (with ``grams``, from ``token_grams``) the character n-grams, one norm."""
    from scipy.sparse import diags, hstack

    matrix, squares = key_matrix(sequences, vocab_size, buckets, idf)
    if grams is not None:
        counts = token_counts(sequences, vocab_size) @ grams  # rows x character n-grams
        squares = squares + counts @ (gram_idf.astype(np.float64) ** 2)
        matrix = hstack([matrix, counts @ diags(gram_idf.astype(np.float64))])
    scale = diags(1.0 / np.maximum(np.sqrt(squares), 1e-6))
    return (scale @ matrix).astype(np.float32).tocsr()


def fit_idf(
    sequences: Sequence[np.ndarray], vocab_size: int, buckets: int
) -> tuple[np.ndarray, np.ndarray]:
    """(smoothed inverse document frequency, document count) of every table row."""
    documents = np.zeros(vocab_size + 2 * buckets, dtype=np.int64)
    for s in sequences:
        documents[np.unique(ngram_keys_numpy(np.asarray(s), vocab_size, buckets))] += 1
    idf = (np.log((1 + len(sequences)) / (1 + documents)) + 1).astype(np.float32)
    return idf, documents


class NgramBag(nn.Module):
    """The bag in the graph: ids and mask in, log-probabilities per head and coverage out."""

    def __init__(
        self, vocab_size: int, buckets: int, heads: dict[str, int], char_grams: bool = False
    ):
        super().__init__()
        self.vocab_size, self.buckets, self.char_grams = vocab_size, buckets, char_grams
        self.head_sizes = dict(heads)
        rows, columns = vocab_size + 2 * buckets, sum(heads.values())
        self.register_buffer("idf", torch.ones(rows))
        self.register_buffer("seen", torch.zeros(rows))  # 1: in a labeled training row
        self.register_buffer("table", torch.zeros(rows, columns))
        self.register_buffer("bias", torch.zeros(columns))
        # per head: (threshold, low, high) of the coverage gate
        self.register_buffer("gate", torch.zeros(len(heads), 3))
        if char_grams:  # per token: its character n-grams' weighted scores, and squared idfs
            self.register_buffer("char_score", torch.zeros(vocab_size, columns))
            self.register_buffer("char_sq", torch.zeros(vocab_size))

    def config(self) -> dict:
        return {
            "vocab_size": self.vocab_size,
            "buckets": self.buckets,
            "heads": self.head_sizes,
            "char_grams": self.char_grams,
        }

    def keys(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(keys, present) of shape (batch, n-grams): an n-gram counts where all its ids do."""
        ids = ids.long()
        valid = mask.to(torch.float32)
        bigrams = torch.remainder(ids[:, :-1] * PRIME + ids[:, 1:], self.buckets)
        trigrams = torch.remainder(
            torch.remainder(ids[:, :-2] * PRIME + ids[:, 1:-1], self.buckets) * PRIME + ids[:, 2:],
            self.buckets,
        )
        keys = torch.cat(
            [ids, self.vocab_size + bigrams, self.vocab_size + self.buckets + trigrams], dim=1
        )
        present = torch.cat(
            [valid, valid[:, :-1] * valid[:, 1:], valid[:, :-2] * valid[:, 1:-1] * valid[:, 2:]],
            dim=1,
        )
        return keys, present

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[list, torch.Tensor]:
        """(log-probabilities per head, coverage per row)."""
        keys, present = self.keys(ids, mask)
        weights = self.idf[keys] * present  # (batch, n)
        squares = (weights * weights).sum(dim=1, keepdim=True)
        scores = (self.table[keys] * weights.unsqueeze(-1)).sum(dim=1)
        if self.char_grams:
            valid = mask.to(torch.float32)
            squares = squares + (self.char_sq[ids.long()] * valid).sum(dim=1, keepdim=True)
            scores = scores + (self.char_score[ids.long()] * valid.unsqueeze(-1)).sum(dim=1)
        scores = scores / torch.sqrt(squares).clamp_min(1e-6) + self.bias
        logprobs = [
            torch.log_softmax(part, dim=-1)
            for part in torch.split(scores, list(self.head_sizes.values()), dim=1)
        ]
        # bi- and trigrams (unigrams say little of a merchant), each by its idf: a rare n-gram
        # (a merchant's name) says more of having seen the row than a common one ("pos debit")
        longer, rows = weights[:, ids.shape[1] :], keys[:, ids.shape[1] :]
        coverage = (self.seen[rows] * longer).sum(dim=1) / longer.sum(dim=1).clamp_min(1e-6)
        return logprobs, coverage

    def mix(self, encoder_logits: Sequence[torch.Tensor], ids, mask) -> tuple[torch.Tensor, ...]:
        """Each head's encoder log-probabilities mixed with the bag's by the coverage gate."""
        bag, coverage = self.forward(ids, mask)
        mixed = []
        for i, logits in enumerate(encoder_logits):
            threshold, low, high = self.gate[i]
            w = (low + (high - low) * torch.sigmoid(SHARPNESS * (coverage - threshold)))[:, None]
            mixed.append((1 - w) * torch.log_softmax(logits.float(), dim=-1) + w * bag[i])
        return tuple(mixed)


def coverage_numpy(
    sequences, vocab_size: int, buckets: int, seen: np.ndarray, idf: np.ndarray
) -> np.ndarray:
    """``NgramBag``'s coverage of each sequence, in numpy."""
    out = np.empty(len(sequences), dtype=np.float32)
    for i, s in enumerate(sequences):
        longer = ngram_keys_numpy(np.asarray(s), vocab_size, buckets)[len(s) :]
        weights = idf[longer]
        out[i] = (seen[longer] * weights).sum() / max(weights.sum(), 1e-6)
    return out


def fit_bag(
    train: tuple[Sequence[np.ndarray], dict[str, np.ndarray]],
    vocab_size: int,
    buckets: int,
    heads: dict[str, list[str]],
    c_grid: Sequence[float],
    valid: tuple[Sequence[np.ndarray], dict[str, np.ndarray]],
    ignore_index: int,
    max_iter: int = 1000,
    log: Callable[[str], None] = print,
    pieces: Sequence[str] | None = None,
) -> tuple[NgramBag, dict]:
    """The bag fit on the labeled train rows, C per head by validation accuracy (the gates are
    left at 0, encoder only: ``choose_gates`` sets them). ``pieces``: each token id's text
    (``piece_texts``), for the character n-grams; None: token n-grams only."""
    from sklearn.linear_model import LogisticRegression

    started = time.perf_counter()
    train_sequences, train_labels = train
    idf, documents = fit_idf(train_sequences, vocab_size, buckets)
    grams = gram_idf = None
    all_documents = documents
    if pieces is not None:
        grams = token_grams(pieces, buckets)
        gram_documents = np.asarray(
            ((token_counts(train_sequences, vocab_size) @ grams) > 0).sum(axis=0)
        ).ravel()
        gram_idf = np.log((1 + len(train_sequences)) / (1 + gram_documents)) + 1
        all_documents = np.concatenate([documents, gram_documents])
    # the regression sees the rows of n-grams in at least 2 training rows (TF-IDF's min_df):
    # 20x fewer columns, the same accuracy; the others keep weight 0
    kept = np.flatnonzero(all_documents >= 2)
    x_train = bag_matrix(train_sequences, vocab_size, buckets, idf, grams, gram_idf)[:, kept]
    x_valid = bag_matrix(valid[0], vocab_size, buckets, idf, grams, gram_idf)[:, kept]
    sizes = {h: len(names) for h, names in heads.items()}
    bag = NgramBag(vocab_size, buckets, sizes, char_grams=pieces is not None)
    bag.idf.copy_(torch.from_numpy(idf))
    bag.seen.copy_(torch.from_numpy((documents > 0).astype(np.float32)))
    if grams is not None:
        squares = grams @ gram_idf**2
        bag.char_sq.copy_(torch.from_numpy(np.asarray(squares, dtype=np.float32)))
    record: dict = {"c": {}, "valid_accuracy": {}}
    column = 0
    for head, names in heads.items():
        keep = train_labels[head] != ignore_index
        y = train_labels[head][keep]
        valid_keep = valid[1][head] != ignore_index
        best = None
        for c in c_grid:
            model = LogisticRegression(C=c, max_iter=max_iter).fit(x_train[keep], y)
            score = (
                float((model.predict(x_valid[valid_keep]) == valid[1][head][valid_keep]).mean())
                if valid_keep.any()
                else 0.0
            )
            if best is None or score > best[0]:
                best = (score, c, model)
        score, c, model = best
        weights = np.zeros((len(names), x_train.shape[1]), dtype=np.float32)
        intercept = np.zeros(len(names), dtype=np.float32)
        classes = [int(k) for k in model.classes_]
        if len(classes) == 2:  # sklearn keeps one row for two classes: logit of the second
            weights[classes[1]], intercept[classes[1]] = model.coef_[0], model.intercept_[0]
        else:
            weights[classes], intercept[classes] = model.coef_, model.intercept_
        full = np.zeros((all_documents.shape[0], len(names)), dtype=np.float32)
        full[kept] = weights.T
        if len(classes) < len(names):  # a label no train row carries: never predicted
            absent = [i for i in range(len(names)) if i not in classes]
            intercept[absent] = -1e4
        bag.table[:, column : column + len(names)] = torch.from_numpy(full[: idf.shape[0]])
        if grams is not None:  # each token's n-grams, weighted, folded into one row per token
            folded = grams @ (gram_idf[:, None] * full[idf.shape[0] :].astype(np.float64))
            bag.char_score[:, column : column + len(names)] = torch.from_numpy(
                np.asarray(folded, dtype=np.float32)
            )
        bag.bias[column : column + len(names)] = torch.from_numpy(intercept)
        column += len(names)
        record["c"][head], record["valid_accuracy"][head] = c, round(score, 4)
    record["seconds"] = round(time.perf_counter() - started, 2)
    log(f"n-gram bag fit in {record['seconds']} s: C {record['c']}")
    return bag, record


def merchant_row_weights(merchants: np.ndarray, cap: int = MERCHANT_ROW_CAP) -> np.ndarray:
    """Each row's weight in a score where a merchant counts as at most ``cap`` rows: 1 for a
    merchant with ``cap`` rows or fewer, ``cap / rows`` for a bigger one."""
    _, inverse, counts = np.unique(merchants, return_inverse=True, return_counts=True)
    return np.minimum(1.0, cap / counts[inverse])


def kept_row_weights(merchants: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``merchant_row_weights`` of the kept (labeled) rows, counted among themselves; 1 for the
    others."""
    weights = np.ones(len(keep))
    weights[keep] = merchant_row_weights(np.asarray(merchants)[keep])
    return weights


def seen_and_heldout_accuracy(
    right: np.ndarray, keep: np.ndarray, heldout: np.ndarray, weights: np.ndarray
) -> float:
    """The mean of the accuracies on the kept rows of held-out and of seen merchants (overall
    where one slice is empty), each row counting by its ``weights`` (``merchant_row_weights``):
    the score the gate is chosen by, and the candidate's early stopping."""
    slices = [m for m in (keep & heldout, keep & ~heldout) if m.any()] or [keep]
    return float(np.mean([np.average(right[m], weights=weights[m]) for m in slices]))


def choose_gates(
    encoder_logits: dict[str, np.ndarray],
    bag_logprobs: dict[str, np.ndarray],
    coverage: np.ndarray,
    labels: dict[str, np.ndarray],
    heldout: np.ndarray,
    ignore_index: int,
    merchants: np.ndarray | None = None,
    low_gain_pt: float = LOW_GAIN_PT,
    lows: Sequence[float] = LOWS,
    thresholds: Sequence[float] = THRESHOLDS,
) -> dict[str, tuple[float, float, float]]:
    """Per head, the gate ``(threshold, low, high)`` with the best mean of seen- and
    held-out-merchant accuracy on the validation rows (overall accuracy where one slice is
    empty); on ties the one with the highest weight for seen rows, then the lowest for the
    others. With ``merchants`` (each row's merchant key), a merchant's rows count as at most
    ``MERCHANT_ROW_CAP`` rows (``merchant_row_weights``).

    Rows the bag has not seen belong to the encoder (``low`` 0) unless giving them a share of
    the bag gains at least ``low_gain_pt`` points of that mean: a few hundred held-out
    validation rows are too few to trust a smaller gain, and on a data set where the encoder
    generalizes well a share of the bag costs its unseen merchants points."""
    chosen = {}
    for head, logits in encoder_logits.items():
        encoder = torch.log_softmax(torch.from_numpy(logits).float(), dim=-1).numpy()
        keep = labels[head] != ignore_index
        weights = np.ones(len(keep)) if merchants is None else kept_row_weights(merchants, keep)
        best: dict[bool, tuple[float, tuple[float, float, float]]] = {}
        # the bag's full weight first: where validation cannot tell, a seen merchant's row is
        # the bag's (TF-IDF's memory is what it is there for)
        for high in sorted(HIGHS, reverse=True):
            for low in (x for x in lows if x <= high):
                for threshold in thresholds:
                    gate = 1 / (1 + np.exp(-SHARPNESS * (coverage - threshold)))
                    w = (low + (high - low) * gate)[:, None]
                    mixed = (1 - w) * encoder + w * bag_logprobs[head]
                    right = mixed.argmax(axis=1) == labels[head]
                    score = 100 * seen_and_heldout_accuracy(right, keep, heldout, weights)
                    shared = low > 0
                    if shared not in best or score > best[shared][0] + 1e-9:
                        best[shared] = (score, (threshold, low, high))
        unseen_to_encoder = best[False]
        shared = best.get(True)
        take_shared = shared is not None and shared[0] >= unseen_to_encoder[0] + low_gain_pt
        chosen[head] = (shared if take_shared else unseen_to_encoder)[1]
    return chosen


def bag_logprobs_numpy(bag: NgramBag, sequences) -> dict[str, np.ndarray]:
    """The bag's log-probabilities per head, in numpy (as ``NgramBag.forward`` computes)."""
    from scipy.sparse import diags

    matrix, squares = key_matrix(sequences, bag.vocab_size, bag.buckets, bag.idf.numpy())
    scores = matrix @ bag.table.numpy().astype(np.float64)
    if bag.char_grams:
        counts = token_counts(sequences, bag.vocab_size)
        squares = squares + counts @ bag.char_sq.numpy().astype(np.float64)
        scores = scores + counts @ bag.char_score.numpy().astype(np.float64)
    scores = diags(1.0 / np.maximum(np.sqrt(squares), 1e-6)) @ scores + bag.bias.numpy()
    out, column = {}, 0
    for head, size in bag.head_sizes.items():
        part = torch.from_numpy(np.asarray(scores[:, column : column + size], dtype=np.float32))
        out[head] = torch.log_softmax(part, dim=-1).numpy()
        column += size
    return out
