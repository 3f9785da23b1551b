"""A bag of token n-grams beside the encoder: what TF-IDF + logistic regression knows, inside
the one model that ships.

A finetuned encoder generalizes to merchants it never saw; a linear model over n-grams
remembers the exact strings of merchants it did see, and on data with many merchants seen
only a few times in training the two are complementary. The bag reads the same token ids as
the encoder (unigrams, and bi- and trigrams hashed into ``buckets`` slots each), so serving,
export and quantization see one graph with the same two inputs, and no second artifact.

With ``pieces`` (the tokenizer's token strings), the text the ids spell (each word led by a
space, a continuation piece glued to its word) also brings the character 2- to 5-grams of its
words, hashed into ``buckets`` more slots: what TF-IDF's ``char_wb`` analyzer sees, across the
pieces of a word, so a truncated, inflected or foreign merchant word shares most of its
features with the whole one; Cyrillic and Greek letters are spelled in Latin ones, so a
merchant printed in its own script on one statement and romanized on another shares them too.
The graph spells the text itself from a table of each token's characters, so it still reads
only the ids and the mask.

Features of a text: each n-gram occurrence weighted by its inverse document frequency on the
labeled training rows, divided by the L2 norm of those weights (sublinear TF-IDF's shape,
computable from the ids alone). Per head, one binary logistic regression per class over the
features scaled by the class's naive-Bayes log-count ratio (``nb_logistic``: a rare n-gram only
one class's rows have carries weight for it), C chosen on the validation rows.

The two are mixed per row, as log-probabilities: ``(1 - w) * encoder + w * bag``. The weight
follows how much of the row the bag has seen: its coverage ``c``, the share of the row's bi-
and trigrams (each weighed by its idf: a merchant's rare name says more than "pos debit")
that occur in a labeled training row, gives ``w = low + (high - low) * sigmoid(SHARPNESS *
(c - threshold))``: a merchant seen in training (coverage near 1) leans on the bag's memory,
an unseen one on the encoder. Where unseen rows go to the encoder (``low`` 0), ``c`` may
also average in the same share of the row's single tokens (``token_share``): a known
merchant in a new city or with a new store number keeps its name's tokens though most of its
bigrams are new. ``(threshold, low, high, token_share)`` per head is chosen
on the validation rows by the mean of the accuracies on seen and on held-out merchants, so
neither slice pays for the other, each merchant counting as at most ``MERCHANT_ROW_CAP`` rows;
``low`` (the bag's share for rows it has not seen) stays 0
unless a share gains a clear margin there, one the valid split's merchants make sure of, and
``high`` is 0 (the encoder alone) where every mix scores below the encoder (``choose_gates``).
That rule leans on the encoder for unseen rows; where the encoder is not known to read
unseen merchants better than the bag (``gate_prior``, measured out of fold on the train
rows), the gate starts instead from a constant share that weighs the two calibrated parts
equally: that share stays unseen rows', seen rows may get more of the bag as the encoder's
rule would choose it, and the search's best gate replaces both only for the same sure gain.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import torch
from torch import nn

from ml_assets.core.text.latin_letters import latin_spelling

# hashing: (a * PRIME + b) mod buckets chains; int64 never overflows for ids < 2**31
PRIME = 1_000_003
SHARPNESS = 20.0
THRESHOLDS = (0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
# the bag's share of rows it has not seen, up to all of it: on a long tail the encoder reads
# poorly the bag carries unseen merchants too. The merchant cap and ``LOW_GAIN_PT`` keep one
# chain among the valid split's few dozen held-out merchants from choosing it alone
LOWS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.85, 1.0)
# the bag's share of rows it has seen; 0 is the encoder alone, chosen only where every share
# scores below it on validation (where the bag reads a language worse than the encoder)
HIGHS = (0.0, 0.5, 0.7, 0.85, 1.0)
LOW_GAIN_PT = 1.0  # what a share of the bag for unseen rows must gain on validation
# ...and by how many standard errors of that gain (merchants as clusters): one-sided 95 %.
# A valid split's few dozen held-out merchants can show a gain of a point or two that the
# test split's merchants reverse (the built-in data: +1.3 points on validation, 10 fewer on
# the test split's held-out merchants)
LOW_GAIN_Z = 1.645
# the share of single tokens in the gate's coverage, besides bi- and trigrams alone (0): only
# where unseen rows go to the encoder. Where the bag also carries unseen rows, known words of
# an unseen merchant would blur the line between the two shares
TOKEN_SHARES = (0.0, 0.5)
GATE_FIELDS = 4  # threshold, low, high, token_share
# rows of one merchant that count at most in the gate's validation score: one big merchant
# (a chain with hundreds of rows among a few dozen held-out merchants) must not choose alone
MERCHANT_ROW_CAP = 20
GRAM_SIZES = (2, 3, 4, 5)  # character n-grams of a word, as TF-IDF's char_wb (2, 5)
CHAR_WIDTH = 16  # characters kept of a token's text (14 of BERT's 30,522 tokens are longer)
SPACE = 1  # a space's code in ``char_table``; 0 is no character
MAX_CODE = np.iinfo(np.int16).max  # characters past the 32,766th of an alphabet share this code


def piece_texts(pieces: Sequence[str | None], special_ids: Sequence[int] = ()) -> list[str]:
    """Each token's characters as they sit in a word: a word-initial piece led by a space, a
    continuation without its marker; a space (a word break) for special and unknown ids.
    WordPiece marks continuations ("##"); SentencePiece and byte-level BPE mark word starts
    ("▁", "Ġ"). Cyrillic and Greek letters are spelled in Latin ones (``latin_spelling``): a
    merchant printed in its own script and romanized shares its character n-grams."""
    special = set(special_ids)
    marks = Counter(
        "##" if p.startswith("##") else p[:1] for p in pieces if p and p[:1] in ("#", "▁", "Ġ")
    )
    marker = max(("##", "▁", "Ġ"), key=lambda m: marks[m])  # (a BPE vocabulary has "##" too)
    texts = []
    for i, piece in enumerate(pieces):
        if not piece or i in special:
            texts.append(" ")
        elif marker == "##":
            texts.append(piece[2:] if piece.startswith("##") else " " + piece)
        elif marker == "Ġ":  # byte-level BPE: each character stands for a byte ("Ġ" a space)
            texts.append(_bytes_of_piece(piece))
        else:
            texts.append(" " + piece[1:] if piece.startswith("▁") else piece)
    return [latin_spelling(text) for text in texts]


def _byte_glyphs() -> dict[str, int]:
    """Byte-level BPE's printable stand-in for each byte (GPT-2's table): printable Latin-1
    bytes stand for themselves, the others for the characters from U+0100 on, in order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    kept += range(ord("®"), ord("ÿ") + 1)
    others = [b for b in range(256) if b not in kept]
    return {chr(b): b for b in kept} | {chr(256 + n): b for n, b in enumerate(others)}


