"""The synthetic transaction generator: schema, determinism, labels and realistic text."""

from __future__ import annotations

import datetime as dt
import math
import re

import polars as pl
import pytest

from ml_assets.core.synthetic.demo import (
    CATEGORIES,
    MERCHANTS,
    TRANSACTION_TYPES,
    generate_transactions,
)

N_ROWS = 20_000
SCHEMA = {
    "transaction_id": pl.Utf8,
    "account_id": pl.Utf8,
    "posted_date": pl.Utf8,
    "amount": pl.Float64,
    "currency": pl.Utf8,
    "description": pl.Utf8,
    "merchant": pl.Utf8,
    "category": pl.Utf8,
    "transaction_type": pl.Utf8,
}


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return generate_transactions(N_ROWS, seed=7)


@pytest.fixture(scope="module")
def labeled(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.filter(pl.col("category").is_not_null())


def test_same_arguments_give_identical_frames() -> None:
    kwargs = {"seed": 11, "labeled_fraction": 0.4, "start_date": dt.date(2025, 6, 1), "days": 30}
    assert generate_transactions(3_000, **kwargs).equals(generate_transactions(3_000, **kwargs))


def test_other_seed_gives_other_data() -> None:
    a, b = generate_transactions(3_000, seed=1), generate_transactions(3_000, seed=2)
    for column in ("transaction_id", "description", "amount", "posted_date"):
        assert (a[column] != b[column]).mean() > 0.9, column


def test_schema_and_dtypes(frame: pl.DataFrame) -> None:
    assert frame.schema == pl.Schema(SCHEMA)
    assert frame.height == N_ROWS
    assert frame.drop("category", "transaction_type").null_count().sum_horizontal().item() == 0


def test_ids_are_unique_and_well_formed(frame: pl.DataFrame) -> None:
    assert frame["transaction_id"].n_unique() == N_ROWS
    assert frame["transaction_id"].str.contains(r"^txn_\d{10}$").all()
    assert frame["account_id"].str.contains(r"^acct_\d{5}$").all()
    assert 100 <= frame["account_id"].n_unique() <= 1_000


def test_ids_are_stable_per_seed_and_row() -> None:
    small, large = generate_transactions(10, seed=5), generate_transactions(1_000, seed=5)
    assert small["transaction_id"].to_list() == large["transaction_id"].head(10).to_list()


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.6, 1.0])
def test_labeled_share_and_both_labels_null_together(fraction: float) -> None:
    frame = generate_transactions(N_ROWS, seed=3, labeled_fraction=fraction)
    has_category = frame["category"].is_not_null()
    assert (has_category == frame["transaction_type"].is_not_null()).all()
    assert abs(has_category.mean() - fraction) <= 0.03


def test_every_category_and_type_appears(labeled: pl.DataFrame) -> None:
    assert set(labeled["category"].unique()) == set(CATEGORIES)
    assert set(labeled["transaction_type"].unique()) == set(TRANSACTION_TYPES)


def test_label_vocabularies() -> None:
    assert 12 <= len(CATEGORIES) <= 16 and len(set(CATEGORIES)) == len(CATEGORIES)
    assert 5 <= len(TRANSACTION_TYPES) <= 7
    assert all(c.isidentifier() and c == c.lower() for c in CATEGORIES + TRANSACTION_TYPES)


def test_catalogue_has_hundreds_of_merchants_in_every_category() -> None:
    names = [m.name for m in MERCHANTS]
    assert len(set(names)) == len(names) >= 300
    assert {m.category for m in MERCHANTS} == set(CATEGORIES)


