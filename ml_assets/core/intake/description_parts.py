"""A row's description from the cells a table gives it: the other party, a booking text, a
purpose or reference, joined in that order into one text a person reads to recognise the
merchant and what was paid. A cell that stands for nothing (a bank's "/", "--" or
"----------" in an empty field) is no part of it, and a part the text already holds word for
word (Kiwibank's reference "Bob" inside "PAY Alice Pool Bob", BOC's party written again as
its message) is said once. A party's address after its name is no part of it.
"""

from __future__ import annotations

import re
import unicodedata


def text_of(value: object) -> str:
    """A cell as text, its runs of spaces and line breaks one space (Crédit Agricole's label
    quoted over three lines, HDFC's narration padded to 120 characters: a person reads one
    line, and a merchant's rows read alike), a list of strings joined, nothing for None or
    NaN."""
    if isinstance(value, list):
        return " ".join(_one_line(v) for v in value if isinstance(v, str) and v.strip())
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return _one_line(str(value))


# a line break, or a run of spaces (a padded field); one space of any kind (a Japanese text's
# full-width one between words) is the text's own
_BREAKS = re.compile(r"\s*[\r\n\t\f\v]\s*|\s{2,}")


def _one_line(text: str) -> str:
    return _BREAKS.sub(" ", text).strip()


def placeholder(text: str) -> bool:
    """Whether a cell's text stands for an empty field: punctuation alone ("/", "--",
    "----------", "*"). Such a text names no merchant and no purpose; an emoji does (Venmo's
    note "🍕" says what was paid for)."""
    return bool(text.strip()) and all(
        unicodedata.category(ch)[0] in "PZ" or ch in _MARKS for ch in text
    )


# ASCII marks Unicode files as math or currency symbols, written for an empty field as "/" is
_MARKS = frozenset("+<=>|~^`")


def worded(value: object) -> str:
    """A cell's text, or "" where it is blank or a placeholder."""
    text = text_of(value)
    return "" if placeholder(text) else text


def party_name(value: object) -> object:
    """A party's cell without the address a backslash starts (SEB's card payee "TAMMSAARE
    RIMI ISETEEN\\TAMMSAARE TEE 104A \\TALLINN"): the name groups a merchant's rows, its
    street does not. Other cells as they are."""
    if not isinstance(value, str) or "\\" not in value.strip("\\ "):
        return value
    return value.strip().split("\\", 1)[0].strip()


def names_in(party: str, text: str) -> bool:
    """Whether a text names the party as written (two words or more, whole): "Sent money to
    Jane Doe" names "Jane Doe"; Starling's "PRET A MANGER LONDON" keeps its "Pret A Manger",
    the cleaner name, in front."""
    words = party.split()
    return len(words) >= 2 and f" {' '.join(words)} " in f" {' '.join(text.split())} "


def _said(part: str, text: str) -> bool:
    """Whether ``text`` holds ``part`` whole, word for word (case aside)."""
    return f" {' '.join(part.casefold().split())} " in f" {' '.join(text.casefold().split())} "


def description_of(parts: list) -> object:
    """The description from its cells in order (the other party first). One cell is the
    description as it is (a blank one is then reported as a missing text); of several, the
    filled ones are joined, a placeholder and a part already said left out, and a first
    part (the party) that a later text names as written is left to that text (Wise's "Sent
    money to Jane Doe" beside "Jane Doe"). Cells that are all placeholders are joined as
    they are: the row keeps what it has. A text cell's spacing is made one line's (text_of);
    a whole number in it is text ("7" for a shop's number)."""
    if len(parts) == 1:
        part = parts[0]
        if isinstance(part, int) and not isinstance(part, bool):
            return str(part)
        return _one_line(part) if isinstance(part, str) else part
    texts = [text_of(p) for p in parts]
    if not any(t and not placeholder(t) for t in texts):
        return " ".join(t for t in texts if t)
    kept: list[str] = []
    for text in texts:
        if not text or placeholder(text) or _said(text, " ".join(kept)):
            continue
        if len(kept) == 1 and names_in(kept[0], text):
            kept = []  # the party, named by the text: said once, in the text's words
        kept.append(text)
    return " ".join(kept)
