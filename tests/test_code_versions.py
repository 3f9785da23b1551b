"""Automatic code versions: what changes them and what must not."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ml_assets.core.infra.versioning import code_version, module_closure
from ml_assets.definitions import GRAPH
from tests.graph import copy_store

REPO = Path(__file__).resolve().parents[1]


def copy_tree(destination: Path) -> Path:
    for package in ("ml_assets", "resources", "sensors", "tests"):
        shutil.copytree(
            REPO / package, destination / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(REPO / "params.yaml", destination / "params.yaml")
    return destination


def versions(root: Path) -> dict[str, str]:
    return {
        asset: code_version(stage.module, {}, (), root=root).version
        for asset, (stage, _) in GRAPH.items()
    }


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_closure_follows_imports_but_not_other_assets():
    closure = module_closure("ml_assets.assets.transaction_features")
    assert (
        "ml_assets.core.training_data.features" in closure
        and "ml_assets.core.text.normalize" in closure
    )
    assert "ml_assets.assets.raw_transactions" not in closure  # assets never import each other
    assert "ml_assets.core.params" not in closure  # the schema; resolved values are hashed instead
    assert "ml_assets.training.model" in module_closure("ml_assets.assets.onnx_model")


@pytest.fixture
def tree(tmp_path) -> Path:
    return copy_tree(tmp_path / "repo")


def test_comments_formatting_and_docstrings_do_not_count(tree):
    before = versions(tree)
    features = tree / "ml_assets/core/training_data/features.py"
    edit(
        features,
        "def stable_bucket(",
        "# a new comment\n\n\ndef stable_bucket(  # trailing comment\n   ",
    )
    edit(features, '"""Map each key to 0..9999', '"""Reworded docstring. Map each key to 0..9999')
    edit(
        tree / "ml_assets/training/export.py",
        "import warnings",
        "import warnings  # unrelated comment",
    )
    assert versions(tree) == before


def test_helper_change_moves_only_assets_that_import_it(tree):
    before = versions(tree)
    edit(tree / "ml_assets/core/training_data/features.py", "% 10000", "% 10007")
    after = versions(tree)
    assert {a for a in before if before[a] != after[a]} == {"transaction_features"}
    edit(
        tree / "ml_assets/training/export.py",
        'warnings.simplefilter("ignore")',
        'warnings.simplefilter("default")',
    )
    assert {a for a in before if before[a] != versions(tree)[a]} == {
        "transaction_features",
        "onnx_model",
    }


@pytest.fixture
def source_cache(tmp_path, monkeypatch) -> Path:
    """A folder of its own for the analyses kept between processes; the module's caches are
    emptied before and after, so each call of ``versions`` reads the folder."""
    from ml_assets.core.infra import versioning

    monkeypatch.setenv(versioning.SOURCE_CACHE_ENV, str(tmp_path / "cache"))
    versioning._cache_folder.cache_clear()
    versioning._analyse.cache_clear()
    yield tmp_path / "cache"
    versioning._cache_folder.cache_clear()
    versioning._analyse.cache_clear()


def test_analyses_kept_between_processes_give_the_same_versions(tree, source_cache, monkeypatch):
    from ml_assets.core.infra import versioning

    def in_a_new_process() -> dict[str, str]:
        versioning._analyse.cache_clear()  # what a new process starts with
        return versions(tree)

    first = in_a_new_process()
    kept = sorted(source_cache.rglob("*.json"))
    closures = {m for stage, _ in GRAPH.values() for m in module_closure(stage.module, tree)}
    assert len(kept) >= len(closures)  # one per file read, keyed by its text
    with monkeypatch.context() as patched:
        patched.setattr(versioning, "_parse", lambda *a: pytest.fail("parsed a kept file"))
        assert in_a_new_process() == first
    for path in kept:
        path.write_text('{"digest": ')  # unreadable: analysed again, and kept anew
    assert in_a_new_process() == first
    assert all(json.loads(path.read_text())["digest"] for path in kept)
    # an edited file is a new text, and a new entry: the version moves as without the folder
    edit(tree / "ml_assets/core/training_data/features.py", "% 10000", "% 10007")
    edited = in_a_new_process()
    assert edited["transaction_features"] != first["transaction_features"]
    monkeypatch.setenv(versioning.SOURCE_CACHE_ENV, "off")
    versioning._cache_folder.cache_clear()
    assert in_a_new_process() == edited


def test_params_and_libraries_are_part_of_the_version():
    module = GRAPH["multitask_model"][0].module
    base = code_version(module, {"learning_rate": 1e-4}, ("torch",))
    assert code_version(module, {"learning_rate": 2e-4}, ("torch",)).version != base.version
    assert (
        code_version(module, {"learning_rate": 1e-4}, ("torch", "polars")).version != base.version
    )
    assert base.libraries["torch"].startswith("2.")


def run_harness(
    tree: Path, artifacts: Path, selection: tuple[str, ...] = ()
) -> tuple[dict[str, bool], dict[str, str]]:
    """Materialize (the selection, or the whole graph) from the edited tree in a subprocess:
    {asset: memoized} of that run, and the whole graph's plan after it {asset: status}."""
    env = {**os.environ, "PYTHONPATH": str(tree), "TXN_PARAMS": str(tree / "params.yaml")}
    argv = [sys.executable, str(tree / "tests/memo_harness.py"), str(artifacts)]
    done = subprocess.run(
        argv + ([",".join(selection)] if selection else []),
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = {}
    for line in done.stdout.splitlines():
        label, _, payload = line.partition(" ")
        if label in ("RESULT", "PLAN"):
            found[label] = json.loads(payload)
    return found["RESULT"], found["PLAN"]


# the assets that read the features' text before any model is trained
TEXT_READERS = (
    "transaction_features",
    "training_features",
    "pruned_tokenizer",
    "tokenized_corpus",
    "tfidf_reference",
)


@pytest.mark.slow
def test_edited_source_recomputes_exactly_what_it_affects(tree, tmp_path, tiny_graph):
    # a copy of the session's store, computed from the unedited source (REPO, not this tree)
    artifacts = copy_store(tiny_graph.root, tmp_path / "artifacts")
    # a comment in a module every asset imports: nothing recomputes
    edit(
        tree / "ml_assets/core/infra/io.py",
        "_CHUNK = 1 << 20",
        "_CHUNK = 1 << 20  # read files in 1 MiB chunks",
    )
    first, plan = run_harness(tree, artifacts)
    assert all(first.values()) and set(plan.values()) == {"fresh"}
    # a change in a helper only features use, to a column the models never read: features and
    # the assets that read the features file recompute; their bytes come out identical, so the
    # content-addressed data versions leave mlm_backbone and multitask_model memoized, and
    # registered_model and batch_predictions after the re-scored, identical evaluation
    edit(
        tree / "ml_assets/core/training_data/features.py",
        '(pl.col("amount").abs() + 1).log(2)',
        '(pl.col("amount").abs() + 1).log(3)',
    )
    third, plan = run_harness(tree, artifacts)
    assert {asset for asset, memoized in third.items() if not memoized} == {
        "transaction_features",
        "training_features",
        "pruned_tokenizer",
        "tokenized_corpus",
        "onnx_model",  # re-exported to identical model bytes
        "tfidf_reference",  # fit on the new snapshot (same rows and text)
        "frozen_encoder_reference",
        "model_evaluation",  # reads the features too
    }
    assert set(plan.values()) == {"fresh"}
    # a change in the same helper that alters the text: the assets that read the text recompute
    # (run here), and every asset downstream of them sees a new input data version: the plan
    # after that run has each of them to compute (running them would retrain the models; that
    # a run recomputes what the plan calls stale is test_memoization's)
    edit(
        tree / "ml_assets/core/training_data/features.py",
        'text=normalize_expr(pl.col("description"))',
        'text=normalize_expr(pl.col("description")).str.replace_all("#", " ")',
    )
    fourth, plan = run_harness(tree, artifacts, TEXT_READERS)
    assert {asset for asset, memoized in fourth.items() if not memoized} == set(TEXT_READERS)
    assert {asset for asset, status in plan.items() if status != "fresh"} == set(GRAPH) - {
        "raw_transactions",
        *TEXT_READERS,
    }


def test_a_parse_disturbed_by_another_thread_is_parsed_again(monkeypatch):
    """CPython 3.11's spurious recursion-depth mismatch (another thread parsed at the same
    moment) is parsed again; any other SystemError is raised."""
    import ast

    from ml_assets.core.infra.python_source import parse_python

    real, calls = ast.parse, []

    def disturbed(text, filename="<unknown>"):
        calls.append(filename)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=102, after=37)")
        return real(text, filename=filename)

    monkeypatch.setattr(ast, "parse", disturbed)
    assert isinstance(parse_python("x = 1\n", "m.py").body[0], ast.Assign) and len(calls) == 2

    def broken(text, filename="<unknown>"):
        raise SystemError("something else")

    monkeypatch.setattr(ast, "parse", broken)
    with pytest.raises(SystemError, match="something else"):
        parse_python("x = 1\n")
