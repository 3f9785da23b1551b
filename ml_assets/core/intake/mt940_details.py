"""The description (and merchant) of an MT940 entry from its ``:86:`` details, which banks
write in three ways:

- free text (``BEA NR:ABC123 05.11.26 STARBUCKS AMSTERDAM``): as it is, a line the bank cut
  at 65 characters joined to the next without a space; German banks' unstructured details
  (``999PN5477SCHECK-NR. 0000016703074``) without the code 999 and the Primanota number;
- German banks' ``?``-sub-fields (``106?00KARTENZAHLUNG?20SVWZ+...?32REWE Markt GmbH``; Triodos
  writes ``>`` for ``?``), which the ``mt940`` parser files into fields in place of the text:
  the other party (``?32``/``?33``), the purpose (``?20``-``?29`` and ``?60``-``?63``, read
  here from the text as written) and, where the purpose holds no word (a reversal has none, a
  batch only its number), the posting text (``?00``: ``SAMMLER 0904059001``);
- Dutch banks' SEPA tags (``/TRTP/SEPA OVERBOEKING/IBAN/NL44.../NAME/Albert Heijn BV/REMI/...``,
  or ``/CNTP/account/BIC/name/city/``): the other party and the remittance text; the other
  party may instead follow its role's tag, ``/BENM/`` (beneficiary) or ``/ORDP/`` (ordering
  party): ING's Inside Business Payments export writes it as ``/CNTP/`` (account/BIC/name/
  address), a batch's kind of payment as ``/BUSP/``; Komercijalna Banka writes the account on
  the tag's line, then a sub-field a line, each led by ``/``: the party's name, the purpose (a
  reference after ``//``), the text.

Soft hyphens (U+00AD) are dropped and line breaks and runs of spaces become one space.

Structured details give the other party and the purpose, as CAMT.053 entries are read, leaving
out accounts, BICs, mandate and end-to-end references (a new number on every row). Free text
has no field for the other party; the ``:61:`` line's supplementary details may name it (old
Rabobank, ASN and SNS write the payee there). A bank without ``:86:`` (Sberbank Hungary)
writes its details as ``:NS:`` sub-fields: those with words are read as free text. An entry
with no details at all (most of Danske Bank's) is read by its ``:61:`` line's references and
supplementary details, where they hold a word, else by what its SWIFT type code names
(``NCHG``: "Charges")."""

from __future__ import annotations

import itertools
import re

from ml_assets.core.intake.bank_formats import has_words, one_line, reference
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.transaction_codes import swift_type_name

# the tags of the Dutch layout that hold a value; what sits between two of them is the value.
# ING leads a batch (its collections, its payments in one order) with /PREF/, the batch's
# reference, in place of the other party's /CNTP/; its Inside Business Payments export names
# the party by its role (/BENM/, /ORDP/) and the kind of payment by /BUSP/, a code
_SEPA_TAG = re.compile(
    r"/(TRTP|IBAN|BIC|NAME|REMI|EREF|MARF|CSID|CNTP|ORDP|BENM|ADDR|ULTC|ULTD|PURP|RTRN|ISDT|PREF"
    r"|BUSP)/"
)
# Komercijalna Banka's role tag: the account alone on the tag's line, a sub-field a line
_ROLE_LINES = re.compile(r"/(BENM|ORDP)/[^/\n]*\n/")


def entry_text(data: dict) -> dict:
    """``description`` (``None`` when empty) and ``merchant`` (the other party, or ``None``)
    of the parsed entry."""
    party, text = _details(data)
    lead = party or ""
    if party is None:  # free text has no party field; the :61: supplementary details may
        party = _payee(data.get("extra_details"))
        # the text often holds that payee too (SNS, ASN): said once
        lead = "" if party.casefold() in text.casefold() else party
    description = " ".join(p for p in (lead, text) if p) or _references(data)
    description = description or swift_type_name(data.get("id"))
    return {"description": description or None, "merchant": party or None}


