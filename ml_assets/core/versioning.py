"""Automatic code versions: derived from source, params and library versions, never typed.

An asset's code version hashes
  * the normalized source of its module and of every first-party module it imports,
    transitively (comments, formatting and docstrings do not count: the AST is hashed),
  * its params.yaml section (resolved),
  * the versions of the libraries that change its output.
Modules that cannot change what an asset produces (the params schema, this module, the
definitions and CLI wiring) are left out, so editing them does not invalidate every cache.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ml_assets.core.io import sha256_json

FIRST_PARTY = ("ml_assets", "resources", "sensors")
NOT_OUTPUT_AFFECTING = frozenset(
    {
        "ml_assets.core.params",  # the schema; the resolved values are hashed separately
        "resources.params",
        "ml_assets.core.versioning",
        "ml_assets.definitions",
        "ml_assets.plan",
        "ml_assets.stage",  # the record naming the asset's sections, libraries and hooks
        "ml_assets.__main__",
        "ml_assets.daily",  # which days exist and how a range runs; a day's key is in its params
        # where and how a training job runs, not what it computes (same recipe, same bytes)
        "ml_assets.gpu_training",
        "ml_assets.core.gpu_cost",
        "ml_assets.training.preemption",
        "ml_assets.core.gcs_folders",
        "resources.launchers",
        "resources.gcp_batch",
        "resources.notifications",
    }
)
REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class CodeVersion:
    version: str
    files: dict[str, str]  # repo-relative path -> normalized-source hash
    libraries: dict[str, str]
    params: dict[str, Any]

    def components(self) -> dict[str, Any]:
        return {"files": self.files, "libraries": self.libraries, "params": self.params}


def _module_file(name: str, root: Path = REPO_ROOT) -> Path | None:
    """The source file of a first-party module, found by path (nothing is imported)."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def normalized_source_hash(path: Path) -> str:
    """Hash of the code's AST: comments, blank lines, formatting and docstrings don't count."""
    tree = _strip_docstrings(ast.parse(path.read_text(), filename=str(path)))
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).hexdigest()[:16]


def _is_first_party(name: str) -> bool:
    return name.split(".")[0] in FIRST_PARTY


def _imports_of(path: Path, module: str, root: Path) -> set[str]:
    """First-party modules imported by a file (``from pkg import mod`` resolves to pkg.mod)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {
        name for name in found if _is_first_party(name) and _module_file(name, root) is not None
    }


def module_closure(module: str, root: Path = REPO_ROOT) -> tuple[str, ...]:
    """The module and every first-party module it imports, transitively (sorted)."""
    seen, stack = set(), [module]
    while stack:
        name = stack.pop()
        if name in seen or name in NOT_OUTPUT_AFFECTING:
            continue
        path = _module_file(name, root)
        if path is None:
            continue
        seen.add(name)
        stack.extend(_imports_of(path, name, root) - seen)
    return tuple(sorted(seen))


def library_versions(names: tuple[str, ...]) -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in sorted(names)}


def code_version(
    module: str, params: dict[str, Any], libraries: tuple[str, ...], root: Path = REPO_ROOT
) -> CodeVersion:
    files = {}
    for name in module_closure(module, root):
        path = _module_file(name, root)
        files[path.resolve().relative_to(root.resolve()).as_posix()] = normalized_source_hash(path)
    libs = library_versions(libraries)
    version = sha256_json({"files": files, "libraries": libs, "params": params})[:16]
    return CodeVersion(version=version, files=files, libraries=libs, params=params)
