"""Label cells that say "no category" ("Uncategorized", "[Unallocated]") are read as no label:
the rows stay, their labels empty, and every such cell is counted."""

import polars as pl

from ml_assets.core.training_data.label_placeholders import (
    DEFAULT_PLACEHOLDERS,
    merged_counts,
    placeholder_message,
    unlabel_placeholders,
)


def frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "description": ["a", "b", "c", "d", "e", "f"],
            "category": [
                "Groceries",
                " Uncategorized ",
                "[Unallocated]",
                None,
                "UNCATEGORIZED",
                "Sin categoría",
            ],
            "transaction_type": ["purchase", None, "Uncategorised", None, None, "purchase"],
        }
    )


def test_placeholders_of_any_case_are_emptied_and_counted_rows_kept():
    out, counts = unlabel_placeholders(frame(), DEFAULT_PLACEHOLDERS)
    assert out.height == 6 and out["description"].to_list() == list("abcdef")
    assert out["category"].to_list() == ["Groceries", None, None, None, None, None]
    assert out["transaction_type"].to_list() == ["purchase", None, None, None, None, "purchase"]
    assert counts == {
        "category:  Uncategorized ": 1,
        "category: [Unallocated]": 1,
        "category: UNCATEGORIZED": 1,
        "category: Sin categoría": 1,
        "transaction_type: Uncategorised": 1,
    }


def test_no_placeholders_read_every_label_as_a_class():
    out, counts = unlabel_placeholders(frame(), [])
    assert out.equals(frame()) and counts == {}


def test_a_real_category_that_only_contains_a_placeholder_word_stays():
    raw = pl.DataFrame(
        {"category": ["Uncategorized fees", "Other"], "transaction_type": [None, None]},
        schema={"category": pl.Utf8, "transaction_type": pl.Utf8},
    )
    out, counts = unlabel_placeholders(raw, DEFAULT_PLACEHOLDERS)
    assert out["category"].to_list() == ["Uncategorized fees", "Other"] and counts == {}


def test_days_are_summed_and_the_message_names_the_setting():
    total = merged_counts([{"category: Uncategorized": 3}, None, {"category: Uncategorized": 2}])
    assert total == {"category: Uncategorized": 5}
    message = placeholder_message(total)
    assert "category 'Uncategorized' on 5 rows" in message
    assert "transaction_features.no_label_values" in message
