"""Amounts and times some apps' APIs write in a unit of their own, told by the names only
their records have, made plain where a record is read:

* YNAB's API (``/budgets/{id}/transactions``) writes every amount in milliunits (-42750 for
  -42.75, whatever the currency): a whole number is divided by 1000 (exactly, as decimal
  text); a number with decimals is left as it is (a tool that converted them already);
* monobank's statement (``/personal/statement/{account}/{from}``) dates each item by its
  ``time`` in Unix seconds, read as UTC. Its amounts are kopiykas (cents) of the account's
  currency, which ``inspect`` says (``amount_unit: minor``; see record_conventions).

Lunch Money's records (positive amounts for money out) are told here too; their sign is the
file's to settle, as Plaid's is (see record_conventions).
"""

from __future__ import annotations

import datetime as dt
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


def in_plain_units(record: dict) -> dict:
    """The record with YNAB's milliunits and monobank's Unix times made plain (see the module
    docstring); any other record as it is."""
    if of_family(record, YNAB_NAMES):
        amount = record.get("amount")
        if isinstance(amount, int) and not isinstance(amount, bool):
            return {**record, "amount": str(Decimal(amount).scaleb(-3))}
    elif of_family(record, MONOBANK_NAMES):
        time = record.get("time")
        if isinstance(time, int) and not isinstance(time, bool):
            return {**record, "time": dt.datetime.fromtimestamp(time, dt.UTC).isoformat()}
    return record
