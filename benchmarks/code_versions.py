"""What loading the code location costs in code versions: all fourteen assets' versions as a
new process computes them, shipped (each file's analysis read from the folder of kept analyses
that earlier processes wrote, params.yaml resolved once) against
- nothing kept (TXN_SOURCE_CACHE=off: each source file parsed once, shared by every closure),
- nothing shared (each asset's closure parsed and params.yaml resolved anew, as every asset
  computing its own version would).
All measured in this run, interleaved, the best of ``--rounds`` each.

    .venv/bin/python benchmarks/code_versions.py [--profile tiny] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from ml_assets.core import params as params_module
from ml_assets.core.infra import versioning
from ml_assets.core.params import load_params
from ml_assets.definitions import ASSETS
from ml_assets.wiring import stage as stage_module
from ml_assets.wiring.stage import stage_of


def clear_caches(kept: str = "off") -> None:
    """What a new process starts with; ``kept``: the folder of kept analyses, or "off"."""
    os.environ[versioning.SOURCE_CACHE_ENV] = kept
    versioning._cache_folder.cache_clear()
    versioning._analyse.cache_clear()
    stage_module._code_version.cache_clear()
    params_module._params_of.cache_clear()


def shipped(profile: str | None, kept: str) -> tuple[float, dict[str, str]]:
    clear_caches(kept)
    started = time.perf_counter()
    versions = {stage_of(a).key: stage_of(a).code(profile=profile).version for a in ASSETS}
    return time.perf_counter() - started, versions


def nothing_shared(profile: str | None) -> tuple[float, dict[str, str]]:
    started = time.perf_counter()
    versions = {}
    for assets_def in ASSETS:
        clear_caches()
        stage = stage_of(assets_def)
        params = load_params(None, profile)
        sections = {name: params.section(name) for name in stage.sections}
        versions[stage.key] = versioning.code_version(
            stage.module, sections, stage.libraries
        ).version
    return time.perf_counter() - started, versions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default=None)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    fast, parsed, slow = [], [], []
    with tempfile.TemporaryDirectory(prefix="kept-analyses-") as kept:
        shipped(args.profile, kept)  # an earlier process, which kept the analyses
        for _ in range(args.rounds):  # interleaved: a busy moment of the machine hits them all
            seconds, versions = shipped(args.profile, kept)
            fast.append(seconds)
            seconds, unkept = shipped(args.profile, "off")
            parsed.append(seconds)
            seconds, baseline = nothing_shared(args.profile)
            slow.append(seconds)
            assert versions == unkept == baseline, "the three ways must agree on every version"
    print(f"assets: {len(ASSETS)}, rounds: {args.rounds}, profile: {args.profile or 'default'}")
    print(f"shipped (kept analyses, shared params): {min(fast):.3f} s")
    print(f"nothing kept (one parse per file):      {min(parsed):.3f} s")
    print(f"nothing shared (baseline):              {min(slow):.3f} s")
    print(f"speedup over nothing kept: {min(parsed) / min(fast):.2f}x")
    print(f"speedup over nothing shared: {min(slow) / min(fast):.2f}x")


if __name__ == "__main__":
    main()
