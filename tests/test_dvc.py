"""DVC support: dvc.yaml is generated from the asset graph, and DVC drives the real graph.

Fast: the committed dvc.yaml is exactly what the graph generates, stage by stage.
Slow (needs DVC in its own venv: ``scripts/install_dvc.sh``, or ``DVC_BIN``): in a temporary
copy of the repo, tiny profile, holding the store the session already computed (the tiny graph,
as after a user's ``dg launch``), ``dvc commit`` adopts it without running a stage; a forced
stage command (a daily asset's: every day a memo hit) leaves it up to date; ``dvc repro`` runs
none; a param edit reruns its stage (computed) and the stages that read its folder, and keeps
earlier entries (``persist``); ``dvc push`` to S3 on a local moto server, wipe the outputs and
DVC's cache, ``dvc pull``: byte-identical, all fresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ml_assets.__main__ import main
from ml_assets.definitions import GRAPH, PARTITIONED
from ml_assets.wiring.dvc_stages import DVC_YAML, dvc_yaml_drift, render_dvc_yaml

REPO = Path(__file__).resolve().parents[1]
# What a stage command needs to run in a copy of the repo: code, params, the pipeline; the real
# .gitignore (it ignores artifacts/) proves DVC works with git-ignored outputs.
COPIED = (
    "ml_assets",
    "resources",
    "sensors",
    "params.yaml",
    "dvc.yaml",
    "pyproject.toml",  # [tool.dg]: what `dg launch` in a stage command loads
    ".gitignore",
)


def _dvc_bin() -> str | None:
    candidate = os.environ.get("DVC_BIN") or str(REPO / ".dvc-venv" / "bin" / "dvc")
    return candidate if os.access(candidate, os.X_OK) else None


DVC = _dvc_bin()


# --- fast: the file matches the graph ----------------------------------------------------


def test_dvc_yaml_is_generated_from_the_graph():
    assert DVC_YAML.read_text() == render_dvc_yaml(), (
        "dvc.yaml drifted from the asset graph; run `python -m ml_assets dvc-yaml`\n"
        + dvc_yaml_drift(DVC_YAML)
    )


def test_every_asset_is_one_stage_wired_like_the_graph():
    stages = yaml.safe_load(DVC_YAML.read_text())["stages"]
    env = "TXN_ARTIFACTS_DIR=artifacts TXN_PARAMS=params.yaml"
    assert list(stages) == list(GRAPH)
    for asset, (record, upstream) in GRAPH.items():
        stage = stages[asset]
        code_files = set(record.code().files)
        assert code_files, f"{asset}: no source files"
        assert set(stage["deps"]) == code_files | {f"artifacts/{name}" for name in upstream}
        assert stage["params"] == list(record.sections)
        assert stage["outs"] == [{f"artifacts/{asset}": {"persist": True}}]
        materialize = f"dg launch --assets {asset}"
        if asset in PARTITIONED:  # every day the source feeds, computed when the stage runs
            assert stage["cmd"].endswith(
                f'{materialize} --partition-range "$({env} python -m ml_assets days)"'
            )
        else:
            assert stage["cmd"].endswith(materialize)


def _cli(argv: list[str], expect: int) -> str:
    """Run ``python -m ml_assets`` in-process; returns what it printed."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(argv)
    assert code == expect, buffer.getvalue()
    return buffer.getvalue()


def test_cli_check_reports_drift_and_regenerates(tmp_path, monkeypatch):
    target = tmp_path / "dvc.yaml"
    monkeypatch.setattr("ml_assets.wiring.dvc_stages.DVC_YAML", target)
    target.write_text(render_dvc_yaml().replace("persist: true", "persist: false", 1))
    out = _cli(["dvc-yaml", "--check"], expect=1)
    assert "-        persist: false" in out and "+        persist: true" in out
    assert "drifted" in out
    _cli(["dvc-yaml"], expect=0)
    assert target.read_text() == render_dvc_yaml()
    assert "up to date" in _cli(["dvc-yaml", "--check"], expect=0)


# --- slow: DVC runs the graph, pushes to S3, pulls it back -------------------------------


def _copy_repo(dest: Path) -> Path:
    dest.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, dest / name)
    return dest


