"""The current entry of an asset in an artifact store, for the benchmarks that read one."""

import json
from pathlib import Path


def current_entry(store: Path, asset: str) -> Path:
    """The folder ``<store>/<asset>/CURRENT.json`` points to (an unpartitioned asset)."""
    return store / json.loads((store / asset / "CURRENT.json").read_text())["entry"]
