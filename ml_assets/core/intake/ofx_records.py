"""One OFX ``STMTTRN`` aggregate as our record: its FITID, its posting day as written, its
amount, and its text (NAME then MEMO, said once where one begins the other; a check's or cash
withdrawal's type and number where it has neither), each read by ofxtools' type for the
element, so that an element out of the spec's order or a value we do not read costs no row.
"""

from __future__ import annotations

import datetime as dt
import decimal

from ml_assets.core.intake.ofx_amounts import grouped_amount
from ml_assets.core.intake.records import SchemaError

_OFX_FIELDS = {  # OFX element -> our field, for errors
    "FITID": "transaction_id",
    "DTPOSTED": "posted_date",
    "TRNAMT": "amount",
    "NAME": "description",
    "MEMO": "description",
}


def ofx_record(transaction, where: str, decimal_comma: bool = False) -> dict:
    """Our fields of one STMTTRN, those we read each converted by ofxtools' type for it (a
    decimal, an OFX date, text unescaped): a bank's elements out of the spec's order or a
    value we do not read (Nationwide's TRNTYPE 'Credit') cost no row. An empty FITID is the
    bank saying it has none, as CAMT.053's NONREF: no id, so ingest derives one; a STMTTRN
    without the element is incomplete and quarantined. ``decimal_comma``: the file's amounts
    use a decimal comma, so dots in TRNAMT group thousands (core.intake.ofx_amounts)."""
    if transaction.find("FITID") is None:
        raise SchemaError(
            f"{where}: required field 'transaction_id' (OFX <FITID>) is missing",
            "missing_field",
            "transaction_id",
        )
    _ofx_value(transaction, "DTPOSTED", where, required=True)  # validated; the day is as written
    # bill payments carry a PAYEE aggregate instead of NAME
    party = _ofx_value(transaction, "NAME", where) or _ofx_value(transaction, "PAYEE/NAME", where)
    memo = _ofx_value(transaction, "MEMO", where)
    day = transaction.findtext("DTPOSTED").strip()[:8]
    record = {
        "posted_date": dt.datetime.strptime(day, "%Y%m%d").date(),
        "amount": float(_ofx_amount(transaction, where, decimal_comma)),
        "description": _ofx_text(party, memo) or _ofx_kind(transaction),
    }
    fitid = _ofx_value(transaction, "FITID", where)
    if fitid:
        record["transaction_id"] = fitid
    return record


def _ofx_amount(transaction, where: str, decimal_comma: bool):
    """TRNAMT as a decimal; in a file whose amounts use a decimal comma, with the dots that
    group its thousands dropped first."""
    written = transaction.findtext("TRNAMT") or ""
    if not decimal_comma or not written.strip():
        return _ofx_value(transaction, "TRNAMT", where, required=True)
    try:
        plain = grouped_amount(written)
    except ValueError as err:
        raise SchemaError(
            f"{where}: OFX <TRNAMT> {written.strip()!r} is not a number: {err}",
            "bad_amount",
            "amount",
        ) from err
    return _ofx_value(transaction, "TRNAMT", where, required=True, text=plain)


def _ofx_text(party: str | None, memo: str | None) -> str | None:
    """NAME then MEMO; one of them alone where the other begins it. US banks cut MEMO's text
    at NAME's 32 characters and write both (``<NAME>AUTOMATIC WITHDRAWAL, ELECTRIC``, ``<MEMO>
    AUTOMATIC WITHDRAWAL, ELECTRIC BILL WEB(S )``), or write one text twice: the longer says
    it all, once. Compared with spaces collapsed and case ignored."""
    if party and memo:
        short, long = sorted((party, memo), key=lambda t: len(_folded(t)))
        if _folded(long).startswith(_folded(short)):
            return long
    return " ".join(p for p in (party, memo) if p) or None


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _ofx_kind(transaction) -> str | None:
    """The text of a STMTTRN with neither NAME nor MEMO: its type and check number as the
    bank wrote them ("CHECK 1000", "ATM"), what a statement prints for a check or a cash
    withdrawal; None where it has neither."""
    parts = (transaction.findtext(tag) for tag in ("TRNTYPE", "CHECKNUM"))
    return " ".join(p.strip() for p in parts if p and p.strip()) or None


def _ofx_value(transaction, path: str, where: str, required: bool = False, text: str | None = None):
    """The text at ``path`` (``TRNAMT``, ``PAYEE/NAME``), or ``text`` read there instead,
    converted by ofxtools' type for that element of its aggregate; None where absent or
    empty, unless ``required``."""
    from ofxtools import models

    parent, _, tag = path.rpartition("/")
    ours = _OFX_FIELDS.get(tag)
    if text is None:  # (CDATA keeps its spaces, as ofxtools does)
        text = transaction.findtext(path) or ""
    if not text.strip():
        if required:
            raise SchemaError(
                f"{where}: required field {ours!r} (OFX <{tag}>) is missing", "missing_field", ours
            )
        return None
    try:
        return getattr(models, parent or "STMTTRN").spec[tag.lower()].convert(text)
    except (ValueError, TypeError, decimal.InvalidOperation) as err:
        if ours == "amount":
            raise SchemaError(
                f"{where}: OFX <TRNAMT> {text!r} is not a number", "bad_amount", ours
            ) from err
        if ours == "posted_date":
            raise SchemaError(
                f"{where}: OFX <DTPOSTED> {text!r} is not a date (YYYYMMDD[HHMMSS])",
                "bad_date",
                ours,
            ) from err
        raise SchemaError(f"{where}: OFX <{tag}>: {err}", "bad_ofx_field", ours) from err
