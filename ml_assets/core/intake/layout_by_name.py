"""A table's columns by their header's names (core.column_names), checked against their
values: a date column whose values are not dates, an amount column that holds no numbers, or
a text column with one value on every row beside texts that vary, is not taken; an amount
column that is zero on every row gives way to another amount column, a text column of account
numbers (an IBAN) to a column of the other party's names. The description is the other party
and the purpose where the names give both, joined by the load.
"""

from __future__ import annotations

from ml_assets.core.intake.column_doubts import split_breakdowns, zero_beside_amount
from ml_assets.core.intake.column_names import (
    SYNONYMS,
    field_of,
    names_other_party,
    normalized,
    party_role,
)
from ml_assets.core.intake.column_values import (
    account_numbers,
    all_zero,
    cell,
    column,
    date_share,
    distinct,
    number_share,
    serial_share,
    spaced,
    times_of_day,
    votes_on_columns,
)
from ml_assets.core.intake.csv_exports import CellRow
from ml_assets.core.intake.guessed_layout import LayoutGuess
from ml_assets.core.intake.name_words import FIELD_WORDS, NOT_FIELD_WORDS, side_named
from ml_assets.core.intake.row_status import status_sets_aside
from ml_assets.core.intake.tables import position_name


def columns_by_name(header: list[str]) -> dict[str, str]:
    """Their column -> ours by the names banks use; each field from the column whose name is
    likeliest for it, each column for one field; an amount column wins over debit/credit."""
    best: dict[str, tuple[int, str]] = {}
    for name in header:
        key = normalized(name)
        for ours, names in SYNONYMS.items():
            if key in names and (ours not in best or names.index(key) < best[ours][0]):
                best[ours] = (names.index(key), name)
    _sides_by_words(header, best)
    _by_words(header, best)
    if "amount" in best and best["amount"][0] == _BY_WORDS and {"debit", "credit"} <= set(best):
        del best["amount"]  # ZKB's "Amount details" beside its "Debit CHF" and "Credit CHF"
    if "amount" in best:
        best.pop("debit", None)
        best.pop("credit", None)
    else:
        best.pop("direction", None)  # (a direction signs an amount column)
    chosen: dict[str, str] = {}
    for ours, (_, theirs) in sorted(best.items(), key=lambda item: item[1][0]):
        chosen.setdefault(theirs, "description" if ours in _TEXT_PARTS else ours)
    _other_side(header, chosen)
    _every_text_part(header, chosen)
    _text_beside_party(header, chosen)
    if "description" not in chosen.values():
        _text_of_another_field(chosen)
    return {name: chosen[name] for name in header if name in chosen}  # in the file's order


# fields whose column is a part of the description: the other party and the payment's purpose
# (the load joins them, the party first, and takes the party for the merchant)
_TEXT_PARTS = ("counterparty", "purpose")


def _every_text_part(header: list[str], chosen: dict[str, str]) -> None:
    """Every column a name list knows whole as the other party or the purpose is a part of
    the description, not only the likeliest of each (ICBC's payee "对方户名" beside the shop
    "交易场所", BOC's message "附言" beside its party): a second party or purpose column
    left out would drop its words from every row."""
    for name in header:
        if name not in chosen and field_of(name) in _TEXT_PARTS:
            chosen[name] = "description"


def _text_beside_party(header: list[str], chosen: dict[str, str]) -> None:
    """Where every text column chosen names the other party (MoneyMoney's "Name", a name
    the text list knows because it is often a file's only text), the likeliest other column
    the text list knows whole is the payment's text beside it (its "Verwendungszweck"):
    left out, every row would lose what was paid for. Never a booking type chosen as such
    ("Buchungstext" beside a purpose)."""
    texts = [t for t, o in chosen.items() if o == "description"]
    if not texts or not all(names_other_party(t) for t in texts):
        return
    names = SYNONYMS["description"]
    free = [
        name
        for name in header
        if name not in chosen and normalized(name) in names and not names_other_party(name)
    ]
    if free:
        chosen[min(free, key=lambda n: names.index(normalized(n)))] = "description"


