"""Checkpoints that survive crashes: write to a temp folder, manifest, verify, rename.

Layout contract (format 1), one folder per saved step under a run's checkpoint root:
    step-00000040/model.safetensors   model weights
    step-00000040/optimizer.pt        optimizer state_dict (tensors + numbers; weights_only load)
    step-00000040/rng.safetensors     torch CPU (and CUDA) generator states
    step-00000040/extra_tensors.safetensors  optional (finetuning: the best weights so far)
    step-00000040/state.json          step, loader position, scheduler, grad scaler, python/numpy
                                      RNG, extras
    step-00000040/MANIFEST.json       sha256 of each file; present only once the write finished
Only the newest ``keep`` complete checkpoints are kept. A folder that fails verification is
skipped (and reported) in favour of the previous one.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from ml_assets.core.infra.io import (
    ArtifactIntegrityError,
    read_json,
    remove_stale_temps,
    staged_directory,
    verify_entry,
)

_STEP_DIR = re.compile(r"^step-(\d{8})$")


@dataclass
class TrainingState:
    step: int
    loader: dict[str, int]
    extras: dict[str, Any] = field(default_factory=dict)  # JSON: curves, early-stopping counters
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)  # e.g. the best weights so far


def _rng_snapshot() -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    tensors = {"torch_cpu": torch.get_rng_state()}
    if torch.cuda.is_available():
        for index, state in enumerate(torch.cuda.get_rng_state_all()):
            tensors[f"torch_cuda_{index}"] = state
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    version, internal, gauss = random.getstate()
    plain = {
        "numpy": [kind, keys.tolist(), pos, has_gauss, cached],
        "python": [version, list(internal), gauss],
    }
    return tensors, plain


def _rng_restore(tensors: dict[str, torch.Tensor], plain: dict[str, Any]) -> None:
    torch.set_rng_state(tensors["torch_cpu"])
    cuda = [tensors[k] for k in sorted(tensors) if k.startswith("torch_cuda_")]
    if cuda and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(cuda)
    kind, keys, pos, has_gauss, cached = plain["numpy"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
    version, internal, gauss = plain["python"]
    random.setstate((version, tuple(internal), gauss))


def save_checkpoint(
    root: Path,
    state: TrainingState,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler,
    keep: int = 2,
    scaler: torch.amp.GradScaler | None = None,
) -> Path:
    final = root / f"step-{state.step:08d}"
    rng_tensors, rng_plain = _rng_snapshot()
    with staged_directory(final, meta={"kind": "checkpoint", "step": state.step}) as tmp:
        weights = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
        # Tied weights share storage; safetensors refuses shared tensors, so store copies.
        save_file({k: v.clone() for k, v in weights.items()}, str(tmp / "model.safetensors"))
        torch.save(optimizer.state_dict(), tmp / "optimizer.pt")
        save_file(rng_tensors, str(tmp / "rng.safetensors"))
        if state.tensors:
            save_file(
                {k: v.detach().cpu().contiguous().clone() for k, v in state.tensors.items()},
                str(tmp / "extra_tensors.safetensors"),
            )
        payload = {
            "format": 1,
            "step": state.step,
            "loader": state.loader,
            "extras": state.extras,
            "scheduler": scheduler.state_dict() if scheduler is not None else None,
            # fp16 (T4) training: the loss scale and its growth tracker are training state too
            "grad_scaler": scaler.state_dict() if scaler is not None else None,
            "rng": rng_plain,
        }
        (tmp / "state.json").write_text(json.dumps(payload, default=str))
    prune_checkpoints(root, keep)
    return final


def list_checkpoints(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if p.is_dir() and _STEP_DIR.match(p.name)]
    return sorted(found, key=lambda p: int(_STEP_DIR.match(p.name).group(1)))


def prune_checkpoints(root: Path, keep: int) -> None:
    for stale in list_checkpoints(root)[:-keep]:
        shutil.rmtree(stale, ignore_errors=True)
    # a crash mid-write leaves temp folders (never read); a concurrent run's live one stays
    remove_stale_temps(root, ".tmp-step-")


def verified_checkpoints(root: Path, warn=print) -> Iterator[Path]:
    """Checkpoints newest first, each verified against its manifest as it is reached; corrupt
    ones are skipped, and so are ones that vanish while read (pruned by an identical run
    training at the same time)."""
    for candidate in reversed(list_checkpoints(root)):
        try:
            verify_entry(candidate)
        except (ArtifactIntegrityError, FileNotFoundError) as err:
            warn(f"skipping checkpoint {candidate.name}: {err}")
            continue
        yield candidate


def find_latest_checkpoint(root: Path, warn=print) -> Path | None:
    """Newest checkpoint that verifies."""
    return next(verified_checkpoints(root, warn), None)


def resume_latest(
    root: Path | None,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler,
    device: torch.device,
    scaler: torch.amp.GradScaler | None = None,
    warn=print,
) -> tuple[Path, TrainingState] | None:
    """Load the newest checkpoint that verifies and loads whole; None when there is none. One
    that fails to load (pruned by an identical run while it loaded) gives way to the next older
    one, whose load overwrites everything the failed load had set."""
    touched = None  # a checkpoint that failed after it began to change the model
    for candidate in verified_checkpoints(root, warn) if root is not None else ():
        try:
            return candidate, load_checkpoint(
                candidate, model, optimizer, scheduler, device, scaler
            )
        except (ArtifactIntegrityError, FileNotFoundError) as err:
            warn(f"skipping checkpoint {candidate.name}: {err}")
            touched = candidate
    if touched is not None:  # the model holds part of a checkpoint: training it would be wrong
        raise ArtifactIntegrityError(
            f"{touched}: failed while loading and no older checkpoint loads; run again "
            "(the next attempt starts from a clean model)"
        )
    return None


def load_checkpoint(
    path: Path,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler,
    device: torch.device,
    scaler: torch.amp.GradScaler | None = None,
) -> TrainingState:
    verify_entry(path)
    weights = load_file(str(path / "model.safetensors"), device=str(device))
    model.load_state_dict(weights, strict=False)
    missing = set(model.state_dict()) - set(weights)
    if missing:
        raise ArtifactIntegrityError(f"{path}: checkpoint lacks weights {sorted(missing)[:5]}")
    optimizer.load_state_dict(
        torch.load(path / "optimizer.pt", map_location=device, weights_only=True)
    )
    payload = read_json(path / "state.json")
    if scheduler is not None and payload["scheduler"] is not None:
        scheduler.load_state_dict(payload["scheduler"])
    if scaler is not None and payload.get("grad_scaler"):
        scaler.load_state_dict(payload["grad_scaler"])
    _rng_restore(load_file(str(path / "rng.safetensors")), payload["rng"])
    extra = path / "extra_tensors.safetensors"
    return TrainingState(
        step=payload["step"],
        loader=payload["loader"],
        extras=payload["extras"],
        tensors=load_file(str(extra), device=str(device)) if extra.is_file() else {},
    )
