"""The models an ML engineer tries first in a notebook, as fixed recipes: the bar a candidate
has to clear before it ships.

- TF-IDF: character n-grams (2-5, inside word boundaries) and word uni/bigrams, sublinear term
  frequencies, one multinomial logistic regression per head.
- Frozen encoder: the configured pretrained backbone, unchanged, pooled the way it was trained
  (for a sentence-transformers checkpoint such as all-MiniLM-L6-v2: mean over tokens, then L2
  normalization), one logistic regression per head on those embeddings.

Both fit on exactly the labeled train rows the finetuned models train on, pick the inverse
regularization strength C on the valid split from a small grid (what a careful notebook does),
and score every test row. Their artifacts are test-split probabilities, which is all the
comparison needs; the fitted estimators are not kept (no pickle).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from ml_assets.core.text.backbones import (
    backbone_file,
    cut_to_layers,
    quiet_transformers,
    resolve_backbone,
    tokenizer_past_embeddings,
)
from ml_assets.core.training_data.labels import trainable_heads


@dataclass
class ReferenceFit:
    """Test-split probabilities per head (columns in ``labels[head]`` order) and the choices."""

    labels: dict[str, list[str]]
    test_probs: dict[str, np.ndarray]
    chosen_c: dict[str, float] = field(default_factory=dict)
    valid_accuracy: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def _split(features: pl.DataFrame, name: str) -> pl.DataFrame:
    return features.filter(pl.col("split") == name)


def fit_per_head(
    train_x,
    valid_x,
    test_x,
    features: pl.DataFrame,
    heads: Sequence[str],
    c_grid: Sequence[float],
    max_iter: int,
) -> ReferenceFit:
    """A logistic regression per head on row-aligned feature matrices of the three splits.

    Each head trains on the train rows labeled for it; C is the grid value with the best
    accuracy on the valid rows labeled for it (the first on ties)."""
    from sklearn.linear_model import LogisticRegression

    train, valid = _split(features, "train"), _split(features, "valid")
    fit = ReferenceFit(labels={}, test_probs={})
    for head in heads:
        started = time.perf_counter()
        y_train = train[head].to_numpy()
        keep = train[head].is_not_null().to_numpy()
        names = sorted({str(v) for v in y_train[keep]})
        trainable_heads([head], {head: names})  # at least 2 labels among the train rows
        valid_keep = valid[head].is_not_null().to_numpy()
        best = None
        for c in c_grid:
            model = LogisticRegression(C=c, max_iter=max_iter)
            model.fit(train_x[keep], y_train[keep])
            score = (
                float(
                    (
                        model.predict(valid_x[valid_keep]) == valid[head].to_numpy()[valid_keep]
                    ).mean()
                )
                if valid_keep.any()
                else 0.0  # no labeled valid rows: every C ties and the first is kept
            )
            if best is None or score > best[0]:
                best = (score, c, model)
        score, c, model = best
        order = [list(model.classes_).index(name) for name in names]
        fit.labels[head] = names
        fit.test_probs[head] = model.predict_proba(test_x)[:, order].astype(np.float32)
        fit.chosen_c[head] = c
        if valid_keep.any():
            fit.valid_accuracy[head] = score
        fit.seconds[head] = round(time.perf_counter() - started, 2)
    return fit


def tfidf_matrices(features: pl.DataFrame, min_df: int = 1):
    """Sparse TF-IDF rows for the train, valid and test splits (vocabulary from train only)."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer

    chars = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(2, 5), min_df=min_df, sublinear_tf=True
    )
    words = TfidfVectorizer(analyzer="word", ngram_range=(1, 2), min_df=min_df, sublinear_tf=True)
    texts = {name: _split(features, name)["text"].to_list() for name in ("train", "valid", "test")}
    fitted = hstack([chars.fit_transform(texts["train"]), words.fit_transform(texts["train"])])
    matrices = [fitted.tocsr()]
    for name in ("valid", "test"):
        matrices.append(
            hstack([chars.transform(texts[name]), words.transform(texts[name])]).tocsr()
        )
    return (*matrices, fitted.shape[1])


def trained_pooling(source: str) -> str:
    """How a checkpoint's sentence embedding was trained to be read: ``mean`` or ``cls``.

    A sentence-transformers model (a folder or a hub id) says so in its Pooling module's
    config (a max or weighted mean is read as the mean); a plain BERT checkpoint was pretrained
    with its [CLS] vector feeding next-sentence prediction."""
    modules, root = backbone_file(source, "modules.json"), source
    parent = Path(source).parent  # an older layout's model folder (0_Transformer/)
    if modules is None and Path(source).is_dir() and (parent / "modules.json").is_file():
        modules, root = parent / "modules.json", str(parent)
    if modules is not None:
        for module in json.loads(modules.read_text()):
            if module.get("type", "").endswith("Pooling"):
                config = backbone_file(root, f"{module['path']}/config.json")
                settings = json.loads(config.read_text()) if config is not None else {}
                if settings.get("pooling_mode_cls_token"):
                    return "cls"
                if any(settings.get(f"pooling_mode_{mode}") for mode in _TOKEN_POOLINGS):
                    return "mean"
    return "cls"


