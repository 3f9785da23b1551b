"""Statement formats banks export, read by the field's libraries: OFX/QFX (``ofxtools``),
ISO 20022 CAMT.053 (``pycamt``) and SWIFT MT940 (``mt940``).

Each reader yields (line, record in our column names or the SchemaError, raw bytes) per
transaction, like the JSONL and CSV readers: one bad transaction is quarantined with its line
and the rest are read. A file the library cannot read at all is one quarantined row
(``unreadable_file``) naming the file and, where the library says, the line.

Ids: OFX's ``FITID``; CAMT.053's entry reference (``AcctSvcrRef``, with the detail's
``EndToEndId`` or position when an entry is split into details); MT940 has no reliable id, so
its rows get derived ids (see ingest). Amounts are signed as ours: debits negative.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.mt940_details import entry_text
from ml_assets.core.intake.records import SchemaError, open_binary

Row = tuple[int, dict | SchemaError, bytes]
_OFX_FIELDS = {  # OFX element -> our field, for errors
    "fitid": "transaction_id",
    "dtposted": "posted_date",
    "trnamt": "amount",
    "name": "description",
}


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _unreadable(path: Path, err: Exception, line: int, data: bytes) -> Row:
    return (
        line,
        SchemaError(
            f"{path}:{line}: not a readable {path.suffix.lstrip('.').upper() or 'statement'} "
            f"file ({type(err).__name__}: {err}); re-download it from the bank",
            "unreadable_file",
        ),
        data[:2000],
    )


# --- OFX / QFX ---------------------------------------------------------------------------


def iter_ofx(path: Path) -> Iterator[Row]:
    """STMTTRN aggregates of every bank and card statement in the file. The day is the
    bank's calendar day as written (ofxtools converts to UTC, which can move late postings)."""
    from ofxtools.models.base import Aggregate
    from ofxtools.Parser import OFXTree

    with open_binary(path) as handle:
        data = handle.read()
    text = data.decode("latin-1")  # offsets only; ofxtools decodes by the header's charset
    tree = OFXTree()
    try:
        tree.parse(io.BytesIO(data))
    except Exception as err:  # noqa: BLE001 - any parser failure is this file's quarantine row
        position = re.search(r"position=\[(\d+)", str(err))
        line = _line_of(text, int(position.group(1))) if position else 1
        yield _unreadable(path, err, line, data)
        return
    offsets = [m.start() for m in re.finditer(r"<STMTTRN>", text, flags=re.IGNORECASE)]
    for index, (element, account, currency) in enumerate(_ofx_transactions(tree.getroot())):
        start = offsets[index] if index < len(offsets) else 0
        end = text.find("</STMTTRN>", start)
        raw = text[start : end + 10 if end >= 0 else start + 2000].encode("latin-1")
        line = _line_of(text, start)
        where = f"{path}:{line}"
        if element.find("FITID") is None or not (element.findtext("FITID") or "").strip():
            yield (
                line,
                SchemaError(
                    f"{where}: required field 'transaction_id' (OFX <FITID>) is missing",
                    "missing_field",
                    "transaction_id",
                ),
                raw,
            )
            continue
        try:
            model = Aggregate.from_etree(element)
        except (ValueError, TypeError, KeyError, IndexError, decimal.InvalidOperation) as err:
            yield line, _ofx_error(where, err, element), raw
            continue
        posted = (element.findtext("DTPOSTED") or "").strip()[:8]
        yield (
            line,
            {
                # FITID is unique within its account only (OFX 2.2, 3.2.1): one file or folder
                # can hold a checking and a card statement numbering their entries alike
                "transaction_id": f"{account}:{model.fitid}" if account else model.fitid,
                "account_id": account,
                "posted_date": dt.datetime.strptime(posted, "%Y%m%d").date(),
                "amount": float(model.trnamt),
                "currency": currency,
                "description": " ".join(p for p in (model.name, model.memo) if p) or None,
            },
            raw,
        )


def _ofx_transactions(root) -> Iterator[tuple[object, str | None, str | None]]:
    """(STMTTRN element, account id, currency) in document order."""
    for statement in root.iter():
        if statement.tag not in ("STMTRS", "CCSTMTRS"):
            continue
        account = statement.findtext("BANKACCTFROM/ACCTID") or statement.findtext(
            "CCACCTFROM/ACCTID"
        )
        currency = statement.findtext("CURDEF")
        for element in statement.iter("STMTTRN"):
            yield element, account, currency


def _ofx_error(where: str, err: Exception, transaction) -> SchemaError:
    """The library's complaint as our reason and field, naming the element and its value."""
    if isinstance(err, decimal.InvalidOperation):
        value = transaction.findtext("TRNAMT")
        return SchemaError(
            f"{where}: OFX <TRNAMT> {value!r} is not a number", "bad_amount", "amount"
        )
    found = re.search(r"STMTTRN\.(\w+)", str(err))
    name = found.group(1) if found else None
    ours = _OFX_FIELDS.get(name or "")
    if ours == "posted_date":
        value = transaction.findtext("DTPOSTED")
        return SchemaError(
            f"{where}: OFX <DTPOSTED> {value!r} is not a date (YYYYMMDD[HHMMSS])",
            "bad_date",
            ours,
        )
    reason = "bad_amount" if ours == "amount" else "bad_ofx_field"
    return SchemaError(f"{where}: OFX <{(name or '?').upper()}>: {err}", reason, ours)


