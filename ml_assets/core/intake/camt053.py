"""ISO 20022 cash-management messages, parsed by ``pycamt`` (no entities, no network) and
read by the standard's element paths: camt.053 statements (``Stmt``), camt.052 account
reports (``Rpt``) and camt.054 debit/credit notifications (``Ntfctn``), which share the entry
structure. One row per transaction detail of every entry (``Ntry``), or per entry without
details; the format is named ``camt053`` for all three.

Amounts, currencies and signs are read where the standard puts them (the entry's own ``Amt``
and ``CdtDbtInd``; a batch detail's ``Amt``, or ``AmtDtls/TxAmt/Amt`` before .001.08), not from
the first ``Amt`` below an element, which can be an instructed amount in another currency or a
charge. The id is the bank's entry reference (``AcctSvcrRef``, with the detail's
``EndToEndId`` or position in a batch; see ``_entry_ids`` for a reference the bank reuses);
placeholders such as ``NONREF`` and ``NOTPROVIDED`` are no reference, so those rows get
derived ids.

An entry the bank has not booked (status ``PDNG`` or ``FUTR``: pending, changed or dropped
before booking; ``INFO``: information only) is no transaction: counted as a line that is
not one, never a row, as a JSON export's pending records are. So is an entry of 0.00: a
notice that moves no money.

The text is UTF-8 unless the file declares another encoding (``<?xml ... encoding=...?>``),
or ``raw_transactions.encoding`` says which. German banks' FinTS/HBCI camt.052 comes without
a declaration and in Windows-1252 (``Umbuchung f\xfcr``): a file that declares none and is
not UTF-8 is read as Windows-1252, said in the file's warnings.

An entry without a day, an amount or any text is quarantined by its line and, where the
line holds other entries too (a statement written on one line), by its position in the file
(``Ntry[7]``: its seventh entry).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.api_records import PENDING
from ml_assets.core.intake.bank_formats import (
    ZERO_AMOUNT_NOTICE,
    Row,
    is_utf8,
    reference,
    unreadable_file,
)
from ml_assets.core.intake.camt_entries import camt_amount, camt_entry, element_text
from ml_assets.core.intake.records import SchemaError, open_binary
from ml_assets.core.intake.statements import balance_gap


def iter_camt053(
    path: Path,
    skipped: list[tuple[int, str]] | None = None,
    warnings: list[str] | None = None,
    encoding: str | None = None,
) -> Iterator[Row]:
    """Entries (``Ntry``) of every statement, report or notification; an entry split into
    transaction details is one row per detail. Booking date is the day; value date when a
    bank leaves it out; where a bank dates none of a statement's entries, the statement's day
    (``_statement_day``), said in ``warnings``. Where a statement states its opening and
    closing balances, a gap the booked rows leave between them is appended to ``warnings``
    (a notification states none: nothing to check). Entries not booked go to ``skipped`` as
    (line, kind); a caller that keeps no such list is told their count in ``warnings``.
    ``encoding``: the text's, over what the file declares (see the module docstring)."""
    from lxml import etree
    from pycamt.parser import Camt053ParseError, Camt053Parser

    with open_binary(path) as handle:
        data = handle.read()
    try:
        text, read_as = _camt_text_bytes(data, encoding)
        root = Camt053Parser(text).tree  # parsed without entities or network access
    except (etree.XMLSyntaxError, Camt053ParseError, ValueError) as err:
        line = getattr(err, "lineno", None) or 1
        if encoding or (not is_utf8(data) and not _declared_encoding(data)):
            yield _not_in_encoding(path, err, line, data, encoding)
        else:
            yield unreadable_file(path, err, line, data)
        return
    if read_as and warnings is not None:
        warnings.append(
            f"{path}: the text is not UTF-8 and the file declares no encoding (<?xml ... "
            f"encoding=...?>): read as {read_as}, the code page of German banks' FinTS "
            "camt.052; set raw_transactions.encoding if its accented letters read wrong"
        )
    # the document's own namespace, declared as the default or with a prefix (<ns2:Document>)
    namespace = etree.QName(root).namespace
    names = {None: namespace} if namespace else {}
    statements = next(
        (found for tag in _STATEMENT_TAGS if (found := root.findall(f".//{tag}", names))), []
    )
    if not statements:
        error = ValueError(
            f"no <Stmt>, <Rpt> or <Ntfctn> element under <{etree.QName(root).localname}>"
        )
        yield unreadable_file(path, error, 1, data)
        return
    entries = root.findall(".//Ntry", names)
    position = {entry: number for number, entry in enumerate(entries, start=1)}
    shared = Counter(entry.sourceline for entry in entries)  # lines holding several entries
    ids = _entry_ids(entries, names)
    not_booked: list[tuple[int, str]] = [] if skipped is None else skipped
    for statement in statements:
        total, unread, undated = 0.0, 0, 0
        day = _statement_day(statement, names)
        for entry in statement.findall(".//Ntry", names):
            line = entry.sourceline or 1
            status = _status(entry, names)
            if status in _NOT_BOOKED:
                not_booked.append((line, _NOT_BOOKED[status]))
                continue
            if _moves_nothing(entry, names):
                not_booked.append((line, ZERO_AMOUNT_NOTICE))
                continue
            where = f"{path}:{line}" + (f", Ntry[{position[entry]}]" if shared[line] > 1 else "")
            raw = etree.tostring(entry)
            for record in camt_entry(entry, statement, ids[entry], names):
                if record["posted_date"] is None and day:
                    record["posted_date"], undated = day[0], undated + 1
                if not isinstance(record.get("amount"), float):
                    unread += 1
                elif status == "BOOK":  # an entry of another status is not in the balance
                    total += record["amount"]
                yield line, _camt_missing(where, record) or record, raw
        label = f"statement {statement.findtext('./Id', '?', names)}"
        if warnings is not None and undated:
            warnings.append(
                f"{path}:{statement.sourceline}: {label}: {undated} row(s) of entries with no "
                f"booking or value date (BookgDt, ValDt) dated {day[0]}, read from <{day[1]}>; "
                "the day the bank booked them may be earlier"
            )
        balances = _camt_balances(statement, names)
        if warnings is not None and "opening" in balances and "closing" in balances:
            (opening, _), (closing, line) = balances["opening"], balances["closing"]
            gap = balance_gap(f"{path}:{line}: {label}", opening, total, closing, unread)
            if gap:
                warnings.append(gap)
    if skipped is None and warnings is not None and not_booked:
        kinds = Counter(kind for _, kind in not_booked)
        warnings.append(
            f"{path}: entries not booked, not read as transactions: "
            + ", ".join(f"{count} {kind}(s)" for kind, count in sorted(kinds.items()))
        )


