"""The pipeline's hyperparameters as a Dagster resource (params.yaml + an optional profile)."""

import os
from typing import Any

import dagster as dg
from pydantic import Field

from ml_assets.core.params import PROFILE_ENV, PipelineParams, load_params

# code versions leave this module out: passes params on; their resolved values are hashed separately
AFFECTS_OUTPUTS = False


class ParamsResource(dg.ConfigurableResource):
    """Loads and validates params.yaml; ``profile`` selects a partial override such as ``tiny``."""

    path: str | None = Field(
        default=None, description="params.yaml to read (default: the repo's, or TXN_PARAMS)."
    )
    profile: str | None = Field(
        default_factory=lambda: os.environ.get(PROFILE_ENV) or None,
        description=f"Profile from params.yaml `profiles:` (default: ${PROFILE_ENV}).",
    )

    def load(self) -> PipelineParams:
        return load_params(self.path, self.profile)

    def section(self, name: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """One stage's resolved section, with per-run overrides applied and validated."""
        return load_params(
            self.path, self.profile, {name: overrides} if overrides else None
        ).section(name)
