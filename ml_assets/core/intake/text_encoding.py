"""The text encoding of a bank file, from its first bytes: a byte-order mark, UTF-8, the
Windows code page of Western, Baltic or Central European text, or the legacy code page of
another script. The guess is made per file and can be set instead (raw_transactions.encoding).
"""

from __future__ import annotations


def detect_encoding(head: bytes) -> tuple[str, str]:
    """(encoding, why) of a text file from its first bytes: a byte-order mark, else UTF-8 when
    the bytes decode as UTF-8; else, when they read as Western text, cp1257 where the detector
    finds Baltic text and its letters are there (see _spells_baltic), cp1250 where it finds
    Central European text and that text's letters are there (see _central_european_letters),
    else cp1252 (what US and Western European banks write); else the legacy code page of another script (Japanese,
    Chinese, Korean, Cyrillic, Central European, Greek) that ``charset_normalizer`` finds,
    else cp1252."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig", "UTF-8 with a byte-order mark"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", "UTF-16 (byte-order mark)"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start >= len(head) - 3:  # a character cut by the end of the sample
            return "utf-8", "valid UTF-8"
        line = head.count(b"\n", 0, err.start) + 1
        byte = head[err.start : err.start + 1].hex()
        where = f"not UTF-8 (byte 0x{byte} on line {line})"
        if _reads_as_western(head):
            other = _other_european(head)
            if other and other[0] == "cp1257" and _spells_baltic(head):
                return "cp1257", (
                    f"{where}; Windows-1257, {other[1]} text (its ė, ų, š, ž read as ë, ø, ð, þ "
                    "in Windows-1252)"
                )
            if other and other[0] == "cp1250" and (letters := _central_european_letters(head)):
                return "cp1250", (
                    f"{where}; Windows-1250, {other[1]} text (its {', '.join(letters)} read as "
                    f"{', '.join(_as_cp1252(letters))} in Windows-1252)"
                )
            if other:  # a hint, not a choice: the detector says so of some Italian text too
                page, language = other
                return "cp1252", (
                    f"{where}; Windows-1252, though charset_normalizer reads it as {language} in "
                    f"{page}: if letters look wrong ('è' for 'č', 'ø' for 'ř' or 'ų'), set "
                    f"encoding: {page} and write column_map's names as they read in it"
                )
            return "cp1252", f"{where}; Windows-1252"
        other = _other_code_page(head)
        if other:
            return other, f"{where}; {other}, not Western text (charset_normalizer)"
        return "cp1252", f"{where}; Windows-1252 (no code page reads it as text)"
    if head.isascii():
        return "utf-8", "ASCII"
    return "utf-8", "valid UTF-8"


# the legacy code pages of the scripts bank exports are written in beside Western European;
# the detector is asked only among these (unrestricted, it calls some cp1252 files mac_roman)
_OTHER_CODE_PAGES = ("cp932", "gb18030", "big5", "cp949", "cp1251", "cp1250", "cp1253")


# cp1252's rarer symbols (0x82-0x9f, less the quotes, dashes, ellipsis and bullet Western text
# is typeset with): what Japanese or Chinese bytes read as cp1252 turn into
_CP1252_SYMBOLS = set(bytes(range(0x82, 0xA0)).decode("cp1252", errors="ignore")) - set(
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u2022\u2122"
)


def _reads_as_western(head: bytes) -> bool:
    """Whether ``head`` decodes as cp1252 into text whose letters are mostly ASCII (accents
    here and there, not words of them: Cyrillic or CJK bytes read as cp1252 give those) and
    few of its rarer symbols."""
    # the five bytes cp1252 leaves undefined count as symbols: frequent in Japanese text, a
    # stray one in a Western file
    text = head.decode("cp1252", errors="replace")
    letters = [c for c in text if c.isalpha()]
    accented = sum(not c.isascii() for c in letters)
    beyond = [c for c in text if not c.isascii()]
    symbols = sum(c in _CP1252_SYMBOLS or c == "\ufffd" for c in beyond)
    return accented <= 0.3 * max(len(letters), 1) and symbols <= max(3, 0.2 * len(beyond))


# the European code pages whose text mostly reads as cp1252 too ("Datum zaúètování",
# "Paslaugø"), the shared letters alike, their own as other accents; and their languages
_OTHER_EUROPEAN = {
    "cp1250": ("Czech", "Slovak", "Polish", "Hungarian", "Slovene", "Croatian"),
    "cp1257": ("Lithuanian", "Latvian", "Estonian"),
}


def _other_european(head: bytes) -> tuple[str, str] | None:
    """(code page, language) where ``head`` reads best in one of those code pages and one of
    its languages (asked between it and cp1252 alone, the detector prefers cp1250 for German
    or Dutch text as well: their letters are the same in both). Wrong for some Italian,
    Spanish and Portuguese text, so only a hint."""
    from charset_normalizer import from_bytes

    for page, languages in _OTHER_EUROPEAN.items():
        best = from_bytes(head, cp_isolation=["cp1252", page]).best()
        if best is not None and best.encoding == page and best.language in languages:
            return page, best.language
    return None


# Lithuanian and Latvian letters cp1257 writes where cp1252 has ë, ø, û, ð and þ: letters
# Western text spells few words with (Dutch "België", Danish "ø", French "août"), seldom two
# of them in one file, and never a third of its accented letters
_BALTIC_LETTERS = "ėųūšžĖŲŪŠŽ"


def _spells_baltic(head: bytes) -> bool:
    """Whether ``head`` read as cp1257 has two or more of the Baltic letters above, and they
    make a third or more of its accented letters: the Italian, Spanish or Czech text the
    detector also calls Lithuanian has none of them, or one ('ø' for Czech 'ř')."""
    text = head.decode("cp1257", errors="replace")
    accented = [c for c in text if c.isalpha() and not c.isascii()]
    baltic = [c for c in accented if c in _BALTIC_LETTERS]
    return len({c.lower() for c in baltic}) >= 2 and 3 * len(baltic) >= len(accented)


# the letters of Central European languages cp1250 writes where cp1252 has another character,
# and the š and ž both share (which Western text seldom spells with)
_CENTRAL_EUROPEAN_LETTERS = frozenset(
    c
    for c in bytes(range(0x80, 0x100)).decode("cp1250", errors="ignore")
    if c.isalpha() and c.encode("cp1250") != c.encode("cp1252", errors="ignore")
) | set("šžŠŽ")


def _central_european_letters(head: bytes) -> list[str]:
    """The Central European letters (see above) that ``head`` read as cp1250 spells inside
    its words, where two or more of them do, else none: Italian text, which the detector
    calls Czech or Croatian at times, ends its words with the accents (più, città, è) that
    cp1250 reads as ů, ŕ, č; Czech spells its letters mid-word (účtu, Měna, Původní)."""
    text = head.decode("cp1250", errors="replace").lower()
    inside = {
        c
        for c, after in zip(text, text[1:], strict=False)
        if c in _CENTRAL_EUROPEAN_LETTERS and after.isalpha()
    }
    return sorted(inside, key=text.index) if len(inside) >= 2 else []


def _as_cp1252(letters: list[str]) -> list[str]:
    return [c.encode("cp1250").decode("cp1252", errors="replace") for c in letters]


def _other_code_page(head: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(head, cp_isolation=list(_OTHER_CODE_PAGES)).best()
    return best.encoding if best is not None else None
