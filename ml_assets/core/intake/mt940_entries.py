"""One MT940 entry (a ``:61:`` line with its details, led by its statement's header lines)
read by the ``mt940`` library, with the options and processing steps that read statements as
banks mean them: SWIFT's :61: layout first, then ASN Bank's and one of any reference length;
an old Rabobank point as the decimal mark; Triodos' German sub-fields; the :86: details kept as
written. An entry the library cannot read gets an error naming the line it stopped at.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import logging
import re
from collections.abc import Iterator

from ml_assets.core.intake.records import SchemaError

# what the library raises for an entry it cannot read: that entry alone is quarantined
ENTRY_ERRORS = (RuntimeError, ValueError, KeyError, decimal.InvalidOperation)


def entry_error(where: str, err: Exception, entry: str = "") -> SchemaError:
    """The quarantine error of an entry (``entry``: its :61: line first) the library cannot
    read. Where it stopped at another line than the :61: (its RuntimeError carries the tag
    and the text), that line is named: a line of the statement's header, such as an opening
    balance without its mark. A :61: whose layout reads but whose date the calendar has not
    (month 13) is quoted, with the date named."""
    tag, value = (err.args[1], err.args[2]) if len(err.args) > 2 else (None, None)
    if tag is not None and str(getattr(tag, "id", "")) != "61":
        return SchemaError(
            f"{where}: MT940 entry not readable: the :{tag.id}: line it is read with "
            f"({tag.slug.replace('_', ' ')}) is not as SWIFT writes it: cannot parse "
            f"{value!r}; ask the bank for a corrected export",
            "bad_mt940",
        )
    line = entry.splitlines()[0].strip() if entry.strip() else ""
    if value is None and (impossible := _impossible_date(line)) is not None:
        return SchemaError(
            f"{where}: MT940 :61: line {line!r} not readable: {impossible}; fix the line or "
            "ask the bank for a corrected export",
            "bad_mt940",
        )
    if value is None:  # (raised with no text the layout failed on: the line says it)
        value = line or (err.args[0] if err.args else "")
    message = f"cannot parse {value!r}" if isinstance(value, str) else type(err).__name__
    return SchemaError(
        f"{where}: MT940 :61: line not readable: {message} (expected: value date YYMMDD, an "
        "optional entry date MMDD, C, D, RC or RD, the amount with a decimal comma, a type "
        "code such as NTRF, a reference)",
        "bad_mt940",
    )


# the :61: value date (YYMMDD) and optional entry date (MMDD) before the debit/credit mark
_ENTRY_DATES = re.compile(r":61:(\d\d)(\d\d)(\d\d)(?:(\d\d)(\d\d))?R?[CD]", re.IGNORECASE)


def _impossible_date(line: str) -> str | None:
    """Which date of a :61: line is no day of the calendar, and why; None where both are."""
    found = _ENTRY_DATES.match(line)
    if found is None:
        return None
    year, month, day, entry_month, entry_day = found.groups()
    dates = [("value date", f"{year}{month}{day}", "YYMMDD", 2000 + int(year), month, day)]
    if entry_month is not None:  # (its year unwritten: checked in a leap year, so 0229 reads)
        dates.append(
            ("entry date", f"{entry_month}{entry_day}", "MMDD", 2000, entry_month, entry_day)
        )
    for name, text, layout, full_year, month, day in dates:
        try:
            dt.date(full_year, int(month), int(day))
        except ValueError:
            why = (
                f"month {int(month)}"
                if not 1 <= int(month) <= 12
                else f"day {int(day)} of month {int(month)}"
            )
            return f"its {name} {text} ({layout}) is no calendar date ({why})"
    return None


# SWIFT's :61: amount has a decimal comma; old Rabobank files write a point (C000000043985.66
# NMSC, or 00000000348000. in yen), which the library would read as 43985, ".66" taken for
# the start of the reference
_MT940_POINT = re.compile(r"^(:61:\d{6}(?:\d{4})?R?[CD][A-Z]?\d+)\.", re.IGNORECASE)


def with_decimal_comma(block: str) -> str:
    """The entry with its :61: amount's decimal point, where it has one, as SWIFT's comma."""
    return _MT940_POINT.sub(r"\1,", block, count=1)


def parse_entry(text: str) -> tuple:
    """The statement and its one entry's data, read by SWIFT's :61: layout or, where that
    fails, by ASN Bank's (the library's opt-in ``StatementASNB``, as its own tests read ASN
    files: an IBAN as the reference, longer than SWIFT's 16 characters), or else with a
    reference of any length and supplementary details of any length on the next line (the
    library's ``StatementGLS``: SNS writes ``NCHGSupplementaryDetails2`` and a 39-character
    second line); each reads only what the one before could not."""
    import mt940

    asnb, long_reference = mt940.tags.StatementASNB(), mt940.tags.StatementGLS()
    errors = []
    for tags in (None, {asnb.id: asnb}, {long_reference.id: long_reference}):
        try:
            with _quiet("mt940"):  # it logs the pattern it failed on; the quarantine says it
                parsed = mt940.parse(
                    text, processors=_mt940_processors(), tags=tags, options=_mt940_options()
                )
            (transaction,) = parsed.transactions
        except ENTRY_ERRORS as err:
            errors.append(err)
            continue
        # ASN's pattern takes any letter before D or C; only SWIFT's marks sign an amount
        if transaction.data["status"].upper() in ("C", "D", "RC", "RD"):
            return parsed, transaction.data
    raise errors[0]  # SWIFT's layout fails first or returns: its complaint


def _mt940_options():
    """The parser's 5.x defaults keep its 5.0 output; these read statements as banks mean them:
    the ?31 sub-field is the other party's IBAN (not part of its name), a reversal of a credit
    (RC) is a debit, lowercase marks count, long :86: details are kept whole, and so are the
    :NS: lines without a sub-field number; an MT942's floor limit written with a blank mark
    (``:34F:EUR 0,00``, as FinTS writes it) gives the report's currency, which has no balance
    to give it."""
    import mt940

    return mt940.Options(
        applicant_iban=True,
        reversal_sign=True,
        case_insensitive_marks=True,
        unbounded_details=True,
        non_swift_free_text=True,
        floor_limit_blank_mark=True,
    )


def _mt940_processors() -> dict:
    """The library's reading of :86: with two steps of ours: Triodos writes the German
    sub-fields with ``>`` where others write ``?``; and the details as written are kept
    (``raw_details``), since the library files a purpose that has no ``SVWZ+`` under the
    reference before it (``mt940_details`` reads them)."""
    import mt940

    return {
        "pre_transaction_details": [_mt940_triodos_marks],
        "post_transaction_details": [
            _mt940_keep_details,  # first: the library's step deletes the text it read
            mt940.processors.transaction_details_post_processor,
        ],
    }


def _mt940_triodos_marks(transactions, tag, tag_dict: dict) -> dict:
    details = tag_dict["transaction_details"]
    if re.match(r"\d{3}>\d{2}", details):  # 000>10...>20...: the German layout
        tag_dict["transaction_details"] = re.sub(r">(\d{2})", r"?\1", details)
    return tag_dict


def _mt940_keep_details(transactions, tag, tag_dict: dict, result: dict) -> dict:
    return {**result, "raw_details": tag_dict["transaction_details"]}


@contextlib.contextmanager
def _quiet(logger: str) -> Iterator[None]:
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)
