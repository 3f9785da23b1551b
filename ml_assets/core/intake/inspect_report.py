"""``inspect``'s output: each file's findings as YAML comments, five rows as the load reads
them, then the ``raw_transactions:`` settings that read every file (one layout's keys at the
top, several layouts as ``exports:`` entries keyed by a file-name pattern), with a comment
behind each value an inspection asks the user to confirm."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
import yaml

from ml_assets.core.intake.column_names import INTAKE_FIELDS
from ml_assets.core.intake.export_formats import skipped_files, skipped_notes
from ml_assets.core.intake.export_settings import matches
from ml_assets.core.intake.records import RAW_SCHEMA
from ml_assets.core.params import PartitionsParams, RawTransactionsParams, section_name

if TYPE_CHECKING:
    from ml_assets.core.intake.inspection import Inspection

_FIELD_NAMES = {*RAW_SCHEMA, *INTAKE_FIELDS}  # the values of a column_map
PREVIEW_ROWS = 5


def report(path: Path, inspections: list[Inspection]) -> str:
    """The findings as YAML comments, then the params that read every file."""
    lines = []
    for found in inspections:
        lines += [f"# {found.file}"]
        lines += [f"#   {label + ':':<16} {text}" for label, text in found.facts]
        if found.error:
            lines += [f"#   error: {found.error}"]
        elif found.result is not None and found.result.kept.height:
            lines += ["#   first rows, as the pipeline reads them:"]
            lines += [f"#     {line}" for line in _preview(found.result.kept)]
        lines.append("#")
    skipped = skipped_notes(path, skipped_files(path, "auto"))
    if skipped:
        lines += [f"# skipped: {note}" for note in skipped] + ["#"]
    # a cell's line break (a multi-line description) shown escaped keeps each finding a comment,
    # and a control character (a C1 byte of a mis-decoded file) escaped keeps the output YAML
    lines = [_NOT_YAML.sub(_escaped, re.sub(r"\r\n|\r|\n", r"\\n", line)) for line in lines]
    readable = [f for f in inspections if f.error is None]
    if not readable:
        return "\n".join(lines) + "\n"
    lines += [
        "# paste into a small params file (or redirect this output to one), then:",
        "#   python -m ml_assets days --params my-params.yaml",
    ]
    params = yaml.dump(
        params_block(path, readable),
        Dumper=_ParamsDumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )
    return "\n".join(lines) + "\n" + _commented(params, readable)


def _commented(params: str, inspections: list[Inspection]) -> str:
    """The settings with a comment behind each ``key: value`` line an inspection asks the
    user to confirm (a date order or a currency it chose from hints)."""
    comments = {
        (key, value): text for found in inspections for key, (value, text) in found.confirm.items()
    }
    keys = {key for key, _ in comments}
    lines = []
    for line in params.splitlines():
        key, _, value = line.strip().partition(": ")
        text = comments.get((key, yaml.safe_load(value))) if key in keys else None
        lines.append(f"{line}  # {text}" if text else line)
    return "\n".join(lines) + "\n"


# what a YAML stream may not hold, even in a comment (YAML 1.1's printable set, as PyYAML reads it)
_NOT_YAML = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _escaped(match: re.Match) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


class _ParamsDumper(yaml.SafeDumper):
    """Sections in block style, a column_map on one line, as a person writes them."""

    def represent_mapping(self, tag, mapping, flow_style=None):
        flat = all(not isinstance(v, dict) for v in mapping.values())
        is_map = flat and all(v in _FIELD_NAMES for v in mapping.values())
        return super().represent_mapping(tag, mapping, flow_style=bool(is_map and mapping))


def _preview(kept: pl.DataFrame) -> list[str]:
    columns = ["posted_date", "amount", "description"] + [
        c for c in ("category", "transaction_type") if kept[c].is_not_null().any()
    ]
    head = kept.head(PREVIEW_ROWS)
    rows = [
        [f"{v:.2f}" if isinstance(v, float) else str(v) for v in row]
        for row in head.select(columns).iter_rows()
    ]
    widths = [
        max(len(c), *(min(len(r[i]), 48) for r in rows)) if rows else len(c)
        for i, c in enumerate(columns)
    ]
    render = [" ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    render += [" ".join(v[:48].ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    return [line.rstrip() for line in render]


def params_block(path: Path, inspections: list[Inspection]) -> dict:
    """raw_transactions (and partitions.start_date when the rows start before its default):
    the reading keys at the top for one file or one layout, else per pattern in exports."""
    section: dict[str, object] = {"source": "files", "path": str(path.resolve())}
    layouts: dict[str, list[Inspection]] = {}
    for found in inspections:
        keys = {k: v for k, v in found.settings.items() if not k.startswith("_")}
        layouts.setdefault(yaml.safe_dump(keys, sort_keys=True), []).append(found)
    if len(layouts) == 1:
        section.update({k: v for k, v in inspections[0].settings.items() if not k.startswith("_")})
    else:
        section["exports"] = _patterns(layouts, inspections)
    block: dict[str, object] = {section_name(RawTransactionsParams): section}
    starts = [f.settings["_start_date"] for f in inspections if "_start_date" in f.settings]
    if starts:
        block[section_name(PartitionsParams)] = {"start_date": min(starts)}
    return block


def _patterns(layouts: dict[str, list[Inspection]], everyone: list[Inspection]) -> dict[str, dict]:
    """A file-name pattern per layout (digits as *: "Chase1234_Activity_20261129.CSV" ->
    "Chase*_Activity_*.CSV", so next month's download matches too), or the exact names where
    a pattern would match another layout's file."""
    entries: dict[str, dict] = {}
    for group in layouts.values():
        keys = {k: v for k, v in group[0].settings.items() if not k.startswith("_")}
        if not keys:
            continue  # read with the defaults: OFX, CAMT.053, MT940, plain CSV
        others = [f.file for f in everyone if f not in group]
        names = {re.sub(r"\d+", "*", f.file.name) for f in group}
        if any(matches(o, n) for o in others for n in names):
            names = {f.file.name for f in group}
        for name in sorted(names):
            entries[name] = keys
    return entries
