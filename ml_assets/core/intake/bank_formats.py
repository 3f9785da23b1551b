"""Statement formats banks export, read by the field's libraries: OFX/QFX (``ofxtools``) here
(a transaction's fields in ``ofx_records.py``), SWIFT MT940 (``mt940``) in ``mt940_exports.py``,
ISO 20022 CAMT.053 (``pycamt``) in ``camt053.py``; the row shape and the errors for an
unreadable or cut-off file, which they share, here too.

Each reader yields (line, record in our column names or the SchemaError, raw bytes) per
transaction, like the JSONL and CSV readers: one bad transaction is quarantined with its line
and the rest are read. A file the library cannot read at all is one quarantined row
(``unreadable_file``) naming the file and, where the library says, the line; an OFX file
whose closing tags a program rewrote out of nesting is read without the closing tags of its
value-holding elements, with a warning (``_ofx_tree_tolerant``). A file cut off
mid-download (an OFX without ``</OFX>``, an MT940 whose last entry no closing balance follows)
keeps the entries before the cut and quarantines one ``truncated_file`` row in place of the rest.

Ids: OFX's ``FITID``; MT940 has no reliable id, so its rows get derived ids (see ingest).
Amounts are signed as ours: debits negative.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.ofx_amounts import is_irregularly_grouped, shows_decimal_comma
from ml_assets.core.intake.ofx_records import ofx_record
from ml_assets.core.intake.ofx_reused_ids import StatementIds
from ml_assets.core.intake.records import SchemaError, open_binary

Row = tuple[int, dict | SchemaError, bytes]
# what a statement's entry of 0.00 is counted as: a notice that moves no money, no transaction
ZERO_AMOUNT_NOTICE = "zero-amount notice"


_WORD = re.compile(r"[^\W\d_]{2}")  # two letters in a row: words, not account numbers


def has_words(text: str | None) -> bool:
    """Whether a statement's text or reference holds a word ("DBT.DB 70201234", "Rente"),
    not only digits, codes and marks ("68790452", "B1")."""
    return bool(_WORD.search(text or ""))


def one_line(text: object) -> str:
    """A statement's text on one line: line breaks and runs of spaces a bank wraps its fields
    with are one space; soft hyphens (U+00AD, which ING writes inside dates and words:
    ``10\u00ad06\u00ad2010``) are dropped."""
    return " ".join(str(text or "").replace("\u00ad", "").split())


_NO_REFERENCE = {"", "NONE", "NONREF", "NOREF", "NOTPROVIDED"}  # placeholders banks write


def reference(value: str | None) -> str | None:
    """A bank's reference as written, or None for none or a placeholder (``NONREF``)."""
    return None if (value or "").strip().upper() in _NO_REFERENCE else value.strip()


