"""How one export file's records become rows (the file opened by ``export_opening``): renaming
its columns to ours, making its amounts plain and signed, and what its balance lines and totals
rows say (core.statements).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ml_assets.core.intake.account_owner import key as owner_key
from ml_assets.core.intake.amount_text import (
    amount_currency,
    amount_mark,
    amount_or_none,
    normalize_amount,
)
from ml_assets.core.intake.column_names import names_other_party, party_role
from ml_assets.core.intake.column_values import excel_serial
from ml_assets.core.intake.csv_exports import (
    CsvPreset,
    direction_sign,
    purchases_positive,
    signed_amount,
)
from ml_assets.core.intake.currency_clues import currency_of_column
from ml_assets.core.intake.description_parts import description_of, party_name, text_of, worded
from ml_assets.core.intake.money_words import BY_WORDS
from ml_assets.core.intake.neutral_rows import neutral_way
from ml_assets.core.intake.records import (
    coerce_record,
    derived_id,
    identity_key,
    parse_amount,
)
from ml_assets.core.intake.statements import Balance, ExportNotes, RunningBalance, balance_in
from ml_assets.core.intake.tables import AMOUNT_FIELDS

TABLE_FORMATS = ("csv", "xlsx")  # a header, columns mapped to ours, text to sniff
STATEMENT_FORMATS = ("ofx", "camt053", "mt940", "qif")  # records arrive in our column names


@dataclass(frozen=True)
class FileReading:
    """How one file's records become rows: its format, our names for its columns, its date
    format and decimal mark, the CSV preset and sign convention, and how errors name a row
    (a JSON document's by the record's path: ``paths[line - 1]``)."""

    fmt: str
    mapping: dict[str, str]
    date_format: str | None
    decimal: str = "."
    layout: CsvPreset | None = None
    spending: str | None = None
    place: str = "{file}:{line}"
    paths: tuple[str, ...] = ()
    owner: str | None = None  # the account's owner, where both sides' columns name it

    def where(self, file: Path, line: int) -> str:
        if self.paths:
            return f"{file}: {self.paths[line - 1]}"
        return self.place.format(file=file, line=line)

    @functools.cached_property
    def parties(self) -> tuple[str, ...]:
        """The columns mapped to ``description`` whose names say they hold the other party
        (``Beguenstigter/Zahlungspflichtiger``, ``Naam``), beside a purpose text."""
        return tuple(
            name
            for name, ours in self.mapping.items()
            if ours == "description" and names_other_party(name)
        )

    def renamed(self, record: dict) -> dict:
        """The record in our names; several columns mapped to ``description`` (a counterparty
        and a purpose text) are joined, the other party first, as CAMT.053's and MT940's are
        (see core.description_parts: placeholders and repeats left out), and so are the
        strings of a list (``remittanceInformationUnstructuredArray``). The other party (the
        first one named) is also the merchant where no column is mapped to it, as in those
        formats:
        the held-out-merchant split then groups a payee's rows, not the purpose texts' first
        words (a card payment's timestamp, a booking type). A column mapped to one of our
        other fields gives it, over a column that only has its name (Plaid's legacy
        ``category`` list beside ``personal_finance_category.primary``)."""
        out: dict = {}
        parts: list = []  # the description's cells, in order
        given = set(self.mapping.values()) - {"description"}
        # an amount mapped makes a column merely named debit or credit (KBC's) a plain column,
        # and debit/credit mapped one named amount: the mapped way of reading money wins
        if "amount" in given:
            given |= {"debit", "credit"}
        elif given & {"debit", "credit"}:
            given.add("amount")
        if self.parties:
            first = [k for k in self.parties if k in record]
            if (other := self._owner_side(first, record)) is not None:
                first.remove(other)  # the account's owner: no party of this row
                record = {k: v for k, v in record.items() if k != other}
            rest = {k: v for k, v in record.items() if k not in first}
            record = {**{k: party_name(record[k]) for k in first}, **rest}
            named = [k for k in first if worded(record[k])]
            # the first party named is the merchant; but a creditor and a debtor both named
            # (one of them the account's owner): none, so the key is derived rather than
            # owner-dependent
            both_sides = {party_role(k) for k in named} >= {"payer", "payee"}
            if named and not both_sides and "merchant" not in given:
                out["merchant"] = worded(record[named[0]])
        by_currency = self.amounts_by_currency
        for key, value in record.items():
            ours = self.mapping.get(key, key)
            if key in given and key not in self.mapping or key in by_currency:
                continue
            if ours == "merchant" and not text_of(value) and "merchant" in out:
                continue  # a record's own empty merchant field keeps the party
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                value = " ".join(v.strip() for v in value if v.strip())
            if ours == "description":
                parts.append(value)
                continue
            out[ours] = value
        if parts:
            out["description"] = description_of(parts)
        if by_currency:
            self._amount_in_its_currency(record, out, "currency" in given)
        return out

    @functools.cached_property
    def amounts_by_currency(self) -> dict[str, str | None]:
        """Two or more columns mapped to ``amount`` (Promerica's card: "Transacción Colones"
        beside "Transacción Dolares", each row filling one): each column's currency, as its
        name says it (None where it says none)."""
        columns = [name for name, ours in self.mapping.items() if ours == "amount"]
        return {name: currency_of_column(name) for name in columns} if len(columns) > 1 else {}

    def _amount_in_its_currency(self, record: dict, out: dict, currency_mapped: bool) -> None:
        """The row's amount from the first of its amount columns it fills with a figure other
        than zero (else with zero), and the row's currency from that column's name where no
        column gives one (none filled: no amount, and the row is quarantined as any row
        without one)."""
        filled = [n for n in self.amounts_by_currency if text_of(record.get(n))]
        nonzero = [n for n in filled if amount_or_none(record[n], self.decimal) != 0]
        for name in (nonzero or filled)[:1]:
            out["amount"] = record[name]
            currency = self.amounts_by_currency[name]
            if currency is not None and not currency_mapped:
                out["currency"] = currency

    def _owner_side(self, parties: list[str], record: dict) -> str | None:
        """Of a payer column and a payee column (DKB's), the one that holds the account's
        owner on this row: the one that names the owner where the file names one on nearly
        every row (see core.account_owner), else the payee on money in and the payer on money
        out. None where the columns are not one of each, or the row's direction cannot be
        read."""
        roles = {party_role(name): name for name in parties}
        if len(parties) != 2 or set(roles) != {"payer", "payee"}:
            return None
        named = [n for n in parties if self.owner and owner_key(record.get(n)) == self.owner]
        if len(named) == 1:
            return named[0]
        sign = self._direction_of(record)
        if sign is None:
            return None
        return roles["payee"] if sign > 0 else roles["payer"]

    def _direction_of(self, record: dict) -> int | None:
        """+1 for money in, -1 for money out, by the row's mapped amount (or debit and credit
        cells) as the file writes it; None where it says neither."""
        mapped = {ours: theirs for theirs, ours in self.mapping.items()}
        if "direction" in mapped:  # (an unsigned amount: its direction word says)
            return direction_sign(record.get(mapped["direction"]))
        if "amount" in mapped:
            amount = amount_or_none(record.get(mapped["amount"]), self.decimal)
            if not amount or self.spending == BY_WORDS:  # (signed by the text, read after)
                return None
            flipped = purchases_positive(self.layout, self.spending)
            return (1 if amount > 0 else -1) * (-1 if flipped else 1)
        debit = amount_or_none(record.get(mapped.get("debit", "")), self.decimal)
        credit = amount_or_none(record.get(mapped.get("credit", "")), self.decimal)
        if bool(debit) == bool(credit):
            return None
        return 1 if credit else -1

    def repeat_key(self, record: dict, renamed: dict) -> tuple | None:
        """A row with a running balance is a repeat when every cell repeats: the same balance
        twice means the bank listed one transaction twice (two real ones move the balance)."""
        balance = renamed.get("balance")
        if self.fmt not in TABLE_FORMATS or balance is None or balance == "":
            return None
        return tuple(record.items())

    def to_row(
        self,
        renamed: dict,
        where: str,
        max_description_chars: int | None,
        transaction_ids: str,
        occurrences: Counter,
        original: dict,
    ) -> tuple[dict, bool, float | None]:
        """The validated row, whether its id was derived, and its running balance (None when
        the file has none or the cell is not a number). ``occurrences`` counts identical rows
        of one account and day in this file, for derived ids."""
        balance = None
        mark = amount_mark(renamed.get("amount")) if self.fmt in TABLE_FORMATS else None
        neutral = neutral_way(renamed)  # (read off the amount as written, before it is plain)
        if self.fmt == "xlsx" and excel_serial(renamed.get("posted_date")):
            # a date typed into a General cell is Excel's serial day number (46029: 2026-01-06)
            renamed["posted_date"] = _EXCEL_EPOCH + dt.timedelta(days=int(renamed["posted_date"]))
        if self.fmt in TABLE_FORMATS:
            self._written_currency(renamed)
            balance = self._plain_amounts(renamed, where)
        elif self.fmt in ("jsonl", "parquet"):  # amounts written as text ("-12,50") too
            for key in AMOUNT_FIELDS[:3]:
                if isinstance(renamed.get(key), str):
                    renamed[key] = normalize_amount(renamed[key], self.decimal, where, key)
        if self.layout or self.spending or {"debit", "credit", "direction"} & set(renamed):
            renamed["amount"] = signed_amount(renamed, self.layout, self.spending, where, neutral)
        paired = self.layout is not None and self.layout.debit_credit
        if mark is not None and not paired and not {"debit", "credit", "direction"} & set(renamed):
            # "100.00 CR" is money in even where unmarked amounts are purchases shown positive
            renamed["amount"] = mark * abs(parse_amount(renamed["amount"], where))
        derive = transaction_ids == "derived" or (
            transaction_ids == "auto" and "transaction_id" not in renamed
        )
        if derive:
            renamed["transaction_id"] = "derived"  # replaced once the row is coerced
        mapping = None if self.fmt in STATEMENT_FORMATS else self.mapping  # no keys to fix
        row = coerce_record(
            renamed, where, self.date_format, max_description_chars, mapping, original
        )
        if derive:
            identity = identity_key(row)
            row["transaction_id"] = derived_id(row, occurrences[identity])
            occurrences[identity] += 1
        return row, derive, balance

    def _written_currency(self, renamed: dict) -> None:
        """The currency an amount cell writes ("CNY 123.18", BOCOM's card) is the row's,
        over raw_transactions.currency, where no column is mapped to currency."""
        if "currency" in self.mapping.values():
            return
        written = [amount_currency(renamed.get(k)) for k in AMOUNT_FIELDS[:3]]
        codes = {code for code in written if code is not None}
        if len(codes) == 1:
            renamed["currency"] = codes.pop()

    def _plain_amounts(self, renamed: dict, where: str) -> float | None:
        """Amount cells as plain numbers in place (thousands separators, decimal commas,
        trailing minus), and the running balance, which never fails a row."""
        debit_credit = self.layout.debit_credit if self.layout is not None else None
        ours = dict(zip(debit_credit or (), ("debit", "credit"), strict=False))
        for key in (*AMOUNT_FIELDS[:3], *(debit_credit or ())):
            if key in renamed:
                field = ours.get(key, key)
                renamed[key] = normalize_amount(renamed[key], self.decimal, where, field, key)
        return amount_or_none(renamed.get("balance"), self.decimal)


_EXCEL_EPOCH = dt.date(1899, 12, 30)  # day 0 of Excel's 1900 date system, as openpyxl reads it


def note_statement_line(
    notes: ExportNotes,
    chain: RunningBalance,
    line: int,
    kind: str,
    renamed: dict,
    reading: FileReading,
) -> None:
    """A balance line or totals row among the rows: counted and used for the checks."""
    notes.statement_lines.append((line, kind))
    cells = [renamed.get(k) for k in ("description", "posted_date", "debit", "credit", "amount")]
    cells = [c for c in cells if c is not None] + [renamed.get("balance")]  # the figure last
    # (its words may stand in a column of no field of ours: Kotak's "Closing balance", its
    # figure in the words of the next cell)
    others = [v for k, v in renamed.items() if isinstance(v, str) and v not in cells]
    found = balance_in(cells, reading.decimal, line) or balance_in(
        [*others, *cells], reading.decimal, line
    )
    if kind == "balance" and found is not None:
        note_balance(notes, chain, found)
    if kind == "total":
        amounts = [renamed.get(k) for k in ("amount", "debit", "credit")]
        numbers = [n for a in amounts if (n := amount_or_none(a, reading.decimal)) is not None]
        if len(numbers) == 1:  # (a debit and a credit total are not one sum to check)
            notes.totals.append((line, numbers[0]))


def note_balance(notes: ExportNotes, chain: RunningBalance, found: Balance) -> None:
    """A balance stated among the rows: the opening or closing one of the checks."""
    if not any((b.kind, b.amount) == (found.kind, found.amount) for b in notes.balances):
        notes.balances.append(found)  # (the preamble may state it too)
    chain.add(found.line, "", 0.0, found.amount)  # the next row's balance follows from it


def continue_chain(chain: RunningBalance, reading: FileReading, line: int, renamed: dict) -> None:
    """A row quarantined for its date or text still moved the balance: with its amount and
    balance readable, the running balance goes on through it instead of breaking after it."""
    amount = amount_or_none(renamed.get("amount"), reading.decimal)
    balance = amount_or_none(renamed.get("balance"), reading.decimal)
    if reading.fmt in TABLE_FORMATS and amount is not None and balance is not None:
        chain.add(line, "", amount, balance)
