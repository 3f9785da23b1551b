"""Retention for an artifact store: what ``python -m ml_assets gc`` keeps and removes.

Kept: every entry a CURRENT pointer names (per asset, per partition), the champion's
onnx_model entry (batch scoring reads it), the ``keep_previous`` newest other entries of each
asset, and the checkpoints of fingerprints not committed yet (a killed run resumes from them).
Removed: older entries, entries moved aside as corrupt, temp folders whose writer is gone,
and the checkpoints of committed fingerprints (their attempt records stay). ``dry_run`` only
reports. Runs must not be writing to the store meanwhile (a live writer's temp folder is never
touched, but an entry it is about to point to could be removed).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.infra.attempt_ledger import LEDGER_DIR
from ml_assets.core.infra.io import folder_bytes, temp_owner_gone
from resources.artifact_store import CHECKPOINTS, CORRUPT_PREFIX

_ENTRY = re.compile(r"^[0-9a-f]{32}$")


@dataclass
class GcReport:
    kept: dict[str, int] = field(default_factory=dict)  # asset -> bytes kept
    removed: list[tuple[Path, int, str]] = field(default_factory=list)  # (path, bytes, why)

    def lines(self, dry_run: bool) -> list[str]:
        verb = "would remove" if dry_run else "removed"
        out = [f"{verb} {path} ({size / 1e6:.1f} MB): {why}" for path, size, why in self.removed]
        freed = sum(size for _, size, _ in self.removed)
        for asset, size in sorted(self.kept.items()):
            out.append(f"kept {asset}: {size / 1e6:.1f} MB")
        out.append(
            f"{verb} {len(self.removed)} folder(s), {freed / 1e6:.1f} MB; "
            f"kept {sum(self.kept.values()) / 1e6:.1f} MB"
        )
        return out


def _pointed_entries(asset_dir: Path) -> set[str]:
    pointers = [asset_dir / "CURRENT.json", *sorted((asset_dir / "CURRENT").glob("*.json"))]
    names = set()
    for pointer in pointers:
        if pointer.is_file():
            names.add(Path(json.loads(pointer.read_text())["entry"]).name)
    return names


def _created_at(entry: Path) -> float:
    try:
        return float(json.loads((entry / "memo.json").read_text())["created_at"])
    except (OSError, ValueError, KeyError):
        return entry.stat().st_mtime


def collect_garbage(
    root: Path, keep_previous: int, dry_run: bool, protected: dict[str, set[str]]
) -> GcReport:
    """Apply the retention rules above to the store at ``root``; ``protected``: asset ->
    entry names kept whatever their age (the registry's champion)."""
    report = GcReport()

    def remove(path: Path, why: str) -> None:
        report.removed.append((path, folder_bytes(path), why))
        if not dry_run:
            shutil.rmtree(path, ignore_errors=True)

    finished: set[tuple[str, str]] = set()  # committed entries, kept or removed now
    for asset_dir in sorted(p for p in root.iterdir() if p.is_dir() and p.name[0] not in "._"):
        asset = asset_dir.name
        pointed = _pointed_entries(asset_dir) | protected.get(asset, set())
        entries = [p for p in asset_dir.iterdir() if p.is_dir() and _ENTRY.match(p.name)]
        finished |= {(asset, p.name) for p in entries}
        others = sorted(
            (p for p in entries if p.name not in pointed), key=_created_at, reverse=True
        )
        keep = {p.name for p in entries if p.name in pointed} | {
            p.name for p in others[:keep_previous]
        }
        for entry in entries:
            if entry.name in keep:
                report.kept[asset] = report.kept.get(asset, 0) + folder_bytes(entry)
            else:
                remove(entry, "not current, older than the kept previous entries")
        for leftover in asset_dir.iterdir():
            if leftover.name.startswith(CORRUPT_PREFIX):
                remove(leftover, "entry moved aside as corrupt")
            elif leftover.name.startswith(".tmp-") and temp_owner_gone(leftover):
                remove(leftover, "temp folder of a writer that is gone")

    checkpoints = root / CHECKPOINTS
    for folder in sorted(checkpoints.glob("*/*")) if checkpoints.is_dir() else []:
        if (folder.parent.name, folder.name) not in finished:
            continue  # not committed yet: a rerun resumes from these
        for child in folder.iterdir():
            if child.is_dir() and child.name != LEDGER_DIR:
                remove(child, "checkpoints of a committed entry")
    return report
