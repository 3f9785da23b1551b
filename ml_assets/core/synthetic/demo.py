"""Seeded, deterministic bank-transaction records: the project's built-in demo data.

`generate_transactions` returns the raw transaction schema (see `ingest.RAW_SCHEMA`) with
descriptions printed the way bank statements print them: processor prefixes (``TST*``,
``SQ *``, ``POS DEBIT``), store numbers, reference ids, cities, truncation and casing noise.
Every row comes from one merchant of a fixed catalogue (`MERCHANTS`, several hundred names
over all categories); the merchant decides the category and the statement format decides
the transaction type, so labels always agree with the text.

Only ``numpy.random.default_rng(seed)`` draws randomness (no global state, no ``hash()``),
so the same arguments give an identical frame on every machine and Python version.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import string
from dataclasses import dataclass

import numpy as np
import polars as pl

from ml_assets.core.synthetic import catalog as catalog

CATEGORIES: tuple[str, ...] = (
    "groceries", "restaurants", "coffee", "fuel", "transport", "travel", "housing", "utilities",
    "subscriptions", "shopping", "health", "entertainment", "income", "transfers", "fees", "cash",
)  # fmt: skip
TRANSACTION_TYPES: tuple[str, ...] = (
    "card_purchase", "online_purchase", "transfer", "direct_debit", "atm_cash", "refund", "income",
)  # fmt: skip

# Share of rows per category, roughly a US checking account's month; sums to 1.
CATEGORY_SHARES: dict[str, float] = {
    "groceries": 0.13, "restaurants": 0.12, "coffee": 0.07, "fuel": 0.05, "transport": 0.06,
    "travel": 0.03, "housing": 0.02, "utilities": 0.05, "subscriptions": 0.06, "shopping": 0.14,
    "health": 0.04, "entertainment": 0.04, "income": 0.04, "transfers": 0.08, "fees": 0.02,
    "cash": 0.05,
}  # fmt: skip
# How a merchant is paid decides the transaction type (a refund overrides it). Bank fees
# are taken without a card or a mandate form, but post like any other direct debit.
CHANNEL_TYPES: dict[str, str] = {
    "store": "card_purchase", "local": "card_purchase", "local_food": "card_purchase",
    "online": "online_purchase", "bill": "direct_debit", "fee": "direct_debit",
    "atm": "atm_cash", "payroll": "income", "deposit": "income", "p2p": "transfer",
}  # fmt: skip

# Generation knobs; each *_SHARE is a fraction of the rows its comment names.
N_ACCOUNTS = 400
ZIPF_EXPONENT = 1.1  # merchant popularity within a category falls as rank**-1.1
OWN_EMPLOYER_SHARE = 0.8  # income rows that are the account's own payroll
REFUND_SHARE = 0.03  # of card and online purchases
INCOMING_SHARE = 0.35  # of transfers through a payee that can also pay in (Zelle, Venmo)
ABBREVIATION_SHARE = 0.6  # of rows whose merchant has an abbreviation
HOME_CITY_SHARE = 0.85  # card rows in the account's home city
FOREIGN_SHARE = 0.05  # of purchases and refunds
FOREIGN_CURRENCIES = (("EUR", 0.5), ("GBP", 0.25), ("CAD", 0.25))  # keys of FOREIGN_CITIES
WHOLE_DOLLAR_SHARE = 0.6  # of transfers; people send $50, not $49.17
ATM_AMOUNTS = ((20, 0.2), (40, 0.2), (60, 0.15), (80, 0.1), (100, 0.2), (200, 0.1), (300, 0.05))
CASE_SHARES = (0.88, 0.07, 0.05)  # upper, Title, lower
DOUBLE_SPACE_SHARE = 0.05
TRUNCATION_SHARE = 0.08
TRUNCATION_WIDTHS = (22, 40)  # a bank's description column, inclusive
MAX_AUTH_LAG_DAYS = 2  # card authorisation date printed in the text precedes posting
# The catalogue is fixed across seeds so a merchant keeps its phone and head office.
CATALOGUE_SEED = 20260101
# Affine bijection on 10-digit numbers: ids look scrambled but never collide within a frame.
_ID_MODULUS = 10**10
_ID_MULTIPLIER = 2_654_435_761  # odd and not a multiple of 5, so coprime with the modulus
_ID_SEED_MULTIPLIER = 982_451_653

_ALPHANUMERIC = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", dtype=np.uint8)
_TOLL_FREE = ("800", "833", "844", "855", "866", "877", "888")
_MODE_DEBIT, _MODE_CREDIT, _MODE_REFUND = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Merchant:
    """One payee of the catalogue; its category and channel never change."""

    name: str
    abbreviation: str  # what some banks print instead of the name; "" if none
    category: str
    channel: str  # a key of CHANNEL_TYPES
    low: float  # absolute amount range; low == high is a fixed price
    high: float
    formats: tuple[str, ...]  # money going out (or in, for income)
    credit_formats: tuple[str, ...]  # money coming in through a transfer payee
    refund_formats: tuple[str, ...]
    short: str  # PayPal-style name without spaces
    web: str
    phone: str
    hq: str  # state of the head office


def _split(entry: str) -> tuple[str, str]:
    name, _, abbreviation = entry.partition("|")
    return name, abbreviation


def _local_names(category: str, taken: set[str], rng: np.random.Generator) -> list[str]:
    """Draw ``count`` unused "{first} {second}" names, e.g. "JOE'S PIZZA"."""
    _, count, firsts, seconds = catalog.LOCAL_MERCHANTS[category]
    pairs = list(itertools.product(firsts, seconds))
    names: list[str] = []
    for index in rng.permutation(len(pairs)):
        name = " ".join(pairs[index])
        if name not in taken:
            names.append(name)
            taken.add(name)
        if len(names) == count:
            break
    return names


def _merchant(entry: str, category: str, channel: str, rng: np.random.Generator) -> Merchant:
    name, abbreviation = _split(entry)
    low, high = catalog.PRICES.get(name, catalog.AMOUNT_RANGES[category])
    alnum = re.sub(r"[^A-Z0-9]", "", name)
    return Merchant(
        name=name,
        abbreviation=abbreviation,
        category=category,
        channel=channel,
        low=low,
        high=high,
        formats=catalog.SPECIAL_FORMATS.get(name, catalog.FORMATS[channel]),
        credit_formats=catalog.CREDIT_FORMATS.get(name, ()),
        refund_formats=catalog.REFUND_FORMATS.get(channel, ()),
        short=alnum[:12],
        web=name if name.endswith((".COM", ".US")) else alnum + ".COM",
        phone=f"{rng.choice(_TOLL_FREE)}-{rng.integers(200, 1000)}-{rng.integers(10_000):04d}",
        hq=catalog.CITIES[rng.integers(len(catalog.CITIES))][1],
    )


def _build_catalogue() -> tuple[Merchant, ...]:
    """Every merchant, grouped by category in popularity order (rank 1 first).

    Within a category the channel lists and the generated local merchants are interleaved,
    so a category's most popular payees mix chains, online shops and local businesses.
    """
    rng = np.random.default_rng(CATALOGUE_SEED)
    taken = {_split(e)[0] for chans in catalog.CHAINS.values() for es in chans.values() for e in es}
    merchants: list[Merchant] = []
    for category in CATEGORIES:
        groups = [(channel, entries) for channel, entries in catalog.CHAINS[category].items()]
        if category in catalog.LOCAL_MERCHANTS:
            channel = catalog.LOCAL_MERCHANTS[category][0]
            groups.append((channel, tuple(_local_names(category, taken, rng))))
        ranked = itertools.zip_longest(*[[(ch, e) for e in es] for ch, es in groups])
        for channel, entry in (pair for rank in ranked for pair in rank if pair is not None):
            merchants.append(_merchant(entry, category, channel, rng))
    names = [m.name for m in merchants]
    if len(set(names)) != len(names):
        raise ValueError("synthetic_catalog lists a merchant name twice; names must be unique")
    return tuple(merchants)


MERCHANTS: tuple[Merchant, ...] = _build_catalogue()


@dataclass(frozen=True)
class _Tables:
    """Per-merchant arrays, so that per-row choices are numpy gathers."""

    probability: np.ndarray  # row share of each merchant
    category: np.ndarray  # index into CATEGORIES
    type: np.ndarray  # index into TRANSACTION_TYPES, before refunds
    refundable: np.ndarray
    can_receive: np.ndarray
    is_payroll: np.ndarray
    low: np.ndarray
    high: np.ndarray
    name: np.ndarray  # object arrays of str
    abbreviation: np.ndarray
    template_start: np.ndarray  # (merchant, mode) -> first index into templates
    template_count: np.ndarray
    templates: np.ndarray


def _tables(merchants: tuple[Merchant, ...]) -> _Tables:
    category = np.array([CATEGORIES.index(m.category) for m in merchants])
    rank = np.zeros(len(merchants))
    for c in range(len(CATEGORIES)):
        rank[category == c] = np.arange(1, np.count_nonzero(category == c) + 1)
    weight = rank**-ZIPF_EXPONENT
    shares = np.array([CATEGORY_SHARES[c] for c in CATEGORIES])
    probability = shares[category] * weight / np.bincount(category, weights=weight)[category]
    templates: list[str] = []
    start = np.zeros((len(merchants), 3), dtype=np.int64)
    count = np.zeros((len(merchants), 3), dtype=np.int64)
    for i, m in enumerate(merchants):
        for mode, formats in enumerate((m.formats, m.credit_formats, m.refund_formats)):
            start[i, mode], count[i, mode] = len(templates), len(formats)
            templates.extend(formats)
    return _Tables(
        probability=probability / probability.sum(),
        category=category,
        type=np.array([TRANSACTION_TYPES.index(CHANNEL_TYPES[m.channel]) for m in merchants]),
        refundable=count[:, _MODE_REFUND] > 0,
        can_receive=count[:, _MODE_CREDIT] > 0,
        is_payroll=np.array([m.channel == "payroll" for m in merchants]),
        low=np.array([m.low for m in merchants]),
        high=np.array([m.high for m in merchants]),
        name=np.array([m.name for m in merchants], dtype=object),
        abbreviation=np.array([m.abbreviation or m.name for m in merchants], dtype=object),
        template_start=start,
        template_count=count,
        templates=np.array(templates, dtype=object),
    )


_TABLES = _tables(MERCHANTS)


def generate_transactions(
    n_rows: int,
    *,
    seed: int = 7,
    labeled_fraction: float = 0.25,
    start_date: dt.date = dt.date(2026, 1, 1),
    days: int = 120,
) -> pl.DataFrame:
    """Return ``n_rows`` synthetic transactions in the raw schema.

    Columns, in order: transaction_id ("txn_" + 10 digits, unique within the frame, a
    function of seed and row), account_id ("acct_" + 5 digits, N_ACCOUNTS accounts),
    posted_date ("YYYY-MM-DD" in [start_date, start_date + days)), amount (Float64, 2
    decimals, money out negative, income/refunds/incoming transfers positive), currency,
    description, category, transaction_type. Exactly ``round(n_rows * labeled_fraction)``
    rows carry both labels; all other rows have both null. Same arguments, same frame.

    Raises ValueError when n_rows < 1, labeled_fraction is outside [0, 1], days < 1,
    seed < 0, or start_date is not a plain date.
    """
    _validate(n_rows, seed, labeled_fraction, start_date, days)
    rng = np.random.default_rng(seed)
    t = _TABLES
    accounts = _draw_accounts(rng)
    account = rng.choice(N_ACCOUNTS, n_rows, p=accounts.probability)
    merchant = rng.choice(len(MERCHANTS), n_rows, p=t.probability)
    own_pay = t.category[merchant] == CATEGORIES.index("income")
    own_pay &= rng.random(n_rows) < OWN_EMPLOYER_SHARE
    merchant = np.where(own_pay, accounts.employer[account], merchant)

    u = rng.random(n_rows)
    mode = np.full(n_rows, _MODE_DEBIT)
    mode[t.refundable[merchant] & (u < REFUND_SHARE)] = _MODE_REFUND
    mode[t.can_receive[merchant] & (u < INCOMING_SHARE)] = _MODE_CREDIT
    refund = TRANSACTION_TYPES.index("refund")
    type_index = np.where(mode == _MODE_REFUND, refund, t.type[merchant])
    day = rng.integers(days, size=n_rows)

    currency = _currencies(rng, type_index)
    description = _describe(rng, merchant, mode, accounts, account, day, currency, start_date)
    amount = _amounts(rng, merchant, mode, type_index)
    labeled = np.zeros(n_rows, dtype=bool)
    labeled[rng.permutation(n_rows)[: round(n_rows * labeled_fraction)]] = True

    id_offset = int(seed) * _ID_SEED_MULTIPLIER % _ID_MODULUS  # Python int: no overflow
    ids = (np.arange(n_rows, dtype=np.int64) * _ID_MULTIPLIER + id_offset) % _ID_MODULUS
    dates = [(start_date + dt.timedelta(days=d)).isoformat() for d in range(days)]
    frame = pl.DataFrame(
        {
            "transaction_id": pl.Series(ids).cast(pl.Utf8).str.zfill(10),
            "account_id": pl.Series([f"acct_{a:05d}" for a in range(N_ACCOUNTS)]).gather(account),
            "posted_date": pl.Series(dates, dtype=pl.Utf8).gather(day),
            "amount": pl.Series(amount, dtype=pl.Float64),
            "currency": pl.Series(currency, dtype=pl.Utf8),
            "description": pl.Series(description, dtype=pl.Utf8),
            # The true merchant, as an enrichment provider would supply it; splits hash it.
            "merchant": pl.Series(t.name, dtype=pl.Utf8).gather(merchant),
            "category": pl.Series(CATEGORIES, dtype=pl.Utf8).gather(t.category[merchant]),
            "transaction_type": pl.Series(TRANSACTION_TYPES, dtype=pl.Utf8).gather(type_index),
            "_labeled": labeled,
        }
    )
    return frame.with_columns(
        pl.concat_str(pl.lit("txn_"), pl.col("transaction_id")).alias("transaction_id"),
        *(pl.when("_labeled").then(c).alias(c) for c in ("category", "transaction_type")),
    ).drop("_labeled")


def _validate(
    n_rows: int, seed: int, labeled_fraction: float, start_date: dt.date, days: int
) -> None:
    for name, value, minimum in (("n_rows", n_rows, 1), ("seed", seed, 0), ("days", days, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if not 0.0 <= labeled_fraction <= 1.0:
        raise ValueError(f"labeled_fraction must be within [0, 1], got {labeled_fraction!r}")
    if isinstance(start_date, dt.datetime) or not isinstance(start_date, dt.date):
        raise ValueError(f"start_date must be a datetime.date, got {start_date!r}")
    # Descriptions print authorisation dates up to MAX_AUTH_LAG_DAYS before start_date.
    earliest = dt.date.min + dt.timedelta(days=MAX_AUTH_LAG_DAYS)
    if start_date < earliest or days > (dt.date.max - start_date).days + 1:
        raise ValueError(
            f"start_date={start_date} with days={days} leaves the calendar: posted dates must"
            f" lie within [{earliest}, {dt.date.max}]"
        )


@dataclass(frozen=True)
class _Accounts:
    probability: np.ndarray  # share of rows; real accounts differ a lot in activity
    employer: np.ndarray  # merchant index of the payroll that pays the account
    home_city: np.ndarray  # index into catalog.CITIES
    last4: np.ndarray  # object array, the card's last four digits


def _draw_accounts(rng: np.random.Generator) -> _Accounts:
    t = _TABLES
    weight = rng.lognormal(0.0, 0.8, N_ACCOUNTS)
    payroll = np.where(t.is_payroll, t.probability, 0.0)
    last4 = rng.integers(10_000, size=N_ACCOUNTS)
    return _Accounts(
        probability=weight / weight.sum(),
        employer=rng.choice(len(MERCHANTS), N_ACCOUNTS, p=payroll / payroll.sum()),
        home_city=rng.integers(len(catalog.CITIES), size=N_ACCOUNTS),
        last4=np.array([f"{x:04d}" for x in last4], dtype=object),
    )


def _describe(
    rng: np.random.Generator,
    merchant: np.ndarray,
    mode: np.ndarray,
    accounts: _Accounts,
    account: np.ndarray,
    day: np.ndarray,
    currency: np.ndarray,
    start_date: dt.date,
) -> list[str]:
    """Fill each row's statement format, then add the bank's noise."""
    t = _TABLES
    n = len(merchant)
    pick = (rng.random(n) * t.template_count[merchant, mode]).astype(np.int64)
    template = t.templates[t.template_start[merchant, mode] + pick]
    abbreviate = rng.random(n) < ABBREVIATION_SHARE
    name = np.where(abbreviate, t.abbreviation[merchant], t.name[merchant])
    city = _cities(rng, accounts.home_city[account], currency)
    places = catalog.CITIES + tuple(itertools.chain(*catalog.FOREIGN_CITIES.values()))
    city_names, states = (np.array(x, dtype=object) for x in zip(*places, strict=True))
    # Index 0 of the date tables is MAX_AUTH_LAG_DAYS before start_date.
    auth_dates = [
        start_date + dt.timedelta(days=d) for d in range(-MAX_AUTH_LAG_DAYS, int(day.max()) + 1)
    ]
    auth = day - rng.integers(MAX_AUTH_LAG_DAYS + 1, size=n) + MAX_AUTH_LAG_DAYS
    mmdd = np.array([d.strftime("%m%d") for d in auth_dates], dtype=object)[auth]
    md = np.array([d.strftime("%m/%d") for d in auth_dates], dtype=object)[auth]
    code = _ALPHANUMERIC[rng.integers(36, size=(n, 6))].view("S6").ravel().astype("U6")
    first = np.array(catalog.FIRST_NAMES, dtype=object)[
        rng.integers(len(catalog.FIRST_NAMES), size=n)
    ]
    last = np.array(catalog.LAST_NAMES, dtype=object)[rng.integers(len(catalog.LAST_NAMES), size=n)]
    store = rng.integers(100, 100_000, size=n)
    num = rng.integers(10**6, size=n)
    ref = rng.integers(10**9, 10**10, size=n)
    case = rng.choice(len(CASE_SHARES), n, p=CASE_SHARES)
    double_at = np.where(rng.random(n) < DOUBLE_SPACE_SHARE, rng.random(n), -1.0)
    low, high = TRUNCATION_WIDTHS
    width = np.where(rng.random(n) < TRUNCATION_SHARE, rng.integers(low, high + 1, size=n), 0)

    columns = (
        template, name, merchant, city_names[city], states[city], store, num, ref, code,
        first, last, mmdd, md, accounts.last4[account], case, double_at, width,
    )  # fmt: skip
    descriptions = []
    for tpl, nm, m, ci, st, sto, nu, rf, co, fi, la, mmdd_, md_, l4, cs, dbl, w in zip(
        *(c.tolist() for c in columns), strict=True
    ):
        payee = MERCHANTS[m]
        text = tpl.format(
            name=nm, short=payee.short, web=payee.web, phone=payee.phone, hq=payee.hq,
            city=ci, st=st, store=sto, num=nu, ref=rf, code=co, first=fi, last=la,
            initial=fi[0], mmdd=mmdd_, md=md_, last4=l4,
        )  # fmt: skip
        if cs or dbl >= 0.0 or w:
            text = _add_noise(text, cs, dbl, w)
        descriptions.append(text)
    return descriptions


def _cities(rng: np.random.Generator, home: np.ndarray, currency: np.ndarray) -> np.ndarray:
    """Index into CITIES followed by FOREIGN_CITIES; a foreign currency means a city abroad."""
    n = len(home)
    away = rng.integers(len(catalog.CITIES), size=n)
    city = np.where(rng.random(n) < HOME_CITY_SHARE, home, away)
    first = len(catalog.CITIES)
    for code, group in catalog.FOREIGN_CITIES.items():
        abroad = currency == code
        city[abroad] = first + rng.integers(len(group), size=np.count_nonzero(abroad))
        first += len(group)
    return city


def _add_noise(text: str, case: int, double_at: float, width: int) -> str:
    """Casing, one doubled space at relative position ``double_at``, truncation to ``width``."""
    if case == 1:
        text = string.capwords(text)
    elif case == 2:
        text = text.lower()
    if double_at >= 0.0:
        space = text.find(" ", int(double_at * len(text)))
        space = space if space > 0 else text.find(" ")
        if space > 0:
            text = text[:space] + " " + text[space:]
    if width:
        text = text[:width].rstrip()
    return text


def _amounts(
    rng: np.random.Generator, merchant: np.ndarray, mode: np.ndarray, type_index: np.ndarray
) -> np.ndarray:
    t = _TABLES
    n = len(merchant)
    log_low, log_high = np.log(t.low[merchant]), np.log(t.high[merchant])
    # Beta(2, 3) on the log range: most amounts in the lower third, a long right tail.
    amount = np.exp(log_low + rng.beta(2.0, 3.0, size=n) * (log_high - log_low))
    category = t.category[merchant]
    values, p = zip(*ATM_AMOUNTS, strict=True)
    atm = rng.choice(np.array(values, dtype=np.float64), n, p=p)
    amount = np.where(category == CATEGORIES.index("cash"), atm, amount)
    whole = (category == CATEGORIES.index("transfers")) & (rng.random(n) < WHOLE_DOLLAR_SHARE)
    amount = np.where(whole, np.round(amount), np.round(amount, 2))
    incoming = (mode != _MODE_DEBIT) | (type_index == TRANSACTION_TYPES.index("income"))
    return np.where(incoming, amount, -amount)


def _currencies(rng: np.random.Generator, type_index: np.ndarray) -> np.ndarray:
    """USD except a few card/online purchases (and their refunds) abroad."""
    n = len(type_index)
    kinds = [TRANSACTION_TYPES.index(x) for x in ("card_purchase", "online_purchase", "refund")]
    codes, p = zip(*FOREIGN_CURRENCIES, strict=True)
    foreign = np.isin(type_index, kinds) & (rng.random(n) < FOREIGN_SHARE)
    return np.where(foreign, rng.choice(np.array(codes, dtype=object), n, p=p), "USD")
