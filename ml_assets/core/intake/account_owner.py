"""The account's owner in a table that names both sides of each payment (Venmo's ``From`` and
``To``, DKB's payer and payee): the one name that fills one of the two on nearly every row.
Which side holds it is told by the name itself, not by the money's direction: on Venmo's
"Charge" rows the one charged is in ``To`` though the money went out (the charge's roles, not
the payment's), and the owner's name there is no merchant."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ml_assets.core.intake.description_parts import text_of

_OWNER_SHARE = 0.75  # of the rows that name both sides, those that name the owner on one
_FEWEST_ROWS = 3  # a file of fewer such rows says nothing of who owns it


def owner_name(records: Iterable[object], payer: str, payee: str) -> str | None:
    """The name (as ``key`` compares it) on one side of nearly every record that names both
    sides, or None."""
    sides = [
        (key(record.get(payer)), key(record.get(payee)))
        for record in records
        if isinstance(record, dict)
    ]
    both = [(a, b) for a, b in sides if a and b and a != b]
    if len(both) < _FEWEST_ROWS:
        return None
    counts = Counter(name for pair in both for name in pair)
    name, seen = counts.most_common(1)[0]
    return name if seen >= _OWNER_SHARE * len(both) else None


def key(value: object) -> str:
    """A party's cell as compared: its words, case aside."""
    return " ".join(text_of(value).casefold().split())
