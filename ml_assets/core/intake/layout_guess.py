"""Guessing how a table-shaped export is laid out, for ``inspect``: which line is the header
(or that there is none) and which of its columns gives each of our fields (which sign a
purchase has: ``sign_guess``; why no layout fits: ``layout_refusal``). The load never guesses a column: it reads what these guesses became in params.

Columns come from their names (core.column_names) and are checked against their values: a
date column whose values are not dates, an amount column that holds no numbers, or a text
column with one value on every row beside texts that vary, is not taken; an amount column
that is zero on every row gives way to another amount column, a text column of account
numbers (an IBAN) to a column of the other party's names. The description is
the other party and the purpose where the names give both, joined by the load. A header of
names no list knows (on line 1 or below a preamble), or a file without one, is mapped by
its values: the first column of dates, the first column of amounts that is neither a
running balance nor a balance before or after each row, the column of words (spaced words
first, never times of day) with the most different values, a column of ISO currency codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ml_assets.core.intake.column_names import (
    COUNTERPARTY_WORDS,
    MONEY_IN,
    MONEY_OUT,
    NOT_COUNTERPARTY_WORDS,
    SYNONYMS,
    field_of,
    names_other_party,
    normalized,
    party_role,
)
from ml_assets.core.intake.column_values import (
    account_numbers,
    all_zero,
    balance_pair,
    cell,
    column,
    credit_side,
    currency_codes,
    date_share,
    distinct,
    filled_amounts,
    money_like,
    number_share,
    numbers,
    runs_with,
    spaced,
    times_of_day,
    written_apart,
)
from ml_assets.core.intake.csv_exports import CSV_PRESETS, CellRow, fitting_presets
from ml_assets.core.intake.records import SchemaError
from ml_assets.core.intake.sign_guess import INCOME, SPENDING
from ml_assets.core.intake.statements import statement_line
from ml_assets.core.intake.tables import HEADER_SEARCH_LINES, header_names, position_name


@dataclass
class LayoutGuess:
    """A guessed layout: the header's line (0: none) and names, their column -> ours, and
    the evidence for each choice, in words."""

    line: int
    header: list[str]
    columns: dict[str, str]
    preset: str | None = None
    spending: str = "negative"
    why: dict[str, str] = field(default_factory=dict)
    # a booking type mapped to the text only because some rows have no other (PayPal's "Type"
    # where "Name" is blank): no sign of what the other rows are
    type_text: str | None = None

    def required_ok(self) -> bool:
        ours = set(self.columns.values())
        return {"posted_date", "description"} <= ours and bool(ours & {"amount", "debit", "credit"})


def columns_by_name(header: list[str]) -> dict[str, str]:
    """Their column -> ours by the names banks use; each field from the column whose name is
    likeliest for it, each column for one field; an amount column wins over debit/credit."""
    best: dict[str, tuple[int, str]] = {}
    for name in header:
        key = normalized(name)
        for ours, names in SYNONYMS.items():
            if key in names and (ours not in best or names.index(key) < best[ours][0]):
                best[ours] = (names.index(key), name)
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
    if "description" not in chosen.values():
        _text_of_another_field(chosen)
    return {name: chosen[name] for name in header if name in chosen}  # in the file's order


# fields whose column is a part of the description: the other party and the payment's purpose
# (the load joins them, the party first, and takes the party for the merchant)
_TEXT_PARTS = ("counterparty", "purpose")


def _text_of_another_field(chosen: dict[str, str]) -> None:
    """Where no column is a text by name: a name that is a booking type and a text
    ("Buchungstext") is the text (Commerzbank's, Comdirect's); else the merchant's name
    (PC Financial's "Merchant Name"), which the load then takes for the merchant too."""
    typed = [t for t, o in chosen.items() if o == "transaction_type"]
    theirs = next((t for t in typed if normalized(t) in SYNONYMS["description"]), None)
    theirs = theirs or next((t for t, o in chosen.items() if o == "merchant"), None)
    if theirs is not None:
        chosen[theirs] = "description"


# words that make a column a candidate for a field when no name matches whole ("Completed
# Date", "Transaction Amount (GBP)"); a date column that names a posting wins
_WORDS = {
    "posted_date": ("date", "datum", "fecha", "data"),
    "amount": (
        "amount",
        "betrag",
        "bedrag",
        "montant",
        "importe",
        "importo",
        "castka",
        "kwota",
        "oesszeg",
    ),
    "description": (
        "description",
        "omschrijving",
        "libelle",
        "memo",
        "details",
        "narrative",
        "popis",
        "opis",
    ),
    "balance": ("balance", "saldo", "solde", "kontostand"),
    "counterparty": COUNTERPARTY_WORDS,
    # a label column the user named ("My category", "Ma catégorie")
    "category": ("category", "categorie", "kategorie", "categoria"),
}
# words that keep a column from a field its other words fit: a merchant category code or a
# category's id is no label of the user's
_NOT_WORDS = {
    # a part of the payment or a charge beside it is no payment's amount (PayPal's "Shipping
    # and Handling Amount", "Insurance Amount" beside its "Gross"; Venmo's "Amount (fee)")
    "amount": ("shipping", "handling", "tax", "insurance", "discount", "fee", "fees", "tip"),
    "category": ("code", "id", "uid", "uuid", "guid", "mcc", "number", "no"),
    # the other party's account or address is no name: Oberbank's "Empfänger IBAN/Kto.Nr.",
    # PayPal's "Empfänger E-Mail-Adresse"
    "counterparty": NOT_COUNTERPARTY_WORDS,
}
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
    for ours, words in _WORDS.items():
        if ours in best:
            continue
        found = [
            name
            for name in header
            if name not in taken
            and words_of[name] & set(words)
            and not words_of[name] & set(_NOT_WORDS.get(ours, ()))
        ]
        found.sort(key=lambda n: not any(p in normalized(n) for p in _POSTING))
        if found and (ours != "counterparty" or {"description", "purpose"} & set(best)):
            best[ours] = (_BY_WORDS, found[0])  # after every whole-name match
            taken.add(found[0])


def guess_layout(rows: list[CellRow]) -> LayoutGuess | None:
    """The layout of a table from its first rows, or None when neither a header nor the
    values give a date, an amount and a description."""
    good = [r for r in rows if not isinstance(r.cells, SchemaError)]
    for index, row in enumerate(good):
        if row.line > HEADER_SEARCH_LINES:
            break
        header = header_names(row.cells)
        guess = LayoutGuess(row.line, header, columns_by_name(header))
        if guess.required_ok():
            checked = _check_values(guess, good[index + 1 :])
            varying = _varying_text(guess, good[index + 1 :])
            if guess.required_ok():
                guess.why["columns"] = "from the header's names" + checked + varying
                _direction_by_values(guess, good[index + 1 :])
                _trailing_direction(guess, good[index + 1 :])
                _more_text(guess, good[index + 1 :])
                guess.columns = {n: guess.columns[n] for n in header if n in guess.columns}
                return guess
    headers = _header_rows(good)
    for index in headers:
        # a header whose names do not give every field, on line 1 or below a preamble (a
        # bank's name, the period): what they give (a "Currency" beside a "Wording" no name
        # list knows, Sberbank's "Описание" beside an amount no name gives), the rest by the
        # values of the rows below it
        guess = _named_and_by_values(good[index], good[index + 1 :])
        if guess is not None:
            return guess
    # (a first row of names is a header: the file is not read as one without)
    return None if headers[:1] == [0] else _by_values(good, [], 0)


def _header_rows(good: list[CellRow]) -> list[int]:
    """The positions of rows that may be a header of names the lists do not know: words
    alone above rows that are not; below the first row, also about as wide as the rows
    under it (a preamble's "Account;Checking" is no header of five columns)."""
    found = []
    for index, row in enumerate(good):
        if row.line > HEADER_SEARCH_LINES:
            break
        below = good[index + 1 : index + 4]
        widest = max((len(_filled_cells(r.cells)) for r in below), default=0)
        wide = index == 0 or len(_filled_cells(row.cells)) >= widest - 1
        if _all_text(row.cells) and wide and not any(_all_text(r.cells) for r in below):
            found.append(index)
    return found


def _filled_cells(cells: list) -> list:
    return [c for c in cells if str(c if c is not None else "").strip()]


def _named_and_by_values(head: CellRow, body: list[CellRow]) -> LayoutGuess | None:
    """The columns a header's names give, the rest by the values of the rows below it."""
    header = header_names(head.cells)
    guess = _by_values(body, header, head.line)
    if guess is None:
        return None
    named = LayoutGuess(guess.line, header, columns_by_name(header))
    checked = _check_values(named, body)
    have = set(named.columns.values())
    have |= {"amount"} if have & {"debit", "credit"} else set()
    by_values = {
        theirs: ours
        for theirs, ours in guess.columns.items()
        if ours not in have
        and (theirs not in named.columns or _text_over_label(ours, named, theirs))
    }
    # the values' texts a name's text displaced: one of them still joins the description on
    # rows the named text leaves blank (Danske Bank Lithuania's blank "Memo" lines)
    displaced = [t for t, o in guess.columns.items() if o == "description" and t not in by_values]
    for theirs in displaced:
        guess.why["columns"] = guess.why["columns"].replace(_joined_where_blank(theirs), "")
    if named.columns:
        guess.why["columns"] += f"; {', '.join(named.columns)} by name{checked}"
    guess.columns = {**named.columns, **by_values}
    _more_text(guess, body, [t for t in displaced if t not in guess.columns])
    _direction_by_values(guess, body)
    guess.columns = {n: guess.columns[n] for n in guess.header if n in guess.columns}
    return guess if guess.required_ok() else None


def _text_over_label(ours: str, named: LayoutGuess, theirs: str) -> bool:
    """Whether a column the values give as a text goes before the label its name gives
    (FinPension's "Category": Deposit, Buy, Fee, the only text of a deposit): a row without a
    text is quarantined, one without a label is not."""
    return ours == "description" and named.columns[theirs] in ("category", "transaction_type")


_NEITHER_SHARE = 0.1  # rows with neither a debit nor a credit (a null booking) a pair allows,
# one at least


def _complement(body: list[CellRow], amount: int, width: int, taken: set[int]) -> int | None:
    """A column of amounts filled on the rows where column ``amount`` is blank or zero (the
    credits beside Targobank's debits, Sumishin's 入金 beside its 出金, SunTrust's deposits
    beside a "0" debit), never on the same row; a few rows may have neither. Or None."""
    filled = filled_amounts(body, amount)
    if all(filled):
        return None
    for i in range(width):
        if i == amount or i in taken:
            continue
        other = filled_amounts(body, i)
        values = [v for v in column(body, i) if str(v).strip()]
        both = any(a and b for a, b in zip(filled, other, strict=True))
        neither = sum(not a and not b for a, b in zip(filled, other, strict=True))
        few_neither = neither <= max(1, _NEITHER_SHARE * len(body))
        if any(other) and not both and few_neither and number_share(values) == 1.0:
            return i
    return None


def _debit_first(
    body: list[CellRow], one: int, other: int, text: int, balances: list[int]
) -> tuple[int, int, str, int | None]:
    """(money out, money in, how it was told, the running balance that told it) of two
    complementary amount columns: the one with negative amounts is the money out; else a
    running balance (of ``balances``) that grows by one and falls by the other tells; else
    the one whose rows say they are income (column ``text``: "Gehalt", "Habenzinsen") more
    often than spending ("POS", "HOFER DANKT") is the money in; else the first is the money
    out (debit before credit, Soll before Haben), as assumed."""
    for debit, credit in ((one, other), (other, one)):
        if any(n is not None and n < 0 for n in numbers(column(body, debit))):
            return debit, credit, "the negative amounts are the debits", None
    by_words = _credit_by_words(body, one, other, text)
    for balance in balances:
        if (credit := credit_side(body, balance, one, other)) is not None:
            told = f"the running balance in column {balance + 1} follows them"
            if by_words is not None:  # (both pieces of evidence, said)
                agree = "agree" if by_words == credit else "say otherwise"
                told += f"; the rows that say they are income or spending {agree}"
            return (other if credit == one else one), credit, told, balance
    if by_words is not None:
        debit = other if by_words == one else one
        return debit, by_words, "the credits are the rows that say they are income", None
    debit, credit = min(one, other), max(one, other)
    return debit, credit, "the first assumed the debits: check the signs of the first rows", None


def _credit_by_words(body: list[CellRow], one: int, other: int, text: int) -> int | None:
    """The column of two whose rows' texts (column ``text``) say income more often, and
    spending less, than the other's; None where the words cannot tell them apart."""

    def income(position: int) -> int:
        texts = [str(cell(r, text)) for r in body if filled_amounts([r], position)[0]]
        return sum(bool(INCOME.search(t)) - bool(SPENDING.search(t)) for t in texts)

    if income(one) == income(other):
        return None
    return one if income(one) > income(other) else other


def _more_text(
    guess: LayoutGuess, body: list[CellRow], candidates: list[str] | None = None
) -> None:
    """Another text column (one a name list knows as text, or of ``candidates``: Oberbank's
    "Text" beside an often empty "Verwendungszweck" and "Empfängername", ASN's purpose beside
    its often empty payee) joins the description where it is filled on rows the mapped ones
    leave blank: those rows would be quarantined for want of a text."""
    positions = {name: i for i, name in enumerate(guess.header)}
    mapped = [positions[t] for t, o in guess.columns.items() if o == "description"]
    blank = [r for r in body if not any(str(cell(r, i)).strip() for i in mapped) and r.cells]
    if candidates is None:
        candidates = [n for n in guess.header if field_of(n) == "description"]
    for name in candidates:
        if name in guess.columns:
            continue
        if any(str(cell(r, positions[name])).strip() for r in blank):
            guess.columns[name] = "description"
            guess.why["columns"] += _joined_where_blank(name)
            blank = [r for r in blank if not str(cell(r, positions[name])).strip()]
            break
    _type_where_blank(guess, blank, positions)


def _type_where_blank(guess: LayoutGuess, blank: list[CellRow], positions: dict) -> None:
    """The booking type is the text of booked rows that have no other (PayPal's "Bank Deposit
    to PP Account", Venmo's "Standard Transfer": no party, no note): joined to the
    description of every row, so none is quarantined for want of a text. A hold that is not
    booked (PayPal's pending "General Authorization") needs none."""
    typed = next((t for t, o in guess.columns.items() if o == "transaction_type"), None)
    if typed is None:
        return
    ours = [guess.columns.get(name, name) for name in guess.header]
    booked = [r for r in blank if statement_line(dict(zip(ours, r.cells, strict=False))) is None]
    typed_only = sum(bool(str(cell(r, positions[typed])).strip()) for r in booked)
    if typed_only:
        guess.columns[typed] = "description"
        guess.type_text = typed
        guess.why["columns"] += f"; {typed} -> description: the only text of {typed_only} row(s)"


def _joined_where_blank(name: str) -> str:
    return f"; {name} -> description where the others are blank"


def _direction_by_values(guess: LayoutGuess, body: list[CellRow]) -> None:
    """An amount column that is never negative beside a column of debit/credit words (Mint's
    "Transaction Type": debit, credit) is signed by that column, whatever its name says."""
    ours = set(guess.columns.values())
    if "amount" not in ours or ours & {"debit", "credit", "direction"} or not body:
        return
    positions = {name: i for i, name in enumerate(guess.header)}
    source = {o: theirs for theirs, o in guess.columns.items()}
    if any(a is not None and a < 0 for a in numbers(column(body, positions[source["amount"]]))):
        return
    for name in guess.header:
        if guess.columns.get(name) not in (None, "transaction_type"):
            continue
        words = {str(v).strip().lower() for v in column(body, positions[name])} - {""}
        both = words & MONEY_OUT and words & MONEY_IN
        # one-letter marks ("C", "D") only as a pair: a column of "C" alone may say "cleared"
        if words and words <= MONEY_OUT | MONEY_IN and (both or min(map(len, words)) > 1):
            guess.columns[name] = "direction"
            guess.why["columns"] += (
                f"; {name} -> direction by its values ({', '.join(sorted(words))})"
            )
            return


def _trailing_direction(guess: LayoutGuess, body: list[CellRow]) -> None:
    """A cell right of the header's last name, filled on some rows with a credit or debit
    mark (M&S Bank's "CR" after a payment received): the direction, named by its position
    ("column 4"), so those rows are read rather than quarantined as too wide."""
    width = len(guess.header)
    extra = [r for r in body if any(str(c).strip() for c in r.cells[width:])]
    if not extra or "direction" in guess.columns.values():
        return
    if any(not str(r.cells[width]).strip() or any(str(c).strip() for c in r.cells[width + 1 :])
           for r in extra):  # fmt: skip
        return
    words = {str(r.cells[width]).strip().lower() for r in extra}
    both = words & MONEY_OUT and words & MONEY_IN
    if words <= MONEY_OUT | MONEY_IN and (both or min(map(len, words)) > 1):
        name = position_name(width + 1)
        guess.header.append(name)
        guess.columns[name] = "direction"
        guess.why["columns"] += (
            f"; {name}, right of the header's names on {len(extra)} row(s), -> direction by "
            f"its values ({', '.join(sorted(words))})"
        )


def _all_text(cells: list) -> bool:
    """Whether a row is words alone, as a header is: a name may hold a digit among its
    letters ("Variabilní symbol 1"), a date or an amount has none."""
    values = [str(c).strip() for c in cells if str(c).strip()]
    letters_first = (sum(ch.isalpha() for ch in v) > sum(ch.isdigit() for ch in v) for v in values)
    return len(values) >= 2 and all(letters_first)


def _check_values(guess: LayoutGuess, body: list[CellRow]) -> str:
    """Drop a named column whose values are not what its name says (a "Date" column of
    text, an "Amount" column without numbers, a reference column that is not filled in on
    every row: a row without its id would be quarantined); an amount column of zeros and a
    text column of account numbers give way to a column that holds what they should. Returns
    what those two changed, in words ("" for nothing)."""
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
        share = date_share if ours == "posted_date" else number_share
        if ours in ("posted_date", "amount", "balance") and share(values) < 0.5:
            del guess.columns[theirs]
            if ours == "posted_date":  # Fidelity's blank "Settlement Date": its "Run Date"
                _filled_date_column(guess, body, positions, theirs, every_row=False)
        elif ours == "posted_date" and any(not str(v).strip() for v in values):
            _filled_date_column(guess, body, positions, theirs)
    return _amount_not_zero(guess, body, positions) + _texts_with_words(guess, body, positions)


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
    if words & set(_NOT_WORDS["amount"]):
        return False
    return field_of(name) == "amount" or bool(words & set(_WORDS["amount"]))


def _texts_with_words(guess: LayoutGuess, body: list[CellRow], positions: dict) -> str:
    """A text column that holds no text gives way to an unmapped one that does: a column of
    account numbers or IBANs (bunq's "Counterparty") to the other party's names (its
    "Name"), else to a column a name list knows as text; a party's or a purpose's column
    blank on every row (bunq's card-only month, PayPal's "Note") to another of its kind (its
    "Item Title"). An account number names no merchant to group by. Returns what changed,
    in words ("" for nothing)."""
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
            found = [n for n in free if _same_kind(n, theirs)]
            holds = "nothing"
        if found:
            del guess.columns[theirs]
            guess.columns[found[0]] = "description"
            said += f"; {theirs} holds {holds}: the text is {found[0]}"
    return said


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


def _varying_text(guess: LayoutGuess, body: list[CellRow]) -> str:
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
    return field_of(name) in ("description", "purpose") or bool(words & set(_WORDS["description"]))


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
        if name in guess.columns or not set(normalized(name).split()) & set(_WORDS["posted_date"]):
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


# words that make a column of currency codes another amount's: a security's, the original
# amount's of a payment abroad, a transfer's other side
_OTHER_AMOUNT_WORDS = frozenset(
    {"asset", "original", "foreign", "transfer", "target", "source", "exchange", "instructed"}
)


def _by_values(rows: list[CellRow], header: list[str], line: int) -> LayoutGuess | None:
    """Columns by their values, for a header of unknown names or a file without one (whose
    first line is already a transaction: ``line`` 0, columns named by position)."""
    body = rows[: HEADER_SEARCH_LINES * 4]
    if len(body) < 2:
        return None
    width = max(len(r.cells) for r in body)
    names = header + [str(i + 1) for i in range(len(header), width)] if header else None
    names = names or [str(i + 1) for i in range(width)]
    dates = [i for i in range(width) if date_share(column(body, i)) >= 0.8]
    # dates written apart ("2024-01-02 08:30:00") before digits alone: Alipay's transaction
    # number "2024010100000001" merely starts with a date
    dates.sort(key=lambda i: not written_apart(column(body, i)))
    numbers = [
        i
        for i in range(width)
        if i not in dates and number_share(column(body, i)) >= 0.8 and money_like(column(body, i))
    ]
    texts = [
        i
        for i in range(width)
        if i not in dates
        and i not in numbers
        and distinct(body, i) > 1
        and not times_of_day(column(body, i))
    ]
    pair = balance_pair(body, numbers)
    money = [i for i in numbers if i not in pair]  # (a running balance among them)
    numbers = [
        i
        for i in numbers
        if i not in pair and not any(runs_with(body, i, j) for j in numbers if j != i)
    ]
    codes = [i for i in range(width) if currency_codes(column(body, i))]
    texts = [i for i in texts if i not in codes]
    # (a column of codes named for another amount's currency, FinPension's "Asset Currency"
    # beside its "Cash Flow" in francs, is no row's currency)
    codes = [i for i in codes if not set(normalized(names[i]).split()) & _OTHER_AMOUNT_WORDS]
    if not dates or not numbers or not texts:
        return None
    # a text is words: a column of references or ids (digits alone) is no description, and
    # one of words with spaces between them goes before one of codes (an IBAN)
    worded = [i for i in texts if any(any(map(str.isalpha, str(v))) for v in column(body, i))]
    description = max(worded or texts, key=lambda i: (spaced(body, i), distinct(body, i), -i))
    columns = {names[dates[0]]: "posted_date", names[numbers[0]]: "amount"}
    if (credit := _complement(body, numbers[0], width, {dates[0], description})) is not None:
        # two amount columns, each filled where the other is blank: money out and money in
        balances = [i for i in money if i not in (numbers[0], credit)]
        debit, credit, told, balance = _debit_first(body, numbers[0], credit, description, balances)
        columns = {names[dates[0]]: "posted_date", names[debit]: "debit", names[credit]: "credit"}
        if balance is not None:  # (the load checks each row against it)
            columns[names[balance]] = "balance"
    columns[names[description]] = "description"
    if codes:  # (the account's, where a second one is the transaction's)
        columns[names[codes[0]]] = "currency"
    guess = LayoutGuess(line, names, columns)
    how = (
        "its header's names do not give a date, an amount and a text"
        if line
        else "the file has no header line"
    )
    guess.why["columns"] = (
        f"{how}: by the values (the first column of dates, the first of amounts that is no "
        "running balance, the column of words with the most different values)"
    )
    if pair:
        before, after = (names[i] for i in sorted(pair))
        guess.why["columns"] += (
            f"; {before} and {after} differ by the amount on most rows: the balance before and "
            "after it, no amount"
        )
    if "debit" in columns.values():
        guess.why["columns"] += (
            "; a second column of amounts filled where the first is blank: debit and credit "
            f"({told})"
        )
    worded.sort(key=lambda i: (-spaced(body, i), -distinct(body, i)))
    _more_text(guess, body, [names[i] for i in worded])
    return guess


def matching_preset(guess: LayoutGuess, date_format: str | None) -> str | None:
    """A preset whose columns, sign and date format agree with the guess (its name is
    shorter to paste than a column_map, and documents the layout)."""
    for name in fitting_presets(guess.header):
        layout = CSV_PRESETS[name]
        if layout.date_format != date_format:
            continue  # the layout's names, another date order (or ISO dates)
        ours = {theirs: o for theirs, o in layout.columns.items()}
        agrees = all(guess.columns.get(theirs) == o for theirs, o in ours.items())
        if agrees and (layout.debit_credit or layout.spending == guess.spending):
            return name
    return None
