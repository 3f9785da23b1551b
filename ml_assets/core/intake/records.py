"""One record: the raw schema every source is converted to, the error a bad row or file
raises, validating and coercing a record, and the id derived for a row the bank gave none.
Every export reader shares these."""

from __future__ import annotations

import datetime as dt
import decimal
import gzip
import hashlib
import json
import math
import re
import unicodedata
from pathlib import Path
from typing import BinaryIO

import polars as pl

from ml_assets.core.intake.times_of_day import day_format, split_time

# The raw form every source is converted to (and the JSONL that raw_transactions writes).
RAW_SCHEMA: dict[str, pl.DataType] = {
    "transaction_id": pl.Utf8(),
    "account_id": pl.Utf8(),
    "posted_date": pl.Utf8(),
    "amount": pl.Float64(),
    "currency": pl.Utf8(),
    "description": pl.Utf8(),
    "merchant": pl.Utf8(),  # optional: a merchant name from the bank or an enrichment provider
    "category": pl.Utf8(),
    "transaction_type": pl.Utf8(),
}
REQUIRED = ("transaction_id", "posted_date", "amount", "description")
OPTIONAL_DEFAULTS = {
    "merchant": None,
    "account_id": None,
    "currency": "USD",
    "category": None,
    "transaction_type": None,
}
RAW_PREVIEW_CHARS = 2000  # a quarantined row keeps this much of its raw text (1 MB rows exist)


class SchemaError(ValueError):
    """A record does not fit the raw schema; the message names file, line and field.

    ``reason`` is a short code for the quarantine report (e.g. ``bad_date``)."""

    def __init__(self, message: str, reason: str = "invalid", field: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.field = field


def open_binary(path: Path) -> BinaryIO:
    """Plain or gzip-compressed (by the .gz suffix), read as bytes."""
    return gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb")  # noqa: SIM115


def file_head(path: Path, size: int = 4096) -> bytes:
    """A file's first ``size`` bytes (b"" where it cannot be read): what tells its format."""
    try:
        with open_binary(path) as handle:
            return handle.read(size)
    except (OSError, EOFError):
        return b""


def parse_amount(value: object, where: str, field: str = "amount") -> float:
    """A finite float from a number (a ``Decimal`` too) or a string such as ``$1,234.50`` or
    ``(12.00)`` (accounting negative), a zero never negative; ``field`` names the column in
    the error."""
    amount = value
    if isinstance(value, str):
        cleaned = value.replace(",", "").replace("$", "").strip()
        if cleaned.startswith("(") and cleaned.endswith(")"):
            cleaned = "-" + cleaned[1:-1]
        try:
            amount = float(cleaned)
        except ValueError as err:
            raise SchemaError(
                f"{where}: field {field!r} is not a number: {value!r}", "bad_amount", "amount"
            ) from err
    if isinstance(amount, decimal.Decimal):  # a warehouse's NUMERIC / decimal128 column
        amount = float(amount)
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
        raise SchemaError(
            f"{where}: field {field!r} must be a finite number, got {value!r}",
            "bad_amount",
            "amount",
        )
    return float(amount) + 0.0  # (a zero has no sign: a flipped or "-0.00" zero reads 0.0)


DERIVED_ID_PREFIX = "d-"  # derived ids are recognizable in the data and in quarantine reports
TRANSACTION_IDS = ("auto", "column", "derived")


def derived_id(row: dict, occurrence: int) -> str:
    """A stable id for a row the bank gave none: sha256 of account, day, amount in cents and
    the whitespace-collapsed, upper-cased description, plus the row's occurrence number among
    identical rows of the same account and day in its file (0 for the first)."""
    key = identity_key(row)
    digest = hashlib.sha256(json.dumps([*key, occurrence]).encode()).hexdigest()
    return DERIVED_ID_PREFIX + digest[:24]


def identity_key(row: dict) -> tuple[str, str, int, str]:
    description = " ".join(str(row["description"]).split()).upper()
    cents = round(float(row["amount"]) * 100)
    return (row.get("account_id") or "", row["posted_date"], cents, description)


def coerce_record(
    record: dict,
    where: str,
    date_format: str | None,
    max_description_chars: int | None = None,
    column_map: dict[str, str] | None = None,
    original: dict | None = None,
) -> dict:
    """Validate one record (already renamed to our column names) and coerce its types.
    ``column_map`` and the ``original`` record only make error messages name the source."""
    for name in REQUIRED:
        value = record.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise SchemaError(
                f"{where}: required field {name!r} is "
                f"{'empty' if name in record else 'missing'}"
                f"{_missing_hint(name, record, column_map, original)}",
                "missing_field",
                name,
            )
    out = {name: record.get(name, OPTIONAL_DEFAULTS.get(name)) for name in RAW_SCHEMA}
    out["transaction_id"] = str(out["transaction_id"])
    out["account_id"] = None if out["account_id"] is None else str(out["account_id"])
    out["amount"] = parse_amount(out["amount"], where)
    out["posted_date"] = _parse_date(out["posted_date"], where, date_format)
    if not isinstance(out["description"], str):
        raise SchemaError(
            f"{where}: field 'description' must be a string, got {type(out['description']).__name__}",
            "bad_type",
            "description",
        )
    if max_description_chars and len(out["description"]) > max_description_chars:
        raise SchemaError(
            f"{where}: field 'description' has {len(out['description'])} characters "
            f"(limit {max_description_chars}, raw_transactions.max_description_chars)",
            "description_too_long",
            "description",
        )
    currency = out["currency"] or "USD"
    if isinstance(currency, str):  # (an alias first: "人民币" is CNY)
        currency = iso_currency(currency)
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isalpha()):
        raise SchemaError(
            f"{where}: field 'currency' must be a 3-letter ISO code, got {currency!r}",
            "bad_currency",
            "currency",
        )
    out["currency"] = currency
    for label in ("merchant", "category", "transaction_type"):
        if out[label] is not None and not isinstance(out[label], str):
            raise SchemaError(
                f"{where}: field {label!r} must be a string or null", "bad_type", label
            )
        if isinstance(out[label], str) and not out[label].strip():
            out[label] = None
    return out


