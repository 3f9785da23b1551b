"""params.yaml, generated from the params schema: every section at its defaults, each key's
description as a comment, and the built-in profiles with the reason for each override.

The schema (``core/params.py``: the section models, their ``Field(description=...)`` and
docstrings) and ``core/profiles.py`` are the one source; ``python -m ml_assets params-yaml``
writes the file and ``--check`` fails when the committed one differs. DVC reads the sections
(dvc.yaml's ``params:``), and a stage command runs with ``TXN_PARAMS=params.yaml``.

Values are written so that YAML reads them back as exactly the schema's defaults: strings
that YAML would read as something else (dates, "yes", "null", regexes) are double-quoted, floats
keep a decimal point (PyYAML reads ``5e-05`` as a string).
"""

from __future__ import annotations

import inspect
import json
import math
import re
import textwrap
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ml_assets.core.params import DEFAULT_PARAMS_PATH, PipelineParams
from ml_assets.core.profiles import PROFILES

# code versions leave this module out: it writes params.yaml; the resolved values are hashed
AFFECTS_OUTPUTS = False

PARAMS_YAML = DEFAULT_PARAMS_PATH
WIDTH = 100  # a description that does not fit after its value goes on the lines above it
COMMENT_COLUMN = 29  # where a trailing description starts
HEADER = """\
# Every hyperparameter of the pipeline, one section per asset, at its default, and the built-in
# profiles. Generated from the schema in ml_assets/core/params.py (profiles:
# ml_assets/core/profiles.py) by `python -m ml_assets params-yaml`; do not edit.
# To change a value for your runs, write a params file of your own with only the keys you change
# (deep-merged over these defaults; it gets these profiles too) and set TXN_PARAMS to its path;
# to change the project's defaults, change the schema and run the command above.
# The defaults must materialize the whole graph in <= 15 minutes on 2 CPU cores; profiles.tiny
# (used by the tests) in <= 2 minutes. A profile is a partial override deep-merged over the
# defaults: select it with TXN_PARAMS_PROFILE=tiny or the `params` resource's `profile` field.
"""
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*\Z")  # safe unquoted, in flow style too


def scalar(value: Any) -> str:
    """``value`` (JSON-like data) as one line of flow-style YAML that loads back equal."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text
    if isinstance(value, str):
        plain = _PLAIN.match(value) and yaml.safe_load(value) == value
        # a JSON string is a YAML one; letters of other scripts stay as they are written
        return value if plain else json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(scalar(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(k)}: {scalar(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no YAML for {type(value).__name__} {value!r}")


def comment(text: str | None, indent: int) -> list[str]:
    """``text`` as comment lines at ``indent``, wrapped to WIDTH."""
    if not text:
        return []
    words = " ".join(inspect.cleandoc(text).split())
    width = WIDTH - indent - 2
    lines = textwrap.wrap(words, width, break_long_words=False, break_on_hyphens=False)
    return [f"{' ' * indent}# {line}\n" for line in lines]


def mapping_line(key: str, value: dict[str, Any], indent: int) -> list[str]:
    """``key: {a: 1, b: 2}``, continued under its first item when longer than WIDTH."""
    items = [f"{scalar(k)}: {scalar(v)}" for k, v in value.items()]
    return flow_lines(f"{' ' * indent}{scalar(key)}: ", items, "{}")


def flow_lines(head: str, items: list[str], brackets: str) -> list[str]:
    """``head`` and ``items`` in ``brackets`` (flow style), continued under the first item
    when longer than WIDTH."""
    head += brackets[0]
    if not items:
        return [head + brackets[1] + "\n"]
    pieces = [item + "," for item in items[:-1]] + [items[-1] + brackets[1]]
    rows: list[list[str]] = [[]]
    for piece in pieces:
        if rows[-1] and len(head) + len(" ".join([*rows[-1], piece])) > WIDTH:
            rows.append([])
        rows[-1].append(piece)
    return [
        (head if i == 0 else " " * len(head)) + " ".join(row) + "\n" for i, row in enumerate(rows)
    ]


def key_lines(key: str, value: Any, description: str | None, indent: int) -> list[str]:
    """One key at its default, its description after it when it fits, else above it."""
    pad = " " * indent
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        # a mapping of records (the GPU tiers, their prices): one record per line
        entries = [line for k, v in value.items() for line in mapping_line(k, v, indent + 2)]
        return [*comment(description, indent), f"{pad}{key}:\n", *entries]
    line = f"{pad}{key}: {scalar(value)}"
    trailing = f"{line.ljust(COMMENT_COLUMN - 1)} # {description}" if description else line
    if len(trailing) <= WIDTH:
        return [trailing + "\n"]
    if isinstance(value, list | tuple) and len(line) > WIDTH:  # a long list: wrapped
        return [
            *comment(description, indent),
            *flow_lines(f"{pad}{key}: ", [scalar(v) for v in value], "[]"),
        ]
    return [*comment(description, indent), line + "\n"]


def section_lines(name: str, model: type[BaseModel]) -> list[str]:
    """A section: its docstring, then each key at its default as the schema writes it (a
    float field's ``10`` stays ``10``; dates, tuples and nested models as JSON has them)."""
    lines = [f"{name}:\n", *comment(model.__doc__, 2)]
    for key, field in model.model_fields.items():
        default = to_jsonable_python(field.get_default(call_default_factory=True))
        lines += key_lines(key, default, field.description, 2)
    return lines


def profile_lines() -> list[str]:
    lines = ["profiles:\n"]
    for name, profile in PROFILES.items():
        lines += [f"  {name}:\n", *comment(profile.why, 4)]
        for section, override in profile.sections.items():
            lines += [*comment(override.why, 4), *mapping_line(section, override.values, 4)]
    return lines


def render_params_yaml() -> str:
    """params.yaml's exact text: the header, each section of PipelineParams in the schema's
    order at its defaults, then the profiles."""
    parts = [HEADER]
    for name, field in PipelineParams.model_fields.items():
        parts.append("\n" + "".join(section_lines(name, field.annotation)))
    parts.append("\n" + "".join(profile_lines()))
    return "".join(parts)
