"""Two rules read from the source with `ast`, like the import-graph checks:
- an asset is named only in its own stage: elsewhere through its ``STAGE`` (or an input's
  ``ArtifactRef.asset``), a params section through its model (``section_name``), so a renamed
  asset or section is one edit and a typo fails at import;
- Dagster is used through its public API: no ``dagster._...`` import outside the tests, save the
  two names ``resources/gcp_batch.py`` takes as Dagster's own Pipes clients do."""

from __future__ import annotations

import ast
from pathlib import Path

from ml_assets.core.infra.python_source import parse_python
from ml_assets.definitions import GRAPH

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ml_assets", "resources", "sensors")
ASSETS = {stage.key for stage, _ in GRAPH.values()}
# the params schema defines the sections, which are named after the assets they configure
SCHEMA = {"ml_assets/core/params.py", "ml_assets/core/profiles.py"}
PRIVATE_DAGSTER_ALLOWED = {
    ("resources/gcp_batch.py", "dagster._core.definitions.resource_annotation"),
    ("resources/gcp_batch.py", "dagster._core.errors"),
}


def project_files():
    for package in PACKAGES:
        yield from sorted((REPO / package).rglob("*.py"))


def asset_names_in(path: Path, assets: set[str]) -> list[str]:
    """`line: name` for each string that is exactly an asset's name, outside that asset's module."""
    return [
        f"{node.lineno}: {node.value!r}"
        for node in ast.walk(parse_python(path.read_text(), str(path)))
        if isinstance(node, ast.Constant) and node.value in assets and node.value != path.stem
    ]


def private_dagster_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(parse_python(path.read_text(), str(path))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        found += [n for n in names if n == "dagster._core" or n.startswith("dagster._")]
    return found


def test_no_asset_is_named_by_a_string_outside_its_own_stage():
    found = [
        f"{path.relative_to(REPO)}:{hit}"
        for path in project_files()
        if path.relative_to(REPO).as_posix() not in SCHEMA
        for hit in asset_names_in(path, ASSETS)
    ]
    assert not found, (
        "name an asset through its STAGE (from ml_assets.assets.<asset> import STAGE), an input "
        "through by_asset(ref), a params section through its model (section_name):\n"
        + "\n".join(found)
    )


def test_the_asset_name_check_finds_a_name_written_out(tmp_path):
    module = tmp_path / "somewhere.py"
    module.write_text('SECTION = "multitask_model"\nNOTE = "multitask_model is the candidate"\n')
    assert asset_names_in(module, ASSETS) == ["1: 'multitask_model'"]
    own = tmp_path / "multitask_model.py"
    own.write_text('KEY = "multitask_model"\n')
    assert asset_names_in(own, ASSETS) == []


def test_dagster_is_used_through_its_public_api():
    found = [
        f"{path.relative_to(REPO)}: {name}"
        for path in project_files()
        for name in private_dagster_imports(path)
        if (path.relative_to(REPO).as_posix(), name) not in PRIVATE_DAGSTER_ALLOWED
    ]
    assert not found, "\n".join(found)


def test_the_private_import_check_finds_one(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from dagster._core.instance.ref import InstanceRef\n")
    assert private_dagster_imports(module) == ["dagster._core.instance.ref"]
