"""Three small readings: an export that names no currency is told so in one sentence, whatever
its format (CSV, JSON records, QIF); a column holding a list of category ids is no label; a
zero amount in a file whose purchases are flipped stays 0.0, not -0.0. Each file is a small
reproduction with invented names and amounts."""

from __future__ import annotations

import math

from ml_assets.core.intake.currency_clues import unstated_currency
from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.layout_by_name import columns_by_name


def test_every_format_says_an_unstated_currency_in_the_same_words(tmp_path):
    csv = tmp_path / "export.csv"
    csv.write_text(
        "Date,Description,Amount\n2026-03-05,Bakery Sunrise,-4.50\n2026-03-06,Kiosk,-2\n"
    )
    records = tmp_path / "export.json"
    records.write_text(
        '[{"date": "2026-03-05", "description": "Bakery Sunrise", "amount": -4.5},\n'
        ' {"date": "2026-03-06", "description": "Kiosk", "amount": -2.0}]\n'
    )
    qif = tmp_path / "export.qif"
    qif.write_text("!Type:Bank\nD03/05/2026\nT-4.50\nPBakery Sunrise\n^\n")
    said = [dict(inspect_file(f).facts)["currency"] for f in (csv, records, qif)]
    assert said[0] == said[1] == unstated_currency()
    assert said[2] == unstated_currency("none in the file (QIF has no currency)")


def test_a_list_of_suggested_category_ids_is_no_label():
    columns = columns_by_name(["date", "amount", "name", "suggestedCategoryIds", "tags"])
    assert "suggestedCategoryIds" not in columns
    assert columns_by_name(["date", "amount", "name", "Category"])["Category"] == "category"


def test_a_zero_amount_of_a_flipped_card_file_stays_zero(tmp_path):
    export = tmp_path / "card.csv"
    export.write_text(
        "Date,Description,Amount\n2026-03-05,Bakery Sunrise,4.50\n2026-03-06,Kiosk,2.00\n"
        "2026-03-07,Tram gate no fare,0.00\n2026-03-08,Cinema,12.00\n"
    )
    found = inspect_file(export)
    assert found.settings["spending"] == "positive"
    amounts = found.result.kept["amount"].to_list()
    assert amounts == [-4.5, -2.0, 0.0, -12.0]
    assert math.copysign(1, amounts[2]) == 1.0