def no_text_error(where: str, data: dict) -> SchemaError:
    """The quarantine error of an entry with nothing to describe it by: what was looked at."""
    code = (data.get("id") or "").strip()
    named = f"its type code {code!r} names no kind of transaction" if code else "no type code"
    return SchemaError(
        f"{where}: required field 'description' is missing: the entry has no :86: details, "
        f"no reference with a word, and {named}; it stays quarantined (ask the bank for an "
        "export with the :86: details)",
        "missing_field",
        "description",
    )


def _references(data: dict) -> str:
    """The text of an entry without details (Danske Bank writes none for most of its card
    and fee entries): its :61: line's references and supplementary details, as the bank
    writes them into the :86: it gives other entries ("DB faktura 1234567" from ``DB
    faktura//1234567``); placeholders (``NONREF``) left out. Empty where they hold no word
    (a bare number): the entry has no text."""
    parts = ("customer_reference", "bank_reference", "extra_details")
    text = one_line(" ".join(reference(data.get(part)) or "" for part in parts))
    return text if has_words(text) else ""


def _details(data: dict) -> tuple[str | None, str]:
    """(other party, text) of the :86: details, or of the :NS: lines where there is no :86:;
    the party is ``None`` for free text, which has no field for one."""
    free = str(data.get("transaction_details") or "")
    if free:
        # a tagged string wraps mid-word at 65 characters: its lines join without a space
        tagged = sepa_tags("".join(free.splitlines()))
        if not tagged:
            return None, one_line(_without_gvc_999(_unwrapped(free)))
        if not (tagged.get("NAME") or tagged.get("CNTP")) and _ROLE_LINES.match(free):
            return _role_fields(free, _tagged_remittance(tagged))
        party = _tagged_party(tagged)
        # a batch names no party; what kind of payment it is (/BUSP/) is its text, where its
        # remittance gives none
        return party, _tagged_remittance(tagged) or ("" if party else one_line(tagged.get("BUSP")))
    if "posting_text" in data:  # German sub-fields, which the library took apart
        return one_line(data.get("applicant_name")), _dk_text(data)
    lines = str(data.get("non_swift_text") or "").splitlines()
    return None, one_line(" ".join(line for line in lines if has_words(line)))


def _payee(value) -> str:
    """The :61: supplementary details where they read as a name: not an account number, a
    reference (``NL70ABNA0987654321``, ``P001234567``) or a code (mBank's ``911-TRANSAKCJA
    IPH``), whose first word holds a digit."""
    text = one_line(value)
    first = text.split(" ", 1)[0]
    return text if has_words(text) and not any(c.isdigit() for c in first) else ""


# German banks' SEPA keywords in the purpose (DFÜ-Abkommen, Anlage 3), and ``MTLG:`` before a
# bank's message; the text after SVWZ+ and MTLG: is free text, after the others a reference,
# an account, a date or a code. Volksbanks repeat the references in the free text with a
# colon (``IBAN: DE83... BIC: SBCRDE66``, ``EREF: ZV01...``): read as the keywords are.
_DK_TAG = re.compile(
    r"(EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|PURP|MDAT|SQTP|ORCR|ORMR|DDAT|COAM|OAMT)"
    r" ?\+|(MTLG):|(EREF|KREF|MREF|CRED|IBAN|BIC) ?:"
)
_DK_FREE_TEXT = ("SVWZ", "MTLG")
_DK_PIECE = 27  # the characters of one ?2x/?6x sub-field


def _dk_text(data: dict) -> str:
    """The text of German sub-fields: the purpose where it holds a word; else (a reversal
    has no purpose, a batch or a closing only its number) the posting text (``?00``:
    SEPA-UEBERW/STORNO, SAMMLER, ABSCHLUSS) with that number after it, which tells one
    collective transfer from another."""
    purpose = _dk_purpose(data["raw_details"])
    if has_words(purpose):
        return purpose
    return one_line(f"{data.get('posting_text') or ''} {purpose}")


def _dk_purpose(details: str) -> str:
    """The purpose of German sub-fields as written (``?20``-``?29``, continued in ``?60``-
    ``?63``): its free text is kept, with any text before the first keyword, and the keywords
    and the references after them are left out."""
    purpose = _dk_pieces(details)
    marks = list(_DK_TAG.finditer(purpose))
    if not marks:
        return one_line(purpose)
    kept = [purpose[: marks[0].start()]]
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        if (mark.group(1) or mark.group(2)) in _DK_FREE_TEXT:
            kept.append(purpose[mark.end() : following.start() if following else len(purpose)])
    return one_line(" ".join(kept))


