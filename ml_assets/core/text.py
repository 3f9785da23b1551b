"""Text normalization shared by feature building and serving (no train-serve skew).

``normalize_expr`` is the single definition; ``normalize_texts`` applies that same expression
to plain strings for the scorer, so both paths produce byte-identical text.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

# Card processors and statement boilerplate that precede the merchant name. They say how a
# payment was made, not who was paid, so they are skipped when deriving the merchant key.
_PREFIXES = (
    r"pos debit|pos purchase|debit card purchase|purchase authorized on|ach debit|ach credit|"
    r"recurring payment|checkcard|tst\*|sq \*|sq\*|pp\*|paypal \*|sp \*|sp\*|py \*|dd \*"
)


def normalize_expr(column: pl.Expr) -> pl.Expr:
    """Unicode NFKC, lowercase, every digit -> '0', whitespace collapsed, trimmed.

    Digits carry store numbers, reference ids and phone numbers: mapping them to '0' keeps
    their shape (a phone number still looks like one) without spending vocabulary on them.
    """
    return (
        column.str.normalize("NFKC")
        .str.to_lowercase()
        .str.replace_all(r"\d", "0")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
    )


def normalize_texts(texts: Sequence[str]) -> list[str]:
    """The serving entry point: the same expression as ``normalize_expr`` on plain strings."""
    frame = pl.DataFrame({"text": list(texts)}, schema={"text": pl.Utf8})
    return frame.select(normalize_expr(pl.col("text")))["text"].to_list()


def merchant_key_expr(normalized: pl.Expr) -> pl.Expr:
    """A coarse merchant identity from normalized text: processor prefix dropped, then the
    first two purely alphabetic words. Used only to split data so that test merchants are
    never seen in training; it need not be a perfect merchant resolver."""
    words = (
        normalized.str.replace(rf"^(?:{_PREFIXES})\s*", "")
        .str.replace_all(r"[^\p{L}&' ]+[^ ]*", " ")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
        .str.split(" ")
        .list.head(2)
        .list.join(" ")
    )
    return pl.when(words.str.len_chars() > 0).then(words).otherwise(pl.lit("<none>"))
