"""One ISO 20022 entry (``Ntry``) of a camt.052, camt.053 or camt.054 message read into
records: one per transaction detail (``TxDtls``), or one for an entry without details or a
batch whose details carry no amounts. The amount, currency and sign are read where the
standard puts them; the description is the other party (the creditor of a debit, the debtor
of a credit) and what the entry says of the payment (remittance text, additional texts,
purpose, a reference that reads as words), else its bank transaction code in words."""

from __future__ import annotations

import re

from ml_assets.core.intake.bank_formats import has_words, one_line, reference
from ml_assets.core.intake.transaction_codes import FAMILY_WORDS, SUB_FAMILY_WORDS, swift_type_name


def camt_entry(entry, statement, entry_id: str | None, names: dict) -> list[dict]:
    """One record per transaction detail (one for an entry without details), amounts and
    signs read where ISO 20022 puts them, not wherever an ``Amt`` first appears (an
    instructed amount in another currency, a charge); ``entry_id`` from camt053's ``_entry_ids``."""
    elements = [
        d
        for block in entry.findall(".//NtryDtls", names)
        for d in block.findall(".//TxDtls", names)
    ]
    common = _entry_fields(entry, statement, names)
    details = [{**common, **_detail_fields(d, names)} for d in elements] or [common]
    booked = camt_amount(entry, names)  # what the account moved by, in its currency
    if booked is None and len(elements) == 1:
        booked = camt_amount(elements[0], names)
    own = [camt_amount(element, names) for element in elements] if len(details) > 1 else []
    if len(details) > 1 and any(amount is None for amount in own):
        # a batch booked as one sum whose details carry no amounts: one row, the entry's
        parties = {_party(d, booked[2] if booked else None) for d in details}
        first = (
            details[0]
            if len(parties) == 1
            else {**details[0], "CreditorName": None, "DebtorName": None}
        )
        details, own = [first], []
    ends = [reference(d.get("EndToEndId")) for d in details]
    records = []
    for position, detail in enumerate(details):
        amount, currency, sign = own[position] if own else (booked or (None, None, None))
        if own and sign is None and booked:
            sign = booked[2]  # a batch's details share the entry's direction
        row_id = entry_id
        if row_id and len(details) > 1:
            end = ends[position]
            row_id = f"{row_id}/{end if end and ends.count(end) == 1 else position}"
        records.append(_camt_record(detail, row_id, amount, currency, sign))
    return records


def element_text(element, path: str, names: dict) -> str | None:
    found = element.find(path, names)
    return (found.text.strip() or None) if found is not None and found.text else None


# an xs:date (camt's ISODate) with the time zone XML Schema allows after it: "2017-04-01+02:00",
# "2025-03-04Z" (Raiffeisen Switzerland writes it on every entry)
_DATE_WITH_ZONE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:Z|[+-]\d{2}:\d{2})")


def camt_day(text: str | None) -> str | None:
    """A booking or value date as the bank wrote it, its time zone dropped from a date
    (``Dt``): the zone says where the day was counted, it does not move the day, so
    "2017-04-01+02:00" is 2017-04-01 (a UTC shift would make it March 31st). A date and
    time (``DtTm``) is left whole: its date is read before its time."""
    if text and (dated := _DATE_WITH_ZONE.fullmatch(text)):
        return dated.group(1)
    return text


def _entry_fields(entry, statement, names: dict) -> dict:
    """What every detail of an entry shares: its account, days, reversal flag, additional
    text and bank transaction code (as words)."""
    return {
        # the statement's account: its IBAN, or another scheme's number (Acct/Id/Othr/Id)
        "AccountIBAN": element_text(statement, "./Acct/Id/IBAN", names)
        or element_text(statement, "./Acct/Id/Othr/Id", names),
        "BookingDate": camt_day(element_text(entry, ".//BookgDt//*", names)),  # Dt or DtTm
        "ValueDate": camt_day(element_text(entry, ".//ValDt//*", names)),
        "ReversalIndicator": element_text(entry, ".//RvslInd", names),
        "AdditionalEntryInformation": element_text(entry, "./AddtlNtryInf", names),
        # a batch booked as one sum names its payment order (PmtInfId), or its message
        "BatchReference": element_text(entry, "./NtryDtls/Btch/PmtInfId", names)
        or element_text(entry, "./NtryDtls/Btch/MsgId", names),
        "EntryCode": _code_words(entry, names),
    }


# a detail's structured remittance references, best first: the creditor's (an RF or national
# payment reference), the number of the invoice it pays
_STRUCTURED = ("CdtrRefInf/Ref", "RfrdDocInf/Nb")


# the references the payer gave a payment, best first (the bank's own, AcctSvcrRef, is the id)
_PAYER_REFERENCES = ("EndToEndId", "PmtInfId", "InstrId")