# --- ISO 20022 CAMT.053 --------------------------------------------------------------------


def iter_camt053(path: Path) -> Iterator[Row]:
    """Entries (``Ntry``) of every statement; an entry split into transaction details is one
    row per detail. Booking date is the day; value date when a bank leaves it out."""
    from lxml import etree
    from pycamt.parser import Camt053ParseError, Camt053Parser

    with open_binary(path) as handle:
        data = handle.read()
    try:
        parser = Camt053Parser(data)
        statements = parser._find_statements_or_reports()
    except (etree.XMLSyntaxError, Camt053ParseError, ValueError) as err:
        yield _unreadable(path, err, getattr(err, "lineno", None) or 1, data)
        return
    for statement in statements:
        for entry in statement.findall(".//Ntry", parser.namespaces):
            line = entry.sourceline or 1
            raw = etree.tostring(entry)
            details = parser._extract_transaction(entry, statement)
            for position, detail in enumerate(details):
                yield line, _camt_record(detail, position, len(details)), raw


def _camt_record(detail: dict, position: int, count: int) -> dict:
    reference = detail.get("TransactionID")
    if reference and count > 1:
        reference = f"{reference}/{detail.get('EndToEndId') or position}"
    amount: float | str | None = detail.get("Amount")
    if amount is not None:
        try:
            amount = float(amount)
        except ValueError:
            pass  # left as text: coercion quarantines it as bad_amount, naming the value
        else:
            amount = -amount if detail.get("CreditDebitIndicator") == "DBIT" else amount
    debit = detail.get("CreditDebitIndicator") == "DBIT"
    party = detail.get("CreditorName") if debit else detail.get("DebtorName")
    text = detail.get("RemittanceInformationFull") or detail.get("AdditionalEntryInformation")
    record = {
        "account_id": detail.get("AccountIBAN"),
        "posted_date": detail.get("BookingDate") or detail.get("ValueDate"),
        "amount": amount,
        "currency": detail.get("Currency"),
        "description": " ".join(p for p in (party, text) if p) or None,
        "merchant": party,
    }
    if reference:
        record["transaction_id"] = reference
    return record


# --- SWIFT MT940 ---------------------------------------------------------------------------

_MT940_STATEMENT_END = (":62", ":64:", ":65:", ":20:", "-")


def iter_mt940(path: Path, encoding: str = "latin-1") -> Iterator[Row]:
    """Each ``:61:`` statement line with its ``:86:`` details, parsed by ``mt940`` on its own
    (with its statement's header) so one bad line is quarantined instead of failing the file.
    The day is the entry (booking) date, the value date when there is none."""
    import mt940

    with open_binary(path) as handle:
        text = handle.read().decode(encoding)
    for line, header, block in _mt940_blocks(text):
        raw = block.encode(encoding, errors="replace")
        try:
            with _quiet("mt940"):  # it logs the pattern it failed on; the quarantine says it
                parsed = mt940.parse(header + block, options=_mt940_options())
            (transaction,) = parsed.transactions
            data = transaction.data
            amount, currency = float(data["amount"].amount), data["amount"].currency
        except (RuntimeError, ValueError, KeyError, decimal.InvalidOperation) as err:
            value = err.args[2] if len(err.args) > 2 else (err.args[0] if err.args else "")
            message = f"cannot parse {value!r}" if isinstance(value, str) else type(err).__name__
            yield (
                line,
                SchemaError(f"{path}:{line}: MT940 :61: line not readable: {message}", "bad_mt940"),
                raw,
            )
            continue
        yield (
            line,
            {
                "account_id": parsed.data.get("account_identification"),
                "posted_date": data.get("entry_date") or data.get("date"),
                "amount": amount,
                "currency": currency,
                **entry_text(data),
            },
            raw,
        )


def _mt940_options():
    """The parser's 5.x defaults keep its 5.0 output; these read statements as banks mean them:
    the ?31 sub-field is the other party's IBAN (not part of its name), a reversal of a credit
    (RC) is a debit, lowercase marks count, and long :86: details are kept whole."""
    import mt940

    return mt940.Options(
        applicant_iban=True, reversal_sign=True, case_insensitive_marks=True, unbounded_details=True
    )


@contextlib.contextmanager
def _quiet(logger: str) -> Iterator[None]:
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def _mt940_blocks(text: str) -> Iterator[tuple[int, str, str]]:
    """(line of the :61:, its statement's header lines, the :61: and its detail lines)."""
    header: list[str] = []
    block: list[str] = []
    start = 0
    in_header = False

    def flush() -> Iterator[tuple[int, str, str]]:
        if block:
            yield start, "\n".join(header) + "\n", "\n".join(block) + "\n"
            block.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(":20:"):
            yield from flush()
            header, in_header = [line], True
        elif line.startswith(":61:"):
            yield from flush()
            in_header, start = False, number
            block.append(line)
        elif line.startswith(_MT940_STATEMENT_END):
            yield from flush()
            in_header = False
        elif in_header:
            header.append(line)
        elif block:
            block.append(line)
    yield from flush()
