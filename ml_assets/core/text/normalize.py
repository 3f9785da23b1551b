"""Text normalization shared by feature building and serving (no train-serve skew).

``normalize_expr`` is the single definition; ``normalize_texts`` applies that same expression
to plain strings for the scorer, so both paths produce byte-identical text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import polars as pl

# Card processors and statement boilerplate that precede the merchant name. They say how a
# payment was made, not who was paid, so they are skipped when deriving the merchant key.
# (Brazil's instant transfers: Nubank's "Transferência enviada pelo Pix - NAME - ...", C6's
# "Pix recebido de NAME"; a Canadian bank's "PREAUTHORIZED DEBIT;NAME;...")
_PREFIXES = (
    r"pos debit|pos purchase|debit card purchase|purchase authorized on|ach debit|ach credit|"
    r"recurring payment|checkcard|tst\*|sq \*|sq\*|pp\*|paypal \*|sp \*|sp\*|py \*|dd \*|"
    r"transfer[eê]ncia (?:enviada|recebida) pelo pix(?: -)?|pix (?:enviado|recebido)(?: de| para)?|"
    r"preauthorized debit;?|preauthorized credit;?"
)


# The apostrophes NFKC keeps apart from ASCII's: one bank's system writes "McDonald’s", another
# "McDonald's"; as one they give one merchant key and the same tokens.
_APOSTROPHES = "[\u2018\u2019\u201b\u02bc]"


def normalize_expr(column: pl.Expr) -> pl.Expr:
    """Unicode NFKC, typographic apostrophes -> "'", lowercase, every digit -> '0', whitespace
    collapsed, trimmed.

    Digits carry store numbers, reference ids and phone numbers: mapping them to '0' keeps
    their shape (a phone number still looks like one) without spending vocabulary on them.
    """
    return (
        column.str.normalize("NFKC")
        .str.replace_all(_APOSTROPHES, "'")
        .str.to_lowercase()
        .str.replace_all(r"\d", "0")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
    )


# ASCII whitespace as Unicode's White_Space property (what the expression's `\s` means): the
# information separators \x1c-\x1f are not in it, although Python's `str.split` treats them so.
_ASCII_SPACE_RUN = re.compile(r"[\t\n\v\f\r ]+")
_ASCII_DIGIT = re.compile(r"[0-9]")


def _normalize_ascii(text: str) -> str:
    """``normalize_expr`` for an ASCII string, where NFKC is the identity and every step has
    one meaning in every Unicode version."""
    return _ASCII_SPACE_RUN.sub(" ", _ASCII_DIGIT.sub("0", text.lower())).strip(" ")


def normalize_texts(texts: Sequence[str]) -> list[str]:
    """The serving entry point: the same result as ``normalize_expr`` on plain strings.

    A request is one or a few strings, and building a DataFrame costs ~0.2 ms, a tenth of the
    int8 model's whole batch-1 latency; so ASCII strings (nearly every bank description) take a
    plain-Python path that tests prove byte-identical, and the rest go through the expression.
    """
    out = [_normalize_ascii(t) if t.isascii() else None for t in texts]
    rest = [i for i, value in enumerate(out) if value is None]
    if rest:
        frame = pl.DataFrame({"text": [texts[i] for i in rest]}, schema={"text": pl.Utf8})
        for i, value in zip(
            rest, frame.select(normalize_expr(pl.col("text")))["text"], strict=True
        ):
            out[i] = value
    return out


def merchant_key_expr(normalized: pl.Expr, merchant: pl.Expr | None = None) -> pl.Expr:
    """A merchant identity used to split data so test merchants are never seen in training.

    A supplied merchant name (bank or enrichment data) wins. Otherwise it is derived from the
    normalized description: processor prefix dropped, words up to the first one holding a digit,
    '#' or '*' (store numbers and ids follow the name), at most two words. A heuristic: city
    names directly after a one-word merchant still leak into the key.
    """
    words = (
        normalized.str.replace(rf"^(?:{_PREFIXES})\s*", "")
        .str.replace(r"\s\S*[0-9#*].*$", "")
        .str.replace_all(r"[^\p{L}&' ]+", " ")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
        .str.split(" ")
        .list.head(2)
        .list.join(" ")
    )
    derived = pl.when(words.str.len_chars() > 0).then(words).otherwise(pl.lit("<none>"))
    if merchant is None:
        return derived
    supplied = normalize_expr(merchant)
    return pl.when(supplied.str.len_chars() > 0).then(supplied).otherwise(derived)
