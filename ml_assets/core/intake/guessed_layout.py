"""A guessed layout of a table-shaped export: the header's line and names, which of its
columns gives each of our fields, and the evidence for each choice, in words."""

from __future__ import annotations

from dataclasses import dataclass, field


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
