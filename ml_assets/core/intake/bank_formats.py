"""Statement formats banks export, read by the field's libraries: OFX/QFX (``ofxtools``) and
SWIFT MT940 (``mt940``) here, ISO 20022 CAMT.053 (``pycamt``) in ``camt053.py``.

Each reader yields (line, record in our column names or the SchemaError, raw bytes) per
transaction, like the JSONL and CSV readers: one bad transaction is quarantined with its line
and the rest are read. A file the library cannot read at all is one quarantined row
(``unreadable_file``) naming the file and, where the library says, the line. A file cut off
mid-download (an OFX without ``</OFX>``, an MT940 whose last entry no closing balance follows)
keeps the entries before the cut and quarantines one ``truncated_file`` row in place of the rest.

Ids: OFX's ``FITID``; MT940 has no reliable id, so its rows get derived ids (see ingest).
Amounts are signed as ours: debits negative.
"""

from __future__ import annotations

import bisect
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
from ml_assets.core.intake.statements import balance_gap

Row = tuple[int, dict | SchemaError, bytes]
_OFX_FIELDS = {  # OFX element -> our field, for errors
    "fitid": "transaction_id",
    "dtposted": "posted_date",
    "trnamt": "amount",
    "name": "description",
}


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def unreadable_file(path: Path, err: Exception, line: int, data: bytes) -> Row:
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
    # ofxtools reads a file cut off mid-download as if it ended there: every OFX closes </OFX>
    truncated = not re.search(r"</OFX\s*>", text, flags=re.IGNORECASE)
    tree = OFXTree()
    try:
        # a byte-order mark or blank lines before the header are no part of OFX: skipped
        tree.parse(io.BytesIO(data.removeprefix(b"\xef\xbb\xbf").lstrip()))
    except Exception as err:  # noqa: BLE001 - any parser failure is this file's quarantine row
        position = re.search(r"position=\[(\d+)", str(err))
        line = _line_of(text, int(position.group(1))) if position else 1
        yield unreadable_file(path, err, line, data)
        return
    offsets = [m.start() for m in re.finditer(r"<STMTTRN>", text, flags=re.IGNORECASE)]
    for index, (element, account, currency) in enumerate(_ofx_transactions(tree.getroot())):
        start = offsets[index] if index < len(offsets) else 0
        end = text.find("</STMTTRN>", start)
        raw = text[start : end + 10 if end >= 0 else start + 2000].encode("latin-1")
        line = _line_of(text, start)
        where = f"{path}:{line}"
        if truncated and end < 0:
            yield line, _cut_off(where, "inside this transaction (no </STMTTRN>)"), raw
            return
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
                # a transaction in another currency than the statement's says so itself
                "currency": element.findtext("CURRENCY/CURSYM") or currency,
                "description": " ".join(p for p in (_ofx_payee(model), model.memo) if p) or None,
            },
            raw,
        )
    if truncated:
        last = _line_of(text, len(text.rstrip()))
        yield last, _cut_off(f"{path}:{last}", "before </OFX>"), data[-2000:]


def _cut_off(where: str, how: str) -> SchemaError:
    return SchemaError(
        f"{where}: the file ends {how}: a cut-off download, and the transactions after this "
        "line are missing; re-download it from the bank",
        "truncated_file",
    )


def _ofx_payee(model) -> str | None:
    """``NAME``, or the name in a ``PAYEE`` aggregate (bill payments carry one instead)."""
    payee = getattr(model, "payee", None)
    return model.name or (payee.name if payee is not None else None)


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


# --- SWIFT MT940 ---------------------------------------------------------------------------

_MT940_STATEMENT_END = (":62", ":64:", ":65:", ":20:", "-}")


def iter_mt940(
    path: Path, encoding: str = "latin-1", warnings: list[str] | None = None
) -> Iterator[Row]:
    """Each ``:61:`` statement line with its ``:86:`` details, parsed by ``mt940`` on its own
    (with its statement's header) so one bad line is quarantined instead of failing the file.
    The day is the entry (booking) date, the value date when there is none. A statement whose
    opening balance (:60F:) and entries as read do not reach its closing balance (:62F:) is
    appended to ``warnings``."""
    with open_binary(path) as handle:
        text = handle.read().decode(encoding)
    statements = _mt940_balances(text)
    starts = [statement["line"] for statement in statements]
    for row in _mt940_rows(path, text, encoding):
        statement = statements[max(bisect.bisect_right(starts, row[0]) - 1, 0)] if starts else {}
        if isinstance(row[1], dict):
            statement["total"] = statement.get("total", 0.0) + row[1]["amount"]
        else:
            statement["unread"] = statement.get("unread", 0) + 1
        yield row
    for statement in statements if warnings is not None else []:
        if "opening" in statement and "closing" in statement:
            gap = balance_gap(
                f"{path}:{statement['closing_line']}: statement {statement['id']}",
                statement["opening"],
                statement.get("total", 0.0),
                statement["closing"],
                statement.get("unread", 0),
            )
            if gap:
                warnings.append(gap)


_MT940_BALANCE = re.compile(r":6([02])[FM]:([CD])\d{6}[A-Z]{3}(\d+(?:,\d*)?)")


def _mt940_balances(text: str) -> list[dict]:
    """Per statement (from its :20: line): its ``line``, ``id`` and, where stated and
    readable, its ``opening`` and ``closing`` balance (signed) and the ``closing_line``."""
    statements: list[dict] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(":20:"):
            statements.append({"line": number, "id": line[4:].strip()})
        found = _MT940_BALANCE.match(line)
        if found and statements:
            amount = float(found.group(3).replace(",", ".")) * (-1 if found.group(2) == "D" else 1)
            kind = "opening" if found.group(1) == "0" else "closing"
            statements[-1].setdefault(kind, amount)
            if kind == "closing":
                statements[-1]["closing"], statements[-1]["closing_line"] = amount, number
    return statements


def _mt940_rows(path: Path, text: str, encoding: str) -> Iterator[Row]:
    import mt940

    cut = _mt940_cut_off(text)
    for line, header, block in _mt940_blocks(text):
        raw = block.encode(encoding, errors="replace")
        if line == cut:
            yield (
                line,
                _cut_off(
                    f"{path}:{line}", "in or after this entry, with no closing balance (:62F:)"
                ),
                raw,
            )
            continue
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
                SchemaError(
                    f"{path}:{line}: MT940 :61: line not readable: {message} (expected: value "
                    "date YYMMDD, an optional entry date MMDD, C, D, RC or RD, the amount with a "
                    "decimal comma, a type code such as NTRF, a reference)",
                    "bad_mt940",
                ),
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
        elif _ends_statement(line):
            yield from flush()
            in_header = False
        elif in_header:
            header.append(line)
        elif block:
            block.append(line)
    yield from flush()


def _ends_statement(line: str) -> bool:
    """A closing balance, the next statement, or the block's end (``-`` alone, or ``-}``); a
    wrapped :86: line may start with a hyphen (a timestamp wrapped at its dash)."""
    return line.startswith(_MT940_STATEMENT_END) or line.rstrip() == "-"


def _mt940_cut_off(text: str) -> int | None:
    """The line of the last :61: when nothing closes its statement after it (every statement
    ends with its closing balance, :62:): a download cut off there, or inside that entry."""
    lines = text.splitlines()
    last = max((n for n, line in enumerate(lines) if line.startswith(":61:")), default=None)
    if last is None or any(_ends_statement(line) for line in lines[last + 1 :]):
        return None
    return last + 1
