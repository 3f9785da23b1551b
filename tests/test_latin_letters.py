"""Cyrillic and Greek letters spelled in Latin ones, for the bag's character n-grams."""

from ml_assets.core.text.latin_letters import latin_spelling


def test_cyrillic_and_greek_letters_are_spelled_in_latin_ones():
    assert latin_spelling("макдоналдс") == "makdonalds"
    assert latin_spelling("щука й ї") == "shchuka i i"
    assert latin_spelling("σκλαβενιτης") == "sklavenitis"


def test_accented_letters_are_spelled_as_their_base_letter():
    assert latin_spelling("αθήνα ё ѓ") == "athina e g"


def test_every_other_character_is_left_as_it_is():
    text = "café 0000 スターバックス 星巴克 ölü €"
    assert latin_spelling(text) == text
