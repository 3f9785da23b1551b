"""Plan / explain: before anything runs, which assets are fresh or stale, and exactly why.

For every asset in topological order the current fingerprint components (code files and
library versions, effective params, input data versions) are compared with those recorded in
the entry the asset currently points to. An asset is fresh when the store already holds a
verified entry for its current fingerprint (then a run costs a lookup); otherwise the reasons
name the source files, params keys and inputs that differ, and the last compute time is the
expected cost.
"""

import importlib
from dataclasses import dataclass, field
from typing import Any

from ml_assets.artifacts import MEMO_FILE, fingerprint_of
from ml_assets.core.io import read_json
from ml_assets.core.params import load_params
from resources.artifact_store import ArtifactStore


def graph_from_definitions() -> dict[str, tuple[str, tuple[str, ...]]]:
    """asset name -> (module defining it, its upstream assets), in topological order, read from
    the Dagster definitions themselves so the plan (and dvc.yaml) can never drift from them."""
    from ml_assets.definitions import ASSETS

    graph = {}
    for assets_def in ASSETS:
        name = assets_def.key.to_user_string()
        module = assets_def.op.compute_fn.decorated_fn.__module__
        upstream = tuple(
            sorted(key.to_user_string() for key in assets_def.keys_by_input_name.values())
        )
        missing = [u for u in upstream if u not in graph]
        if missing:
            raise ValueError(f"ASSETS is not in topological order: {name} before {missing}")
        graph[name] = (module, upstream)
    return graph


GRAPH = graph_from_definitions()


@dataclass
class AssetPlan:
    asset: str
    status: str  # "fresh", "stale" or "missing"
    fingerprint: str | None
    reasons: list[str] = field(default_factory=list)
    expected_seconds: float | None = None
    digest: str | None = None  # data version when fresh


def _diff_dict(prefix: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    reasons = []
    for key in sorted(set(old) | set(new)):
        if key not in old:
            reasons.append(f"{prefix}{key}: added ({new[key]!r})")
        elif key not in new:
            reasons.append(f"{prefix}{key}: removed (was {old[key]!r})")
        elif old[key] != new[key]:
            reasons.append(f"{prefix}{key}: {old[key]!r} -> {new[key]!r}")
    return reasons


def explain(old: dict[str, Any], new: dict[str, Any], section: str) -> list[str]:
    """Human reasons for the difference between two fingerprint component sets."""
    reasons = []
    for path in sorted(set(old["code"]["files"]) | set(new["code"]["files"])):
        before, after = old["code"]["files"].get(path), new["code"]["files"].get(path)
        if before != after:
            change = (
                "now imported"
                if before is None
                else "no longer imported"
                if after is None
                else "changed"
            )
            reasons.append(f"code: {path} {change}")
    reasons += _diff_dict("library ", old["code"]["libraries"], new["code"]["libraries"])
    reasons += _diff_dict(f"param {section}.", old["params"], new["params"])
    for name in sorted(set(old["inputs"]) | set(new["inputs"])):
        if old["inputs"].get(name) != new["inputs"].get(name):
            reasons.append(f"input {name}: new data version")
    return reasons


def build_plan(
    store: ArtifactStore, params_path: str | None = None, profile: str | None = None
) -> list[AssetPlan]:
    params = load_params(params_path, profile)
    plans: dict[str, AssetPlan] = {}
    for asset, (module_name, upstream) in GRAPH.items():
        module = importlib.import_module(module_name)
        section = (
            module.fingerprint_params(params.section(asset))
            if hasattr(module, "fingerprint_params")
            else params.section(asset)
        )
        stale_inputs = [name for name in upstream if plans[name].status != "fresh"]
        current = store.current_ref(asset)
        memo = (
            read_json(current.dir / MEMO_FILE)
            if current and (current.dir / MEMO_FILE).is_file()
            else None
        )
        expected = memo["seconds"] if memo else None
        if stale_inputs:
            reasons = [
                f"input {name}: upstream is {plans[name].status} and will be recomputed"
                for name in stale_inputs
            ]
            status = "missing" if current is None else "stale"
            plans[asset] = AssetPlan(asset, status, None, reasons, expected)
            continue
        components = {
            "code": {"files": module.CODE.files, "libraries": module.CODE.libraries},
            "params": section,
            "inputs": {name: plans[name].digest for name in sorted(upstream)},
        }
        fingerprint = fingerprint_of(components)
        hit = store.lookup(asset, fingerprint, warn=lambda _message: None)
        if hit is not None:
            plans[asset] = AssetPlan(asset, "fresh", fingerprint, [], 0.0, hit.digest)
        elif memo is None:
            plans[asset] = AssetPlan(
                asset, "missing", fingerprint, ["never materialized in this store"], None
            )
        else:
            reasons = explain(memo["components"], components, asset) or [
                "entry missing or corrupt in the store"
            ]
            plans[asset] = AssetPlan(asset, "stale", fingerprint, reasons, expected)
    return list(plans.values())


def format_plan(plans: list[AssetPlan]) -> str:
    lines = []
    for plan in plans:
        cost = (
            ""
            if plan.expected_seconds is None
            else f"  (expected cost {plan.expected_seconds:.0f} s)"
        )
        if plan.status == "fresh":
            lines.append(
                f"fresh    {plan.asset:22s} fingerprint {plan.fingerprint[:12]}  (run costs a lookup)"
            )
            continue
        lines.append(f"{plan.status:8s} {plan.asset:22s}{cost}")
        lines.extend(f"           - {reason}" for reason in plan.reasons)
    stale = [p for p in plans if p.status != "fresh"]
    total = sum(p.expected_seconds or 0.0 for p in stale)
    lines.append(
        f"{len(stale)} of {len(plans)} assets to compute; known expected cost {total:.0f} s"
    )
    return "\n".join(lines)
