"""A QIF file's records: each one's fields (a code letter and a value per line, ended by
``^``) with the ``!Type`` section it is under and the account an ``!Account`` block named
before it. What the fields mean is read in ``qif``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class QifRecord:
    line: int  # of its first field
    section: str  # the !Type it is under, lower case ("type:bank")
    account: str | None
    fields: list[tuple[int, str, str]] = field(default_factory=list)  # (line, code, value)

    def first(self, code: str) -> tuple[int, str] | None:
        return next(((n, v) for n, c, v in self.fields if c == code), None)

    def raw(self) -> bytes:
        text = "\n".join(c + v for _, c, v in self.fields) + "\n^"
        return text.encode("utf-8", errors="surrogateescape")


def qif_records(text: str) -> Iterator[QifRecord]:
    """Every record with its section and account, in file order."""
    section, account, in_account = "type:bank", None, False
    record: QifRecord | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip()
        if not line.strip():
            continue
        if line.startswith(("!", "^")) and record is not None:
            # a header ends a record too: some programs write "!Account", its N and T lines,
            # then "!Type:Bank" with no "^" between, which would fold the account's lines
            # into the first transaction
            if in_account:
                name = record.first("N")
                account = name[1].strip() if name else account
            else:
                yield record
            record = None
        if line.startswith("!"):
            header = line[1:].strip().lower()
            if header.startswith(("option:", "clear:")):
                continue
            in_account = header == "account"
            if not in_account:
                section = header
            continue
        if line.startswith("^"):
            continue
        if record is None:
            record = QifRecord(number, section, account)
        record.fields.append((number, line[0], line[1:]))
    if record is not None and not in_account:
        yield record  # a last record without its "^" (a cut file): read, not lost
