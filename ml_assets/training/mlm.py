"""Masked-LM continued pretraining of the pruned backbone, resumable from checkpoints.

Reads top to bottom: setup (optimizer, schedule, precision) -> resume -> loop -> result.
Batches come from the pre-tokenized corpus (no tokenization in the loop), bucketed by length;
masking is vectorized; the loader position and every RNG state go into each checkpoint.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F
from transformers import PreTrainedModel

from ml_assets.core.params import MlmBackboneParams
from ml_assets.training.checkpoint import TrainingState
from ml_assets.training.data import (
    BucketedBatches,
    LoaderPosition,
    Prefetcher,
    collate,
    mask_tokens,
)
from ml_assets.training.loop import TrainingRun
from ml_assets.training.optim import choose_precision, largest_batch_that_fits
from ml_assets.training.perf import ThroughputMeter, transformer_flops_per_token
from ml_assets.training.preemption import TrainingHooks


@dataclass(frozen=True)
class MlmRun:
    """What a run derives beside the ``mlm_backbone`` section: the hyperparameters come from
    the section itself (``MlmBackboneParams``), these from the device and the data."""

    batch_size: int  # the section's, or what the GPU probe found to fit
    accumulation: int = 1  # micro-batches per optimizer step (from tokens_per_step)
    profile_dir: Path | None = None  # write a torch.profiler TensorBoard trace of a few steps here
    prefetch: bool | None = None  # build batches on a background thread (None: on CUDA only)
    peak_flops: float | None = None  # device peak FLOP/s for the MFU estimate
    untimed_steps: int = 0  # first steps left out of the throughput (compile, autotuning)


@dataclass
class MlmResult:
    steps: int
    resumed_from_step: int
    loss_curve: list[tuple[int, float]]
    seconds: float
    device: str
    precision: str
    perf: dict[str, float] = field(default_factory=dict)
    world_size: int = 1

    @property
    def tokens_per_second(self) -> float:
        return self.perf.get("tokens_per_second", 0.0)

    @property
    def final_loss(self) -> float:
        # mean of the last few steps: a single masked batch is noisy
        tail = [loss for _, loss in self.loss_curve[-5:]]
        return float(np.mean(tail)) if tail else float("nan")


def mlm_loss(
    model: PreTrainedModel, inputs: torch.Tensor, attention: torch.Tensor, labels: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy at masked positions only: the vocabulary projection is the costliest
    matmul, and computing it for the ~85 % unmasked tokens would be wasted work. Where the
    architecture has no one module for its MLM head (DistilBERT), every position is
    projected and the masked ones read."""
    selected = labels != -100
    head = masked_lm_head(model)
    if head is None:
        logits = model(input_ids=inputs, attention_mask=attention).logits[selected]
    else:
        hidden = model.base_model(input_ids=inputs, attention_mask=attention).last_hidden_state
        logits = head(hidden[selected])
    return F.cross_entropy(logits.float(), labels[selected])


def masked_lm_head(model: PreTrainedModel) -> torch.nn.Module | None:
    """The module that turns hidden states into vocabulary logits: ``cls`` (BERT), ``lm_head``
    (RoBERTa, XLM-RoBERTa, MPNet); None for an architecture that spreads it over several."""
    for name in ("cls", "lm_head"):
        head = getattr(model, name, None)
        if isinstance(head, torch.nn.Module):
            return head
    return None


def make_batch(
    sequences: Sequence[np.ndarray],
    indices: np.ndarray,
    *,
    step: int,
    micro: int,
    settings: MlmBackboneParams,
    special: torch.Tensor,
    mask_id: int,
    pad_id: int,
    vocab_size: int,
):
    input_ids, attention = collate([sequences[i] for i in indices], pad_id)
    # Masking randomness is a function of (seed, step, micro-batch): identical after a resume.
    generator = torch.Generator().manual_seed((settings.seed * 1_000_003 + step) * 64 + micro)
    inputs, labels = mask_tokens(
        input_ids,
        torch.isin(input_ids, special),
        mask_prob=settings.mask_prob,
        mask_id=mask_id,
        vocab_size=vocab_size,
        generator=generator,
    )
    if not (labels != -100).any():
        labels[0, 1] = input_ids[0, 1]  # a batch with no masked token would give a NaN loss
    return inputs, attention, labels