def _missing_hint(
    name: str, record: dict, column_map: dict[str, str] | None, original: dict | None
) -> str:
    """For a field that is not there at all: the mapped source column and the keys found; a
    statement format's record (``column_map`` None) lacks it in the file itself. For a blank
    description: the columns it is made of, and why the row is not kept without it."""
    if name in record:
        if name != "description" or not column_map:
            return ""
        sources = [src for src, ours in column_map.items() if ours == name]
        blank = f" ({', '.join(map(repr, sources))} blank on this line)" if sources else ""
        return f"{blank}: a row without text has nothing to categorize"
    if column_map is None:
        return "; the file's record has none: fix or remove the record in the file"
    sources = [src for src, ours in column_map.items() if ours == name]
    mapped = f" (column_map maps {sources[0]!r} -> {name!r})" if sources else ""
    found = sorted(original or record)
    return f"{mapped}; the record has {found}; fix raw_transactions.column_map or csv_preset"


# ISO 4217's current codes (list one, with its funds and precious metals)
ISO_4217 = frozenset(
    """AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD
    BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD
    EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR
    ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD
    MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR
    PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL
    THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF
    XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG ZWL""".split()  # noqa: SIM905 - a table of codes
)
# withdrawn codes an old statement rightly writes (ISO 4217 list three): the euro's
# predecessors and others replaced since; kept as written, the rows' money was in them
WITHDRAWN_CURRENCIES = frozenset(
    """ATS BEF CYP DEM EEK ESP FIM FRF GRD HRK IEP ITL LTL LUF LVL MTL NLG PTE SIT SKK BYR MRO
    STD VEF ZMK GHC ROL TRL""".split()  # noqa: SIM905
)
# names banks still write for a current currency, which ISO 4217 calls by another code: the
# renminbi's "RMB", the rouble's pre-1998 "RUR", the Turkish lira's "YTL" of 2005-2008, and
# the Chinese names Chinese banks write in a currency column (BOC's "币别": 人民币)
CURRENCY_ALIASES = {
    "RMB": "CNY", "RUR": "RUB", "YTL": "TRY",
    "人民币": "CNY", "港币": "HKD", "港元": "HKD", "美元": "USD", "欧元": "EUR", "日元": "JPY",
    "英镑": "GBP",
}  # fmt: skip


