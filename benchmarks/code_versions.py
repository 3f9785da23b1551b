"""What loading the code location costs in code versions: all fourteen assets' versions, as
shipped (one parse per source file, params.yaml resolved once, shared by every closure) against
the same computation with nothing shared (each asset's closure parsed and params.yaml resolved
anew, as every asset computing its own version would). Both measured in this run, the best of
``--rounds`` each.

    .venv/bin/python benchmarks/code_versions.py [--profile tiny] [--rounds 5]
"""

from __future__ import annotations

import argparse
import time

from ml_assets import stage as stage_module
from ml_assets.core import versioning
from ml_assets.core.params import load_params
from ml_assets.definitions import ASSETS
from ml_assets.stage import stage_of


def clear_caches() -> None:
    versioning._analyse.cache_clear()
    stage_module._code_version.cache_clear()
    stage_module._params.cache_clear()


def shipped(profile: str | None) -> tuple[float, dict[str, str]]:
    clear_caches()
    started = time.perf_counter()
    versions = {stage_of(a).key: stage_of(a).code(profile=profile).version for a in ASSETS}
    return time.perf_counter() - started, versions


def nothing_shared(profile: str | None) -> tuple[float, dict[str, str]]:
    started = time.perf_counter()
    versions = {}
    for assets_def in ASSETS:
        clear_caches()
        stage = stage_of(assets_def)
        section = load_params(None, profile).section(stage.sections[0])
        versions[stage.key] = versioning.code_version(
            stage.module, section, stage.libraries
        ).version
    return time.perf_counter() - started, versions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default=None)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    fast, slow = [], []
    for _ in range(args.rounds):  # interleaved: a busy moment of the machine hits both
        seconds, versions = shipped(args.profile)
        fast.append(seconds)
        seconds, baseline = nothing_shared(args.profile)
        slow.append(seconds)
        assert versions == baseline, "the two ways must agree on every version"
    print(f"assets: {len(ASSETS)}, rounds: {args.rounds}, profile: {args.profile or 'default'}")
    print(f"shipped (shared parses and params): {min(fast):.3f} s")
    print(f"nothing shared (baseline):          {min(slow):.3f} s")
    print(f"speedup: {min(slow) / min(fast):.2f}x")


if __name__ == "__main__":
    main()
