"""The README, RESULTS.md and the docs pages keep the shape they promise and the figures they
state in step with their sources (docs/data/default_run.json, the CSV presets)."""

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
RESULTS = (REPO / "benchmarks" / "RESULTS.md").read_text()
DEFAULT_RUN = json.loads((REPO / "docs" / "data" / "default_run.json").read_text())
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def table_after(text: str, marker: str) -> list[list[str]]:
    """The body rows of the first markdown table after `marker`, as stripped cells."""
    rest = text.split(marker, 1)[1]
    lines = rest[rest.index("\n|") + 1 :].splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[2:]  # after the header and the --- line


def test_the_readme_is_a_guide_not_a_notebook():
    assert len(README.splitlines()) <= 200


@pytest.mark.parametrize("name", ["README.md", "benchmarks/RESULTS.md"])
def test_every_relative_link_resolves(name):
    path = REPO / name
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        assert (path.parent / target.split("#")[0]).exists(), f"{name}: {target}"


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("README.md", "## What the default run ships"),
        ("benchmarks/RESULTS.md", "## Model quality"),
    ],
)
def test_the_default_run_table_is_the_recorded_one(name, marker):
    text = (REPO / name).read_text()
    rows = table_after(text, marker)
    figures = [[float(cell.strip("*")) for cell in row[1:]] for row in rows]
    assert figures == list(DEFAULT_RUN["models"].values())
    intro = " ".join(text.split(marker, 1)[1].split("\n|", 1)[0].split())
    assert f"{DEFAULT_RUN['labeled_test_rows']} labeled test rows" in intro
    assert f"{DEFAULT_RUN['heldout_merchant_rows']} of them" in intro


def test_the_readme_states_the_foreign_data_means_of_results():
    """README's table of the data sets the recipe was not tuned on: each row's figures are
    the means RESULTS.md records for the candidate and TF-IDF on that data set."""
    sections = {
        "hard synthetic": "## Data the recipe was not tuned on",
        "brand names": "Brand names, held-out merchants drawn per seed",
        "named places of Helsinki": "Helsinki, held-out merchants drawn per seed",
    }
    rows = table_after(README, "On data the recipe was not tuned on")
    assert len(rows) == len(sections)
    for row in rows:
        (marker,) = [m for name, m in sections.items() if row[0].startswith(name)]
        recorded = {r[0].strip("*`").split(":")[0]: r[1:] for r in table_after(RESULTS, marker)}

        def means(cells: list[str]) -> str:
            return " / ".join(cell.strip("*").split(" ±")[0] for cell in cells)

        assert row[1] == means(recorded["candidate, int8 ONNX"]), row[0]
        assert row[2] == means(recorded["tfidf_reference"]), row[0]


def test_the_readme_states_the_three_seed_mean_of_results():
    """The README's seeds 21-23 sentence: the mean row RESULTS records for the shipped recipe."""
    rows = table_after(RESULTS, "Per seed of the default data, seeds 21-23 through the pipeline")
    (mean,) = [row for row in rows if row[0] == "mean"]
    everyone, heldout, seen = mean[-1].split(" / ")
    sentence = " ".join(README.split("over seeds 21-23 the same recipe averages", 1)[1].split())
    assert sentence.startswith(
        f"{everyone} % overall, {heldout} % on held-out merchants and {seen} % on seen ones"
    ), sentence[:120]


def test_every_benchmark_says_how_when_and_where():
    machines = {row[0].strip("`") for row in table_after(RESULTS, "## Machines")}
    sections = re.split(r"^## ", RESULTS, flags=re.MULTILINE)[1:]
    assert len(sections) > 10
    for section in sections:
        title = section.splitlines()[0]
        if title == "Machines":
            continue
        assert "\n|---" in section, f"{title}: no table"
        for block in re.split(r"^### ", section, flags=re.MULTILINE):
            if "\n|---" not in block:
                continue
            found = re.search(
                r"Reproduce: `[^`]+`.*?Measured:\s*(\d{4}-\d{2}-\d{2})[^·]*·\s*Machine: `([^`]+)`",
                block,
                flags=re.DOTALL,
            )
            assert found, f"{title}: a table without Reproduce / Measured / Machine"
            assert found.group(2) in machines, f"{title}: unknown machine {found.group(2)}"


def test_the_csv_preset_table_lists_every_preset():
    from ml_assets.core.intake.csv_exports import CSV_PRESETS

    page = (REPO / "docs" / "guides" / "bank-formats.md").read_text()
    listed = {row[0].strip("`") for row in table_after(page, "## CSV presets")}
    assert listed == set(CSV_PRESETS)


def test_every_docs_page_is_in_the_site_nav():
    nav = (REPO / "mkdocs.yml").read_text().split("\nnav:", 1)[1]
    pages = {
        p.relative_to(REPO / "docs").as_posix()
        for p in (REPO / "docs").rglob("*.md")
        if "reference" not in p.parts
    }
    assert pages <= set(re.findall(r": (\S+\.md)$", nav, flags=re.MULTILINE))


def test_the_readmes_figures_are_recorded_ones():
    """Each number the README states about the default run is in RESULTS.md, and the margin
    over the best reference is the table's."""
    section = README.split("## What the default run ships", 1)[1].split("\n## ", 1)[0]
    prose = "\n".join(line for line in section.splitlines() if not line.startswith("|"))
    for number in re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", prose):
        assert number in RESULTS, f"README states {number}; RESULTS.md does not"
    models = DEFAULT_RUN["models"]
    best = max(models["frozen_encoder_reference"][1], models["tfidf_reference"][1])
    margin = round(models["candidate_int8"][1] - best, 1)
    assert f"+{margin} points over the best reference on held-out" in " ".join(prose.split())


def test_the_layout_names_every_room_of_core():
    """docs/index.md's layout block lists each subpackage of ml_assets/core, and only those."""
    index = (REPO / "docs/index.md").read_text()
    rooms = {p.parent.name for p in (REPO / "ml_assets/core").glob("*/__init__.py")}
    listed = set(re.findall(r"^  (\w+)/ ", index, flags=re.MULTILINE))
    assert listed == rooms
