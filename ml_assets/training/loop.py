"""The skeleton both training loops share: setup, resume, checkpoint, stop.

``pretrain_mlm`` and ``finetune`` differ in what a step computes and what they evaluate; how
a run is set up (device, precision, optimizer groups, warmup/decay schedule), resumed (the
newest complete checkpoint, with a warning for each corrupt one), checkpointed (when due, every
``hooks.checkpoint_seconds``, and when asked to stop) and stopped (SIGTERM from a spot
preemption: checkpoint after the current step, then ``Preempted``) is written once, here.

Under torchrun a distributed run agrees on stopping across ranks (a SIGTERM reaches them at
different steps) and only rank 0 writes; a run on one rank of a process group (finetuning)
passes ``distributed=False``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import torch

from ml_assets.training.checkpoint import TrainingState, resume_latest, save_checkpoint
from ml_assets.training.optim import (
    choose_precision,
    configure_device,
    linear_warmup_decay,
    make_optimizer,
)
from ml_assets.training.perf import ThroughputMeter
from ml_assets.training.preemption import Preempted, TrainingHooks


def process_group() -> tuple[int, int]:
    """(rank, world size); (0, 1) unless launched by torchrun with a process group."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class TrainingRun:
    """One run's optimizer, schedule, precision and checkpoints."""

    def __init__(
        self,
        model: torch.nn.Module,
        groups: list[dict],
        *,
        weight_decay: float,
        warmup_steps: int,
        total_steps: int,
        precision: str,
        device: torch.device,
        checkpoint_root: Path | None,
        hooks: TrainingHooks | None = None,
        log: Callable[[str], None] = print,
        distributed: bool = True,
    ):
        configure_device(device)
        model.to(device)
        self.model, self.device, self.log = model, device, log
        self.hooks = hooks or TrainingHooks()
        self.checkpoint_root = checkpoint_root
        self.rank, self.world = process_group() if distributed else (0, 1)
        self.precision = choose_precision(device, precision)
        self.optimizer = make_optimizer(groups, weight_decay, device)
        self.scheduler = linear_warmup_decay(self.optimizer, warmup_steps, total_steps)
        self._last_save = time.monotonic()

    def resume(self, what: str) -> TrainingState | None:
        """Load the newest complete checkpoint into model, optimizer, schedule and scaler
        (None: none yet) and tell the hooks where the run starts."""
        resumed = resume_latest(
            self.checkpoint_root,
            self.model,
            self.optimizer,
            self.scheduler,
            self.device,
            self.precision.scaler,
            warn=self.log,
        )
        state = None
        if resumed is not None:
            latest, state = resumed
            self.log(f"resumed {what} from {latest.name} (step {state.step})")
        self.hooks.on_resume(state.step if state else 0)
        self._last_save = time.monotonic()  # checkpoint_seconds count from here
        return state

    def after_step(
        self,
        step: int,
        *,
        due: bool,
        state: Callable[[], TrainingState],
        meter: ThroughputMeter | None = None,
        on_saved: Callable[[Path], None] | None = None,
    ) -> None:
        """Checkpoint when ``due``, when ``hooks.checkpoint_seconds`` have passed since the
        last one, or when asked to stop (any rank asking is every rank asking); then raise
        ``Preempted`` if asked. Rank 0 writes ``state()`` and calls ``on_saved``; the time
        spent is kept out of ``meter``'s throughput."""
        timed = self.hooks.checkpoint_seconds is not None and (
            time.monotonic() - self._last_save >= self.hooks.checkpoint_seconds
        )
        stop, timed = self._agree([self.hooks.should_stop(), timed])
        if self.checkpoint_root is not None and (due or stop or timed):
            if self.rank == 0:
                saved = save_checkpoint(
                    self.checkpoint_root,
                    state(),
                    self.model,
                    self.optimizer,
                    self.scheduler,
                    scaler=self.precision.scaler,
                )
                self.hooks.on_checkpoint(saved, step)
                if on_saved is not None:
                    on_saved(saved)
            if self.world > 1:
                import torch.distributed as dist

                dist.barrier()
            self._last_save = time.monotonic()
            if meter is not None:
                meter.exclude()
        if stop:
            raise Preempted(step)

    def _agree(self, flags: list[bool]) -> list[bool]:
        if self.world == 1:
            return flags
        import torch.distributed as dist

        tensor = torch.tensor([int(f) for f in flags], device=self.device)
        dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
        return [bool(v) for v in tensor.tolist()]