def _text_of_another_field(chosen: dict[str, str]) -> None:
    """Where no column is a text by name: a name that is a booking type and a text
    ("Buchungstext") is the text (Commerzbank's, Comdirect's); else the merchant's name
    (PC Financial's "Merchant Name"), which the load then takes for the merchant too."""
    typed = [t for t, o in chosen.items() if o == "transaction_type"]
    theirs = next((t for t in typed if normalized(t) in SYNONYMS["description"]), None)
    theirs = theirs or next((t for t, o in chosen.items() if o == "merchant"), None)
    if theirs is not None:
        chosen[theirs] = "description"


_BY_WORDS = 1000  # the rank of a column found by a word of its name, after any whole name


_POSTING = ("post", "book", "complet", "settle", "buchung", "boek")


def _other_side(header: list[str], chosen: dict[str, str]) -> None:
    """Beside a party column that names one side (DKB's payee, "Zahlungsempfänger*in"), the
    other side's column (its payer, "Zahlungspflichtige*r") is a party too: the load takes
    the payer on money in and the payee on money out, never the account's owner."""
    roles = {
        party_role(t) for t, o in chosen.items() if o == "description" and names_other_party(t)
    }
    if len(roles) != 1 or None in roles:
        return
    wanted = "payer" if roles == {"payee"} else "payee"
    for name in header:
        if name not in chosen and names_other_party(name) and party_role(name) == wanted:
            chosen[name] = "description"
            return


def _by_words(header: list[str], best: dict[str, tuple[int, str]]) -> None:
    taken = {theirs for _, theirs in best.values()}
    words_of = {name: set(normalized(name).split()) for name in header}
    for ours, words in FIELD_WORDS.items():
        if ours in best:
            continue
        found = [
            name
            for name in header
            if name not in taken
            and words_of[name] & set(words)
            and not words_of[name] & set(NOT_FIELD_WORDS.get(ours, ()))
        ]
        found.sort(key=lambda n: not any(p in normalized(n) for p in _POSTING))
        if found and (ours != "counterparty" or {"description", "purpose"} & set(best)):
            best[ours] = (_BY_WORDS, found[0])  # after every whole-name match
            taken.add(found[0])


def _sides_by_words(header: list[str], best: dict[str, tuple[int, str]]) -> None:
    """Debit and credit columns by the words of names no list knows whole: a name of an
    amount and of one side (see core.name_words), both sides found. Toshl's "Expense amount" is then
    no amount column beside its "Income amount": every income row would read 0.00."""
    taken = {theirs for _, theirs in best.values()}
    found: dict[str, str] = {}
    for name in header:
        if name not in taken and (side := side_named(name)) is not None:
            found.setdefault(side, name)
    if {"debit", "credit"} <= set(found) and not {"debit", "credit"} & set(best):
        for side, name in found.items():
            best[side] = (_BY_WORDS, name)


def _dated_share(values: list) -> float:
    """The share of a date column's cells that read as dates: text in its format, date cells,
    or a spreadsheet's serial days in General cells (read as dates by the load)."""
    return max(date_share(values), serial_share(values))