def is_utf8(data: bytes) -> bool:
    """Whether the bytes are valid UTF-8 (ASCII is)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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


def iter_ofx(
    path: Path,
    skipped: list[tuple[int, str]] | None = None,
    warnings: list[str] | None = None,
) -> Iterator[Row]:
    """STMTTRN aggregates of every bank, card and investment statement in the file: an
    investment account's cash moves (INVBANKTRAN: card purchases, checks, deposits) are bank
    transactions; its trades, income and the like are not, and go to ``skipped`` as (line,
    kind). The day is the bank's calendar day as written (ofxtools converts to UTC, which can
    move late postings). A header's charset that the text contradicts (Windows-1252 declared
    over UTF-8 text) is set aside, said in ``warnings``."""
    with open_binary(path) as handle:
        data = handle.read()
    text = data.decode("latin-1")  # offsets only; ofxtools decodes by the header's charset
    # ofxtools reads a file cut off mid-download as if it ended there: every OFX closes </OFX>
    truncated = not re.search(r"</OFX\s*>", text, flags=re.IGNORECASE)
    try:
        tree, overruled, repaired = _ofx_tree_tolerant(data)
    except Exception as err:  # noqa: BLE001 - any parser failure is this file's quarantine row
        # ofxtools counts positions in the body, which starts at <OFX> (the header stripped)
        body = re.search(r"<OFX\s*>", text, flags=re.IGNORECASE)
        position = re.search(r"position=\[(\d+)", str(err))
        start = ((body.start() if body else 0) + int(position.group(1))) if position else 0
        line = _line_of(text, start)
        if isinstance(err, _markup_errors()):
            yield malformed_tags(path, err, line, data)
        else:
            yield unreadable_file(path, err, line, data)
        return
    root = tree.getroot()
    if overruled and warnings is not None:
        warnings.append(
            f"{path}: the OFX header says CHARSET:{overruled}, but the text is UTF-8 (its "
            "accented letters are UTF-8's multi-byte sequences): read as UTF-8"
        )
    if repaired and warnings is not None:
        warnings.append(
            f"{path}: the OFX file's closing tags are nested wrongly (</MEMO></NAME></FITID> "
            "closing elements that hold a value, as a program that rewrote the file writes "
            "them, not a bank): read without the closing tags of those elements, as OFX 1 "
            "(SGML) writes them; check its rows against the bank's statement"
        )
    if skipped is not None:
        skipped.extend(_ofx_investments(root, text))
    offsets = [m.start() for m in re.finditer(r"<STMTTRN>", text, flags=re.IGNORECASE)]
    transactions = list(_ofx_transactions(root))
    # one amount written with a decimal comma makes the file's dots thousands separators
    decimal_comma = any(shows_decimal_comma(t[0].findtext("TRNAMT")) for t in transactions)
    ids, irregular, cut = StatementIds(), [], False
    for index, (element, account, currency, statement) in enumerate(transactions):
        start = offsets[index] if index < len(offsets) else 0
        end = text.find("</STMTTRN>", start)
        raw = text[start : end + 10 if end >= 0 else start + 2000].encode("latin-1")
        line = _line_of(text, start)
        where = f"{path}:{line}"
        if truncated and end < 0:
            yield line, cut_off(where, "inside this transaction (no </STMTTRN>)"), raw
            cut = True
            break
        try:
            record = ofx_record(element, where, decimal_comma)
        except SchemaError as err:
            yield line, err, raw
            continue
        if decimal_comma and is_irregularly_grouped(element.findtext("TRNAMT")):
            irregular.append((line, element.findtext("TRNAMT").strip(), record["amount"]))
        record["account_id"] = account
        # a transaction in another currency than the statement's says so itself
        record["currency"] = element.findtext("CURRENCY/CURSYM") or currency
        if "transaction_id" in record and account:
            # FITID is unique within its account only (OFX 2.2, 3.2.1): one file or folder
            # can hold a checking and a card statement numbering their entries alike
            record["transaction_id"] = f"{account}:{record['transaction_id']}"
        if "transaction_id" in record:
            record["transaction_id"] = ids.unique_id(statement, line, record)
        yield line, record, raw
    if warnings is not None:
        warnings.extend(w for w in (_irregular_warning(path, irregular), ids.warning(path)) if w)
    if truncated and not cut:
        last = _line_of(text, len(text.rstrip()))
        yield last, cut_off(f"{path}:{last}", "before </OFX>"), data[-2000:]


def _irregular_warning(path: Path, irregular: list[tuple[int, str, float]]) -> str | None:
    """What a user is told about amounts that group only their last thousands, or None."""
    if not irregular:
        return None
    line, written, amount = irregular[0]
    return (
        f"{path}: {len(irregular)} OFX amount(s) separate only their last thousands (line "
        f"{line}: {written!r}, read as {amount:.2f}): before the file's decimal comma a '.' "
        "can only separate thousands; check them against the bank's statement"
    )


def malformed_tags(path: Path, err: Exception, line: int, data: bytes) -> Row:
    """The quarantine row of an OFX file whose tags do not nest even with the closing tags of
    its value-holding elements left out: the file's markup is broken, which a bank's own
    download never is, so downloading it again is no help; the original is."""
    return (
        line,
        SchemaError(
            f"{path}:{line}: the OFX file's tags are malformed ({type(err).__name__}: {err}): "
            "they do not nest, which a bank's download never does (a program that opened and "
            "saved the file rewrote them); load the file as the bank gave it, or correct the "
            "tags from this line on",
            "unreadable_file",
        ),
        data[:2000],
    )


def cut_off(where: str, how: str) -> SchemaError:
    return SchemaError(
        f"{where}: the file ends {how}: a cut-off download, and the transactions after this "
        "line are missing; re-download it from the bank",
        "truncated_file",
    )


# processing instructions (<?xml ...?>, <?OFX ...?>), or an SGML header that says which OFX
# it is (OFXHEADER and VERSION) but that ofxtools cannot read (fields left out, a blank line
# among them), if any, then the body's <OFX>
_OFX_BODY = re.compile(
    rb"(?:\s*<\?[^>]*>)*\s*(?:OFXHEADER:[^<]*VERSION:[^<]*)?(<OFX\s*>)", flags=re.IGNORECASE
)


def _ofx_tree(data: bytes) -> tuple[object, str | None]:
    """The file parsed by ofxtools, and the charset its header declares where the text
    contradicts it (else None).

    A header's charset is believed unless the text is UTF-8 with letters beyond ASCII: Banco
    do Brasil declares CHARSET:1252 over UTF-8 text, which read as Windows-1252 gives
    "CRÃ‰DITO" (a valid multi-byte UTF-8 sequence is practically never meaningful
    Windows-1252), so it is read as UTF-8. Some banks leave the header out (Ally's and
    American Express's SGML starts at <OFX>; Capital One's XML has <?OFX?> but no <?xml?>)
    or write one ofxtools cannot read (fields left out, a blank line among them). ofxtools
    needs the header only to decode the body (its parser reads SGML and XML bodies alike),
    so a file that begins with <OFX> after at most those processing instructions or that
    header is read with an OFX 1 header supplied (``_parse_body``). Anything else keeps
    ofxtools' complaint."""
    from ofxtools.header import OFXHeaderError
    from ofxtools.Parser import OFXTree

    # a byte-order mark or blank lines before the header are no part of OFX: skipped
    data = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    tree = OFXTree()
    found = _OFX_BODY.match(data)
    declared = _declared_code_page(data)
    if found and declared is not None and not data.isascii() and is_utf8(data):
        _parse_body(tree, data[found.start(1) :])
        return tree, declared
    try:
        tree.parse(io.BytesIO(data))
    except (OFXHeaderError, UnicodeDecodeError):  # (it reads a header's lines as ASCII)
        if found is None:
            raise
        _parse_body(tree, data[found.start(1) :])
    return tree, None


