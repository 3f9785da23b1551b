"""Amounts and times some apps' APIs write in a unit of their own, told by the names only
their records have, made plain where a record is read:

* YNAB's API (``/budgets/{id}/transactions``) writes every amount in milliunits (-42750 for
  -42.75, whatever the currency): divided by 1000 (exactly, as decimal text) where every YNAB
  record of the file writes a whole number; where some write decimals, a tool converted them
  already, and none is divided (one file never mixes two scales);
* monobank's statement (``/personal/statement/{account}/{from}``) dates each item by its
  ``time`` in Unix seconds, read as UTC. Its amounts are kopiykas (cents) of the account's
  currency, which ``inspect`` says (``amount_unit: minor``; see record_conventions).

Lunch Money's records (positive amounts for money out) are told here too; their sign is the
file's to settle, as Plaid's is (see record_conventions).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal

# names only each app's records have beside their amount (a few may be left out of a record)
YNAB_NAMES = frozenset(
    {"payee_name", "import_id", "cleared", "approved", "flag_color", "subtransactions",
     "transfer_account_id", "matched_transaction_id"}
)  # fmt: skip
MONOBANK_NAMES = frozenset(
    {"mcc", "originalMcc", "hold", "operationAmount", "commissionRate", "cashbackAmount"}
)
LUNCH_MONEY_NAMES = frozenset(
    {"is_income", "exclude_from_budget", "exclude_from_totals", "to_base", "original_name",
     "plaid_account_id", "asset_id", "is_group"}
)  # fmt: skip
_FAMILY_LEAST = 4  # of a family's names, what a record has at least to be one of its own


def of_family(names: object, family: frozenset[str]) -> bool:
    """Whether records with these names (a record's keys, or the names of a file's records)
    are the family's."""
    return len(family & set(names)) >= _FAMILY_LEAST


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ynab_milliunits(items: Iterable[object]) -> bool:
    """Whether a file's YNAB records write milliunits: some are YNAB's, and every one of those
    writes its amount as a whole number (the API's; a converted file writes decimals)."""
    ynab = [i for i in items if isinstance(i, dict) and of_family(i, YNAB_NAMES)]
    return bool(ynab) and all(_whole(i.get("amount")) for i in ynab)


def in_plain_units(record: dict, milliunits: bool) -> dict:
    """The record with monobank's Unix times and, where the file writes milliunits (see
    ynab_milliunits), YNAB's amounts made plain; any other record as it is."""
    if of_family(record, YNAB_NAMES):
        amount = record.get("amount")
        if milliunits and _whole(amount):
            return {**record, "amount": str(Decimal(amount).scaleb(-3))}
    elif of_family(record, MONOBANK_NAMES):
        time = record.get("time")
        if _whole(time):
            return {**record, "time": dt.datetime.fromtimestamp(time, dt.UTC).isoformat()}
    return record
