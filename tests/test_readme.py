"""The README's counts of assets follow the graph (they are claims, so a test checks them)."""

import re
from pathlib import Path

from ml_assets.plan import GRAPH

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_every_count_of_assets_is_the_graphs():
    totals = [int(n) for n in re.findall(r"\b(?:all|of) (\d+) assets\b", README)]
    assert totals, "the README states how many assets the graph has somewhere"
    assert set(totals) == {len(GRAPH)}


def test_every_asset_is_in_the_readme_table():
    table = README.split("| asset | group | what it is |")[1].split("\n\n")[0]
    rows = re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \|", table, flags=re.MULTILINE)
    listed = {name for row in rows for name in re.findall(r"`([a-z_]+)`", row)}
    assert listed == set(GRAPH)
