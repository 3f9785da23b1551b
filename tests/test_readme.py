"""The README's and the docs' counts of assets follow the graph (they are claims, so a test
checks them)."""

import re
from pathlib import Path

from ml_assets.definitions import GRAPH

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
# the hand-written pages of the documentation site (docs/reference/ is generated)
DOCS = sorted(p for p in (REPO / "docs").rglob("*.md") if "reference" not in p.parts)


def test_every_count_of_assets_is_the_graphs():
    for path in [REPO / "README.md", *DOCS]:
        text = path.read_text()
        totals = [int(n) for n in re.findall(r"\b(?:all|of) (\d+) assets\b", text)]
        assert set(totals) <= {len(GRAPH)}, f"{path.relative_to(REPO)}: {totals}"
    totals = re.findall(r"\b(?:all|of) (\d+) assets\b", README)
    assert totals, "the README states how many assets the graph has somewhere"


def test_every_asset_is_in_the_readme_table():
    table = README.split("| asset | group | what it is |")[1].split("\n\n")[0]
    rows = re.findall(r"^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \|", table, flags=re.MULTILINE)
    listed = {name for row in rows for name in re.findall(r"`([a-z_]+)`", row)}
    assert listed == set(GRAPH)


def test_what_starts_running_is_what_the_readme_says():
    import dagster as dg

    from ml_assets.definitions import build_definitions

    repository = build_definitions().get_repository_def()
    automation = [*repository.schedule_defs, *repository.sensor_defs]
    running = {
        a.name
        for a in automation
        if a.default_status in (dg.DefaultSensorStatus.RUNNING, dg.DefaultScheduleStatus.RUNNING)
    }
    assert running == {"gpu_job_events_to_slack", "slack_on_run_failure"}
    assert "the two Slack sensors start running" in README
    stopped = {a.name for a in automation} - running
    assert stopped == {
        "daily_ingest_schedule",
        "nightly_stale_assets",
        "weekly_full_evaluation",
        "new_raw_exports",
        "default_automation_condition_sensor",
    }
    text = " ".join(README.split())
    assert (
        "The schedules, `new_raw_exports` and `default_automation_condition_sensor` (which acts "
        "on each asset's automation condition) start stopped" in text
    )


def test_the_project_speaks_of_itself_not_of_how_it_was_written():
    """No issue numbers, no "the issue's goals", no "this session" in the docs or the code."""
    repo = Path(__file__).resolve().parents[1]
    texts = [repo / "README.md", repo / "benchmarks" / "RESULTS.md", *DOCS]
    for package in ("ml_assets", "resources", "sensors", "scripts", "benchmarks", "deploy", "docs"):
        texts += [p for p in (repo / package).rglob("*") if p.suffix in {".py", ".sh", ".yaml"}]
    history = re.compile(r"\bissues? #?\d+|\bthe issue'?s?\b|\bthis session\b", re.IGNORECASE)
    found = [
        f"{path.relative_to(repo)}:{number}: {line.strip()}"
        for path in texts
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if history.search(line)
    ]
    assert not found, "\n".join(found)
