"""What banks' transaction codes name, in the words a statement prints: SWIFT's transaction
types (an MT940 ``:61:`` line's ``NCHG``; banks give them as camt's proprietary code too) and
ISO 20022's bank transaction code families and sub-families (camt's ``BkTxCd``). They describe
an entry the bank wrote no text for (a charge, the interest)."""

from __future__ import annotations

import re

# SWIFT's transaction type codes (a :61: line's N, or F for a first advice, and three
# letters), named as banks print them on a statement: the text of an entry the bank wrote
# no details for (a charge, the interest)
_TYPE_NAMES = {
    "BNK": "Bank fees",
    "BOE": "Bill of exchange",
    "BRF": "Brokerage fee",
    "CHG": "Charges",
    "CHK": "Cheque",
    "CLR": "Cheque remittance",
    "CMI": "Cash management",
    "CMN": "Notional pooling",
    "CMP": "Compensation claim",
    "CMS": "Sweeping",
    "CMT": "Topping",
    "CMZ": "Zero balancing",
    "COL": "Collection",
    "COM": "Commission",
    "CPN": "Coupon payment",
    "DCR": "Documentary credit",
    "DDT": "Direct debit",
    "DIV": "Dividend",
    "EQA": "Equivalent amount",
    "FEX": "Foreign exchange",
    "INT": "Interest",
    "LBX": "Lock box",
    "LDP": "Loan deposit",
    "MGT": "Management fee",
    "MSC": "Miscellaneous",
    "ODC": "Overdraft charge",
    "PCH": "Securities purchase",
    "RED": "Redemption",
    "RTI": "Returned item",
    "SAL": "Securities sale",
    "SEC": "Securities",
    "STO": "Standing order",
    "TAX": "Withholding tax",
    "TCK": "Travellers cheques",
    "TRF": "Transfer",
    "TRN": "Transaction fee",
    "VDA": "Value date adjustment",
}
# an S and three digits: the SWIFT message the payment came in, by its category
_MESSAGE_CATEGORIES = {"1": "Customer transfer", "2": "Bank transfer"}


def swift_type_name(code: str | None) -> str:
    """The name of a :61: line's type code (``NCHG``: "Charges"; ``S103``: "Customer
    transfer (SWIFT MT103)"), or "" where it names no kind of transaction (a bank's own
    number, ``N037``)."""
    code = (code or "").strip().upper()
    if code[:1] in ("N", "F") and code[1:] in _TYPE_NAMES:
        return _TYPE_NAMES[code[1:]]
    if re.fullmatch(r"S\d{3}", code):
        message = f"SWIFT MT{code[1:]}"
        category = _MESSAGE_CATEGORIES.get(code[1])
        return f"{category} ({message})" if category else message
    return ""


# ISO 20022 bank transaction code families (Domn/Fmly/Cd) that name how money moved
FAMILY_WORDS = {
    "RCDT": "received credit transfer",
    "ICDT": "credit transfer",
    "RDDT": "direct debit",
    "IDDT": "direct debit collection",
    "RCHQ": "cheque deposit",
    "ICHQ": "cheque",
    "CCRD": "card",
    "MCRD": "card acquiring",
    "CNTR": "counter",
    "DRFT": "draft",
    "RRCT": "received remittance",
    "IRCT": "remittance",
}
# sub-families (SubFmlyCd) that name what the money was for, in any family
SUB_FAMILY_WORDS = {
    "CHRG": "charges",
    "FEES": "fees",
    "COMM": "commission",
    "INTR": "interest",
    "TAXE": "taxes",
    "POSD": "payment",
    "CWDL": "cash withdrawal",
    "CDPT": "cash deposit",
    "SALA": "salary",
    "STDO": "standing order",
}
