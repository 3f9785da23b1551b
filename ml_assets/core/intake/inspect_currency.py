"""What inspect says of the currency of a QIF file, which has no currency field: its rows are
read as USD unless ``currency`` is set (``currency_clues.unstated_currency``), and what in it
suggests an account outside the US (dates written day first, amounts with a decimal comma)."""

from __future__ import annotations

from ml_assets.core.intake.amount_text import sniff_decimal
from ml_assets.core.intake.currency_clues import unstated_currency
from ml_assets.core.intake.inspection import Inspection
from ml_assets.core.intake.qif import file_amounts, file_dates
from ml_assets.core.intake.qif_dates import date_order
from ml_assets.core.intake.sniffing import day_first


def inspect_qif_currency(found: Inspection) -> None:
    """The currency finding of a QIF file: it writes none, and its rows are USD unless the
    settings say otherwise; day-first dates and decimal commas are signs of another."""
    encoding = str(found.settings.get("encoding", "utf-8-sig"))
    signs = []
    date_format = found.settings.get("date_format")
    dates = file_dates(found.file, encoding)
    if (day_first(date_format) if date_format else date_order(dates) == "day") and dates:
        signs.append("its day-first dates")
    if sniff_decimal(file_amounts(found.file, encoding))[0] == ",":
        signs.append("its decimal commas")
    found.facts.append(
        ("currency", unstated_currency("none in the file (QIF has no currency)", signs))
    )
