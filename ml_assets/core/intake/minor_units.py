"""Amounts some APIs and apps write in the currency's minor unit: Monzo's pence (-399 for
£3.99), Starling's ``minorUnits``. ``raw_transactions.amount_unit: minor`` reads them as
whole numbers of that unit and divides by the currency's ISO 4217 exponent (2 for most, 0 for
the yen or the won, 3 for the dinars of Bahrain, Kuwait and others)."""

from __future__ import annotations

from ml_assets.core.intake.records import SchemaError

# ISO 4217 currencies whose minor unit is not a hundredth
_EXPONENT = {
    **dict.fromkeys(("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF",
                     "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
    "CLF": 4,
    "UYW": 4,
}  # fmt: skip
_AMOUNTS = ("amount", "debit", "credit", "balance")
# ISO 4217's numbers of the currencies an API may write as one (monobank's currencyCode 980)
_NUMBERS = {
    980: "UAH", 840: "USD", 978: "EUR", 826: "GBP", 985: "PLN", 203: "CZK", 348: "HUF",
    946: "RON", 975: "BGN", 756: "CHF", 752: "SEK", 578: "NOK", 208: "DKK", 949: "TRY",
    933: "BYN", 398: "KZT", 981: "GEL", 498: "MDL", 643: "RUB", 376: "ILS", 784: "AED",
    392: "JPY", 156: "CNY", 410: "KRW", 356: "INR", 124: "CAD", 36: "AUD", 554: "NZD",
    702: "SGD", 344: "HKD", 986: "BRL", 484: "MXN", 710: "ZAR", 764: "THB", 941: "RSD",
}  # fmt: skip


def currency_of_number(number: object) -> str | None:
    """The ISO 4217 letter code of a currency's number (980 -> "UAH"), or None."""
    if isinstance(number, bool) or not str(number).strip().isdigit():
        return None
    return _NUMBERS.get(int(str(number).strip()))


def exponent(currency: str | None) -> int:
    return _EXPONENT.get((currency or "USD").strip().upper(), 2)


def to_major_units(renamed: dict, where: str) -> None:
    """The row's amounts (in our names) from minor units to the currency's major unit, in
    place; a value that is not a whole number of minor units raises, naming the field."""
    scale = 10 ** exponent(renamed.get("currency"))
    for field in _AMOUNTS:
        value = renamed.get(field)
        if value is None or value == "":
            continue
        text = str(value).strip()
        whole = isinstance(value, int) and not isinstance(value, bool)
        if isinstance(value, float) and value.is_integer():
            value, whole = int(value), True
        elif isinstance(value, str) and text.lstrip("+-").isdigit():
            value, whole = int(text), True
        if not whole:
            raise SchemaError(
                f"{where}: field {field!r} {renamed[field]!r} is not a whole number of minor "
                "units; raw_transactions.amount_unit: minor reads amounts such as -399 for "
                "-3.99 (set it to major for this file if it writes decimals)",
                "bad_amount",
                field,
            )
        renamed[field] = value / scale