# UTF-16 and UTF-32 byte-order marks: lxml reads such a file by its mark
_WIDE_MARKS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
# an XML declaration's encoding (``<?xml version="1.0" encoding="ISO-8859-1"?>``)
_DECLARED = re.compile(rb"""\A(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)""")
_DECLARED_TEXT = re.compile(r"""\A(\s*<\?xml[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2""")
# the code page read where a file is not UTF-8 and declares none: German banks' (a superset
# of Latin-1 but for five bytes it leaves undefined, read as Latin-1 where they occur)
_FALLBACK = "Windows-1252 (cp1252)"


def _camt_text_bytes(data: bytes, encoding: str | None) -> tuple[bytes, str | None]:
    """The file as the parser reads it, and the code page it was read in where the file
    declares none and is not UTF-8 (else None). ``encoding`` set: the text decoded by it and
    handed on as UTF-8, its declaration saying so. Raises ValueError (UnicodeDecodeError)
    where the text is not in ``encoding``."""
    if encoding:
        return _as_utf8(data.decode(encoding)), None
    if data.startswith(_WIDE_MARKS) or _declared_encoding(data) or is_utf8(data):
        return data, None
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return _as_utf8(text), _FALLBACK


def _declared_encoding(data: bytes) -> str | None:
    found = _DECLARED.match(data[:200])
    return found.group(1).decode("ascii", "replace") if found else None


def _as_utf8(text: str) -> bytes:
    """Decoded text as UTF-8 bytes, an encoding its declaration names changed to UTF-8."""
    text = _DECLARED_TEXT.sub(r'\1"UTF-8"', text.removeprefix("\ufeff"), count=1)
    return text.encode("utf-8")


def _not_in_encoding(
    path: Path, err: Exception, line: int, data: bytes, encoding: str | None
) -> Row:
    """The quarantine row of a file whose text is not in the encoding it was read in: the
    setting's, or (none set, none declared) UTF-8 and then Windows-1252. Downloading the same
    bytes again is no help; the setting is."""
    how = (
        f"read as raw_transactions.encoding {encoding!r}, it fails"
        if encoding
        else "its text is not UTF-8 and it declares no encoding; read as Windows-1252 "
        "(cp1252), it fails too"
    )
    return (
        line,
        SchemaError(
            f"{path}:{line}: not a readable camt file: {how} ({type(err).__name__}: {err}); "
            "set raw_transactions.encoding to the encoding the bank writes (latin-1, cp1252, "
            "utf-16)",
            "unreadable_file",
        ),
        data[:2000],
    )


def _moves_nothing(entry, names) -> bool:
    """Whether the entry's own amount is zero: a notice booked at 0.00 (a changed mandate,
    an announcement), which moves no money."""
    amount = camt_amount(entry, names)
    try:
        return amount is not None and float(amount[0]) == 0
    except ValueError:
        return False