def iso_currency(code: str) -> str:
    """The ISO 4217 code of a currency code as a bank writes it (upper-cased, an alias
    replaced: "rmb" -> "CNY")."""
    upper = code.strip().upper()
    return CURRENCY_ALIASES.get(upper, upper)


def currency_note(code: str) -> str | None:
    """What to tell of a currency code the rows keep, or None for a current ISO 4217 code."""
    upper = code.strip().upper()
    if upper in CURRENCY_ALIASES:
        return f"{upper} is read as {CURRENCY_ALIASES[upper]}, its ISO 4217 code"
    if upper in WITHDRAWN_CURRENCIES:
        return f"{upper} is a withdrawn ISO 4217 code, kept as written"
    if upper in ISO_4217:
        return None
    return (
        f"{upper} is no ISO 4217 code: the rows keep it; set raw_transactions.currency (or map "
        "another column to currency) if the file means another"
    )


# a date in ISO's basic format with a time the value marks as one: a "T", a fraction of a
# second or OFX's bracketed zone ("20240102T0830", "20091224120000[0:GMT]"); the digits alone
# ("2024010100000001") are a transaction number
_BASIC_DATE_TIME = re.compile(r"(\d{8})(?:T\d{4,6}|\d{6}\.\d+|\d{4,6}(?:\.\d+)?\[[^\]]*\])")


def iso_date(text: str) -> dt.date | None:
    """The date an ISO value is, or None: "2024-01-02", "2024-01-02 08:30:00" or
    "2024-01-02T08:30+01:00" (a date, then a time), the eight digits "20240102", or those
    with a marked time (see _BASIC_DATE_TIME). The whole value is the date: a transaction
    number's first digits ("2024010100000001") are none."""
    text = text.strip()
    if basic := _BASIC_DATE_TIME.fullmatch(text):
        text = basic.group(1)
    if text.isdigit() and len(text) != 8:
        return None
    rest = text[10:]
    if rest and not (rest[0] in "T " and rest[1:2].isdigit()):
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


# month names and abbreviations of the main European languages (it, fr, de, es, pt, nl,
# sv/da/no, pl, cs, then ro, hu; Polish and Czech also in the genitive a date writes), accents dropped,
# by month: strftime's %b and %B read English alone ("24 lug 2024" is Satispay's July 24th)
_MONTH_WORDS = (
    "gen gennaio janv janvier jan januar jaen jaenner ene enero janeiro januari sty styczen "
    "stycznia led leden ledna",
    "febbraio fevr fev fevrier februar feb febrero fevereiro februari lut luty lutego uno unor "
    "unora",
    "marzo mars mar maerz marz mrz marco maart marts marzec marca bre brezen brezna",
    "aprile avr avril apr april abr abril kwi kwiecien kwietnia dub duben dubna",
    "mag maggio mai mayo may maio mei maj maja kve kveten kvetna",
    "giu giugno juin jun juni junio junho cze czerwiec czerwca cvn cerven cervna",
    "lug luglio juil juillet jul juli julio julho lip lipiec lipca cvc cervenec cervence",
    "ago agosto aout aou aug august augustus augusti sie sierpien sierpnia srp srpen srpna",
    "set settembre sept septembre sep september septiembre setembro wrz wrzesien wrzesnia zar zari",
    "ott ottobre oct octobre okt oktober octubre out outubro paz pazdziernik pazdziernika rij "
    "rijen rijna",
    "nov novembre november noviembre novembro lis listopad listopada listopadu",
    "dic dicembre dec decembre dez dezember diciembre dezembro december des desember gru "
    "grudzien grudnia pro prosinec prosince",
)
# Romanian's and Hungarian's (ING Romania's "31 iulie 2021")
_MONTH_WORDS_EAST = (
    "ian ianuarie", "februarie febr", "martie marc marcius", "aprilie aprilis", "majus",
    "iun iunie junius", "iul iulie julius", "augusztus", "septembrie szept szeptember",
    "octombrie", "noi noiembrie", "decembrie",
)  # fmt: skip
_MONTHS = {
    word: month
    for table in (_MONTH_WORDS, _MONTH_WORDS_EAST)
    for month, words in enumerate(table, 1)
    for word in words.split()
}
# English's own too, both ways: a file whose first dates all fall in "May" tells no %b from
# %B, and its later "Mar" or "March" must read whichever was chosen
_MONTHS |= {dt.date(2000, m, 1).strftime(f).lower(): m for m in range(1, 13) for f in ("%b", "%B")}


