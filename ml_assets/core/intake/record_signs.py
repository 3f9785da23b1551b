"""How a file of records (JSONL, a JSON document, Parquet) signs its amounts, for ``inspect``.

A field whose every value says money in or out (Open Banking's ``CreditDebitIndicator``:
Credit, Debit; TrueLayer's ``transaction_type``: CREDIT, DEBIT; ISO 20022's DBIT and CRDT, as
STET's and Enable Banking's records give them; Open Finance Brasil's DEBITO and CREDITO)
signs unsigned amounts row by row. Beside amounts already signed it is not mapped (an amount
already negative is never turned by a code), unless some debits are signed and others not
and no negative amount has a money-in word; a field named ``direction`` that does not agree
with every sign (Starling v1's OUTBOUND, INBOUND) is mapped to the transaction type, so that
the load trusts the sign.

Some apps' amounts follow a convention of their own: Plaid's and Lunch Money's are positive
for money out (Lunch Money's unless the caller asked for ``debit_as_negative``: its income
rows tell which), YNAB's and monobank's are signed as ours. A table of records from no API
known here (JSONL, Parquet, a JSON array) says its sign by its amounts, as a CSV's does.
"""

from __future__ import annotations

from ml_assets.core.intake.amount_text import amount_or_none
from ml_assets.core.intake.api_units import LUNCH_MONEY_NAMES, MONOBANK_NAMES, YNAB_NAMES, of_family
from ml_assets.core.intake.column_names import field_of
from ml_assets.core.intake.csv_exports import direction_sign
from ml_assets.core.intake.sign_guess import sign_of

Facts = list[tuple[str, str]]
# apps whose records are signed as ours, by the names only their records have
_SIGNED_AS_OURS = {"YNAB's": YNAB_NAMES, "monobank's": MONOBANK_NAMES}


def direction_of(names: list[str], sample: list[dict], mapping: dict[str, str]) -> str | None:
    """A field that says which way each amount went, mapped to ``direction`` in place where the
    amounts are unsigned; a field named ``direction`` beside signed amounts it does not agree
    with, mapped to ``transaction_type``. What was found, in words, or None."""
    amount = next((t for t, ours in mapping.items() if ours == "amount"), "amount")
    amounts = [amount_or_none(r.get(amount), ".") for r in sample]
    signed = any(a is not None and a < 0 for a in amounts)
    found = _direction_field(names, sample)
    if found is not None and (not signed or _partly_signed(found, amounts, sample)):
        if found != "direction":  # (a field of that name is read as one already)
            mapping[found] = "direction"
        if signed:
            return (
                f"{found} says money in or out of each amount, some of them unsigned debits "
                "(an amount already negative stays negative)"
            )
        return f"{found} says money in or out of each unsigned amount"
    own = "direction" in names and "direction" not in mapping
    if not (own and signed) or _agrees("direction", amounts, sample):
        return None
    if "transaction_type" in mapping.values() or usable("transaction_type", names, sample):
        return (
            "the 'direction' field does not agree with the signed amounts, and the load signs "
            "each amount by it: map 'direction' in column_map to another field of ours"
        )
    mapping["direction"] = "transaction_type"
    return "the amounts are signed: 'direction' is read as the transaction type"


def _direction_field(names: list[str], sample: list[dict]) -> str | None:
    """The record's own field (not a nested one: a balance's indicator) whose every value is
    a word of money in or out, both ways among them or words longer than a letter (a column
    of one letter, PayPal's status "S", is no direction), or a field named for a direction
    (PrivatBank's TRANTYPE, "D" on every row of a page of debits); one named for a direction
    first."""
    found = []
    for name in names:
        words = {str(v).strip().lower() for r in sample if isinstance(v := r.get(name), str)}
        if "." in name or not words or any(direction_sign(w) is None for w in words):
            continue
        both = {direction_sign(w) for w in words} == {-1, 1}
        if both or min(map(len, words)) > 1 or field_of(name) == "direction":
            found.append(name)
    found.sort(key=lambda name: field_of(name) != "direction")
    return found[0] if found else None