_BYTE_OF_GLYPH = _byte_glyphs()


def _bytes_of_piece(piece: str) -> str:
    """A byte-level piece's text ("Ġvarus" -> " varus", "Ð²Ð°" -> "ва"); a piece that holds
    part of a character stays as it is printed."""
    try:
        return bytes(_BYTE_OF_GLYPH[c] for c in piece).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return piece


def char_table(texts: Sequence[str], width: int = CHAR_WIDTH) -> tuple[np.ndarray, np.ndarray]:
    """(codes, lengths): each token's first ``width`` characters as codes (int16: the space 1,
    every other character of the texts its rank in code-point order from 2, 0 after the text's
    end) and how many there are (uint8); the graph spells a row's text from them."""
    alphabet = sorted(set("".join(texts)) - {" "})
    code = {" ": SPACE} | {c: min(SPACE + 1 + rank, MAX_CODE) for rank, c in enumerate(alphabet)}
    codes = np.zeros((len(texts), width), dtype=np.int16)
    lengths = np.zeros(len(texts), dtype=np.uint8)
    for token, text in enumerate(texts):
        kept = [code[c] for c in text[:width]]
        codes[token, : len(kept)] = kept
        lengths[token] = len(kept)
    return codes, lengths


def char_keys_numpy(ids: np.ndarray, chars: tuple[np.ndarray, np.ndarray], buckets: int):
    """Hashed character n-grams of the text ``ids`` spell (exactly what ``NgramBag.char_keys``
    computes in the graph): every 2- to 5-gram with spaces at most at its ends and not only
    spaces, i.e. TF-IDF's ``char_wb`` n-grams of the words, each word padded by spaces."""
    codes, lengths = chars
    stream = np.concatenate([codes[i, : lengths[i]] for i in ids] + [np.zeros(0, np.int32)])
    stream = stream.astype(np.int64)
    keys = []
    for n in GRAM_SIZES:
        if len(stream) < n:
            continue
        windows = np.lib.stride_tricks.sliding_window_view(stream, n)
        digest = np.full(len(windows), n, dtype=np.int64)
        for k in range(n):
            digest = (digest * PRIME + windows[:, k]) % buckets
        kept = (windows[:, 1 : n - 1] != SPACE).all(axis=1) & (windows != SPACE).any(axis=1)
        keys.append(digest[kept])
    return np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)


