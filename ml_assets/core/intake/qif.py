"""Quicken Interchange Format (QIF), as Quicken, Microsoft Money and many banks' "download for
Quicken" buttons write it: ``!Type:Bank`` (or CCard, Cash, Oth A, Oth L) and records of one
field per line (D date, T amount, P payee, M memo, L category, N number, C cleared, A address,
S/E/$ split lines), each ended by ``^``; ``!Account`` blocks name the account that follows.

``!Type:Invst`` (a brokerage account) is read by what its records do to the account's cash:
a Buy, Sell, dividend, interest, fee or transfer in or out is a row, described by its action
and security ("Buy ACME"); a record that moves shares only (ShrsIn, a reinvested dividend, a
split) or whose cash is another account's (BuyX pays from the ``L[Checking]`` account, whose
own export holds that payment) is counted, not a row (``qif_investments``).

Read by this small parser rather than a library: quiffen, the maintained QIF package on PyPI
(4.0), deletes every character of an amount but digits, "." and "-" (so "1.234,56" becomes
1.23456 and "12,50" 1250, silently), parses dates with dateutil's guessing parser (which fills
a missing year or day from today's date instead of failing), and stops the whole file at the
first bad record without a line number. Here each record is read on its own with its line; a
bad one is quarantined and the next is read. Amounts go through the CSV path's decimal
handling; dates (``qif_dates``) are month-first as Quicken (US) writes them ("1/ 5'26": the
apostrophe marks a year 2000+) unless the file's own dates show day-first (a day above 12 in
the first place), or year-first (two-digit years, "13/08/15", where some date reads no other
way and every date reads that way), or ``date_format`` says. A three-digit year counts from
1900 ("099" is 1999), and text after a date that starts with a letter is not read as part of
it.

Quicken opens each account with a record of its opening balance: payee "Opening Balance",
its category the account itself (``L[Checking]`` under ``!Account`` "Checking"). It is the
account's balance before its first transaction, no transaction: counted, not a row, and kept
as the file's opening balance.

Ids are derived (QIF has none; ``N`` is a check number). ``L`` is the category label, unless
it names a transfer account (``[Savings]``). The text is the payee and the memo; a record with
neither (a transfer, a quick cash entry) is described as "Transfer [Savings]" or by its
address lines, never by its category (see ``_undescribed``). Lists of categories, classes, memorized
transactions are not bank transactions: they are counted, not rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.amount_text import normalize_amount, sniff_decimal
from ml_assets.core.intake.qif_dates import (
    bad_date_error,
    date_warnings,
    qif_date,
    reading_order,
)
from ml_assets.core.intake.qif_investments import counted_investment, investment_row
from ml_assets.core.intake.qif_records import QifRecord, qif_records
from ml_assets.core.intake.records import SchemaError, open_binary
from ml_assets.core.intake.statements import Balance

Row = tuple[int, dict | SchemaError, bytes]
TRANSACTION_SECTIONS = ("type:bank", "type:ccard", "type:cash", "type:oth a", "type:oth l")
INVESTMENT_SECTION = "type:invst"


def iter_qif(
    path: Path,
    encoding: str = "utf-8-sig",
    date_format: str | None = None,
    decimal: str = "auto",
    skipped: list[tuple[int, str]] | None = None,
    warnings: list[str] | None = None,
    balances: list[Balance] | None = None,
) -> Iterator[Row]:
    """(line, record in our names or the error, raw bytes) per transaction record; records
    of other sections, investment records that move no cash of the account's and accounts'
    opening balances go to ``skipped`` as (line, what they are), the opening balances also
    to ``balances``. A file whose every date reads both ways is read month-first, with a
    warning in ``warnings``; one read year-first says so there too."""
    records = _transaction_records(path, encoding, skipped)
    dates = [d[1] for r in records if (d := r.first("D"))]
    order = reading_order(dates)
    if warnings is not None and date_format is None and dates:
        warnings += date_warnings(path, dates, order)
    if decimal == "auto":
        amounts = [a[1] for r in records if (a := r.first("T") or r.first("U"))]
        decimal, _ = sniff_decimal(amounts)
    for record in records:
        if _opening_balance(record):
            if skipped is not None:
                skipped.append((record.line, "opening balance"))
            amount = _amount(path, record, decimal)
            if balances is not None and isinstance(amount, str):
                balances.append(Balance("opening", float(amount), record.line))
            continue
        if record.section == INVESTMENT_SECTION:
            counted = counted_investment(record)
            if counted is not None:
                if skipped is not None:
                    skipped.append((record.line, counted))
                continue
        yield record.line, _transaction(path, record, order, date_format, decimal), record.raw()


def _opening_balance(record: QifRecord) -> bool:
    """Whether a record is Quicken's opening balance of its account: payee "Opening Balance"
    and the category the account's own name in brackets (where no ``!Account`` names the
    account, any bracketed one: Quicken writes its own there)."""
    payee, category = record.first("P"), record.first("L")
    if payee is None or category is None or payee[1].strip().lower() != "opening balance":
        return False
    label = category[1].strip()
    if not (label.startswith("[") and label.endswith("]")):
        return False
    return record.account is None or label[1:-1].strip() == record.account


def _amount(path: Path, record: QifRecord, decimal: str) -> object:
    """The record's T (else U) amount as plain text ("-1234.56"), the error where it does
    not read, None where it has none."""
    found = record.first("T") or record.first("U")
    if found is None:
        return None
    line, value = found
    try:
        return normalize_amount(value, decimal, f"{path}:{line}")
    except SchemaError as err:
        return err


def _is_transaction(record: QifRecord, skipped: list[tuple[int, str]] | None) -> bool:
    if record.section in TRANSACTION_SECTIONS or record.section == INVESTMENT_SECTION:
        return True
    if skipped is not None:
        skipped.append((record.line, f"QIF !{record.section} record"))
    return False


def _transaction(
    path: Path, record: QifRecord, order: str, date_format: str | None, decimal: str
) -> dict | SchemaError:
    text = "\n".join(v for _, _, v in record.fields)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return SchemaError(
            f"{path}:{record.line}: not valid UTF-8 (set raw_transactions.encoding, e.g. "
            "cp1252, as Quicken for Windows writes)",
            "invalid_utf8",
        )
    out: dict = {"account_id": record.account}
    if found := record.first("D"):
        line, value = found
        try:
            out["posted_date"] = qif_date(value, order, date_format).isoformat()
        except ValueError:
            return bad_date_error(path, line, value, order, date_format)
    amount = _amount(path, record, decimal)
    if isinstance(amount, SchemaError):
        return amount
    if amount is not None:
        out["amount"] = amount
    payee, memo = (record.first(c) for c in ("P", "M"))
    words = [f[1].strip() for f in (payee, memo) if f and f[1].strip()]
    category = record.first("L")
    label = category[1].strip() if category else ""
    if label and not label.startswith("["):
        out["category"] = label
    out["description"] = " ".join(words) or None
    if record.section == INVESTMENT_SECTION:
        return investment_row(path, record, out)
    if out["description"] is None:
        return _undescribed(path, record, out, label)
    return out


def _undescribed(path: Path, record: QifRecord, out: dict, label: str) -> dict | SchemaError:
    """A record with no payee or memo (Quicken writes transfers and quick cash entries so),
    described by what else it has. Its ``L`` category is its label, the answer the model is
    trained to give: the label never becomes its text too, or the model would read it back.
    A transfer has no label (its ``L[My Cc]`` names an account), so it is described by it:
    "Transfer [My Cc]"; any other record by its address lines (``A``); with none of them,
    it stays quarantined, saying why."""
    if label.startswith("["):
        out["description"] = f"Transfer {label}"
        return out
    address = [v.strip() for _, code, v in record.fields if code == "A" and v.strip()]
    if address:
        out["description"] = " ".join(address)
        return out
    if not label:
        return out  # (the load names the missing description)
    return SchemaError(
        f"{path}:{record.line}: required field 'description' is empty: the record has no "
        f"payee (P), memo (M) or address (A), only its category (L {label!r}), which is its "
        "label and is not read as its text too; add a payee or memo in Quicken and export "
        "again",
        "missing_field",
        "description",
    )


def _transaction_records(
    path: Path, encoding: str, skipped: list[tuple[int, str]] | None = None
) -> list[QifRecord]:
    with open_binary(path) as handle:
        text = handle.read().decode(encoding, errors="surrogateescape")
    return [r for r in qif_records(text) if _is_transaction(r, skipped)]


def file_dates(path: Path, encoding: str) -> list[str]:
    """The D fields of a file's transactions, as written."""
    return [d[1] for r in _transaction_records(path, encoding) if (d := r.first("D"))]


def file_amounts(path: Path, encoding: str) -> list[str]:
    """The T (else U) fields of a file's transactions, as written."""
    records = _transaction_records(path, encoding)
    return [a[1] for r in records if (a := r.first("T") or r.first("U"))]