def _unaccented(word: str) -> str:
    text = unicodedata.normalize("NFKD", word.lower().replace("ä", "ae"))
    return "".join(c for c in text if not unicodedata.combining(c))


def english_months(text: str, full: bool = False) -> str:
    """``text`` with its month words written in English as strftime's %b reads them ("24 lug
    2024" and "24 July 2024" -> "24 Jul 2024"), or as %B does where ``full``; other words
    unchanged."""

    def english(found: re.Match) -> str:
        month = _MONTHS.get(_unaccented(found.group()))
        if month is None:
            return found.group()
        return dt.date(2000, month, 1).strftime("%B" if full else "%b")

    return re.sub(r"[^\W\d_]+", english, text)


def parse_date_text(text: str, date_format: str) -> dt.datetime:
    """``text`` read with ``date_format`` (strptime), its month words in another language read
    where the format has a month's name (%b, %B); raises ValueError as strptime does. A time
    of day after the date reads whether the format writes one or not (one column may write
    it on some rows alone: see times_of_day); a date without one is at midnight."""
    if "%b" in date_format or "%B" in date_format:
        text = english_months(text, full="%B" in date_format)
    try:
        return dt.datetime.strptime(text, date_format)
    except ValueError:
        if ":" not in text and ":" not in date_format:  # (no time of day on either side)
            raise
        day_text, time = split_time(text)
        day_only = day_format(date_format)
        if (day_text, day_only) == (text, date_format):
            raise
        day = dt.datetime.strptime(day_text, day_only).date()
        return dt.datetime.combine(day, time or dt.time())


def _parse_date(value: object, where: str, date_format: str | None) -> str:
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip()
    if date_format and not re.search(r"%[YyG]", date_format):
        raise SchemaError(
            f"{where}: date_format {date_format!r} reads no year, so {text!r} would be dated "
            "1900: no setting gives dates that write none a year; load an export whose dates "
            "write it",
            "bad_date",
            "posted_date",
        )
    try:
        if date_format:
            return parse_date_text(text, date_format).date().isoformat()
        day = iso_date(text)
        if day is None:
            raise ValueError(text)
        return day.isoformat()
    except ValueError as err:
        hint = (
            f"format {date_format!r}"
            if date_format
            else "ISO YYYY-MM-DD (set raw_transactions.date_format otherwise)"
        )
        raise SchemaError(
            f"{where}: field 'posted_date' {text!r} is not a date in {hint}",
            "bad_date",
            "posted_date",
        ) from err


def read_validated_jsonl(path: Path) -> pl.DataFrame:
    """Read JSONL that ``raw_transactions`` wrote (already validated, sha256-verified) in one
    vectorized pass. The row count is checked against the file's lines, so a reader that
    stopped early can never lose rows silently."""
    frame = pl.read_ndjson(path, schema=RAW_SCHEMA)
    with open(path, "rb") as handle:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 24), b""))
    if frame.height != lines:
        raise SchemaError(
            f"{path}: read {frame.height} rows from {lines} lines; the file is not ours"
        )
    return frame
