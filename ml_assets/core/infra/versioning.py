"""Automatic code versions: derived from source, params and library versions, never typed.

An asset's code version hashes
  * the normalized source of its module and of every first-party module it imports,
    transitively (comments, formatting and docstrings do not count: the AST is hashed),
  * its params.yaml section (resolved),
  * the versions of the libraries that change its output.
Modules that cannot change what an asset produces declare it (``AFFECTS_OUTPUTS = False``)
and are left out, so editing them does not invalidate every cache.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ml_assets.core.infra.io import atomic_write_bytes, sha256_json
from ml_assets.core.infra.python_source import parse_python

# code versions leave this module out: computes code versions; it is not part of any
AFFECTS_OUTPUTS = False

FIRST_PARTY = ("ml_assets", "resources", "sensors")
# A module that cannot change what an asset produces says so itself, at its top level, with
# a comment on why:  AFFECTS_OUTPUTS = False
# (the params schema, this module, the definitions and CLI wiring, where a training job runs).
# Code versions leave it and what only it imports out, so editing it invalidates no cache.
WIRING_MARKER = "AFFECTS_OUTPUTS"
# Another asset's module is where a closure stops: an asset imports one only for its record
# (its key, its section), and what that asset computes reaches this one as an input entry.
ASSETS_PACKAGE = "ml_assets.assets."
REPO_ROOT = Path(__file__).resolve().parents[3]


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


@dataclass(frozen=True)
class _Source:
    digest: str  # of the AST without docstrings
    imports: tuple[tuple[str, int, tuple[str, ...]], ...]  # (module, level, names) per statement
    wiring: bool  # declares ``AFFECTS_OUTPUTS = False``


def _is_wiring_marker(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == WIRING_MARKER for t in node.targets)
        and isinstance(node.value, ast.Constant)
        and node.value.value is False
    )


# Where analyses are kept between processes (every `dg launch`, code server and DVC stage
# loads the definitions, which parse ~80 files: ~0.5 s). Keyed by the source text's sha256, in
# a folder named after the exact Python version and this module's own source, so a change to
# either starts afresh. TXN_SOURCE_CACHE names another folder; "off" keeps nothing.
SOURCE_CACHE_ENV = "TXN_SOURCE_CACHE"


@functools.cache
def _cache_folder() -> Path | None:
    configured = os.environ.get(SOURCE_CACHE_ENV, "")
    if configured == "off":
        return None
    try:
        base = Path(configured or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home directory (a bare container): analyse in every process
        return None
    analyser = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    python = f"{sys.implementation.cache_tag}-{sys.hexversion:x}"  # ast.dump is Python's
    return base / "txn-ml" / "source-analysis" / f"{python}-{analyser}"


def _cached(text: str) -> tuple[Path | None, _Source | None]:
    folder = _cache_folder()
    if folder is None:
        return None, None
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()}.json"
    try:
        kept = json.loads(path.read_text())
        imports = tuple((m, level, tuple(names)) for m, level, names in kept["imports"])
        return path, _Source(digest=kept["digest"], imports=imports, wiring=kept["wiring"])
    except (OSError, ValueError, KeyError, TypeError):  # not kept yet, or unreadable: analyse
        return path, None


def _keep(path: Path, source: _Source) -> None:
    kept = json.dumps({**source.__dict__, "imports": source.imports}).encode()
    with contextlib.suppress(OSError):  # a read-only or full disk: the next process analyses
        atomic_write_bytes(path, kept)


@functools.lru_cache(maxsize=2048)
def _analyse(text: str, filename: str) -> _Source:
    """One parse per distinct source text: every asset's closure shares most of its files, and
    the definitions compute all fourteen versions at load time. Kept on disk for the next
    process (``_cache_folder``)."""
    path, source = _cached(text)
    if source is None:
        source = _parse(text, filename)
        if path is not None:
            _keep(path, source)
    return source


def _parse(text: str, filename: str) -> _Source:
    tree = parse_python(text, filename)
    imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.extend((alias.name, 0, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.module or "", node.level, tuple(a.name for a in node.names)))
    wiring = any(_is_wiring_marker(node) for node in tree.body)
    stripped = _strip_docstrings(tree)
    digest = hashlib.sha256(ast.dump(stripped, include_attributes=False).encode()).hexdigest()
    return _Source(digest=digest[:16], imports=tuple(imports), wiring=wiring)


def _source(path: Path) -> _Source:
    return _analyse(path.read_text(), str(path))


def normalized_source_hash(path: Path) -> str:
    """Hash of the code's AST: comments, blank lines, formatting and docstrings don't count."""
    return _source(path).digest


def _is_first_party(name: str) -> bool:
    return name.split(".")[0] in FIRST_PARTY


def _imports_of(path: Path, module: str, root: Path) -> set[str]:
    """First-party modules imported by a file (``from pkg import mod`` resolves to pkg.mod)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for base, level, names in _source(path).imports:
        if level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - level + 1] + ([base] if base else []))
        found.add(base)
        found.update(f"{base}.{name}" for name in names)
    return {
        name for name in found if _is_first_party(name) and _module_file(name, root) is not None
    }


def module_closure(module: str, root: Path = REPO_ROOT) -> tuple[str, ...]:
    """The module and every first-party module it imports, transitively (sorted), less the
    modules that declare themselves wiring and other assets' modules."""
    seen, stack = set(), [module]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        if name != module and name.startswith(ASSETS_PACKAGE):
            continue
        path = _module_file(name, root)
        if path is None or _source(path).wiring:
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