def ngram_keys_numpy(
    ids: np.ndarray, vocab_size: int, buckets: int, chars: tuple | None = None
) -> np.ndarray:
    """Row indices into the bag's table for one sequence: unigrams, then hashed bi- and
    trigrams (exactly what ``NgramBag.keys`` computes in the graph); with ``chars``
    (``char_table``), then the character n-grams of its words."""
    ids = ids.astype(np.int64)
    bigrams = (ids[:-1] * PRIME + ids[1:]) % buckets
    trigrams = ((ids[:-2] * PRIME + ids[1:-1]) % buckets * PRIME + ids[2:]) % buckets
    parts = [ids, vocab_size + bigrams, vocab_size + buckets + trigrams]
    if chars is not None:
        parts.append(vocab_size + 2 * buckets + char_keys_numpy(ids, chars, buckets))
    return np.concatenate(parts)


def key_matrix(
    sequences: Sequence[np.ndarray],
    vocab_size: int,
    buckets: int,
    idf: np.ndarray,
    chars: tuple | None = None,
):
    """(n-gram features, each occurrence weighted by its idf and not normalized; the sum of
    the squared weights of each row) as a sparse matrix (scipy CSR) and an array."""
    from scipy.sparse import csr_matrix

    keys = [ngram_keys_numpy(np.asarray(s), vocab_size, buckets, chars) for s in sequences]
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
    chars: tuple | None = None,
):
    """The rows' features as a sparse matrix (scipy CSR), as the graph computes them: the
    n-grams' idf weights divided by each row's L2 norm."""
    from scipy.sparse import diags

    matrix, squares = key_matrix(sequences, vocab_size, buckets, idf, chars)
    scale = diags(1.0 / np.maximum(np.sqrt(squares), 1e-6))
    return (scale @ matrix).astype(np.float32).tocsr()


