"""No import cycle among the project's modules, counting every import (at the top of a module or
inside a function), read with the stdlib `ast` without importing anything. A cycle is how a
layer starts to depend on what sits above it (the plan on the code location, the code location
on its schedules, the schedules on the plan)."""

from __future__ import annotations

import ast
from pathlib import Path

from ml_assets.core.infra.python_source import parse_python

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("ml_assets", "resources", "sensors")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str]) -> set[str]:
    """The project modules `path` imports (a name imported from a module counts as the module,
    or as the submodule when it is one)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(parse_python(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def project_graph() -> dict[str, set[str]]:
    paths = [p for package in PACKAGES for p in (REPO / package).rglob("*.py")]
    modules = {module_name(p) for p in paths}
    return {module_name(p): imported(p, modules) for p in paths}


def test_no_import_cycle_among_project_modules():
    assert cycles(project_graph()) == []


def test_the_cycle_finder_finds_the_cycle_the_plan_once_made():
    graph = project_graph()
    assert "ml_assets.wiring.plan" in graph["ml_assets.definitions"]
    graph["ml_assets.wiring.plan"] = graph["ml_assets.wiring.plan"] | {"ml_assets.definitions"}
    (component,) = cycles(graph)
    assert {"ml_assets.definitions", "ml_assets.wiring.plan", "sensors.schedules"} <= set(component)


IMPORT_EVERYTHING = """
import importlib, sys
from pathlib import Path

REPO = Path.cwd().resolve()
touched = []


def refuse(*args, **kwargs):
    raise AssertionError("called at import")


# the two ways a module could do work at import: read params.yaml, hash a source closure
import ml_assets.core.params as params
import ml_assets.core.infra.versioning as versioning

params.load_params = versioning.code_version = versioning.normalized_source_hash = refuse


def audit(event, args):
    if event == "open" and isinstance(args[0], str):
        path = Path(args[0]).resolve()
        if not path.is_relative_to(REPO) or "__pycache__" in path.parts or path.suffix == ".py":
            return
        parts = path.relative_to(REPO).parts  # the project's files, not its virtualenv's
        if len(parts) == 1 or parts[0] in ("ml_assets", "resources", "sensors", "deploy"):
            touched.append("/".join(parts))


sys.addaudithook(audit)
for name in sys.argv[1:]:
    importlib.import_module(name)
print("touched:", sorted(set(touched)))
"""


def test_importing_any_project_module_reads_no_file_and_hashes_nothing():
    """Every module of ml_assets, resources and sensors imports without reading params.yaml or
    any other project file and without computing a code version: the definitions factory
    (``ml_assets.definitions.defs``) does that when Dagster loads the code location."""
    import subprocess
    import sys

    modules = sorted(project_graph())
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERYTHING, *modules],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "touched: []"


def external_imports(path: Path) -> set[str]:
    """Top-level names of every package a file imports (anywhere in it)."""
    found = set()
    for node in ast.walk(parse_python(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_core_is_the_bottom_layer():
    """ml_assets.core is pure logic: no dagster, no torch, nothing from the layers above it."""
    graph = project_graph()
    for path in sorted((REPO / "ml_assets" / "core").glob("*.py")):
        name = module_name(path)
        above = sorted(m for m in graph[name] if not m.startswith("ml_assets.core"))
        assert above == [], f"{name} imports {above}"
        assert not external_imports(path) & {"dagster", "torch"}, name


def unscoped_warning_filters(path: Path) -> list[int]:
    """Lines where a file changes the warnings filters outside ``with
    warnings.catch_warnings():`` (a process-wide change, made whenever the code runs)."""

    def is_catch_warnings(item: ast.withitem) -> bool:
        call = item.context_expr
        return isinstance(call, ast.Call) and ast.unparse(call.func).endswith("catch_warnings")

    found = []

    def visit(node: ast.AST, scoped: bool) -> None:
        if isinstance(node, ast.With | ast.AsyncWith):
            scoped = scoped or any(is_catch_warnings(item) for item in node.items)
        if isinstance(node, ast.Call) and not scoped:
            name = ast.unparse(node.func)
            if name.endswith(("filterwarnings", "simplefilter")):
                found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, scoped)

    visit(parse_python(path.read_text(), str(path)), scoped=False)
    return found


def test_no_module_changes_the_warnings_filters_of_the_process():
    """A filter muting one known warning is set inside ``warnings.catch_warnings()`` around the
    call that raises it, never for everyone who imports the project."""
    offenders = {
        str(path.relative_to(REPO)): lines
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
        if (lines := unscoped_warning_filters(path))
    }
    assert offenders == {}


def test_the_warning_filter_check_finds_a_process_wide_filter(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "import warnings\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')\n"
        "warnings.filterwarnings('ignore', message='x')\n"
    )
    assert unscoped_warning_filters(module) == [4]
