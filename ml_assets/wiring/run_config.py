"""Per-run config of the assets: one optional field per key of the asset's params section.

The launchpad and ``dg launch --config`` show each key with its type and its params.yaml
default; a key left empty keeps the section's value (params.yaml, after the profile). What is
set overrides the section for that run and is part of the asset's fingerprint, validated by the
section model (a bad value fails with the key named). The section models in
``core/params.py`` stay the one place where a parameter is declared.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import dagster as dg
from pydantic import BaseModel, Field, create_model

PLAIN = (int, float, bool, str)


def launchpad_type(annotation: Any) -> Any:
    """The nearest type Dagster's config system takes: a tuple becomes a list, a Literal its
    value type, a date a string (the section model parses it back), an optional its inner
    type (every field is optional here)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [launchpad_type(a) for a in typing.get_args(annotation) if a is not type(None)]
        return inner[0] if len(inner) == 1 else str
    if origin is typing.Literal:
        return type(typing.get_args(annotation)[0])
    if origin in (tuple, list):  # tuple[str, ...] and list[str] alike
        return list[launchpad_type(typing.get_args(annotation)[0])]
    if origin is dict or annotation is dict:
        return dict
    return annotation if annotation in PLAIN else str


class SectionConfig(dg.Config):
    """Base of the per-asset config classes that ``section_config`` makes."""

    __section_keys__: typing.ClassVar[tuple[str, ...]] = ()

    @property
    def overrides(self) -> dict[str, Any]:
        """The section keys this run sets (the others keep params.yaml's values)."""
        return {
            key: getattr(self, key)
            for key in type(self).__section_keys__
            if getattr(self, key) is not None
        }


def section_config(
    section: type[BaseModel], name: str, base: type[SectionConfig] = SectionConfig
) -> type[SectionConfig]:
    """A Dagster config class named ``name`` with one optional field per key of ``section``."""
    fields = {
        key: (
            launchpad_type(field.annotation) | None,
            Field(default=None, description=f"default: {field.get_default()!r} (params.yaml)"),
        )
        for key, field in section.model_fields.items()
    }
    config = create_model(name, __base__=base, **fields)
    config.__section_keys__ = tuple(section.model_fields)
    config.__doc__ = (
        f"Per-run overrides of the {section.__name__.removesuffix('Params')} params section; "
        "empty keys keep params.yaml's values."
    )
    return config
