"""The description (and merchant) of an MT940 entry from its ``:86:`` details, which banks
write in three ways:

- free text (``BEA NR:ABC123 05.11.26 STARBUCKS AMSTERDAM``): as it is, a line the bank cut
  at 65 characters joined to the next without a space;
- German banks' ``?``-sub-fields (``106?00KARTENZAHLUNG?20SVWZ+...?32REWE Markt GmbH``), which
  the ``mt940`` parser files into fields in place of the text: the other party (``?32``/``?33``)
  and the purpose (``?20``-``?29``, ``?60``-``?63``);
- Dutch banks' SEPA tags (``/TRTP/SEPA OVERBOEKING/IBAN/NL44.../NAME/Albert Heijn BV/REMI/...``,
  or ``/CNTP/account/BIC/name/city/``): the other party and the remittance text.

Structured details give the other party and the purpose, as CAMT.053 entries are read, leaving
out accounts, BICs, mandate and end-to-end references (a new number on every row)."""

from __future__ import annotations

import re

# the tags of the Dutch layout that hold a value; what sits between two of them is the value
_SEPA_TAG = re.compile(
    r"/(TRTP|IBAN|BIC|NAME|REMI|EREF|MARF|CSID|CNTP|ORDP|BENM|ADDR|ULTC|ULTD|PURP|RTRN|ISDT)/"
)


def entry_text(data: dict) -> dict:
    """``description`` (``None`` when empty) and, for structured details, ``merchant``."""
    free = data.get("transaction_details")
    if free:
        # a tagged string wraps mid-word at 65 characters: its lines join without a space
        tagged = sepa_tags("".join(str(free).splitlines()))
        if not tagged:
            return {"description": _one_line(_unwrapped(str(free))) or None}
        party, text = _tagged_party(tagged), _tagged_remittance(tagged)
    else:
        party = _one_line(data.get("applicant_name"))
        text = " ".join(_one_line(data.get(k)) for k in ("purpose", "additional_purpose"))
    description = " ".join(p for p in (party, _one_line(text)) if p)
    return {"description": description or None, "merchant": party or None}


def sepa_tags(details: str) -> dict[str, str]:
    """``{tag: value}`` of details in the Dutch tagged layout; empty for any other text."""
    if not _SEPA_TAG.match(details):
        return {}
    marks = list(_SEPA_TAG.finditer(details))
    values = {}
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        end = following.start() if following else len(details)
        values.setdefault(mark.group(1), details[mark.end() : end].strip("/ "))
    return values


def _tagged_party(tags: dict[str, str]) -> str:
    if tags.get("NAME"):
        return _one_line(tags["NAME"])
    # /CNTP/account/BIC/name/city/
    parts = tags.get("CNTP", "").split("/")
    return _one_line(parts[2]) if len(parts) > 2 else ""


def _tagged_remittance(tags: dict[str, str]) -> str:
    text = tags.get("REMI", "")
    # unstructured (USTD//text) or structured (STRD/CUR/reference) remittance information
    text = re.sub(r"^/?(USTD|STRD)/(CUR/|ISO/)?/?", "", text)
    return _one_line(text)


_LINE = 65  # SWIFT's line length; the :86: tag takes 4 characters of the first line


def _unwrapped(free: str) -> str:
    """Free text as written before the bank cut it into lines: a full line was cut wherever
    it reached 65 characters, mostly inside a word, so it joins the next without a space; a
    shorter one ended where the bank chose, at a word's end."""
    lines = free.splitlines()
    text = lines[0] if lines else ""
    for number, line in enumerate(lines[1:], start=1):
        full = len(lines[number - 1]) + (4 if number == 1 else 0) >= _LINE
        text += ("" if full else " ") + line
    return text


def _one_line(value) -> str:
    return " ".join(str(value or "").split())
