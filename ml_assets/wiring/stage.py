"""One record per asset: its key, its params section and the others it reads, the libraries in
its code version, how its fingerprint is formed when that is more than its own section and its
inputs, and, for a training stage, the function the training job runs.

The asset reads its record (``STAGE``) to name itself and to fingerprint its run; ``plan``,
``dvc_stages``, the definitions factory, the launcher and the tests read the same record, so a
new asset or a new way of fingerprinting is written once, next to the asset. Sections are named
by their schema (``MultitaskModelParams``), never by a string.

Nothing here runs at import: the code version (source closure, resolved default params,
library versions) is computed on first use and cached per params file and profile.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ml_assets.core.infra.versioning import CodeVersion
from ml_assets.core.params import PipelineParams, section_name

# code versions leave this module out: names an asset's sections, libraries and hooks
AFFECTS_OUTPUTS = False


@dataclass(frozen=True)
class FingerprintContext:
    """What a fingerprint hook may look at besides the params: the artifact store, the model
    registry, and the digest of the candidate judged against the champion (``candidate_input``).
    None where the caller has none (``plan`` asks without a registry; the default one is used)."""

    store: Any = None
    registry: Any = None
    candidate_digest: str | None = None


# (the resolved params, what else it may read) -> the params the asset fingerprints
FingerprintHook = Callable[[PipelineParams, FingerprintContext], dict[str, Any]]


@dataclass(frozen=True)
class Stage:
    """The recipe of one asset.

    ``section``: its own params section (a run's launchpad overrides apply to it);
    ``reads``: the other sections its fingerprint takes. All of them are hashed into its code
    version (what the UI compares to call it unsynced) and tracked by DVC. The hooks, each optional:

    * ``fingerprint(params, context)`` -> the params it fingerprints, when not just its own
      section;
    * ``window_inputs(digests_by_day, section)`` -> its inputs, when it reads a window of an
      upstream's days;
    * ``source_listing(section)`` and ``fingerprint_params(section, day, listing)`` -> the
      per-day params of an asset that reads source files;
    * ``candidate_input``: the input holding the model judged against the registered
      champion; ``fingerprint`` also gets that input's digest;
    * ``verdicts(entry_dir, params)`` -> lines ``plan`` shows under a fresh entry: the
      verdicts kept with it (gates, promotion), read, never measured again;
    * ``trainer``: ``"module:function"`` of ``ml_assets.training`` the training job runs for
      this stage (see ``ml_assets/training/trainers.py``), for the stages trained through the
      launcher;
    * ``pictures``: the metadata keys of the sketches the UI draws in place (``<head>``: one
      per label head), named in the asset's description.
    """

    key: str
    module: str
    section: type[BaseModel]
    reads: tuple[type[BaseModel], ...] = ()
    libraries: tuple[str, ...] = ()
    fingerprint: FingerprintHook | None = None
    window_inputs: Callable[[dict[str, str], dict[str, Any]], dict[str, str]] | None = None
    source_listing: Callable[[dict[str, Any]], dict[str, str]] | None = None
    fingerprint_params: Callable[[dict[str, Any], str, dict[str, str]], dict[str, Any]] | None = (
        None
    )
    candidate_input: str | None = None
    verdicts: Callable[[Path, PipelineParams], list[str]] | None = None
    trainer: str | None = None
    pictures: tuple[str, ...] = ()
    _names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = (section_name(self.section), *(section_name(m) for m in self.reads))
        object.__setattr__(self, "_names", names)

    @property
    def section_name(self) -> str:
        """Its own section's name in params.yaml."""
        return self._names[0]

    @property
    def sections(self) -> tuple[str, ...]:
        """Every section it reads, its own first (DVC tracks them)."""
        return self._names

    def fingerprinted(
        self, params: PipelineParams, context: FingerprintContext | None = None
    ) -> dict[str, Any]:
        """The params this asset fingerprints under ``params``."""
        if self.fingerprint is not None:
            return self.fingerprint(params, context or FingerprintContext())
        return params.section(self.section_name)

    def code(self, params_path: str | None = None, profile: str | None = None) -> CodeVersion:
        """The code version under a params file and profile (default: those the environment
        names, as ``load_params`` resolves them)."""
        return _code_version(
            self.module,
            self.sections,
            self.libraries,
            params_path or os.environ.get("TXN_PARAMS") or None,
            profile or os.environ.get("TXN_PARAMS_PROFILE") or None,
        )


@functools.cache
def _code_version(
    module: str,
    sections: tuple[str, ...],
    libraries: tuple[str, ...],
    params_path: str | None,
    profile: str | None,
) -> CodeVersion:
    from ml_assets.core.infra.versioning import code_version
    from ml_assets.core.params import cached_params

    params = cached_params(params_path, profile)
    return code_version(module, {name: params.section(name) for name in sections}, libraries)


def stage_of(assets_def: Any) -> Stage:
    """The record of a Dagster asset definition: the ``STAGE`` of the module defining it."""
    module = importlib.import_module(assets_def.op.compute_fn.decorated_fn.__module__)
    stage = getattr(module, "STAGE", None)
    if not isinstance(stage, Stage) or stage.key != assets_def.key.to_user_string():
        raise TypeError(
            f"{module.__name__} defines asset {assets_def.key.to_user_string()!r} but no "
            "matching `STAGE = Stage(key=...)` record; add one next to the asset"
        )
    return stage