# a closing tag, and the opening tag of an element that holds a value (text follows it)
_END_TAG = re.compile(rb"</([A-Za-z0-9._]+)\s*>")
_VALUE_TAG = re.compile(rb"<([A-Za-z0-9._]+)>[ \t]*[^<\s]")


def _ofx_tree_tolerant(data: bytes) -> tuple[object, str | None, bool]:
    """``_ofx_tree``'s tree and overruled charset, and whether the file was read only with its
    value-holding elements' closing tags left out. A program that rewrites an OFX 1 file as
    if it were XML (BeautifulSoup's output of American Express's download) closes each
    element after everything that follows it (``<TRNAMT>-143.94 <FITID>... </FITID>
    </TRNAMT>``), so the closing tags pop aggregates too early. OFX 1 (SGML) writes no
    closing tag for an element that holds a value, and ofxtools closes such an element where
    its value ends: without those tags the aggregates nest as the bank wrote them. A file
    that fails either way keeps its first complaint."""
    try:
        tree, overruled = _ofx_tree(data)
        return tree, overruled, False
    except _markup_errors() as err:
        valued = {name.upper() for name in _VALUE_TAG.findall(data)}
        stripped = _END_TAG.sub(lambda m: b"" if m.group(1).upper() in valued else m[0], data)
        if stripped == data:
            raise
        try:
            tree, overruled = _ofx_tree(stripped)
        except Exception:  # noqa: BLE001 - the first complaint names the file's fault
            raise err from None
        return tree, overruled, True


