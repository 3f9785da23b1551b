"""The UI in a real browser: `dg dev` on 127.0.0.1 with a temporary DAGSTER_HOME (the local
instance `scripts/init_dagster_home.sh` writes), the tiny graph materialized through the CLI
into that instance, then headless Chromium (Playwright) walks the lineage graph, an asset page
with a picture, the gates on the checks tab and the automation list. Screenshots go to
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
    materialize = subprocess.run(
        [
            str(bin_dir / "dg"),
            "launch",
            "--assets",
            "*",
            "--partition-range",
            f"{TINY_DAYS[0]}...{TINY_DAYS[-1]}",
        ],
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


def test_asset_page_shows_metadata_and_a_picture(ui, page):
    page.goto(f"{ui['url']}/assets/model_evaluation", wait_until="networkidle")
    page.get_by_text("category_all_accuracy").first.wait_for(timeout=60_000)
    page.screenshot(path=str(ui["shots"] / "model_evaluation.png"), full_page=True)
    row = page.locator("tr", has_text="category_confusion_matrix")
    row.get_by_text("[Show Markdown]").click()
    picture = page.locator("img[src^='data:image/png']").first
    picture.wait_for(timeout=60_000)
    assert picture.evaluate("img => img.naturalWidth") > 100  # a real, decoded PNG
    page.screenshot(path=str(ui["shots"] / "confusion_matrix.png"))


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
