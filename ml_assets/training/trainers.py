"""What the training job can run: one ``Trainer`` per training stage, named in the stage's
record (``Stage.trainer = "ml_assets.training.trainers:FINETUNE"``) and sent in the job request,
so the job looks its trainer up instead of branching on stage names.

A trainer says which settings model its payload is (validated once, on the job's side), which
input folders it reads by role (``job_protocol``: corpus, tokenizer, backbone), and whether it
trains on one process under torchrun. Every trainer has one signature: ``train(run) -> metadata``.
No dagster here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from ml_assets.core.infra.job_protocol import BACKBONE_INPUT, CORPUS_INPUT, TOKENIZER_INPUT
from ml_assets.core.params import MlmBackboneParams, MultitaskModelParams, PlainFinetuneSettings
from ml_assets.training.preemption import TrainingHooks

TRAINERS_MODULE = __name__  # the only module a request may name a trainer in


@dataclass(frozen=True)
class TrainingJob:
    """What every trainer gets: its input folders by role, its validated settings, where to
    write the artifact and its checkpoints, a log line writer and the loop's hooks."""

    inputs: dict[str, Path]
    settings: BaseModel
    folder: Path
    checkpoint_root: Path
    log: Callable[[str], None]
    hooks: TrainingHooks


@dataclass(frozen=True)
class Trainer:
    train: Callable[[TrainingJob], dict]
    settings: type[BaseModel]  # the payload's model
    inputs: tuple[str, ...]  # the input folders it reads, by role
    # finetuning has no data-parallel loop (a small labeled set, minutes of work): under
    # torchrun it trains on rank 0 alone, and the other ranks stage their inputs and exit, so
    # no two processes write the same checkpoints and output
    single_process: bool = False


def _loop(run: TrainingJob) -> dict:
    """What every training function takes besides its inputs and settings."""
    return {
        "folder": run.folder,
        "checkpoint_root": run.checkpoint_root,
        "log": run.log,
        "hooks": run.hooks,
    }


def _mlm(run: TrainingJob) -> dict:
    from ml_assets.training.stages import train_mlm_backbone

    return train_mlm_backbone(
        corpus_dir=run.inputs[CORPUS_INPUT],
        tokenizer_dir=run.inputs[TOKENIZER_INPUT],
        settings=run.settings,
        **_loop(run),
    )


def _finetune(run: TrainingJob) -> dict:
    from ml_assets.training.stages import train_multitask_model

    return train_multitask_model(
        corpus_dir=run.inputs[CORPUS_INPUT],
        tokenizer_dir=run.inputs[TOKENIZER_INPUT],
        backbone_dir=run.inputs[BACKBONE_INPUT],
        settings=run.settings,
        **_loop(run),
    )


def _plain_finetune(run: TrainingJob) -> dict:
    from ml_assets.training.stages import train_baseline_model

    return train_baseline_model(
        corpus_dir=run.inputs[CORPUS_INPUT],
        tokenizer_dir=run.inputs[TOKENIZER_INPUT],
        settings=run.settings.finetune,
        num_layers=run.settings.num_layers,
        init_seed=run.settings.init_seed,
        **_loop(run),
    )


MLM = Trainer(_mlm, MlmBackboneParams, (CORPUS_INPUT, TOKENIZER_INPUT))
FINETUNE = Trainer(
    _finetune, MultitaskModelParams, (CORPUS_INPUT, TOKENIZER_INPUT, BACKBONE_INPUT), True
)
PLAIN_FINETUNE = Trainer(
    _plain_finetune, PlainFinetuneSettings, (CORPUS_INPUT, TOKENIZER_INPUT), True
)


def resolve_trainer(path: str) -> Trainer:
    """The trainer a request names (``module:NAME``); a clear error for anything else."""
    module, _, name = path.partition(":")
    if module != TRAINERS_MODULE or not name:
        raise ValueError(
            f"training job: trainer {path!r} is not one of {TRAINERS_MODULE}'s "
            f"(expected '{TRAINERS_MODULE}:NAME'); the stage's record names it"
        )
    trainer = getattr(importlib.import_module(module), name, None)
    if not isinstance(trainer, Trainer):
        raise ValueError(f"training job: {path!r} names no Trainer in {TRAINERS_MODULE}")
    return trainer