def _markup_errors() -> tuple[type[Exception], ...]:
    """The errors of tags that do not nest: ofxtools' and ElementTree's ParseError, and
    ElementTree's IndexError for a closing tag with no element left open ("pop from empty
    stack"); not a header ofxtools cannot read, nor a value it cannot convert."""
    from xml.etree.ElementTree import ParseError as TreeError

    from ofxtools.Parser import ParseError

    return ParseError, TreeError, IndexError


def _declared_code_page(data: bytes) -> str | None:
    """The single-byte code page an OFX 1 header declares (CHARSET:1252, ISO-8859-1) where
    it does not declare UTF-8; None for UTF-8 (ENCODING:UTF-8 or CHARSET NONE or UTF-8), an
    OFX 2 (XML) file, UTF-8 by the standard, or a header ofxtools cannot read."""
    from ofxtools.header import OFXHeaderV1

    found = OFXHeaderV1.regex.match(data[:1000].decode("latin-1"))
    if found is None or found.group("ENCODING").upper().replace("-", "") == "UTF8":
        return None
    charset = found.group("CHARSET")
    return None if charset.upper().replace("-", "") in ("NONE", "UTF8") else charset


def _parse_body(tree, body: bytes) -> None:
    """``tree`` parsed from an OFX body led by an OFX 1 header of ours: UTF-8 where the body
    decodes as UTF-8, else Windows-1252, the charset US banks declare."""
    from ofxtools.header import OFXHeaderV1

    charset = "NONE" if is_utf8(body) else "1252"  # "NONE" is ofxtools' name for UTF-8
    header = str(OFXHeaderV1(102, charset=charset)).encode("ascii")
    tree.parse(io.BytesIO(header + body))


_OFX_ACCOUNTS = {"STMTRS": "BANKACCTFROM", "CCSTMTRS": "CCACCTFROM", "INVSTMTRS": "INVACCTFROM"}


def _ofx_transactions(root) -> Iterator[tuple[object, str | None, str | None, int]]:
    """(STMTTRN element, account id, currency, statement's number in the file) in document
    order: a bank's, a card's, and an investment account's cash moves (each INVBANKTRAN
    wraps one STMTTRN)."""
    for number, statement in enumerate(root.iter()):
        account_from = _OFX_ACCOUNTS.get(statement.tag)
        if account_from is None:
            continue
        account = statement.findtext(f"{account_from}/ACCTID")
        currency = statement.findtext("CURDEF")
        for element in statement.iter("STMTTRN"):
            yield element, account, currency, number


def _ofx_investments(root, text: str) -> list[tuple[int, str]]:
    """(line, kind) of every entry of an investment statement's INVTRANLIST other than its
    cash moves: the account's securities business (trades such as BUYMF and SELLSTOCK, their
    income, reinvestments, splits), not bank transactions. Each is counted wherever the
    parser nested it: an empty ``<MEMO>`` without its end tag (Google Finance's export) makes
    ofxtools put each following trade inside the one before."""
    from ofxtools import models

    kinds = {name.upper() for name in models.INVTRANLIST.listaggregates} - {"INVBANKTRAN"}
    found, after = [], {}
    for listing in root.iter("INVTRANLIST"):
        for entry in listing.iter():
            if entry.tag not in kinds:
                continue
            tag = re.compile(f"<{re.escape(entry.tag)}>", flags=re.IGNORECASE)
            at = tag.search(text, after.get(entry.tag, 0))
            after[entry.tag] = at.end() if at else 0
            found.append((_line_of(text, at.start() if at else 0), f"OFX investment {entry.tag}"))
    return found