def _partly_signed(name: str, amounts: list[float | None], sample: list[dict]) -> bool:
    """Whether the field is needed beside signed amounts and turns none of them: some
    positive amounts it says are money out (a bank that signs some debits, not all), and no
    negative one it says is money in (the load signs each amount by the field's word, so a
    negative amount beside a money-in word would turn)."""
    ways = [(a, direction_sign(r.get(name))) for a, r in zip(amounts, sample, strict=True)]
    unsigned_debits = any(a is not None and a > 0 and way == -1 for a, way in ways)
    return unsigned_debits and not any(a is not None and a < 0 and way != -1 for a, way in ways)


def _agrees(name: str, amounts: list[float | None], sample: list[dict]) -> bool:
    """Whether the field says the way of every non-zero amount's sign."""
    for amount, record in zip(amounts, sample, strict=True):
        if amount and direction_sign(record.get(name)) != (1 if amount > 0 else -1):
            return False
    return True


def usable(ours: str, names: list[str], sample: list[dict]) -> bool:
    """Whether the records' own column of that name gives the field: text or numbers in at
    least one record read (or no records read to say otherwise)."""
    if ours not in names:
        return False
    values = [record.get(ours) for record in sample]
    return not sample or any(v is not None and not isinstance(v, list | dict) for v in values)


def app_sign(
    names: list[str], sample: list[dict], mapping: dict, settings: dict, facts: Facts
) -> bool:
    """Whether the records are an app's that signs its amounts its own way, with
    ``spending: positive`` set where its purchases are positive and the finding said."""
    for whose, family in _SIGNED_AS_OURS.items():
        if of_family(names, family):
            facts.append(("sign", f"purchases negative, as ours ({whose} amounts are signed)"))
            return True
    if not of_family(names, LUNCH_MONEY_NAMES):
        return False
    amount = next((t for t, ours in mapping.items() if ours == "amount"), "amount")
    income, other = [], []
    for record in sample:
        value = amount_or_none(record.get(amount), ".")
        if value and isinstance(record.get("is_income"), bool):
            (income if record["is_income"] else other).append(value)
    if income:
        flipped = 2 * sum(v < 0 for v in income) > len(income)
        why = f"{sum(v < 0 for v in income)} of its {len(income)} income rows are negative"
    elif other:
        flipped = 2 * sum(v > 0 for v in other) > len(other)
        why = f"no income rows; {sum(v > 0 for v in other)} of {len(other)} others are positive"
    else:
        return False
    if flipped:
        settings["spending"] = "positive"
        said = "purchases positive: flipped (Lunch Money's amounts are positive for money out"
    else:
        said = "purchases negative, as ours (Lunch Money's export with debit_as_negative"
    facts.append(("sign", f"{said}: {why})"))
    return True


def sign_of_records(sample: list[dict], mapping: dict, settings: dict, facts: Facts) -> None:
    """``spending: positive`` where the records' amounts show purchases positive, as
    ``sign_of`` reads a CSV's; the finding either way."""
    source = {ours: theirs for theirs, ours in mapping.items()}
    amounts = [r.get(source.get("amount", "amount")) for r in sample]
    texts = [r.get(source.get("description", "description")) for r in sample]
    if not any(a is not None for a in amounts):
        return
    balances = [r.get(source.get("balance", "balance")) for r in sample]
    fees = any(r.get(source.get("fee", "fee")) is not None for r in sample)
    spending, why = sign_of(amounts, texts, balances=balances, fees=fees)
    if spending == "positive":
        settings["spending"] = "positive"
    sign = (
        "purchases positive: flipped" if spending == "positive" else "purchases negative, as ours"
    )
    facts.append(("sign", f"{sign} ({why})"))