def check_values(guess: LayoutGuess, body: list[CellRow]) -> str:
    """Drop a named column whose values are not what its name says (a "Date" column of
    text, an "Amount" column without numbers, a reference column that is not filled in on
    every row: a row without its id would be quarantined); an amount column of zeros and a
    text column of account numbers give way to a column that holds what they should. Returns
    what those two changed, in words ("" for nothing). A row of one filled cell (a footnote,
    a summary's title below the table) is no transaction and does not vote."""
    body = [r for r in body if votes_on_columns(r) and not status_sets_aside(guess.header, r.cells)]
    if not body:
        return ""
    positions = {name: i for i, name in enumerate(guess.header)}
    for theirs, ours in list(guess.columns.items()):
        values = column(body, positions[theirs])
        if ours == "transaction_id":
            filled = [str(v).strip() for v in values if str(v).strip()]
            if len(filled) < len(body) or len(set(filled)) < len(filled):
                del guess.columns[theirs]
                if _purpose_text(theirs, values):
                    guess.columns[theirs] = "description"
            continue
        share = _dated_share if ours == "posted_date" else number_share
        if ours in ("posted_date", "amount", "balance") and share(values) < 0.5:
            del guess.columns[theirs]
            if ours == "posted_date":  # Fidelity's blank "Settlement Date": its "Run Date"
                _filled_date_column(guess, body, positions, theirs, every_row=False)
        elif ours == "posted_date" and any(not str(v).strip() for v in values):
            _filled_date_column(guess, body, positions, theirs)
    said = _amount_not_zero(guess, body, positions) + _texts_with_words(guess, body, positions)
    said += split_breakdowns(guess, body, positions)
    return said + zero_beside_amount(guess, body, positions, _amount_named)


def _amount_not_zero(guess: LayoutGuess, body: list[CellRow], positions: dict) -> str:
    """An amount column that is zero on every row (ICICI's "Intl.Amount", for purchases
    abroad, beside its "Amount(in Rs)") gives way to another amount column that is not:
    every row would read 0.00."""
    theirs = next((t for t, o in guess.columns.items() if o == "amount"), None)
    if theirs is None or not all_zero(column(body, positions[theirs])):
        return ""
    for name in guess.header:
        values = column(body, positions[name])
        if name in guess.columns or not _amount_named(name) or all_zero(values):
            continue
        if number_share(values) >= 0.5:
            del guess.columns[theirs]
            guess.columns[name] = "amount"
            return f"; {theirs} is zero on every row: the amount is {name}"
    return ""


def _amount_named(name: str) -> bool:
    """Whether a column's name says it holds a payment's amount, not a part of it or a fee."""
    words = set(normalized(name).split())
    if words & set(NOT_FIELD_WORDS["amount"]):
        return False
    return field_of(name) == "amount" or bool(words & set(FIELD_WORDS["amount"]))


def _texts_with_words(guess: LayoutGuess, body: list[CellRow], positions: dict) -> str:
    """A text column that holds no text gives way to an unmapped one that does: a column of
    account numbers or IBANs (bunq's "Counterparty") to the other party's names (its
    "Name"), else to a column a name list knows as text; a party's or a purpose's column
    blank on every row (bunq's card-only month, PayPal's "Note") to another of its kind (its
    "Item Title"), else to an unnamed column beside it (Stanbic's "Transaction description"
    over merged cells, its text one column left of the name). An account number names no
    merchant to group by. Returns what changed, in words ("" for nothing)."""
    said = ""
    for theirs, ours in list(guess.columns.items()):
        values = column(body, positions[theirs])
        accounts = account_numbers(values)
        if ours != "description" or (any(str(v).strip() for v in values) and not accounts):
            continue
        free = [n for n in guess.header if n not in guess.columns and _worded(body, positions[n])]
        if accounts:
            found = [n for n in free if names_other_party(n)] or [n for n in free if _named_text(n)]
            holds = "account numbers"
        else:
            found = [n for n in free if _same_kind(n, theirs)] or _unnamed_beside(
                guess.header, theirs, free
            )
            holds = "nothing"
        if found:
            del guess.columns[theirs]
            guess.columns[found[0]] = "description"
            said += f"; {theirs} holds {holds}: the text is {found[0]}"
    return said


def _unnamed_beside(header: list[str], name: str, free: list[str]) -> list[str]:
    """The columns right beside ``name`` that the header leaves unnamed (a merged cell's
    name stands over one of the cells it spans) and that hold words."""
    at = header.index(name)
    beside = [i for i in (at - 1, at + 1) if 0 <= i < len(header)]
    return [header[i] for i in beside if header[i] in free and header[i] == position_name(i + 1)]


