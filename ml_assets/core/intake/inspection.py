"""One file's inspection: its findings in words, the reading keys that read it and what they
read; and the finding every text export gets, its encoding and line ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ml_assets.core.intake.ingest import ScanResult
from ml_assets.core.intake.records import open_binary
from ml_assets.core.intake.text_encoding import detect_encoding


@dataclass
class Inspection:
    """One file's findings (label, text), the reading keys that read it, and what they read;
    ``confirm`` holds, by setting, the value inspect chose from hints and what to check of
    it (a comment behind that line of the printed settings)."""

    file: Path
    fmt: str | None
    facts: list[tuple[str, str]] = field(default_factory=list)
    settings: dict[str, object] = field(default_factory=dict)
    confirm: dict[str, tuple[object, str]] = field(default_factory=dict)
    result: ScanResult | None = None
    error: str | None = None


def inspect_text_encoding(found: Inspection) -> None:
    with open_binary(found.file) as handle:
        head = handle.read(1 << 16)
    encoding, why = detect_encoding(head)
    ends = "CRLF" if b"\r\n" in head else "LF"
    found.facts.append(("encoding", f"{encoding}: {why}; {ends} line ends"))
    if encoding not in ("utf-8", "utf-8-sig"):
        found.settings["encoding"] = encoding