def _dk_pieces(details: str) -> str:
    """The purpose sub-fields joined: a full one (27 characters) was cut wherever it filled
    up, mostly inside a word (``ENDABRECHN`` + ``UNG``), so it joins the next without a space;
    a shorter one ended where the bank chose, at a word's end (``SVWZ+Apple Pay`` +
    ``DATUM ...``), so a space follows it, unless the next runs on (``_runs_on``: some banks
    cut at 26, ``KUNDENNUMMER 2`` + ``02227779``)."""
    parts = re.split(r"\?(\d{2})", "".join(details.splitlines()))
    pieces = [value for key, value in zip(parts[1::2], parts[2::2], strict=True) if key[0] in "26"]
    text = ""
    for piece, following in itertools.pairwise([*pieces, ""]):  # none where no ?2x is written
        runs_on = _runs_on(piece, following)
        # a bare " BIC" or " IBAN" label some banks end a sub-field with is no text (mt940
        # #109), unless the next one goes on with its value (" IBAN" + ": DE29...")
        text += piece if runs_on else re.sub(r" (BIC|IBAN)$", "", piece)
        text += "" if len(piece) >= _DK_PIECE or runs_on else " "
    return text


def _runs_on(piece: str, following: str) -> bool:
    """Whether the next sub-field continues this one's last word: a number cut in two, or
    punctuation, which starts no word."""
    return (piece[-1:].isdigit() and following[:1].isdigit()) or following[:1] in tuple(".,;:")


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
    """The other party: /NAME/, else the name in /CNTP/account/BIC/name/city/ or in ING's
    /BENM/ (beneficiary) or /ORDP/ (ordering party), written the same way."""
    if tags.get("NAME"):
        return one_line(tags["NAME"])
    for tag in ("CNTP", "BENM", "ORDP"):
        parts = tags.get(tag, "").split("/")
        if len(parts) > 2 and one_line(parts[2]):
            return one_line(parts[2])
    return ""


def _role_fields(free: str, remittance: str) -> tuple[str, str]:
    """(party, text) of details led by /BENM/ or /ORDP/ and the account: the next sub-field is
    the party; the text is the /REMI/ where there is one, else the sub-fields after the party,
    with the reference after a ``//``, placeholders (``/EMPTY/``) and codes (``/747//747``)
    left out. A line not led by ``/`` continues the one before (wrapped at 65 characters)."""
    lines = ["".join(f.splitlines()) for f in re.split(r"\n(?=/)", free.strip())]
    fields = [f.strip("/ ") for f in lines[1:] if not _SEPA_TAG.match(f)]  # not /REMI/ and such
    party = one_line(fields[0]) if fields else ""
    purposes = (f.split("//")[0] for f in fields[1:])
    text = " ".join(p for p in purposes if has_words(p) and p.upper() != "EMPTY")
    return party, remittance or one_line(text)


def _tagged_remittance(tags: dict[str, str]) -> str:
    text = tags.get("REMI", "")
    # unstructured (USTD//text) or structured (STRD/CUR/reference) remittance information
    text = re.sub(r"^/?(USTD|STRD)/(CUR/|ISO/)?/?", "", text)
    return one_line(text)


_LINE = 65  # SWIFT's line length; the :86: tag takes 4 characters of the first line


# German banks' unstructured details (DFÜ-Abkommen): the business code 999 ("unstructured"),
# the Primanota (posting batch) number ``PN`` and four digits, then the text, if any:
# ``999PN5477SCHECK-NR. 0000016703074``; a text starts with neither a digit nor ``?`` (a code
# before ``?`` sub-fields is the structured layout, which the parser takes apart)
_GVC_999 = re.compile(r"^999(?:PN\d{4})?(?=\s*(?:[^\s?\d]|$))")


def _without_gvc_999(text: str) -> str:
    """Unstructured details without their business code 999 and Primanota number, which say
    only that the text is unstructured and which batch booked it (a new number on every row)."""
    return _GVC_999.sub("", text)


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