def _env(repo: Path, scratch: Path) -> dict[str, str]:
    """Hermetic: the project's interpreter first on PATH (stage commands say ``dg`` and ``python``), the
    copy's packages first, a temporary Dagster instance, no user DVC config, moto credentials."""
    dropped = ("TXN_", "DAGSTER_", "DVC_", "AWS_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    for name in ("dvc-global", "dvc-system", "dvc-site-cache"):
        (scratch / name).mkdir()
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        PYTHONPATH=str(repo),
        TXN_PARAMS_PROFILE="tiny",
        TXN_SOURCE_CACHE=os.environ["TXN_SOURCE_CACHE"],  # the suite's (tests/conftest.py)
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        DVC_NO_ANALYTICS="1",
        DVC_GLOBAL_CONFIG_DIR=str(scratch / "dvc-global"),
        DVC_SYSTEM_CONFIG_DIR=str(scratch / "dvc-system"),
        DVC_SITE_CACHE_DIR=str(scratch / "dvc-site-cache"),
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    return env


def _digests(store: Path) -> dict[str, str]:
    """sha256 of every file DVC tracks: the six asset folders (not _checkpoints/)."""
    return {
        path.relative_to(store).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for asset in GRAPH
        for path in sorted((store / asset).rglob("*"))
        if path.is_file()
    }


def _ran(output: str) -> list[str]:
    return re.findall(r"^Running stage '([^']+)':", output, flags=re.M)


# the stage that reads registered_model's folder: a new decision is a new input data version
# for the scoring
AFTER_REGISTRY = ("batch_predictions",)


@pytest.mark.slow
@pytest.mark.dvc
@pytest.mark.skipif(
    DVC is None,
    reason="DVC not installed: run scripts/install_dvc.sh (creates .dvc-venv/) or set DVC_BIN",
)
def test_dvc_repro_push_pull_roundtrip(tmp_path, moto_endpoint, tiny_graph):
    import boto3

    from tests.graph import TINY_DAYS, copy_store

    repo = _copy_repo(tmp_path / "repo")
    copy_store(tiny_graph.root, repo / "artifacts")  # what `dg launch` left: DVC adopts it
    env = _env(repo, tmp_path)
    timings: dict[str, float] = {}

    def run(*argv: str, step: str | None = None) -> str:
        started = time.perf_counter()
        proc = subprocess.run(
            argv, cwd=repo, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        if step:
            timings[step] = round(time.perf_counter() - started, 1)
            print(f"dvc test: {step} took {timings[step]} s")
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{' '.join(argv)} exited {proc.returncode}:\n{output[-4000:]}"
        return output

    def dvc(*args: str, step: str | None = None) -> str:
        return run(DVC, *args, step=step)

    run("git", "init", "-q")
    dvc("init", "-q")
    dvc("config", "core.analytics", "false")
    dvc("config", "core.check_update", "false")

    # the store `dg launch` built is adopted as it is: every stage recorded, none run
    adopted = dvc("commit", "--force", step="adopt")
    assert _ran(adopted) == []
    assert "Data and pipelines are up to date." in dvc("status")
    # a stage's own command, forced: a daily asset's (its days from `python -m ml_assets days`),
    # every day found already computed, so its output and everything after it stay up to date
    daily = "transaction_features"
    assert daily in PARTITIONED
    forced = dvc("repro", "--force", "--single-item", daily, step="forced stage")
    assert _ran(forced) == [daily]
    reused = re.findall(rf"{daily}\[([\d-]+)\]: fingerprint \w+ unchanged; reusing", forced)
    assert sorted(reused) == list(TINY_DAYS), forced[-3000:]
    again = dvc("repro", step="no-op repro")
    assert _ran(again) == []
    for asset in GRAPH:
        assert f"Stage '{asset}' didn't change, skipping" in again
    assert "Data and pipelines are up to date." in again

    # a param edit reruns that stage (a cheap one: the registry's decision; the tiny profile
    # leaves this key alone), and DVC reruns the stages that read its folder; persist keeps the
    # earlier entry
    params_path = repo / "params.yaml"
    params = yaml.safe_load(params_path.read_text())
    params["promotion"]["min_slice_rows"] += 1
    params_path.write_text(yaml.safe_dump(params, sort_keys=False))
    edited = dvc("repro", step="param-edit repro")
    assert _ran(edited) == ["registered_model", *AFTER_REGISTRY], edited[-3000:]
    assert not re.search(r"registered_model: fingerprint \w+ unchanged", edited)
    entries = [p for p in (repo / "artifacts" / "registered_model").iterdir() if p.is_dir()]
    assert len(entries) == 2, entries

    # push to S3 (moto), lose everything local, pull it back
    bucket = "dvc-remote"
    s3 = boto3.client(
        "s3",
        endpoint_url=moto_endpoint,
        region_name="us-east-1",
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
    )
    s3.create_bucket(Bucket=bucket)
    dvc("remote", "add", "-d", "moto", f"s3://{bucket}/store")
    dvc("remote", "modify", "moto", "endpointurl", moto_endpoint)
    dvc("remote", "modify", "moto", "region", "us-east-1")
    assert "files pushed" in dvc("push", step="push")
    before = _digests(repo / "artifacts")
    for asset in GRAPH:  # daily assets point per day: CURRENT/<day>.json
        pointer = f"{asset}/CURRENT/" if asset in PARTITIONED else f"{asset}/CURRENT.json"
        assert any(path.startswith(pointer) for path in before), asset
    shutil.rmtree(repo / "artifacts")
    shutil.rmtree(repo / ".dvc" / "cache")
    assert "files fetched" in dvc("pull", step="pull")
    assert _digests(repo / "artifacts") == before

    plan = run(sys.executable, "-m", "ml_assets", "plan", "--profile", "tiny", step="plan")
    for asset in GRAPH:
        assert re.search(rf"^fresh\s+{asset}\s", plan, flags=re.M), plan
    assert f"0 of {len(GRAPH)} assets to compute" in plan
    assert "Data and pipelines are up to date." in dvc("status")
    print("dvc timings (s):", timings)
