"""What a file of records (JSONL, a JSON document, Parquet) leaves unsaid of its amounts,
currency and dates, for ``inspect`` to say and set:

* amounts in the currency's minor unit: Monzo's, Stripe's and monobank's, a column whose
  name says so (Starling's ``minorUnits``), or 20 whole numbers or more, some of 100 or more;
* an API's own conventions: Akahu reads New Zealand banks' accounts (NZD); Stripe's
  ``reporting_category`` is a kind of money movement, not a spending category; Lunch Money's
  ``notes`` (the user's) follow its payee in the description; monobank dates
  each item by its ``time`` and writes no currency of the account's amounts (its
  ``currencyCode`` is each operation's: a purchase abroad in dollars is booked in hryvnias),
  so the account's currency is set from the codes most rows share, to be confirmed;
* a currency where the records name none: the one an IBAN or another clue among their texts
  points to (``currency_clues``), to be confirmed, else the load's default, USD, said;
* a date format other than ISO's (Afterbanks' ``14-03-2023``, PrivatBank's ``04.03.2024
  10:15:00``), found as a CSV's date column's is.
"""

from __future__ import annotations

import re
from collections import Counter

from ml_assets.core.intake.api_units import LUNCH_MONEY_NAMES, MONOBANK_NAMES, of_family
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.currency_clues import (
    currency_named,
    currency_pointed_to,
    unstated_currency,
)
from ml_assets.core.intake.minor_units import currency_of_number
from ml_assets.core.intake.records import iso_currency
from ml_assets.core.intake.sniffing import MONTH_FIRST_CURRENCIES, sniff_date_format

Facts = list[tuple[str, str]]


def api_conventions(
    names: list[str], sample: list[dict], mapping: dict, settings: dict, facts: Facts
) -> str | None:
    """What an API's records leave unsaid, in place (see the module docstring); why its
    amounts are minor units, where they are."""
    if {"_account", "_connection"} <= set(names) and "currency" not in mapping.values():
        settings["currency"] = "NZD"
        facts.append(("currency", "NZD: Akahu reads New Zealand banks' accounts"))
    if of_family(names, LUNCH_MONEY_NAMES) and "notes" in names and "notes" not in mapping:
        mapping["notes"] = "description"  # the user's note, joined after the payee
    if of_family(names, MONOBANK_NAMES):
        return _monobank(names, sample, mapping, settings, facts)
    if not any(record.get("object") == "balance_transaction" for record in sample):
        return None
    if mapping.get("reporting_category") == "category":
        del mapping["reporting_category"]
    return "Stripe's amounts are whole numbers of the minor unit"


def _monobank(
    names: list[str], sample: list[dict], mapping: dict, settings: dict, facts: Facts
) -> str:
    """monobank's statement: dated by its ``time``; the account's currency, which it does not
    name, set from its rows' operation currencies for the user to confirm."""
    if "time" in names:
        for other in [t for t, ours in mapping.items() if ours == "posted_date"]:
            del mapping[other]
        mapping["time"] = "posted_date"
    if mapping.get("currencyCode") == "currency":
        del mapping["currencyCode"]
    codes = Counter(currency_of_number(r.get("currencyCode")) for r in sample)
    codes.pop(None, None)
    if codes:
        code, rows = codes.most_common(1)[0]
        settings["currency"] = code
        facts.append(
            ("currency", f"{code}, the account's, as {rows} of {sum(codes.values())} rows' "
             "currencyCode shows (monobank's statement names the currency of each operation, "
             "not of its amounts, which are the account's): confirm it, or set currency")
        )  # fmt: skip
    return "monobank's amounts are whole numbers of the minor unit (kopiykas, cents)"


# names only Monzo's transactions have beside amount: its amounts are in the minor unit
_MONZO_NAMES = frozenset({"account_balance", "is_load", "settled", "dedupe_id", "local_amount"})


def looks_like_monzo(names: list[str]) -> bool:
    return len(_MONZO_NAMES & set(names)) >= 2


# a name that says its amounts are counted in the currency's minor unit (Starling's minorUnits)
_MINOR_NAME = re.compile(r"minor|cents?\b|pence|_in_cents|incents", re.IGNORECASE)
_MINOR_SAMPLE = 20  # fewer whole amounts than this say nothing


def minor_units_reason(name: str, values: list) -> str | None:
    """Why the amount column looks like whole numbers of the minor unit (Monzo's -399 for
    £3.99), or None: its name says so, or every one of at least 20 amounts read is stored as
    an integer (not text, not a float) and some are 100 or more. An export in the major unit
    writes its cents somewhere: as a float (12.5) or as text ("12.50")."""
    numbers = [v for v in values if v is not None]
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in numbers)
    if numbers and whole and _MINOR_NAME.search(name):
        return f"column {name!r} names the minor unit"
    if len(numbers) >= _MINOR_SAMPLE and whole and any(abs(v) >= 100 for v in numbers):
        return f"every one of the {len(numbers)} amounts read is stored as a whole number"
    return None


def currency_of_records(
    names: list[str], sample: list[dict], mapping: dict, settings: dict, facts: Facts
) -> None:
    """Where the records name no currency (no column mapped to it, none of ours, none set):
    the one their amounts write or their texts point to (an IBAN's country), set for the user
    to confirm; else the finding that every row is read as USD."""
    own = any(r.get("currency") not in (None, "") for r in sample)
    if "currency" in mapping.values() or own or settings.get("currency") or not sample:
        return
    amount = next((t for t, ours in mapping.items() if ours == "amount"), "amount")
    named = currency_named([r.get(amount) for r in sample], [amount])
    if named is not None:
        settings["currency"], said = named
        facts.append(("currency", f"{settings['currency']} ({said})"))
        return
    rows = [CellRow(n, [_text(r.get(name)) for name in names], b"") for n, r in enumerate(sample)]
    pointed = currency_pointed_to(rows, names)
    if pointed is None:
        facts.append(("currency", unstated_currency()))
        return
    code, said = pointed
    settings["currency"] = code
    facts.append(("currency", f"{code}, as {said} shows (the file writes no currency): confirm it"))


def _text(value: object) -> object:
    """A record's value as a table's cell: a list of texts joined, anything else as it is."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return value


def date_format_of(sample: list[dict], mapping: dict, settings: dict, facts: Facts) -> None:
    """``date_format`` where the records' dates are not ISO's and one format reads most of
    them (day first where the currency is not the US or Canadian dollar's), with why."""
    column = next((t for t, ours in mapping.items() if ours == "posted_date"), "posted_date")
    texts = [v for r in sample if isinstance(v := r.get(column), str)]
    source = next((t for t, ours in mapping.items() if ours == "currency"), "currency")
    currencies = {iso_currency(c) for r in sample if isinstance(c := r.get(source), str)}
    currencies |= {settings["currency"]} if settings.get("currency") else set()
    day_first = bool(currencies) and not currencies <= MONTH_FIRST_CURRENCIES
    found, ties, why = sniff_date_format(texts, day_first_hint=day_first)
    if found is None:
        return
    settings["date_format"] = found
    doubt = f"; set date_format to {ties[0]!r} if the bank writes them so" if ties else ""
    facts.append(("dates", f"{found} ({why}){doubt}"))