def _same_kind(name: str, other: str) -> bool:
    """Whether two text columns hold the same part of a description: both the other party,
    or both the payment's purpose."""
    if names_other_party(other):
        return names_other_party(name)
    return field_of(other) == field_of(name) == "purpose"


def _worded(body: list[CellRow], position: int) -> bool:
    """Whether a column holds words on some row and is no column of account numbers."""
    values = column(body, position)
    words = any(any(map(str.isalpha, str(v))) for v in values)
    return words and not account_numbers(values)


def varying_text(guess: LayoutGuess, body: list[CellRow]) -> str:
    """A text column that holds one value on every row (UBS's "Description": the account's
    product name) is no row's text where other columns of text vary: those whose names say
    they are texts (its "Description 1" to "3", joined, one of them varying), else the one of
    spaced words with the most different values. A party's column stays: one payee on every
    row is a fact. Returns what was changed, in words ("" for nothing)."""
    if len(body) < 2:
        return ""
    positions = {name: i for i, name in enumerate(guess.header)}
    constant = [
        theirs
        for theirs, ours in guess.columns.items()
        if ours == "description"
        and not names_other_party(theirs)
        and distinct(body, positions[theirs]) == 1
        and all(str(cell(r, positions[theirs])).strip() for r in body)
    ]
    if not constant:
        return ""
    free = [n for n in guess.header if n not in guess.columns]
    named = [n for n in free if _named_text(n) and distinct(body, positions[n])]
    varying = named if any(distinct(body, positions[n]) > 1 for n in named) else []
    if not varying and len(body) >= 3:  # (two rows may share a text by chance)
        worded = [
            n
            for n in free
            if spaced(body, positions[n])
            and distinct(body, positions[n]) > 1
            and number_share(column(body, positions[n])) < 0.5
            and date_share(column(body, positions[n])) < 0.5
            and not times_of_day(column(body, positions[n]))
        ]
        varying = sorted(worded, key=lambda n: -distinct(body, positions[n]))[:1]
    if not varying:
        return ""
    for theirs in constant:
        del guess.columns[theirs]
    for name in varying:
        guess.columns[name] = "description"
    return f"; {', '.join(constant)} holds one value on every row: the text is {', '.join(varying)}"


def _named_text(name: str) -> bool:
    """Whether a column's name says it holds text: a text's name, or one of its words
    ("Description 1")."""
    words = set(normalized(name).split())
    return field_of(name) in ("description", "purpose") or bool(
        words & set(FIELD_WORDS["description"])
    )


def _purpose_text(name: str, values: list) -> bool:
    """A "Reference" column that is no id (repeated, or blank on some rows) but words: the
    payment's reference text (Starling's "PRET A MANGER LONDON" beside its "Counter Party"),
    part of the description."""
    return normalized(name) in ("reference", "referenz") and number_share(values) < 0.5


def _filled_date_column(
    guess: LayoutGuess,
    body: list[CellRow],
    positions: dict[str, int],
    theirs: str,
    every_row: bool = True,
) -> None:
    """A date column blank on some rows (a pending card payment has no completed date) gives
    way to another date column filled on every row: a row without a date is quarantined. A
    date column of no dates at all gives way to one of dates (``every_row`` False)."""
    for name in guess.header:
        if name in guess.columns or not set(normalized(name).split()) & set(
            FIELD_WORDS["posted_date"]
        ):
            continue
        values = column(body, positions[name])
        # (the bar a named date column is held to, where the other stood empty)
        if every_row and all(str(v).strip() for v in values) and date_share(values) >= 0.8:
            guess.columns.pop(theirs, None)
            guess.columns[name] = "posted_date"
            return
        numbered = [v for v in values if any(ch.isdigit() for ch in str(v))]  # not a footer's
        if not every_row and numbered and date_share(numbered) >= 0.5:
            guess.columns.pop(theirs, None)
            guess.columns[name] = "posted_date"
            return