def _profiler(profile_dir: Path | None):
    if profile_dir is None:
        return contextlib.nullcontext(None)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    return torch.profiler.profile(
        activities=activities,
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=torch.profiler.tensorboard_trace_handler(str(profile_dir)),
    )


def probe_batch_size(
    model: PreTrainedModel, max_length: int, start: int, limit: int, device: torch.device
) -> int:
    """The largest power-of-two multiple of ``start`` whose full-length MLM step fits on the GPU."""
    model.to(device).train()

    def try_step(size: int) -> None:
        ids = torch.randint(5, model.config.vocab_size, (size, max_length), device=device)
        labels = torch.where(
            torch.rand(ids.shape, device=device) < 0.15, ids, torch.full_like(ids, -100)
        )
        with choose_precision(device).autocast():
            mlm_loss(model, ids, torch.ones_like(ids), labels).backward()
        model.zero_grad(set_to_none=True)

    return largest_batch_that_fits(try_step, start, limit, device)


def pull_toward(model: torch.nn.Module, start: dict[str, torch.Tensor], share: float) -> None:
    """Move every weight ``share`` of the way back to its value in ``start`` (L2-SP, decoupled
    like AdamW's weight decay but toward the backbone instead of toward zero)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.sub_(share * (p - start[name]))


class MlmObjective(torch.nn.Module):
    """The masked-LM loss as a module, so DistributedDataParallel can wrap it (its gradient
    all-reduce hooks need the forward to run through the wrapper)."""

    def __init__(self, model: PreTrainedModel):
        super().__init__()
        self.model = model

    def forward(self, inputs, attention, labels):
        return mlm_loss(self.model, inputs, attention, labels)


def pretrain_mlm(
    model: PreTrainedModel,
    sequences: Sequence[np.ndarray],
    settings: MlmBackboneParams,
    run: MlmRun,
    *,
    special_ids: Sequence[int],
    mask_id: int,
    pad_id: int,
    checkpoint_root: Path,
    device: torch.device,
    log: Callable[[str], None] = print,
    hooks: TrainingHooks | None = None,
) -> MlmResult:
    """Train to ``settings.steps``, resuming from the newest complete checkpoint.

    Under torchrun (a process group is initialized) every rank trains on its own share of
    each optimizer step's batches through DDP; only rank 0 writes checkpoints. On
    ``hooks.should_stop()`` the loop writes a checkpoint after the current step and raises
    ``Preempted``.
    """
    trainer = TrainingRun(
        model,
        [{"named_params": list(model.named_parameters()), "lr": settings.learning_rate}],
        weight_decay=settings.weight_decay,
        warmup_steps=settings.warmup_steps,
        total_steps=settings.steps,
        precision=settings.precision,
        device=device,
        checkpoint_root=checkpoint_root,
        hooks=hooks,
        log=log,
    )
    rank, world, precision = trainer.rank, trainer.world, trainer.precision
    model.train()
    objective: torch.nn.Module = MlmObjective(model)
    if world > 1:
        from torch.nn.parallel import DistributedDataParallel

        objective = DistributedDataParallel(
            objective, device_ids=[device.index] if device.type == "cuda" else None
        )
    loss_fn = torch.compile(objective, dynamic=True) if settings.compile else objective
    batches = BucketedBatches([len(s) for s in sequences], run.batch_size, settings.seed)
    special = torch.tensor(sorted(set(special_ids)))
    # the weights before pretraining, which ``settings.anchor`` pulls toward (taken before a
    # resume loads a checkpoint: the sliced backbone)
    start = (
        {name: p.detach().clone() for name, p in model.named_parameters()}
        if settings.anchor
        else {}
    )
    # resume
    step, position, curve = 0, LoaderPosition(), []
    state = trainer.resume("MLM pretraining")
    if state is not None:
        step, position = state.step, LoaderPosition(**state.loader)
        curve = [tuple(point) for point in state.extras.get("loss_curve", [])]
    if world > 1:  # per-rank dropout streams, reproducible from (seed, step, rank)
        torch.manual_seed(settings.seed * 1_000_003 + step * 1009 + rank)
    resumed_from = step

    # loop
    def batch_stream():
        """(step, micro, loader position after, rows, masked batch) for this rank's micro-batches.

        Each micro-batch slot consumes ``world`` batches of the global order; rank r takes the
        r-th, so the loader position (and thus resume) is the same on every rank."""
        stream, current = batches.iterate(position), step
        while current < settings.steps:
            for micro in range(run.accumulation):
                for slot in range(world):
                    after, indices = next(stream)
                    if slot == rank:
                        mine = indices
                yield (
                    current,
                    micro,
                    after,
                    len(mine),
                    make_batch(
                        sequences,
                        mine,
                        step=current,
                        micro=micro * world + rank,
                        settings=settings,
                        special=special,
                        mask_id=mask_id,
                        pad_id=pad_id,
                        vocab_size=model.config.vocab_size,
                    ),
                )
            current += 1

    prefetch = device.type == "cuda" if run.prefetch is None else run.prefetch
    stream = Prefetcher(batch_stream()) if prefetch else batch_stream()
    meter, started = ThroughputMeter(warmup_steps=run.untimed_steps), time.perf_counter()
    trainer.optimizer.zero_grad(set_to_none=True)
    losses = []
    try:
        with _profiler(run.profile_dir) as profiler:
            for batch_step, micro, position, rows, (inputs, attention, labels) in stream:
                meter.batch_ready()
                last_micro = micro == run.accumulation - 1
                # DDP: gradients are all-reduced only on the last micro-batch of a step
                sync = contextlib.nullcontext() if last_micro or world == 1 else objective.no_sync()
                with sync:
                    with precision.autocast():
                        loss = loss_fn(
                            inputs.to(device, non_blocking=True),
                            attention.to(device, non_blocking=True),
                            labels.to(device, non_blocking=True),
                        )
                    precision.backward_and_step(
                        loss / run.accumulation,
                        trainer.optimizer,
                        model.parameters(),
                        1.0,
                        step=last_micro,
                    )
                losses.append(float(loss.detach()))
                meter.step_done(int(attention.sum()), attention.numel(), rows, device)
                if not last_micro:
                    continue
                trainer.scheduler.step()
                if start:  # at the rate of the step to come: the scheduler has just moved on
                    pull_toward(model, start, trainer.scheduler.get_last_lr()[0] * settings.anchor)
                step = batch_step + 1
                curve.append((step, float(np.mean(losses))))
                losses = []
                trainer.hooks.on_step(step, curve[-1][1])
                if profiler is not None and step <= 5:
                    profiler.step()
                trainer.after_step(
                    step,
                    due=step % settings.checkpoint_every == 0 or step == settings.steps,
                    state=lambda at=step, where=position: TrainingState(
                        step=at, loader=vars(where).copy(), extras={"loss_curve": curve}
                    ),
                    meter=meter,
                    on_saved=lambda _path, at=step: log(
                        f"step {at}/{settings.steps} loss {curve[-1][1]:.4f} (checkpoint saved)"
                    ),
                )
    finally:
        if isinstance(stream, Prefetcher):
            stream.close()
    # result
    layers, hidden = model.config.num_hidden_layers, model.config.hidden_size
    matmul_params = sum(
        p.numel() for n, p in model.base_model.named_parameters() if "embeddings" not in n
    )
    mean_len = meter.padded_tokens / max(meter.samples, 1)
    perf = meter.report(
        device,
        transformer_flops_per_token(matmul_params, layers, hidden, mean_len),
        run.peak_flops,
    )
    return MlmResult(
        steps=step,
        resumed_from_step=resumed_from,
        loss_curve=curve,
        seconds=time.perf_counter() - started,
        device=str(device),
        precision=precision.mode,
        perf=perf,
        world_size=world,
    )
