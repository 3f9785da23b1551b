"""Files generated from the code and committed (dvc.yaml, params.yaml): the diff from what is
on disk to what the code generates, and the command line's check-or-write of one."""

from __future__ import annotations

import difflib
from pathlib import Path

# code versions leave this module out: it writes files from the code, no asset reads it
AFFECTS_OUTPUTS = False


def drift(path: str | Path, generated: str) -> str:
    """A unified diff from the file on disk (absent: empty) to ``generated``; "" when equal."""
    path = Path(path)
    current = path.read_text(encoding="utf-8") if path.is_file() else ""
    return "".join(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            generated.splitlines(keepends=True),
            fromfile=f"{path} (on disk)",
            tofile=f"{path} (generated)",
        )
    )


def check_or_write(path: Path, generated: str, source: str, command: str, check: bool) -> int:
    """Write ``generated`` to ``path`` when it differs; with ``check``, write nothing and
    return 1 with the diff and the command that regenerates it (``source``: what it is
    generated from)."""
    found = drift(path, generated)
    if not found:
        print(f"{path} is up to date")
        return 0
    if check:
        print(found, end="")
        print(f"{path} drifted from {source}; run `python -m ml_assets {command}`")
        return 1
    path.write_text(generated, encoding="utf-8")
    print(f"wrote {path}")
    return 0
