"""No import cycle among the project's modules, counting every import (at the top of a module or
inside a function), read with the stdlib `ast` without importing anything. A cycle is how a
layer starts to depend on what sits above it (the plan on the code location, the code location
on its schedules, the schedules on the plan)."""

from __future__ import annotations

import ast
from pathlib import Path

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
    for node in ast.walk(ast.parse(path.read_text())):
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
    assert "ml_assets.plan" in graph["ml_assets.definitions"]
    graph["ml_assets.plan"] = graph["ml_assets.plan"] | {"ml_assets.definitions"}
    (component,) = cycles(graph)
    assert {"ml_assets.definitions", "ml_assets.plan", "sensors.schedules"} <= set(component)
