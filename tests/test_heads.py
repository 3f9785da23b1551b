"""Heads follow the labels: which configured heads a data set can train (pure)."""

import polars as pl
import pytest

from ml_assets.core.training_data.labels import HeadLabelsError, label_vocabularies, trainable_heads

HEADS = ("category", "transaction_type")


def test_a_head_no_row_carries_is_left_out_with_the_reason():
    features = pl.DataFrame(
        {
            "labeled": [True, True, False],
            "category": ["groceries", "fuel", None],
            "transaction_type": [None, None, None],
        },
        schema_overrides={"transaction_type": pl.String},
    )
    choice = trainable_heads(HEADS, label_vocabularies(features, HEADS))
    assert choice.heads == ("category",)
    assert "no row carries a transaction_type label" in choice.left_out["transaction_type"]
    assert choice.warning().startswith("head 'transaction_type' left out: ")


def test_a_head_with_one_label_fails_naming_the_column_and_what_to_set():
    with pytest.raises(HeadLabelsError) as err:
        trainable_heads(HEADS, {"category": ["fuel", "groceries"], "transaction_type": ["debit"]})
    message = str(err.value)
    assert "'transaction_type'" in message and "'debit'" in message
    assert "raw_transactions.column_map" in message and "multitask_model.heads" in message


def test_no_labels_at_all_is_an_error_not_an_empty_model():
    with pytest.raises(HeadLabelsError, match="none of the heads"):
        trainable_heads(HEADS, {"category": [], "transaction_type": []})
    assert (
        trainable_heads(HEADS, {"category": ["a", "b"], "transaction_type": ["c", "d"]}).heads
        == HEADS
    )
