"""The pipeline's hyperparameters as a Dagster resource (params.yaml + an optional profile)."""

import os
from typing import Any, TypeVar

import dagster as dg
from pydantic import BaseModel, Field

from ml_assets.core.params import (
    PROFILE_ENV,
    PipelineParams,
    cached_params,
    load_params,
    section_name,
)

# code versions leave this module out: passes params on; their resolved values are hashed separately
AFFECTS_OUTPUTS = False

SectionT = TypeVar("SectionT", bound=BaseModel)


class ParamsResource(dg.ConfigurableResource):
    """Loads and validates params.yaml; ``profile`` selects a partial override such as ``tiny``."""

    path: str | None = Field(
        default=None, description="params.yaml to read (default: the repo's, or TXN_PARAMS)."
    )
    profile: str | None = Field(
        default_factory=lambda: os.environ.get(PROFILE_ENV) or None,
        description=f"Profile from params.yaml `profiles:` (default: ${PROFILE_ENV}).",
    )

    def load(
        self, section: type[BaseModel] | None = None, overrides: dict[str, Any] | None = None
    ) -> PipelineParams:
        """Every section, resolved and validated once: with a run's ``overrides`` of
        ``section`` applied (validated here, errors naming the file and profile), else the
        params this process already validated for the file."""
        if overrides and section is not None:
            return load_params(self.path, self.profile, {section_name(section): overrides})
        return cached_params(self.path, self.profile)

    def get(self, section: type[SectionT], overrides: dict[str, Any] | None = None) -> SectionT:
        """One section as its model, with per-run ``overrides`` applied."""
        return self.load(section, overrides).get(section)

    def fingerprinted(
        self, stage: Any, overrides: dict[str, Any] | None = None, context: Any = None
    ) -> dict[str, Any]:
        """What ``stage`` (an asset's ``Stage``) fingerprints, as plain data, with a run's
        ``overrides`` of its own section applied."""
        return stage.fingerprinted(self.load(stage.section, overrides), context)
