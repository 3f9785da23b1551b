"""One record per asset: its key, the params it reads, the libraries in its code version, and
how its fingerprint is formed when that is more than its own section and its inputs.

The asset reads its record (``STAGE``) to name itself and to fingerprint its run; ``plan``,
``dvc_stages``, the definitions factory and the tests read the same record, so a new asset or a
new way of fingerprinting is written once, next to the asset.

Nothing here runs at import: the code version (source closure, resolved default params,
library versions) is computed on first use and cached per params file and profile.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ml_assets.core.infra.versioning import CodeVersion

# code versions leave this module out: names an asset's sections, libraries and hooks
AFFECTS_OUTPUTS = False


@dataclass(frozen=True)
class Stage:
    """The recipe of one asset.

    ``sections``: the params.yaml sections it reads (its own first: that one is hashed into
    the code version; DVC tracks all of them). The hooks, each optional:

    * ``fingerprint_section(params, store, overrides=None, **)`` -> the params it fingerprints,
      when not just ``params.section(key)``;
    * ``window_inputs(digests_by_day, section)`` -> its inputs, when it reads a window of an
      upstream's days;
    * ``source_listing(section)`` and ``fingerprint_params(section, day, listing)`` -> the
      per-day params of an asset that reads source files;
    * ``candidate_input``: the input holding the model judged against the registered
      champion; ``fingerprint_section`` also takes that input's digest (``candidate_digest``);
    * ``verdicts(entry_dir, params)`` -> lines ``plan`` shows under a fresh entry: the
      verdicts kept with it (gates, promotion), read, never measured again.
    """

    key: str
    module: str
    libraries: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    fingerprint_section: Callable[..., dict[str, Any]] | None = None
    window_inputs: Callable[[dict[str, str], dict[str, Any]], dict[str, str]] | None = None
    source_listing: Callable[[dict[str, Any]], dict[str, str]] | None = None
    fingerprint_params: Callable[..., dict[str, Any]] | None = None
    candidate_input: str | None = None
    verdicts: Callable[[Path, Any], list[str]] | None = None

    def __post_init__(self) -> None:
        if not self.sections:
            object.__setattr__(self, "sections", (self.key,))

    def code(self, params_path: str | None = None, profile: str | None = None) -> CodeVersion:
        """The code version under a params file and profile (default: those the environment
        names, as ``load_params`` resolves them)."""
        return _code_version(
            self.module,
            self.sections[0],
            self.libraries,
            params_path or os.environ.get("TXN_PARAMS") or None,
            profile or os.environ.get("TXN_PARAMS_PROFILE") or None,
        )


@functools.cache
def _code_version(
    module: str,
    section: str,
    libraries: tuple[str, ...],
    params_path: str | None,
    profile: str | None,
) -> CodeVersion:
    from ml_assets.core.infra.versioning import code_version
    from ml_assets.core.params import resolve_params_path

    text = resolve_params_path(params_path).read_text()  # the key: an edited file is reread
    return code_version(module, _params(params_path, profile, text).section(section), libraries)


@functools.lru_cache(maxsize=8)
def _params(params_path: str | None, profile: str | None, text: str) -> Any:
    """params.yaml resolved once for all the stages (validating every profile takes ~0.1 s)."""
    from ml_assets.core.params import load_params

    return load_params(params_path, profile)


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