def fit_idf(
    sequences: Sequence[np.ndarray], vocab_size: int, buckets: int, chars: tuple | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(smoothed inverse document frequency, document count) of every table row. The rows no
    training row has share the largest idf, so a smaller one tells a seen one."""
    sections = 3 if chars is not None else 2
    documents = np.zeros(vocab_size + sections * buckets, dtype=np.int64)
    for s in sequences:
        documents[np.unique(ngram_keys_numpy(np.asarray(s), vocab_size, buckets, chars))] += 1
    # float16 values: the graph stores them so (half the bytes), the regression reads the same
    idf = (np.log((1 + len(sequences)) / (1 + documents)) + 1).astype(np.float16)
    return idf.astype(np.float32), documents


class NgramBag(nn.Module):
    """The bag in the graph: ids and mask in, log-probabilities per head and coverage out."""

    def __init__(
        self,
        vocab_size: int,
        buckets: int,
        heads: dict[str, int],
        char_grams: bool = False,
        char_width: int = CHAR_WIDTH,
    ):
        super().__init__()
        self.vocab_size, self.buckets, self.char_grams = vocab_size, buckets, char_grams
        self.char_width = char_width
        self.head_sizes = dict(heads)
        rows, columns = vocab_size + (3 if char_grams else 2) * buckets, sum(heads.values())
        self.register_buffer("idf", torch.ones(rows, dtype=torch.float16))
        # the idf of an n-gram no labeled training row has: a smaller one was seen in training
        self.register_buffer("unseen_idf", torch.ones(1))
        self.register_buffer("table", torch.zeros(rows, columns))
        self.register_buffer("bias", torch.zeros(columns))
        # per head: (threshold, low, high, token_share) of the coverage gate
        self.register_buffer("gate", torch.zeros(len(heads), GATE_FIELDS))
        if char_grams:  # each token's characters (``char_table``), to spell a row's text
            self.register_buffer(
                "char_codes", torch.zeros(vocab_size, char_width, dtype=torch.int16)
            )
            self.register_buffer("char_lengths", torch.zeros(vocab_size, dtype=torch.uint8))

    def config(self) -> dict:
        return {
            "vocab_size": self.vocab_size,
            "buckets": self.buckets,
            "heads": self.head_sizes,
            "char_grams": self.char_grams,
            "char_width": self.char_width,
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

    def spell(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(code points, inside) of shape (batch, tokens x ``char_width``): each row's text,
        its tokens' characters one after the other, then zeros (``inside`` 0)."""
        ids = ids.long()
        codes = self.char_codes[ids].long().flatten(1)  # (batch, tokens * width), with gaps
        width = torch.arange(self.char_width, device=ids.device)
        used = (width < self.char_lengths[ids].long().unsqueeze(-1)) & (mask.unsqueeze(-1) > 0)
        used = used.flatten(1).long()
        # a permutation that moves the used characters to the front, keeping their order:
        # the k-th used one to k, the k-th unused one after the last used one
        before = torch.cumsum(used, dim=1)
        index = torch.cumsum(torch.ones_like(used), dim=1) - 1
        count = before[:, -1:]
        target = torch.where(used > 0, before - 1, count + index - before)
        text = torch.zeros_like(codes).scatter(1, target, codes)
        return text, (index < count).to(torch.float32)

    def char_keys(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(keys, present) of each row's character n-grams, as ``char_keys_numpy``: every
        window of the longest size at once, padded at the end, each size's digest carried on
        from the one before (a digest seeded with ``n`` is the unseeded one plus a constant),
        so the graph has a few dozen nodes, not a loop's hundreds."""
        text, inside = self.spell(ids, mask)
        pad = GRAM_SIZES[-1] - 1
        text = nn.functional.pad(text, (0, pad))
        inside = nn.functional.pad(inside, (0, pad))
        shifted = [
            text[:, k : (k - pad) or None] for k in range(pad + 1)
        ]  # character k of a window
        ends = [inside[:, k : (k - pad) or None] for k in range(pad + 1)]
        letter = [(c != SPACE).to(torch.float32) for c in shifted]
        digest = torch.remainder(shifted[0], self.buckets)
        interior = torch.ones_like(letter[0])  # no space inside the window
        keys, present = [], []
        for n in GRAM_SIZES:
            digest = torch.remainder(digest * PRIME + shifted[n - 1], self.buckets)
            if n > 2:
                interior = interior * letter[n - 2]
            seed = n * pow(PRIME, n, self.buckets) % self.buckets
            keys.append(torch.remainder(digest + seed, self.buckets))
            ok = ends[n - 1] * interior
            if n == 2:  # a bigram of two spaces; a longer window with no space inside has a letter
                ok = ok * ((letter[0] + letter[1]) > 0).to(torch.float32)
            present.append(ok)
        return torch.cat(keys, dim=1), torch.cat(present, dim=1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[list, torch.Tensor]:
        """(log-probabilities per head, coverage per row: (batch, 2), of its bi- and trigrams
        and of its single tokens)."""
        keys, present = self.keys(ids, mask)
        weights = self.idf[keys].float() * present  # (batch, n)
        squares = (weights * weights).sum(dim=1, keepdim=True)
        scores = (self.table[keys] * weights.unsqueeze(-1)).sum(dim=1)
        if self.char_grams:
            char_keys, char_present = self.char_keys(ids, mask)
            char_keys = self.vocab_size + 2 * self.buckets + char_keys
            char_weights = self.idf[char_keys].float() * char_present
            squares = squares + (char_weights * char_weights).sum(dim=1, keepdim=True)
            scores = scores + (self.table[char_keys] * char_weights.unsqueeze(-1)).sum(dim=1)
        scores = scores / torch.sqrt(squares).clamp_min(1e-6) + self.bias
        logprobs = [
            torch.log_softmax(part, dim=-1)
            for part in torch.split(scores, list(self.head_sizes.values()), dim=1)
        ]
        # the seen share of the row's bi- and trigrams, then of its single tokens, each n-gram
        # by its idf: a rare one (a merchant's name) says more of having seen the row than a
        # common one ("pos debit"); single tokens say less of a merchant than its bigrams, but
        # keep a known name whose city or store number is new (the gate's ``token_share``)
        # (an absent n-gram's weight is 0: counted seen, it adds 0 to both sums)
        seen = (weights < self.unseen_idf).to(torch.float32) * weights
        tokens = ids.shape[1]
        coverage = torch.stack(
            [
                seen[:, tokens:].sum(dim=1) / weights[:, tokens:].sum(dim=1).clamp_min(1e-6),
                seen[:, :tokens].sum(dim=1) / weights[:, :tokens].sum(dim=1).clamp_min(1e-6),
            ],
            dim=1,
        )
        return logprobs, coverage

    def mix(
        self,
        encoder_logits: Sequence[torch.Tensor],
        ids: torch.Tensor,
        mask: torch.Tensor,
        encoder_terms: Sequence[torch.Tensor] | None = None,
    ) -> tuple[torch.Tensor, ...]:
        """Each head's encoder log-probabilities mixed with the bag's by the coverage gate.
        ``encoder_terms`` (per head, one row each) are added to the encoder's side before the
        mix: the amount prior corrects what the encoder reads, while the bag's memory of a
        merchant it has seen already carries what its amounts say."""
        bag, coverage = self.forward(ids, mask)
        mixed = []
        for i, logits in enumerate(encoder_logits):
            threshold, low, high, token_share = self.gate[i]
            signal = (1 - token_share) * coverage[:, 0] + token_share * coverage[:, 1]
            w = (low + (high - low) * torch.sigmoid(SHARPNESS * (signal - threshold)))[:, None]
            encoder = torch.log_softmax(logits.float(), dim=-1)
            if encoder_terms is not None:
                encoder = encoder + encoder_terms[i]
            mixed.append((1 - w) * encoder + w * bag[i])
        return tuple(mixed)


def coverage_numpy(bag: NgramBag, sequences) -> np.ndarray:
    """``NgramBag``'s coverage of each sequence, in numpy: (rows, 2), of its bi- and trigrams
    and of its single tokens."""
    idf = bag.idf.float().cpu().numpy()
    seen = idf < float(bag.unseen_idf)
    out = np.empty((len(sequences), 2), dtype=np.float32)
    for i, s in enumerate(sequences):
        keys = ngram_keys_numpy(np.asarray(s), bag.vocab_size, bag.buckets)
        for column, part in enumerate((keys[len(s) :], keys[: len(s)])):
            weights = idf[part]
            out[i, column] = (seen[part] * weights).sum() / max(weights.sum(), 1e-6)
    return out


def gate_weights(coverage: np.ndarray, gate: Sequence[float]) -> np.ndarray:
    """The bag's share of each row under ``gate`` (``NgramBag.mix`` in numpy); ``coverage`` as
    ``coverage_numpy`` gives it, or one column (bi- and trigrams alone)."""
    threshold, low, high, *rest = gate
    token_share = rest[0] if rest else 0.0
    coverage = np.asarray(coverage, dtype=np.float64)
    signal = coverage if coverage.ndim == 1 else coverage[:, 0]
    if token_share:
        signal = (1 - token_share) * signal + token_share * coverage[:, 1]
    return low + (high - low) / (1 + np.exp(-SHARPNESS * (signal - threshold)))


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
    min_documents: int = 1,
    regression: str = "naive_bayes",
) -> tuple[NgramBag, dict]:
    """The bag fit on the labeled train rows (``fit_nb_logistic`` per head), C per head by
    validation accuracy (the gates are left at 0, encoder only: ``choose_gates`` sets them).
    ``pieces``: each token id's text (``piece_texts``), for the character n-grams; None: token
    n-grams only.
    ``min_documents``: the fewest training rows an n-gram is in for the regression to see it
    (a benchmark's knob; the shipped bag keeps every n-gram a training row has).
    ``regression``: a key of ``nb_logistic.REGRESSIONS`` (a benchmark's knob; what ships is
    ``naive_bayes``)."""
    from ml_assets.training.nb_logistic import REGRESSIONS

    started = time.perf_counter()
    train_sequences, train_labels = train
    chars = char_table(pieces) if pieces is not None else None
    idf, documents = fit_idf(train_sequences, vocab_size, buckets, chars)
    # the regression sees the rows of n-grams some training row has (the others would keep
    # weight 0 anyway). Those of a single row stay: on a long tail they are the memory of a
    # merchant seen once, its name's rare n-grams
    kept = np.flatnonzero(documents >= max(min_documents, 1))
    x_train = bag_matrix(train_sequences, vocab_size, buckets, idf, chars)[:, kept]
    x_valid = bag_matrix(valid[0], vocab_size, buckets, idf, chars)[:, kept]
    sizes = {h: len(names) for h, names in heads.items()}
    bag = NgramBag(vocab_size, buckets, sizes, char_grams=pieces is not None)
    bag.idf.copy_(torch.from_numpy(idf))
    bag.unseen_idf.fill_(float(np.float16(np.log(1 + len(train_sequences)) + 1)))
    if chars is not None:
        bag.char_codes.copy_(torch.from_numpy(chars[0]))
        bag.char_lengths.copy_(torch.from_numpy(chars[1]))
    record: dict = {"c": {}, "valid_accuracy": {}}
    column = 0
    for head, names in heads.items():
        keep = train_labels[head] != ignore_index
        y = train_labels[head][keep]
        valid_keep = valid[1][head] != ignore_index
        best = None
        for c in c_grid:
            weights, intercept = REGRESSIONS[regression](x_train[keep], y, len(names), c, max_iter)
            predicted = (x_valid[valid_keep] @ weights.T + intercept).argmax(axis=1)
            score = (
                float((predicted == valid[1][head][valid_keep]).mean()) if valid_keep.any() else 0.0
            )
            if best is None or score > best[0]:
                best = (score, c, weights, intercept)
        score, c, weights, intercept = best
        full = np.zeros((documents.shape[0], len(names)), dtype=np.float32)
        full[kept] = weights.T
        bag.table[:, column : column + len(names)] = torch.from_numpy(full)
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


def gain_standard_error(
    before: np.ndarray,
    after: np.ndarray,
    keep: np.ndarray,
    heldout: np.ndarray,
    weights: np.ndarray,
    clusters: np.ndarray,
) -> float:
    """Standard error of ``seen_and_heldout_accuracy(after) - seen_and_heldout_accuracy(before)``
    (same rows, right or wrong each), the rows of one cluster (a merchant) moving together:
    per slice, the cluster-robust (sandwich) variance of a weighted mean of the paired
    differences; the score averages the slices, so their variances add, divided by their
    count squared."""
    slices = [m for m in (keep & heldout, keep & ~heldout) if m.any()] or [keep]
    variance = 0.0
    for rows in slices:
        delta = after[rows].astype(np.float64) - before[rows].astype(np.float64)
        w = weights[rows]
        mean = np.average(delta, weights=w)
        _, cluster = np.unique(clusters[rows], return_inverse=True)
        sums = np.bincount(cluster, weights=w * (delta - mean))
        count = len(sums)
        correction = count / (count - 1) if count > 1 else 1.0
        variance += correction * float((sums**2).sum()) / float(w.sum()) ** 2
    return float(np.sqrt(variance) / len(slices))


def best_gate(
    encoder: np.ndarray,
    bag: np.ndarray,
    coverage: np.ndarray,
    labels: np.ndarray,
    scored_rows: tuple[np.ndarray, np.ndarray, np.ndarray],
    lows: Sequence[float],
    thresholds: Sequence[float],
    token_share: float,
) -> tuple[float, tuple, np.ndarray] | None:
    """(validation score, gate, each row right) of the best gate with one of ``lows`` (None
    where none fits under a ``high``); ``scored_rows``: (kept, held-out, weights) as
    ``seen_and_heldout_accuracy`` reads them. The bag's full weight first: where validation
    cannot tell, a seen merchant's row is the bag's (TF-IDF's memory is what it is there for)."""
    best = None
    for high in sorted(HIGHS, reverse=True):
        for low in (x for x in lows if x <= high):
            for threshold in thresholds:
                gate = (threshold, low, high, token_share)
                scored = scored_gate(encoder, bag, coverage, labels, scored_rows, gate)
                if best is None or scored[0] > best[0] + 1e-9:
                    best = scored
    return best


def scored_gate(encoder, bag, coverage, labels, scored_rows, gate: tuple) -> tuple:
    """(validation score, ``gate``, each row right) of one gate, as ``best_gate`` scores."""
    w = gate_weights(coverage, gate)[:, None]
    right = ((1 - w) * encoder + w * bag).argmax(axis=1) == labels
    return 100 * seen_and_heldout_accuracy(right, *scored_rows), gate, right


def choose_gates(
    encoder_logits: dict[str, np.ndarray],
    bag_logprobs: dict[str, np.ndarray],
    coverage: np.ndarray,
    labels: dict[str, np.ndarray],
    heldout: np.ndarray,
    ignore_index: int,
    merchants: np.ndarray | None = None,
    low_gain_pt: float = LOW_GAIN_PT,
    low_gain_z: float = LOW_GAIN_Z,
    lows: Sequence[float] = LOWS,
    thresholds: Sequence[float] = THRESHOLDS,
    token_shares: Sequence[float] = TOKEN_SHARES,
    priors: dict[str, float | None] | None = None,
) -> dict[str, tuple[float, float, float, float]]:
    """Per head, the gate ``(threshold, low, high, token_share)`` with the best mean of seen-
    and held-out-merchant accuracy on the validation rows (overall accuracy where one slice is
    empty); on ties the one with the highest weight for seen rows, then the lowest for the
    others, so the encoder alone (``high`` 0) only where it scores above every mix. With
    ``merchants`` (each row's merchant key), a merchant's rows count as at most
    ``MERCHANT_ROW_CAP`` rows (``merchant_row_weights``).

    Rows the bag has not seen belong to the encoder (``low`` 0) unless giving them a share of
    the bag gains at least ``low_gain_pt`` points of that mean, and ``low_gain_z`` standard
    errors of it (``gain_standard_error``, a merchant's rows moving together): a valid split's
    few dozen held-out merchants are too few to trust a small gain, and on a data set where
    the encoder generalizes well a share of the bag costs its unseen merchants points.

    That choice is made on the bi- and trigram coverage (``coverage[:, 0]``). Where unseen
    rows go to the encoder, a coverage that averages in the single tokens' (``coverage[:, 1]``,
    by each of ``token_shares``) is taken where it scores higher. A one-column ``coverage``
    chooses ``token_share`` 0.

    ``priors`` (per head; ``gate_prior``): a share of the bag for every row to start from
    instead, where the encoder is not known to read unseen merchants better; rows the bag has
    seen may get more of it (``prior_or_sure_gain``), and the best gate of the whole search
    replaces it only for the same sure gain over it."""
    coverage = np.asarray(coverage, dtype=np.float64)
    columns = coverage.reshape(len(coverage), -1)
    shares = token_shares if columns.shape[1] > 1 else (0.0,)
    chosen = {}
    for head, logits in encoder_logits.items():
        encoder = torch.log_softmax(torch.from_numpy(logits).float(), dim=-1).numpy()
        keep = labels[head] != ignore_index
        weights = np.ones(len(keep)) if merchants is None else kept_row_weights(merchants, keep)
        clusters = np.arange(len(keep)) if merchants is None else np.asarray(merchants)
        rows = (encoder, bag_logprobs[head], columns, labels[head], (keep, heldout, weights))
        sure_gain = partial(
            is_sure_gain,
            scored=(keep, heldout, weights, clusters),
            at_least=(low_gain_pt, low_gain_z),
        )
        prior = (priors or {}).get(head)
        if prior is not None:
            chosen[head] = prior_or_sure_gain(rows, prior, lows, thresholds, shares, sure_gain)
            continue
        unshared_lows = [x for x in lows if x == 0]
        unseen_to_encoder = best_gate(*rows, unshared_lows, thresholds, 0.0)
        shared = best_gate(*rows, [x for x in lows if x > 0], thresholds, 0.0)
        if sure_gain(unseen_to_encoder, shared):
            chosen[head] = shared[1]
            continue
        best = unseen_to_encoder
        for token_share in (x for x in shares if x > 0):
            candidate = best_gate(*rows, unshared_lows, thresholds, token_share)
            if candidate[0] > best[0] + 1e-9:
                best = candidate
        chosen[head] = best[1]
    return chosen


def is_sure_gain(before: tuple, after: tuple | None, scored: tuple, at_least: tuple) -> bool:
    """Whether gate ``after`` gains on ``before`` (each ``best_gate``'s (score, gate, right))
    at least ``at_least[0]`` points and ``at_least[1]`` standard errors (``gain_standard_error``
    over ``scored``: kept, held-out, weights, clusters)."""
    if after is None:
        return False
    gain = after[0] - before[0]
    error = 100 * gain_standard_error(before[2], after[2], *scored)
    return gain >= at_least[0] and gain >= at_least[1] * error


def prior_or_sure_gain(rows, share, lows, thresholds, token_shares, sure_gain) -> tuple:
    """The prior's gate: ``share`` of the bag for every row, and more of it for the rows the
    bag has seen (each ``HIGHS`` above ``share`` over each of ``thresholds``) where that scores
    higher, as the encoder's rule chooses ``high`` and ``threshold`` freely once unseen rows'
    share is settled; or the best gate of the search (each ``low``, the single tokens' shares
    where ``low`` is 0) where ``sure_gain`` (the constant prior's score, gate's score) holds
    and it scores higher still."""
    prior = scored_gate(*rows, (0.0, share, share, 0.0))
    best = prior
    # not ``best_gate``: its ties go to the bag's full share, these to the prior and the lowest
    # share above it (on Helsinki's draws the full share's ties cost held-out merchants 0.4)
    for threshold in thresholds:
        for high in (x for x in HIGHS if x > share):
            candidate = scored_gate(*rows, (threshold, share, high, 0.0))
            if candidate[0] > best[0] + 1e-9:
                best = candidate
    for low in lows:
        for token_share in token_shares if low == 0 else (0.0,):
            candidate = best_gate(*rows, [low], thresholds, token_share)
            if candidate is not None and sure_gain(prior, candidate) and candidate[0] > best[0]:
                best = candidate
    return best[1]


def bag_logprobs_numpy(bag: NgramBag, sequences) -> dict[str, np.ndarray]:
    """The bag's log-probabilities per head, in numpy (as ``NgramBag.forward`` computes)."""
    from scipy.sparse import diags

    chars = (bag.char_codes.numpy(), bag.char_lengths.numpy()) if bag.char_grams else None
    idf = bag.idf.float().numpy()
    matrix, squares = key_matrix(sequences, bag.vocab_size, bag.buckets, idf, chars)
    scores = matrix @ bag.table.numpy().astype(np.float64)
    scores = diags(1.0 / np.maximum(np.sqrt(squares), 1e-6)) @ scores + bag.bias.numpy()
    out, column = {}, 0
    for head, size in bag.head_sizes.items():
        part = torch.from_numpy(np.asarray(scores[:, column : column + size], dtype=np.float32))
        out[head] = torch.log_softmax(part, dim=-1).numpy()
        column += size
    return out
