"""FITIDs a bank gives to more than one transaction of a statement.

A FITID should name one transaction of its account (OFX 2.2, 3.2.1), and ingest treats an id
seen again with other content as a conflict (a bank that revised a transaction between two
downloads). Within one statement that reading cannot hold: a statement lists each
transaction once, so two of its STMTTRN that share a FITID but differ in day, amount or text
are two transactions. Banco C6 gives every payment of a batch ("Pagamento de lote #24",
posted over days, each its own amount) the batch's one FITID.

The first transaction with the id keeps it; each later one that differs gets the bank's id
followed by its day, amount and a digest of its content (``...#2024-04-09/-92.4/5e0c1a``),
the same in every download that holds it, so overlapping downloads still meet their copies.
A later one identical to the first keeps the id, and ingest drops it as the exact repeat it
is. Keeping the first row's id as the bank wrote it means a download that holds only some of
the batch's payments either meets its copies or conflicts with the first, visibly; it never
counts a payment twice.
"""

from __future__ import annotations

import hashlib
import json


class StatementIds:
    """Ids of one OFX file's transactions, made unique within each statement."""

    def __init__(self) -> None:
        self._first: dict[tuple[int, str], tuple[int, tuple]] = {}  # -> (line, content)
        self.reused: list[tuple[int, str, int]] = []  # (line, bank's id, first line with it)

    def unique_id(self, statement: int, line: int, record: dict) -> str:
        """The id to keep for ``record`` (its ``transaction_id`` the bank's, qualified by
        account), found at ``line`` of the ``statement``-th statement of the file."""
        bank_id = record["transaction_id"]
        content = tuple(sorted((k, str(v)) for k, v in record.items() if k != "transaction_id"))
        first = self._first.setdefault((statement, bank_id), (line, content))
        if first[1] == content:
            return bank_id
        self.reused.append((line, bank_id, first[0]))
        digest = hashlib.sha256(json.dumps(content).encode()).hexdigest()[:6]
        return f"{bank_id}#{record['posted_date']}/{record['amount']}/{digest}"

    def warning(self, path: object) -> str | None:
        """What a user is told where ids were made unique, or None."""
        if not self.reused:
            return None
        line, bank_id, first_line = self.reused[0]
        return (
            f"{path}: {len(self.reused)} transaction(s) share their FITID with an earlier "
            f"transaction of the same statement that differs in day, amount or text (line "
            f"{line}: {bank_id!r}, first at line {first_line}); a statement lists each "
            "transaction once, so each is kept, with an id made from the bank's id, its day, "
            "amount and content; check them against the bank's statement"
        )
