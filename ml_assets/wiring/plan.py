"""Plan / explain: before anything runs, which assets are fresh or stale, and exactly why.

For every asset in topological order the current fingerprint components (code files and
library versions, effective params, input data versions) are compared with those recorded in
the entry the asset currently points to. An asset is fresh when the store already holds a
verified entry for its current fingerprint (then a run costs a lookup); otherwise the reasons
name the source files, params keys and inputs that differ, and the last compute time is the
expected cost. Read-only: every entry it reports on is verified (re-hashed), a corrupt one is
reported as such, and nothing in the store is moved, fetched or deleted.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ml_assets.core.infra.io import ArtifactIntegrityError, read_json
from ml_assets.core.params import cached_params
from ml_assets.wiring.artifacts import MEMO_FILE, fingerprint_components, fingerprint_of
from ml_assets.wiring.stage import FingerprintContext, Stage, stage_of
from resources.artifact_store import ArtifactStore

# code versions leave this module out: reports what is stale; computes nothing
AFFECTS_OUTPUTS = False


def asset_graph(assets: Iterable[Any]) -> dict[str, tuple[Stage, tuple[str, ...]]]:
    """asset name -> (its Stage record, its upstream assets), in topological order (ties in the
    order given), read from the Dagster asset definitions themselves so the plan (and dvc.yaml)
    can never drift from them."""
    found = {}
    for assets_def in assets:
        name = assets_def.key.to_user_string()
        upstream = tuple(
            sorted(key.to_user_string() for key in assets_def.keys_by_input_name.values())
        )
        stage = stage_of(assets_def)
        if stage.candidate_input and stage.candidate_input not in upstream:
            raise ValueError(
                f"{name}: STAGE.candidate_input {stage.candidate_input!r} is not one of its "
                f"inputs {list(upstream)}"
            )
        found[name] = (stage, upstream)
    graph: dict[str, tuple[Stage, tuple[str, ...]]] = {}
    while len(graph) < len(found):
        ready = next(
            (n for n, (_, up) in found.items() if n not in graph and set(up) <= set(graph)), None
        )
        if ready is None:
            raise ValueError(
                f"the assets' dependencies form a cycle: {sorted(set(found) - set(graph))}"
            )
        graph[ready] = found[ready]
    return graph


def partitioned(assets: Iterable[Any]) -> frozenset[str]:
    return frozenset(a.key.to_user_string() for a in assets if a.partitions_def is not None)


@dataclass
class AssetPlan:
    asset: str
    status: str  # "fresh", "stale" or "missing"
    fingerprint: str | None
    reasons: list[str] = field(default_factory=list)
    expected_seconds: float | None = None
    digest: str | None = None  # data version when fresh
    day_digests: dict[str, str] = field(default_factory=dict)  # partitioned: fresh days
    verdicts: list[str] = field(default_factory=list)  # fresh: what its entry was judged
    entry: Path | None = None  # fresh: the entry's folder (absent while only the remote has it)


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
    store: ArtifactStore,
    assets: Iterable[Any],
    params_path: str | None = None,
    profile: str | None = None,
) -> list[AssetPlan]:
    """The plan for `assets` (Dagster asset definitions: the code location's, or the ones a
    schedule is evaluated with) against `store`."""
    assets = list(assets)
    graph, days_assets = asset_graph(assets), partitioned(assets)
    params = cached_params(params_path, profile)
    plans: dict[str, AssetPlan] = {}
    for asset, (stage, upstream) in graph.items():
        section = stage.fingerprinted(params, FingerprintContext(store=store))
        if asset in days_assets:
            plans[asset] = _plan_days(store, stage, section, upstream, plans)
            continue
        stale_inputs = [name for name in upstream if plans[name].status != "fresh"]
        if stale_inputs:
            current = store.current_ref(asset)
            memo = _memo(current)
            reasons = [
                f"input {name}: upstream is {plans[name].status} and will be recomputed"
                for name in stale_inputs
            ]
            reasons += _integrity_problems(current)
            status = "missing" if current is None else "stale"
            plans[asset] = AssetPlan(asset, status, None, reasons, memo and memo["seconds"])
            continue
        if stage.window_inputs:  # reads a window of an upstream's days
            (name,) = upstream
            inputs = stage.window_inputs(plans[name].day_digests, section)
        else:  # a partitioned upstream read another way (e.g. its newest day) is in the params
            inputs = {
                name: plans[name].digest for name in sorted(upstream) if name not in days_assets
            }
        if stage.candidate_input:  # judged against the champion, unless it is the champion
            section = stage.fingerprinted(
                params,
                FingerprintContext(store=store, candidate_digest=inputs[stage.candidate_input]),
            )
        plans[asset] = plan = _plan_entry(store, stage, section, inputs, store.current_ref(asset))
        if plan.status == "fresh" and stage.verdicts:
            # read from the local entry; one only the remote holds is judged once it is pulled
            local = plan.entry is not None and plan.entry.is_dir()
            plan.verdicts = (
                stage.verdicts(plan.entry, params)
                if local
                else ["verdicts kept in the remote entry"]
            )
    return list(plans.values())


def _integrity_problems(ref) -> list[str]:
    """What is wrong with the entry an asset's pointer names, checked without changing it."""
    if ref is None:
        return []
    try:
        ref.verified()
    except (ArtifactIntegrityError, FileNotFoundError) as err:
        return [f"current entry {Path(ref.path).name} is corrupt or missing: {err}"]
    return []


