"""How many merchants the held-out split groups rows by, and whether one key holds so many
rows that the split can hold no merchant out (the purpose text's first words, a booking type or
a card payment's timestamp, in front of the payee)."""

from __future__ import annotations

import polars as pl

# the share of rows one key may hold, judged from this many rows on (a handful of rows may
# well be one shop's)
CROWDED_KEY_SHARE = 0.2
CROWDED_KEY_MIN_ROWS = 50
CROWDED_ADVICE = (
    "too few merchants for held-out merchants to mean unseen ones; map the column that names "
    "the payee or merchant to `merchant` (or put it first in the description)"
)


def merchant_spread(keys: pl.Series) -> tuple[int, str, float, bool]:
    """Distinct merchant keys, the largest, its share of the rows, and whether it crowds the
    split (``CROWDED_KEY_SHARE``)."""
    if keys.is_empty():
        return 0, "", 0.0, False
    counts = keys.value_counts()
    top, rows = counts.sort([counts.columns[1], counts.columns[0]], descending=[True, False]).row(0)
    share = rows / len(keys)
    return (
        keys.n_unique(),
        top,
        share,
        len(keys) >= CROWDED_KEY_MIN_ROWS and share > CROWDED_KEY_SHARE,
    )
