"""Cyrillic and Greek letters spelled in Latin ones, for the n-gram bag's character n-grams.

One statement prints a merchant in its own script, another romanized ("варус" and "Varus",
"макдоналдс" and "McDonald's"): the two spellings share no character. Spelled in Latin
letters they share most of their character n-grams, and a merchant seen in training in one
script is recognized in the other. Only alphabets whose letters map to Latin letters one by
one are spelled (Cyrillic as Russian, Ukrainian, Belarusian, Serbian and Macedonian write it,
BGN/PCGN-like; Greek); syllabaries, abjads and Han characters are left as they are, since a
letter-by-letter spelling of them shares few n-grams with how their merchants are romanized.
"""

from __future__ import annotations

import unicodedata

_CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "г": "g", "ґ": "g", "д": "d", "ђ": "dj", "е": "e", "є": "ye",
    "ж": "zh", "з": "z", "ѕ": "dz", "и": "i", "і": "i", "ї": "i", "й": "i", "ј": "j", "к": "k",
    "л": "l", "љ": "lj", "м": "m", "н": "n", "њ": "nj", "о": "o", "п": "p", "р": "r", "с": "s",
    "т": "t", "ћ": "c", "ќ": "k", "ѓ": "g", "у": "u", "ў": "u", "ф": "f", "х": "kh", "ц": "ts",
    "ч": "ch", "џ": "dz", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e",
    "ю": "yu", "я": "ya", "ё": "e",
}  # fmt: skip
_GREEK = {
    "α": "a", "β": "v", "γ": "g", "δ": "d", "ε": "e", "ζ": "z", "η": "i", "θ": "th", "ι": "i",
    "κ": "k", "λ": "l", "μ": "m", "ν": "n", "ξ": "x", "ο": "o", "π": "p", "ρ": "r", "σ": "s",
    "ς": "s", "τ": "t", "υ": "y", "φ": "f", "χ": "ch", "ψ": "ps", "ω": "o",
}  # fmt: skip
# where the accented forms of those letters live: Greek and Coptic, Cyrillic and its supplement,
# Greek Extended
_BLOCKS = (range(0x370, 0x400), range(0x400, 0x530), range(0x1F00, 0x2000))


def _table() -> dict[int, str]:
    """Each small letter of the two alphabets, accented ones as their base letter (for a
    backbone whose tokenizer keeps accents). Capitals stay: descriptions are lowercased before
    they are tokenized."""
    spelled = _CYRILLIC | _GREEK
    table = {}
    for point in (p for block in _BLOCKS for p in block):
        base = unicodedata.normalize("NFD", chr(point))[:1]
        if base in spelled:
            table[point] = spelled[base]
    return table


_TABLE = _table()


def latin_spelling(text: str) -> str:
    """``text`` with its Cyrillic and Greek letters spelled in Latin letters; every other
    character as it is."""
    return text.translate(_TABLE)