def _detail_fields(detail, names: dict) -> dict:
    """A transaction detail's end-to-end reference, parties, unstructured remittance text
    (its lines joined), additional information (``AddtlTxInf``, the only text of some
    banks' entries: UniCredit Hungary), structured remittance (its text, ``AddtlRmtInf``, and
    its references, ``_STRUCTURED``), purpose
    (``Purp``, proprietary or ISO code) and the payer's reference (``_PAYER_REFERENCES``);
    a field the detail lacks is left out."""
    lines = [u.text.strip() for u in detail.findall(".//RmtInf//Ustrd", names) if u.text]
    structured = (element_text(detail, f".//RmtInf/Strd/{path}", names) for path in _STRUCTURED)
    references = (
        reference(element_text(detail, f"./Refs/{tag}", names)) for tag in _PAYER_REFERENCES
    )
    fields = {
        "EndToEndId": element_text(detail, ".//Refs//EndToEndId", names),
        "CreditorName": element_text(detail, ".//RltdPties//Cdtr//Nm", names),
        "DebtorName": element_text(detail, ".//RltdPties//Dbtr//Nm", names),
        "RemittanceInformationFull": " ".join(lines) or None,
        "AdditionalTransactionInformation": element_text(detail, "./AddtlTxInf", names),
        "StructuredText": element_text(detail, ".//RmtInf/Strd/AddtlRmtInf", names),
        "StructuredReference": next((s for s in structured if s), None),
        "Purpose": element_text(detail, "./Purp/Prtry", names)
        or element_text(detail, "./Purp/Cd", names),
        "PayerReference": next((r for r in references if r), None),
        "DetailCode": _code_words(detail, names),
    }
    return {key: value for key, value in fields.items() if value is not None}


def camt_amount(element, names) -> tuple[str, str | None, str | None] | None:
    """(amount text, currency, CRDT/DBIT) of an entry or a detail: its own ``Amt`` (a detail's
    ``AmtDtls/TxAmt/Amt`` in versions before .001.08), or None."""
    amount = element.find("./Amt", names)
    if amount is None:
        amount = element.find("./AmtDtls/TxAmt/Amt", names)
    if amount is None or amount.text is None:
        return None
    return amount.text.strip(), amount.get("Ccy"), element.findtext("./CdtDbtInd", None, names)


def _party(detail: dict, sign: str | None) -> str | None:
    """The other party: the creditor of a debit, the debtor of a credit; a reversal (a
    returned direct debit booked as a credit) keeps the original's roles."""
    debit = sign == "DBIT"
    if str(detail.get("ReversalIndicator") or "").strip().lower() == "true":
        debit = not debit
    return detail.get("CreditorName") if debit else detail.get("DebtorName")


def _camt_text(detail: dict, party: str | None) -> str | None:
    """What the entry says of the payment, in the order a statement shows it: the remittance
    text; else the detail's, then the entry's, additional text; else the structured
    remittance's text. Where no party names the payment: else its purpose, else the
    creditor's or the invoice's reference where it holds a word (beside a party, a purpose
    code such as OTHR or a per-payment number is no text; a bare number never is)."""
    text = (
        detail.get("RemittanceInformationFull")
        or detail.get("AdditionalTransactionInformation")
        or detail.get("AdditionalEntryInformation")
        or detail.get("StructuredText")
    )
    if text or party:
        return text
    reference = detail.get("StructuredReference")
    return detail.get("Purpose") or (reference if has_words(reference) else None)


def _kind_or_reference(detail: dict) -> str | None:
    """The text of an entry that names no counterparty and says nothing of the payment, best
    first: a reference its payer gave it that reads as words (a detail's end-to-end id,
    payment order or instruction; a batch's payment order), as an MT940 entry without details
    is read by its :61: reference; else its bank transaction code in words (the entry's, else
    the detail's: "received credit transfer charges") with the one party it names (a charge
    names only the bank or the account holder); else a reference that reads as an id (a
    batch file's ``BANKFILEID998765``). A bare number says nothing of the payment: None, and
    the entry stays quarantined."""
    given = (detail.get("PayerReference"), detail.get("BatchReference"))
    worded = [text for text in given if has_words(text)]
    code = detail.get("EntryCode") or detail.get("DetailCode")
    named = detail.get("CreditorName") or detail.get("DebtorName")
    kind = " ".join(part for part in (code, named) if part)
    return (
        next((t for t in worded if not _ID.fullmatch(t)), None) or kind or next(iter(worded), None)
    )


_ID = re.compile(r"\S*\d\S*")  # one token with a digit in it: a file or message id, not words


def _code_words(element, names: dict) -> str | None:
    """The bank transaction code (``BkTxCd``) of an entry or a detail in words: ISO's family
    and sub-family ("card charges"), else the SWIFT transaction type a bank gives as its
    proprietary code (``NCHG+808``: "Charges"); None for a code not listed here."""
    family = element_text(element, "./BkTxCd/Domn/Fmly/Cd", names)
    sub_family = element_text(element, "./BkTxCd/Domn/Fmly/SubFmlyCd", names)
    words = [FAMILY_WORDS.get(family or ""), SUB_FAMILY_WORDS.get(sub_family or "")]
    proprietary = (element_text(element, "./BkTxCd/Prtry/Cd", names) or "")[:4]
    return " ".join(w for w in words if w) or swift_type_name(proprietary) or None


def _camt_record(
    detail: dict, row_id: str | None, amount, currency: str | None, sign: str | None
) -> dict:
    if amount is not None:
        try:
            amount = float(amount)
        except ValueError:
            pass  # left as text: coercion quarantines it as bad_amount, naming the value
        else:
            amount = -amount if sign == "DBIT" else amount
    party = _party(detail, sign)
    record = {
        "account_id": detail.get("AccountIBAN"),
        "posted_date": detail.get("BookingDate") or detail.get("ValueDate"),
        "amount": amount,
        "currency": currency,
        "description": one_line(" ".join(p for p in (party, _camt_text(detail, party)) if p))
        or one_line(_kind_or_reference(detail))
        or None,
        "merchant": one_line(party) or None,
    }
    if row_id:
        record["transaction_id"] = row_id
    return record