def _memo(ref) -> dict | None:
    return read_json(ref.dir / MEMO_FILE) if ref and (ref.dir / MEMO_FILE).is_file() else None


def _plan_entry(store, stage, params, inputs, current, label="") -> AssetPlan:
    """One entry: fresh when the store holds its current fingerprint; else why not."""
    asset = stage.key
    components = fingerprint_components(stage.code(), params, inputs)
    fingerprint = fingerprint_of(components)
    memo = _memo(current)
    expected = memo["seconds"] if memo else None
    problems: list[str] = []  # read-only: a corrupt entry is reported, never moved
    hit = store.lookup(asset, fingerprint, warn=problems.append, repair=False)
    if hit is not None:
        return AssetPlan(asset, "fresh", fingerprint, [], 0.0, hit.digest, entry=Path(hit.path))
    if problems:
        reasons = [f"{label}{p}; the next run moves it aside and recomputes it" for p in problems]
        return AssetPlan(asset, "stale", fingerprint, reasons, expected)
    if memo is None:
        return AssetPlan(asset, "missing", fingerprint, [f"{label}never materialized"], None)
    reasons = explain(memo["components"], components, asset) or ["entry missing from the store"]
    return AssetPlan(asset, "stale", fingerprint, [label + r for r in reasons], expected)


def _plan_days(store, stage, section, upstream, plans) -> AssetPlan:
    """A partitioned asset, day by day over the days it has materialized: fresh when every day
    is; the reasons name how many days would be recomputed and why (first day shown)."""
    asset = stage.key
    current = store.partition_refs(asset)
    if not current:
        return AssetPlan(asset, "missing", None, ["no day materialized in this store"], None)
    listing = stage.source_listing(section) if stage.source_listing else None
    days: dict[str, AssetPlan] = {}
    for day, ref in sorted(current.items()):
        params = stage.fingerprint_params(section, day, listing) if listing is not None else section
        label = f"{day}: "
        missing_up = [u for u in upstream if day not in plans[u].day_digests]
        if missing_up:
            days[day] = AssetPlan(
                asset, "stale", None, [f"{label}input {u}: recomputed first" for u in missing_up]
            )
            continue
        inputs = {u: plans[u].day_digests[day] for u in sorted(upstream)}
        days[day] = _plan_entry(store, stage, params, inputs, ref, label)
    stale = {d: p for d, p in days.items() if p.status != "fresh"}
    fresh = {d: p.digest for d, p in days.items() if p.status == "fresh"}
    if not stale:
        return AssetPlan(asset, "fresh", None, [], 0.0, None, fresh)
    first = next(iter(stale.values()))
    reasons = [f"{len(stale)} of {len(days)} days to recompute ({min(stale)}..{max(stale)})"]
    expected = sum(p.expected_seconds or 0.0 for p in stale.values())
    return AssetPlan(asset, "stale", None, reasons + first.reasons, expected, None, fresh)


def format_plan(plans: list[AssetPlan]) -> str:
    lines = []
    for plan in plans:
        cost = (
            ""
            if plan.expected_seconds is None
            else f"  (expected cost {plan.expected_seconds:.0f} s)"
        )
        if plan.status == "fresh":
            what = (
                f"{len(plan.day_digests)} days"
                if plan.fingerprint is None
                else f"fingerprint {plan.fingerprint[:12]}"
            )
            lines.append(f"fresh    {plan.asset:22s} {what}  (run costs a lookup)")
            lines.extend(f"           = {verdict}" for verdict in plan.verdicts)
            continue
        lines.append(f"{plan.status:8s} {plan.asset:22s}{cost}")
        lines.extend(f"           - {reason}" for reason in plan.reasons)
    stale = [p for p in plans if p.status != "fresh"]
    total = sum(p.expected_seconds or 0.0 for p in stale)
    lines.append(
        f"{len(stale)} of {len(plans)} assets to compute; known expected cost {total:.0f} s"
    )
    return "\n".join(lines)
