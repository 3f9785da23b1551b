"""The UI in a real browser: `dg dev` on 127.0.0.1 with a temporary DAGSTER_HOME (the local
instance `scripts/init_dagster_home.sh` writes), the tiny graph materialized through the CLI
into that instance as the quickstart does (the days, then the models), then headless Chromium
(Playwright) walks the lineage graph, an asset page with its pictures and tables drawn in
place, the gates and the promotion's rules on the checks tab, the daily partitions and the
automation list; GraphQL reads each check's history. Screenshots go to
$UI_SCREENSHOTS (default: the test's tmp folder). Finally GraphQL `staleStatus` after a params
change names the expected assets and cause.

Skipped where Chromium is absent; `.ci/run` installs Debian's chromium, so CI runs it."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.graph import TINY_DAYS, copy_store

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ASSETS = (
    "raw_transactions",
    "transaction_features",
    "training_features",
    "pruned_tokenizer",
    "tokenized_corpus",
    "mlm_backbone",
    "multitask_model",
    "baseline_model",
    "tfidf_reference",
    "frozen_encoder_reference",
    "onnx_model",
    "model_evaluation",
    "registered_model",
    "batch_predictions",
)
GATES = ("int8_matches_pytorch", "latency_within_budget", "int8_size_within_budget")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt install chromium)"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def graphql(url: str, query: str, variables: dict | None = None) -> dict:
    request = urllib.request.Request(  # noqa: S310  (our local server, http)
        f"{url}/graphql",
        data=json.dumps({"query": query, "variables": variables or {}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        body = json.loads(response.read())
    assert "errors" not in body, body["errors"]
    return body["data"]


@pytest.fixture(scope="module")
def ui(tmp_path_factory, tiny_graph):
    work = tmp_path_factory.mktemp("ui")
    # the session's computed store: the CLI run below fills this instance (memo hits)
    copy_store(tiny_graph.root, work / "artifacts")
    home = work / "dagster_home"  # the local instance, as quickstart and `dg dev` have it
    subprocess.run(["bash", str(REPO / "scripts/init_dagster_home.sh"), str(home)], check=True)
    params = work / "params.yaml"
    shutil.copy(REPO / "params.yaml", params)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "TXN_ARTIFACTS_DIR": str(work / "artifacts"),
        "TXN_PARAMS": str(params),
        "TXN_PARAMS_PROFILE": "tiny",
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    bin_dir = Path(sys.executable).parent
    # as the quickstart runs the graph: the days in one run, then the models in another
    for launch in (
        ["--job", "daily_ingest", "--partition-range", f"{TINY_DAYS[0]}...{TINY_DAYS[-1]}"],
        ["--job", "models"],
    ):
        materialize = subprocess.run(
            [str(bin_dir / "dg"), "launch", *launch],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert materialize.returncode == 0, materialize.stderr[-3000:]
    port = free_port()
    log = open(work / "dagster-dev.log", "w")  # noqa: SIM115  (closed below)
    server = subprocess.Popen(
        [str(bin_dir / "dg"), "dev", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopped with everything it started
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"{url}/server_info", timeout=5).read()  # noqa: S310
                graphql(url, "{ assetNodes { id } }")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError((work / "dagster-dev.log").read_text()[-3000:]) from None
                time.sleep(0.5)
        shots = Path(os.environ.get("UI_SCREENSHOTS", work / "screenshots"))
        shots.mkdir(parents=True, exist_ok=True)
        yield {"url": url, "params": params, "shots": shots}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:  # it has taken over 30 s to stop after SIGTERM; nothing reads what it writes then
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="module")
def page(ui):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        context = browser.new_context(viewport={"width": 1600, "height": 1000})
        yield context.new_page()
        browser.close()


def test_lineage_graph_shows_every_asset(ui, page):
    page.goto(f"{ui['url']}/asset-groups", wait_until="networkidle")
    page.get_by_role("button", name="ingest").first.wait_for(timeout=60_000)
    page.mouse.click(900, 250, button="right")  # the graph's context menu
    page.get_by_role("menuitem", name="Expand all groups").click()
    for asset in ASSETS:
        # zoomed out to fit, the graph shortens long names in the middle: transact…_features
        short = rf"{re.escape(asset[:6])}.*{re.escape(asset[-6:])}"
        shown = re.compile(rf"^(?:{re.escape(asset)}|{short})$")
        page.get_by_text(shown).first.wait_for(state="attached", timeout=60_000)
    page.screenshot(path=str(ui["shots"] / "lineage.png"), full_page=True)


def test_asset_page_draws_its_pictures_and_tables_in_place(ui, page):
    page.goto(f"{ui['url']}/assets/model_evaluation", wait_until="networkidle")
    page.get_by_text("category_by_model").first.wait_for(timeout=60_000)
    # the description says where the pictures are
    page.get_by_text("drawn in place under Metadata").first.wait_for(timeout=60_000)
    # the sketches are images on the page itself, no button to press
    sketches = page.locator("img[src^='data:image/svg+xml']")
    sketches.nth(3).wait_for(timeout=60_000)
    assert sketches.count() >= 4  # side by side, two confusion matrices, reliability
    assert all(sketches.nth(i).evaluate("img => img.naturalWidth") > 100 for i in range(4))
    # every column of the per-head table fits the metadata column: nothing behind a scroll bar
    row = page.locator("tr", has_text="category_by_model").first
    cell = row.locator("td").last.bounding_box()
    seen = row.locator("th", has_text="seen").first.bounding_box()
    assert seen["x"] + seen["width"] <= cell["x"] + cell["width"], (seen, cell)
    page.screenshot(path=str(ui["shots"] / "model_evaluation.png"), full_page=True)
    # the full-size PNGs, all behind one button
    page.locator("tr", has_text="full_size_pictures").get_by_text("[Show Markdown]").click()
    picture = page.locator("img[src^='data:image/png']").first
    picture.wait_for(timeout=60_000)
    assert picture.evaluate("img => img.naturalWidth") > 100  # a real, decoded PNG
    page.screenshot(path=str(ui["shots"] / "full_size_pictures.png"))


def test_the_promotion_check_shows_its_rules_in_place(ui, page):
    page.goto(f"{ui['url']}/assets/registered_model?view=checks", wait_until="networkidle")
    page.get_by_text("PROMOTED").first.wait_for(timeout=60_000)
    page.locator("td", has_text="margin over references").first.wait_for(timeout=60_000)
    page.screenshot(path=str(ui["shots"] / "candidate_promoted.png"), full_page=True)


CHECK_HISTORY = """query($key: AssetKeyInput!, $check: String!) {
  assetCheckExecutions(assetKey: $key, checkName: $check, limit: 500) { status partition } }"""


def test_each_check_has_one_row_per_run_or_day(ui):
    """A run over a range of days plans every check in it once per day: the models' checks run
    in their own run, so each has one row; raw_transactions' check has a verdict per day and
    one for the run."""
    nodes = graphql(
        ui["url"],
        "{ assetNodes { assetKey { path } assetChecksOrError { ... on AssetChecks {"
        " checks { name } } } } }",
    )["assetNodes"]
    seen = 0
    for node in nodes:
        for check in node["assetChecksOrError"].get("checks", []):
            rows = graphql(
                ui["url"], CHECK_HISTORY, {"key": node["assetKey"], "check": check["name"]}
            )["assetCheckExecutions"]
            assert all(r["status"] == "SUCCEEDED" for r in rows), (check["name"], rows[:3])
            per_day = sorted(r["partition"] for r in rows if r["partition"])
            if check["name"] == "raw_rows_accounted_for":
                assert per_day == list(TINY_DAYS) and len(rows) == len(TINY_DAYS) + 1
            else:
                assert len(rows) == 1 and not per_day, (check["name"], len(rows))
            seen += 1
    assert seen >= 8


def test_the_daily_partitions_are_the_days_the_source_has(ui, page):
    keys = graphql(
        ui["url"],
        '{ assetNodeOrError(assetKey: {path: ["raw_transactions"]}) { ... on AssetNode {'
        " partitionKeysByDimension { partitionKeys } } } }",
    )["assetNodeOrError"]["partitionKeysByDimension"][0]["partitionKeys"]
    assert keys == list(TINY_DAYS)  # the generator's window, no day it could never have
    page.goto(f"{ui['url']}/assets/raw_transactions?view=partitions", wait_until="networkidle")
    page.get_by_text(f"Materialized ({len(TINY_DAYS)})").first.wait_for(timeout=60_000)
    page.get_by_text("Missing (0)").first.wait_for(timeout=60_000)


def test_checks_tab_shows_the_gates(ui, page):
    page.goto(f"{ui['url']}/assets/onnx_model?view=checks", wait_until="networkidle")
    for gate in GATES:
        page.get_by_text(gate).first.wait_for(timeout=60_000)
    page.screenshot(path=str(ui["shots"] / "onnx_model_checks.png"), full_page=True)


def test_schedules_and_sensors_are_listed(ui, page):
    page.goto(f"{ui['url']}/automation", wait_until="networkidle")
    for name in (
        "daily_ingest_schedule",
        "nightly_stale_assets",
        "weekly_full_evaluation",
        "new_raw_exports",
        "gpu_job_events_to_slack",
        "default_automation_condition_sensor",
    ):
        page.get_by_text(name).first.wait_for(timeout=60_000)
    page.screenshot(path=str(ui["shots"] / "automation.png"), full_page=True)


STALE_QUERY = """{ assetNodes { assetKey { path } staleStatus
  staleCauses { reason category key { path } dependency { path } } } }"""


def test_stale_status_after_a_params_change(ui):
    def status() -> dict[str, dict]:
        nodes = graphql(ui["url"], STALE_QUERY)["assetNodes"]
        return {"/".join(n["assetKey"]["path"]): n for n in nodes}

    before = status()
    assert before["multitask_model"]["staleStatus"] == "FRESH"
    data = yaml.safe_load(ui["params"].read_text())
    data["multitask_model"]["learning_rate"] = 3.0e-4
    ui["params"].write_text(yaml.safe_dump(data))
    locations = graphql(
        ui["url"], "{ workspaceOrError { ... on Workspace { locationEntries { name } } } }"
    )["workspaceOrError"]["locationEntries"]
    for location in locations:
        graphql(
            ui["url"],
            "mutation($name: String!) { reloadRepositoryLocation(repositoryLocationName: $name)"
            " { __typename } }",
            {"name": location["name"]},
        )
    deadline = time.monotonic() + 120
    while status()["multitask_model"]["staleStatus"] != "STALE":
        assert time.monotonic() < deadline, status()["multitask_model"]
        time.sleep(2)
    after = status()
    causes = after["multitask_model"]["staleCauses"]
    assert any(c["category"] == "CODE" and "code version" in c["reason"] for c in causes), causes
    # the params of finetuning shape nothing upstream
    for asset in ("training_features", "pruned_tokenizer", "tokenized_corpus", "mlm_backbone"):
        assert after[asset]["staleStatus"] == "FRESH", (asset, after[asset])
