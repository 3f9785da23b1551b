"""The command lines. The `dg` CLI reads this project (pyproject's `[tool.dg]`), as the README
uses it: the definitions load and list, with no supersession warning of the legacy `dagster`
CLI (`dg launch` is what tests/test_kill_anywhere.py runs; `dg dev` is tests/test_ui_browser.py's).
`python -m ml_assets` loads the asset graph only for the commands that read it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DG = str(Path(sys.executable).parent / "dg")


def dg(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [DG, *argv], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )


def test_dg_checks_and_lists_every_definition():
    from ml_assets.definitions import build_definitions

    check = dg("check", "defs")
    assert check.returncode == 0, check.stderr[-3000:]
    assert "All definitions loaded successfully" in check.stdout + check.stderr
    listed = dg("list", "defs", "--json")
    assert listed.returncode == 0, listed.stderr[-3000:]
    for run in (check, listed):
        assert "Supersession" not in run.stderr and "does not match" not in run.stderr
    found = json.loads(listed.stdout)
    repository = build_definitions().get_repository_def()
    assert sorted(a["asset_key"] for a in found["assets"]) == sorted(
        key.to_user_string() for key in repository.assets_defs_by_key
    )
    assert {j["name"] for j in found["jobs"]} >= {"daily_ingest", "models", "full_evaluation"}
    assert {s["name"] for s in found["sensors"]} == {s.name for s in repository.sensor_defs}


def test_the_project_cli_loads_neither_dagster_nor_torch_for_help_and_days():
    probe = (
        "import sys; from ml_assets.__main__ import main\n"
        "for argv in (['--help'], ['days']):\n"
        "    try: main(argv)\n"
        "    except SystemExit: pass\n"
        "print(sorted(m for m in ('dagster', 'torch', 'ml_assets.wiring.plan') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "...2026-" in run.stdout  # days printed its range
    assert run.stdout.strip().splitlines()[-1] == "[]"