def test_many_merchants_appear_with_zipf_like_frequencies(frame: pl.DataFrame) -> None:
    # Most formats print the payee's name as a word; count the rows that show each name.
    upper = frame["description"].str.to_uppercase()
    counts = [upper.str.contains(rf"(^|[ *]){re.escape(m.name)}($|[ #*])").sum() for m in MERCHANTS]
    seen = sorted((c for c in counts if c > 0), reverse=True)
    assert len(seen) >= 300
    # Real statements are dominated by a few payees: the top tenth covers most named rows.
    assert sum(seen[: len(seen) // 10]) > 0.4 * sum(seen)


def test_dates_within_range() -> None:
    start = dt.date(2025, 12, 30)
    frame = generate_transactions(5_000, seed=2, start_date=start, days=7)
    dates = frame["posted_date"].str.to_date("%Y-%m-%d", strict=True)
    assert dates.min() == start and dates.max() == start + dt.timedelta(days=6)


def test_amount_signs_follow_transaction_type(labeled: pl.DataFrame) -> None:
    sign = labeled.group_by("transaction_type").agg(
        (pl.col("amount") > 0).all().alias("positive"),
        (pl.col("amount") < 0).all().alias("negative"),
    )
    positive = set(sign.filter("positive")["transaction_type"])
    negative = set(sign.filter("negative")["transaction_type"])
    assert positive == {"income", "refund"}
    assert negative == {"card_purchase", "online_purchase", "direct_debit", "atm_cash"}
    transfers = labeled.filter(pl.col("transaction_type") == "transfer")["amount"]
    assert (transfers > 0).any() and (transfers < 0).any()


def test_amounts_have_cents_and_realistic_magnitudes(
    frame: pl.DataFrame, labeled: pl.DataFrame
) -> None:
    cents = frame["amount"] * 100
    assert ((cents - cents.round()).abs() < 1e-6).all()
    assert (frame["amount"] != 0).all()
    size = labeled.with_columns(pl.col("amount").abs())
    ranges = size.group_by("category").agg(
        pl.col("amount").min().alias("lo"), pl.col("amount").max().alias("hi")
    )
    bounds = {r["category"]: (r["lo"], r["hi"]) for r in ranges.iter_rows(named=True)}
    assert bounds["coffee"][0] >= 3.0 and bounds["coffee"][1] <= 9.0
    assert bounds["groceries"][0] >= 15.0 and bounds["groceries"][1] <= 250.0
    assert bounds["fees"][1] <= 35.0
    cash = size.filter(pl.col("transaction_type") == "atm_cash")["amount"]
    assert set(cash.unique()) <= {20.0, 40.0, 60.0, 80.0, 100.0, 200.0, 300.0}


def test_currencies(frame: pl.DataFrame) -> None:
    share = frame["currency"].value_counts(normalize=True)
    shares = dict(zip(share["currency"], share["proportion"], strict=True))
    assert set(shares) == {"USD", "EUR", "GBP", "CAD"}
    assert shares["USD"] > 0.9


@pytest.mark.parametrize(
    "prefix", ["TST* ", "SQ *", "ZELLE TO ", "ACH DEBIT ", "AMZN MKTP US*", "ATM WITHDRAWAL #",
               "REFUND ", "POS DEBIT ", "VENMO PAYMENT ", "UBER *TRIP", "CHECKCARD "],
)  # fmt: skip
def test_documented_formats_present(frame: pl.DataFrame, prefix: str) -> None:
    assert frame["description"].str.starts_with(prefix).any()


@pytest.mark.parametrize(
    ("prefix", "category", "transaction_type"),
    [
        ("ZELLE ", "transfers", "transfer"),
        ("VENMO ", "transfers", "transfer"),
        ("ATM WITHDRAWAL", "cash", "atm_cash"),
        ("PAYROLL ", "income", "income"),
        ("AMZN MKTP", "shopping", "online_purchase"),
        ("NETFLIX.COM", "subscriptions", "direct_debit"),
        ("OVERDRAFT FEE", "fees", "direct_debit"),
        ("REFUND ", None, "refund"),
        ("TST* ", None, "card_purchase"),
    ],
)
def test_labels_agree_with_description(
    labeled: pl.DataFrame, prefix: str, category: str | None, transaction_type: str
) -> None:
    rows = labeled.filter(pl.col("description").str.starts_with(prefix))
    assert rows.height > 0
    assert set(rows["transaction_type"]) == {transaction_type}
    if category is not None:
        assert set(rows["category"]) == {category}


def test_bank_noise_present(frame: pl.DataFrame) -> None:
    text = frame["description"]
    assert (text == text.str.to_uppercase()).mean() > 0.8
    assert (text == text.str.to_lowercase()).any()
    assert text.str.contains("  ", literal=True).any()
    assert text.str.contains(r"^[A-Z][a-z]").any()  # Title case
    assert text.str.starts_with("WHOLEFDS MKT").any() and text.str.starts_with("WHOLE FOODS").any()


def test_single_row() -> None:
    frame = generate_transactions(1, labeled_fraction=1.0)
    assert frame.height == 1 and frame["category"].null_count() == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_rows": 0}, "n_rows"),
        ({"n_rows": -5}, "n_rows"),
        ({"n_rows": 10, "labeled_fraction": -0.1}, "labeled_fraction"),
        ({"n_rows": 10, "labeled_fraction": 1.01}, "labeled_fraction"),
        ({"n_rows": 10, "labeled_fraction": math.nan}, "labeled_fraction"),
        ({"n_rows": 10, "days": 0}, "days"),
        ({"n_rows": 10, "seed": -1}, "seed"),
        ({"n_rows": 10, "start_date": dt.datetime(2026, 1, 1)}, "start_date"),
        ({"n_rows": 10, "start_date": dt.date(9999, 12, 1), "days": 365}, "calendar"),
        ({"n_rows": 10, "start_date": dt.date(1, 1, 1)}, "calendar"),
    ],
)
def test_invalid_arguments_raise(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_transactions(**kwargs)


def test_a_live_window_ends_yesterday_and_reproduces_for_an_end_date():
    from ml_assets.assets.raw_transactions import fingerprint_params
    from ml_assets.core.intake.raw_days import synthetic_days, synthetic_start
    from ml_assets.core.params import RawTransactionsParams

    fixed = RawTransactionsParams(days=30)
    assert synthetic_days(fixed, dt.date(2026, 12, 1))[0] == "2026-01-01"  # the default
    live = RawTransactionsParams(days=30, synthetic_window="live")
    days = synthetic_days(live, dt.date(2026, 12, 1))
    assert (days[0], days[-1], len(days)) == ("2026-11-01", "2026-11-30", 30)
    start = synthetic_start(live, dt.date(2026, 12, 1))
    first = generate_transactions(500, seed=live.seed, start_date=start, days=live.days)
    again = generate_transactions(500, seed=live.seed, start_date=start, days=live.days)
    assert first.equals(again) and first["posted_date"].max() <= "2026-11-30"
    section = live.model_dump(mode="json")
    assert "_window_start" in fingerprint_params(section, "2026-11-30", {})