# sentence-transformers' poolings over every token: read as their mean (the graph pools by the
# mean or by [CLS]; the square-root-length mean differs from it only in scale)
_TOKEN_POOLINGS = ("mean_tokens", "mean_sqrt_len_tokens", "max_tokens", "weightedmean_tokens")


def frozen_embeddings(
    backbone: str,
    texts: Sequence[str],
    max_length: int,
    batch_size: int = 256,
    layers: int | None = None,
) -> tuple[np.ndarray, str]:
    """Embeddings of ``texts`` from the unchanged backbone (its own tokenizer; every layer, or
    the first ``layers``), pooled as it was trained, L2-normalized. Returns (embeddings,
    pooling)."""
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    source = resolve_backbone(backbone)
    pooling = trained_pooling(source)
    tokenizer = AutoTokenizer.from_pretrained(source)
    config = AutoConfig.from_pretrained(source)
    if layers is not None:
        cut_to_layers(config, layers)
    with quiet_transformers():  # an unused pooler is not news
        model = AutoModel.from_pretrained(source, config=config).eval()
    rows = model.get_input_embeddings().num_embeddings
    if len(tokenizer) > rows:
        raise ValueError(tokenizer_past_embeddings(source, len(tokenizer) - 1, rows))
    encoded = tokenizer(list(texts), truncation=True, max_length=max_length)["input_ids"]
    order = np.argsort([len(ids) for ids in encoded], kind="stable")  # little padding per batch
    out = np.empty((len(encoded), model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            batch = tokenizer.pad({"input_ids": [encoded[i] for i in rows]}, return_tensors="pt")
            # ids and mask only: a BERT tokenizer's token_type_ids are not every encoder's input
            hidden = model(
                input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
            ).last_hidden_state
            if pooling == "mean":
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            else:
                pooled = hidden[:, 0]
            out[rows] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    return out, pooling


def frozen_matrices(
    features: pl.DataFrame, backbone: str, max_length: int, layers: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Frozen-encoder embeddings of the train, valid and test splits, and the pooling used."""
    sizes = [_split(features, name).height for name in ("train", "valid", "test")]
    texts = [t for name in ("train", "valid", "test") for t in _split(features, name)["text"]]
    embedded, pooling = frozen_embeddings(backbone, texts, max_length, layers=layers)
    train, valid, test = np.split(embedded, np.cumsum(sizes)[:2])
    return train, valid, test, pooling


def labeled_features(features: pl.DataFrame, heads: Sequence[str]) -> pl.DataFrame:
    """Train/valid rows with a label for some head, and every test row (all are scored)."""
    labeled = pl.any_horizontal([pl.col(h).is_not_null() for h in heads])
    return features.filter((pl.col("split") == "test") | labeled)


def predictions_frame(features: pl.DataFrame, fit: ReferenceFit) -> pl.DataFrame:
    """transaction_id + ``{head}_probs`` for every test row (the reference's artifact)."""
    test = _split(features, "test")
    frame = test.select("transaction_id")
    for head, probs in fit.test_probs.items():
        frame = frame.with_columns(pl.Series(f"{head}_probs", probs))
    return frame


REFERENCE_LABELS = "labels.json"  # {head: [label, ...]}: column order of {head}_probs
REFERENCE_FIT = "fit.json"  # chosen C, valid accuracy and seconds per head, and details


def write_reference(features: pl.DataFrame, heads: Sequence[str], folder: Path, fit) -> dict:
    """Fit a reference (``fit(features) -> (ReferenceFit, details)``) on the labeled rows,
    write its test-split probabilities into ``folder`` and return its metadata: test accuracy
    per head, overall and on held-out merchants."""
    from ml_assets.core.infra.io import atomic_write_json
    from ml_assets.core.infra.layouts import PREDICTIONS_FILE

    rows = labeled_features(features, heads)
    started = time.perf_counter()
    result, details = fit(rows)
    seconds = time.perf_counter() - started
    predictions_frame(rows, result).write_parquet(folder / PREDICTIONS_FILE, compression="zstd")
    atomic_write_json(folder / REFERENCE_LABELS, result.labels)
    atomic_write_json(
        folder / REFERENCE_FIT,
        {
            "chosen_c": result.chosen_c,
            "valid_accuracy": result.valid_accuracy,
            "seconds": result.seconds,
            **details,
        },
    )
    test = _split(rows, "test")
    heldout = test["heldout_merchant"].to_numpy()
    metadata = {"train_rows": _split(rows, "train").height, "test_rows": test.height, **details}
    for head, names in result.labels.items():
        truth = test[head].to_numpy()
        labeled = test[head].is_not_null().to_numpy()
        predicted = np.asarray(names, dtype=object)[result.test_probs[head].argmax(axis=1)]
        hits = predicted == truth
        metadata[f"test_{head}_acc"] = round(float(hits[labeled].mean()), 4)
        if (labeled & heldout).any():
            metadata[f"heldout_{head}_acc"] = round(float(hits[labeled & heldout].mean()), 4)
        metadata[f"{head}_chosen_c"] = result.chosen_c[head]
    metadata["fit_seconds"] = round(seconds, 2)
    return metadata
