"""What ``plan`` prints under a fresh entry: the verdicts kept with it, read, never measured
again (the export gates on an onnx_model entry, the promotion decision on a registry entry).
"""

from __future__ import annotations

from pathlib import Path

from ml_assets.core.infra.io import read_json
from ml_assets.core.infra.layouts import INT8_FILE, REGISTRY_RECORD_FILE, VERIFICATION_FILE
from ml_assets.core.params import ExportGatesParams
from ml_assets.core.quality.export_gates import gate_verdicts

# code versions leave this module out: it words verdicts already kept, it makes no artifact
AFFECTS_OUTPUTS = False


def export_gate_lines(entry: Path, params) -> list[str]:
    """The export gates' verdicts on an onnx_model entry, from what it measured."""
    verdicts = gate_verdicts(
        read_json(entry / VERIFICATION_FILE),
        (entry / INT8_FILE).stat().st_size,
        params.get(ExportGatesParams),
    )
    return [
        f"gate {v.gate}: " + ("passed" if v.passed else "FAILED: " + "; ".join(v.reasons))
        for v in verdicts
    ]


def promotion_lines(entry: Path, params) -> list[str]:
    """The promotion verdict kept in a registered_model entry."""
    record = read_json(entry / REGISTRY_RECORD_FILE)
    promotion = record["promotion"]
    verdict = promotion.get("verdict") or ("promoted" if promotion["promoted"] else "rejected")
    return [f"{record['model_id']}: {verdict}"]
