"""The hard synthetic generator: the default generator's schema plus ``style``, a long tail of
merchants in many scripts, bank styles, card-network truncation and label noise."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from ml_assets.core.synthetic.demo import CATEGORIES, MERCHANTS, TRANSACTION_TYPES
from ml_assets.core.synthetic.demo import generate_transactions as generate_default
from ml_assets.core.synthetic.hard import (
    CONFUSIONS,
    STYLES,
    fold,
    generate_hard_transactions,
)

N_ROWS = 20_000
REFUND_WORDS = r"REFUND|RETURN|CREDIT| CR$|Refund|refund|Rückerstattung|Remboursement|Devolución|Storno|Terugbetaling"  # fmt: skip


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return generate_hard_transactions(N_ROWS, seed=7)


@pytest.fixture(scope="module")
def labeled() -> pl.DataFrame:
    """Every row labeled and no noise, so labels can be checked against the text."""
    return generate_hard_transactions(8_000, seed=3, labeled_fraction=1.0, label_noise=0.0)


def test_schema_is_the_default_generators_plus_style(frame: pl.DataFrame) -> None:
    default = generate_default(10, seed=7)
    assert frame.schema == pl.Schema({**default.schema, "style": pl.Utf8})
    assert frame.height == N_ROWS
    assert frame.drop("category", "transaction_type").null_count().sum_horizontal().item() == 0
    assert frame["transaction_id"].n_unique() == N_ROWS
    assert frame["transaction_id"].str.contains(r"^txn_\d{10}$").all()
    assert frame["account_id"].str.contains(r"^acct_\d{5}$").all()


def test_same_arguments_give_identical_frames() -> None:
    kwargs = {
        "seed": 11, "labeled_fraction": 0.4, "start_date": dt.date(2025, 6, 1), "days": 30,
        "styles": ["eu_sepa", "us_card"], "label_noise": 0.1,
    }  # fmt: skip
    first = generate_hard_transactions(3_000, **kwargs)
    assert first.equals(generate_hard_transactions(3_000, **kwargs))
    dates = first["posted_date"].str.to_date("%Y-%m-%d", strict=True)
    assert dates.min() >= dt.date(2025, 6, 1) and dates.max() <= dt.date(2025, 6, 30)


def test_other_seed_gives_other_data() -> None:
    a, b = generate_hard_transactions(3_000, seed=1), generate_hard_transactions(3_000, seed=2)
    for column in ("transaction_id", "description", "amount"):
        assert (a[column] != b[column]).mean() > 0.9, column


def test_long_tail_of_merchants(frame: pl.DataFrame) -> None:
    counts = frame["merchant"].value_counts()["count"].sort(descending=True)
    assert counts.len() >= 3_000
    assert (counts <= 2).mean() > 0.6  # most merchants are seen once or twice
    assert counts[0] >= 100  # ... and a few chains are frequent
    assert counts.head(counts.len() // 100).sum() > 0.2 * N_ROWS


def test_few_labels_per_merchant(frame: pl.DataFrame) -> None:
    per_merchant = frame.filter(pl.col("category").is_not_null())["merchant"].value_counts()
    assert (per_merchant["count"] == 1).mean() > 0.5


def test_merchants_are_not_the_default_catalogue(frame: pl.DataFrame) -> None:
    default = [m.name for m in MERCHANTS]
    assert frame["merchant"].str.to_uppercase().is_in(default).mean() < 0.01


@pytest.mark.parametrize(
    "pattern",
    [r"[À-ž]", r"\p{Cyrillic}", r"\p{Greek}", r"\p{Han}", r"\p{Katakana}", r"\p{Arabic}"],
    ids=["latin_diacritics", "cyrillic", "greek", "han", "katakana", "arabic"],
)
def test_descriptions_in_many_scripts(frame: pl.DataFrame, pattern: str) -> None:
    assert frame["description"].str.contains(pattern).mean() > 0.003


def test_many_countries_and_currencies(frame: pl.DataFrame) -> None:
    assert frame["currency"].n_unique() >= 10
    jpy = frame.filter(pl.col("currency") == "JPY")["amount"]
    assert jpy.len() > 0 and (jpy == jpy.round()).all()
    cents = frame["amount"] * 100
    assert ((cents - cents.round()).abs() < 1e-6).all() and (frame["amount"] != 0).all()


@pytest.mark.parametrize(
    "prefix",
    ["SQ *", "PAYPAL *", "TST* ", "POS DEBIT ", "CHECKCARD ", "SUMUP *", "ZETTLE_*", "IZ *",
     "SP * ", "PY *", "AMZN Mktp "],
)  # fmt: skip
def test_processor_prefixes_present(frame: pl.DataFrame, prefix: str) -> None:
    assert frame["description"].str.contains(prefix, literal=True).any()


def test_card_network_truncates_names() -> None:
    rows = generate_hard_transactions(5_000, seed=9, styles="us_card")
    names = [fold(m).upper() for m in rows["merchant"]]
    texts = [fold(t).upper() for t in rows["description"]]
    cut = [n not in t and n[:12] in t for n, t in zip(names, texts, strict=True)]
    assert sum(cut) > 0.03 * rows.height
    long = [c for n, c in zip(names, cut, strict=True) if len(n) > 25]  # never fits the field
    assert sum(long) > 0.5 * len(long)


def test_processor_descriptors_fit_22_characters(frame: pl.DataFrame) -> None:
    paypal = frame["description"].str.extract(r"^(PAYPAL \*\S+)").drop_nulls()
    assert paypal.len() > 100 and (paypal.str.len_chars() <= 22).all()
    assert (paypal.str.len_chars() == 22).any()


@pytest.mark.parametrize(
    ("style", "pattern"),
    [
        ("us_card", r"^[^a-z]+$"),
        ("eu_sepa", r"^(Kartenzahlung|Paiement par carte|Compra con tarjeta|Pagamento POS|Betaalautomaat) "),
        ("uk_faster", r" ON \d\d (JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)( |$)"),
        ("mobile_wallet", r"^(Apple Pay|Google Pay|Samsung Pay|Curve|Revolut) - |\)$|, "),
        ("aggregator", r"^[^a-z]+$"),
    ],
)  # fmt: skip
def test_each_style_prints_card_purchases_its_way(
    labeled: pl.DataFrame, style: str, pattern: str
) -> None:
    rows = labeled.filter(
        (pl.col("style") == style) & (pl.col("transaction_type") == "card_purchase")
    )
    assert rows.height > 100
    assert rows["description"].str.contains(pattern).all()


def test_styles_select_which_appear(frame: pl.DataFrame) -> None:
    assert set(frame["style"]) == set(STYLES)
    one = generate_hard_transactions(2_000, seed=5, styles="uk_faster")
    assert set(one["style"]) == {"uk_faster"}
    two = generate_hard_transactions(2_000, seed=5, styles=("mobile_wallet", "eu_sepa"))
    assert set(two["style"]) == {"mobile_wallet", "eu_sepa"}
    swapped = generate_hard_transactions(2_000, seed=5, styles=["eu_sepa", "mobile_wallet"])
    assert two.equals(swapped)


def test_styles_change_the_text_not_the_payments() -> None:
    a = generate_hard_transactions(2_000, seed=5, styles=["us_card"])
    b = generate_hard_transactions(2_000, seed=5, styles=["mobile_wallet"])
    assert a.drop("description", "style").equals(b.drop("description", "style"))
    assert (a["description"] != b["description"]).mean() > 0.95


def test_label_noise_flips_the_configured_share_to_plausible_categories() -> None:
    kwargs = {"seed": 4, "labeled_fraction": 0.5}
    clean = generate_hard_transactions(10_000, label_noise=0.0, **kwargs)
    noisy = generate_hard_transactions(10_000, label_noise=0.1, **kwargs)
    assert clean.drop("category").equals(noisy.drop("category"))
    flipped = (clean["category"] != noisy["category"]).fill_null(False)
    assert flipped.sum() == round(5_000 * 0.1)
    pairs = zip(clean.filter(flipped)["category"], noisy.filter(flipped)["category"], strict=True)
    assert all(wrong in CONFUSIONS[right] for right, wrong in pairs)


def test_every_category_and_type_appears(frame: pl.DataFrame) -> None:
    rows = frame.filter(pl.col("category").is_not_null())
    assert rows.height == round(N_ROWS * 0.25)
    assert (rows["transaction_type"].is_not_null()).all()
    assert set(rows["category"]) == set(CATEGORIES)
    assert set(rows["transaction_type"]) == set(TRANSACTION_TYPES)


def test_types_agree_with_sign_and_text(labeled: pl.DataFrame) -> None:
    sign = labeled.group_by("transaction_type").agg(
        (pl.col("amount") > 0).all().alias("positive"),
        (pl.col("amount") < 0).all().alias("negative"),
    )
    assert set(sign.filter("positive")["transaction_type"]) == {"income", "refund"}
    negative = {"card_purchase", "online_purchase", "direct_debit", "atm_cash"}
    assert set(sign.filter("negative")["transaction_type"]) == negative
    refunds = labeled.filter(pl.col("transaction_type") == "refund")["description"]
    assert refunds.len() > 0 and refunds.str.contains(REFUND_WORDS).all()
    purchases = labeled.filter(pl.col("transaction_type").is_in(list(negative)))["description"]
    assert not purchases.str.contains(r"(?i)refund|rückerstattung|remboursement").any()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"styles": []}, "styles"),
        ({"styles": ["swift_mt940"]}, "styles"),
        ({"label_noise": 0.7}, "label_noise"),
        ({"label_noise": -0.1}, "label_noise"),
        ({"labeled_fraction": 1.5}, "labeled_fraction"),
        ({"days": 0}, "days"),
    ],
)
def test_invalid_arguments_raise(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_hard_transactions(10, **kwargs)