# the blocks holding entries: camt.053's statements, camt.052's reports, camt.054's
# notifications (a file holds one kind)
_STATEMENT_TAGS = ("Stmt", "Rpt", "Ntfctn")
# entry statuses (Sts) of entries the bank has not booked: what each is counted as
_NOT_BOOKED = {"PDNG": PENDING, "FUTR": PENDING, "INFO": "information entry"}


def _status(entry, names) -> str:
    """The entry's status code (``<Sts>BOOK</Sts>``, or ``<Sts><Cd>BOOK</Cd></Sts>`` from
    .001.08), BOOK where the bank writes none."""
    found = entry.findtext("./Sts/Cd", None, names) or entry.findtext("./Sts", None, names)
    return (found or "").strip().upper() or "BOOK"


def _entry_ids(entries: list, names: dict) -> dict:
    """Each entry's id, None where it is derived from the row's content (account, day,
    amount, text). The bank's reference (``AcctSvcrRef``) where it names one entry of the
    file, or where every entry bearing it is the same entry written again. Some banks reuse
    one reference for different entries (PostFinance gives the credits of one processing
    run the same AcctSvcrRef): those entries are told apart by the bank's reference joined
    with the entry's own (``NtryRef``) where that differs between them, else their ids are
    derived. Each rule reads only the entry and its file, so the same file downloaded
    twice yields the same ids and its entries are dropped as duplicates, while two
    different entries are both kept."""
    from lxml import etree

    own = {entry: reference(element_text(entry, ".//AcctSvcrRef", names)) for entry in entries}
    entry_refs = {entry: reference(element_text(entry, "./NtryRef", names)) for entry in entries}
    variants: dict[str, set[bytes]] = {}
    for entry, bank_ref in own.items():
        variants.setdefault(bank_ref, set()).add(etree.tostring(entry, with_tail=False))
    pairs = Counter((own[entry], entry_refs[entry]) for entry in entries)
    ids = {}
    for entry, bank_ref in own.items():
        if bank_ref is None or len(variants[bank_ref]) == 1:
            ids[entry] = bank_ref
        elif entry_refs[entry] and pairs[(bank_ref, entry_refs[entry])] == 1:
            ids[entry] = f"{bank_ref}/{entry_refs[entry]}"
        else:
            ids[entry] = None
    return ids


# where a statement's day is read, best first: the end of the period it covers, the day it
# was made, the day its message was made (the Bank of Lithuania's statements have only that)
_STATEMENT_DAY = ("./FrToDt/ToDtTm", "./CreDtTm", "../GrpHdr/CreDtTm")


def _statement_day(statement, names) -> tuple[str, str] | None:
    """(the day as written, YYYY-MM-DD, and the element it was read from) for a statement
    whose bank dates none of its entries (the Bank of Lithuania's); None where any entry has
    a booking or value date, for then an entry without one is a broken entry, quarantined."""
    if any(statement.find(f".//Ntry/{tag}", names) is not None for tag in ("BookgDt", "ValDt")):
        return None
    for path in _STATEMENT_DAY:
        found = element_text(statement, path, names)
        if found:
            return found[:10], path.lstrip("./")
    return None


# what each required field is read from, for an entry that has none of it
_CAMT_SOURCES = {
    "posted_date": "booking or value date (BookgDt, ValDt)",
    "amount": "Amt (or a detail's AmtDtls/TxAmt/Amt)",
    "description": "remittance text (RmtInf/Ustrd or Strd), AddtlTxInf, AddtlNtryInf, "
    "purpose (Purp), party name, a reference of the payer's (EndToEndId, PmtInfId, InstrId) "
    "or a bank transaction code this reader knows (BkTxCd)",
}


def _camt_missing(where: str, record: dict) -> SchemaError | None:
    """The error of a record whose entry lacks a required field, naming where the standard
    puts it (the bank wrote none: the entry is quarantined, not guessed)."""
    for name, source in _CAMT_SOURCES.items():
        if record.get(name) is None:
            return SchemaError(
                f"{where}: required field {name!r} is missing: the entry has no {source}; "
                "it stays quarantined (ask the bank for an export that has it)",
                "missing_field",
                name,
            )
    return None


def _camt_balances(statement, names) -> dict[str, tuple[float, int]]:
    """``opening`` (OPBD, or the previous closing PRCD) and ``closing`` (CLBD): (signed
    amount, line). A balance whose amount is not a number is left out."""
    found = {}
    for balance in statement.findall("./Bal", names):
        code = (balance.findtext("./Tp/CdOrPrtry/Cd", "", names) or "").strip()
        kind = {"OPBD": "opening", "PRCD": "opening", "CLBD": "closing"}.get(code)
        try:
            amount = float(balance.findtext("./Amt", "", names))
        except ValueError:
            continue
        if kind and kind not in found:
            sign = -1 if balance.findtext("./CdtDbtInd", "", names) == "DBIT" else 1
            found[kind] = (sign * amount, balance.sourceline or 1)
    return found
