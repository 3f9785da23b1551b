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
from transformers import BertForMaskedLM

from ml_assets.training.checkpoint import (
    TrainingState,
    find_latest_checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from ml_assets.training.data import (
    BucketedBatches,
    LoaderPosition,
    Prefetcher,
    collate,
    mask_tokens,
)
from ml_assets.training.optim import (
    choose_precision,
    configure_device,
    largest_batch_that_fits,
    linear_warmup_decay,
    make_optimizer,
)
from ml_assets.training.perf import ThroughputMeter, transformer_flops_per_token


@dataclass(frozen=True)
class MlmConfig:
    batch_size: int
    steps: int  # optimizer steps
    learning_rate: float
    weight_decay: float
    warmup_steps: int
    mask_prob: float
    checkpoint_every: int
    seed: int
    accumulation: int = 1  # micro-batches per optimizer step
    precision: str = "auto"  # auto | bf16 | fp16 | fp32
    compile: bool = False
    profile_dir: Path | None = None  # write a torch.profiler TensorBoard trace of a few steps here
    prefetch: bool | None = None  # build batches on a background thread (None: on CUDA only)
    peak_flops: float | None = None  # device peak FLOP/s for the MFU estimate


@dataclass
class MlmResult:
    steps: int
    resumed_from_step: int
    loss_curve: list[tuple[int, float]]
    seconds: float
    device: str
    precision: str
    perf: dict[str, float] = field(default_factory=dict)

    @property
    def tokens_per_second(self) -> float:
        return self.perf.get("tokens_per_second", 0.0)

    @property
    def final_loss(self) -> float:
        # mean of the last few steps: a single masked batch is noisy
        tail = [loss for _, loss in self.loss_curve[-5:]]
        return float(np.mean(tail)) if tail else float("nan")


def mlm_loss(
    model: BertForMaskedLM, inputs: torch.Tensor, attention: torch.Tensor, labels: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy at masked positions only: the vocabulary projection is the costliest
    matmul, and computing it for the ~85 % unmasked tokens would be wasted work."""
    hidden = model.bert(input_ids=inputs, attention_mask=attention).last_hidden_state
    selected = labels != -100
    logits = model.cls(hidden[selected])
    return F.cross_entropy(logits.float(), labels[selected])


def make_batch(
    sequences: Sequence[np.ndarray],
    indices: np.ndarray,
    *,
    step: int,
    micro: int,
    config: MlmConfig,
    special: torch.Tensor,
    mask_id: int,
    pad_id: int,
    vocab_size: int,
):
    input_ids, attention = collate([sequences[i] for i in indices], pad_id)
    # Masking randomness is a function of (seed, step, micro-batch): identical after a resume.
    generator = torch.Generator().manual_seed((config.seed * 1_000_003 + step) * 64 + micro)
    inputs, labels = mask_tokens(
        input_ids,
        torch.isin(input_ids, special),
        mask_prob=config.mask_prob,
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
    model: BertForMaskedLM, max_length: int, start: int, limit: int, device: torch.device
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


def pretrain_mlm(
    model: BertForMaskedLM,
    sequences: Sequence[np.ndarray],
    config: MlmConfig,
    *,
    special_ids: Sequence[int],
    mask_id: int,
    pad_id: int,
    checkpoint_root: Path,
    device: torch.device,
    log: Callable[[str], None] = print,
) -> MlmResult:
    # setup
    configure_device(device)
    model.to(device).train()
    precision = choose_precision(device, config.precision)
    optimizer = make_optimizer(
        [{"named_params": list(model.named_parameters()), "lr": config.learning_rate}],
        config.weight_decay,
        device,
    )
    scheduler = linear_warmup_decay(optimizer, config.warmup_steps, config.steps)
    loss_fn = torch.compile(mlm_loss, dynamic=True) if config.compile else mlm_loss
    batches = BucketedBatches([len(s) for s in sequences], config.batch_size, config.seed)
    special = torch.tensor(sorted(set(special_ids)))
    # resume
    step, position, curve = 0, LoaderPosition(), []
    latest = find_latest_checkpoint(checkpoint_root, warn=log)
    if latest is not None:
        state = load_checkpoint(latest, model, optimizer, scheduler, device)
        step, position = state.step, LoaderPosition(**state.loader)
        curve = [tuple(point) for point in state.extras.get("loss_curve", [])]
        log(f"resumed MLM pretraining from {latest.name} (step {step})")
    resumed_from = step

    # loop
    def batch_stream():
        """(step, micro, loader position after, masked batch) for every micro-batch from here."""
        stream, current = batches.iterate(position), step
        while current < config.steps:
            for micro in range(config.accumulation):
                after, indices = next(stream)
                yield (
                    current,
                    micro,
                    after,
                    len(indices),
                    make_batch(
                        sequences,
                        indices,
                        step=current,
                        micro=micro,
                        config=config,
                        special=special,
                        mask_id=mask_id,
                        pad_id=pad_id,
                        vocab_size=model.config.vocab_size,
                    ),
                )
            current += 1

    prefetch = device.type == "cuda" if config.prefetch is None else config.prefetch
    stream = Prefetcher(batch_stream()) if prefetch else batch_stream()
    meter, started = ThroughputMeter(), time.perf_counter()
    optimizer.zero_grad(set_to_none=True)
    losses = []
    with _profiler(config.profile_dir) as profiler:
        for batch_step, micro, position, rows, (inputs, attention, labels) in stream:
            meter.batch_ready()
            with precision.autocast():
                loss = loss_fn(
                    model,
                    inputs.to(device, non_blocking=True),
                    attention.to(device, non_blocking=True),
                    labels.to(device, non_blocking=True),
                )
            last_micro = micro == config.accumulation - 1
            precision.backward_and_step(
                loss / config.accumulation, optimizer, model.parameters(), 1.0, step=last_micro
            )
            losses.append(float(loss.detach()))
            meter.step_done(int(attention.sum()), attention.numel(), rows, device)
            if not last_micro:
                continue
            scheduler.step()
            step = batch_step + 1
            curve.append((step, float(np.mean(losses))))
            losses = []
            if profiler is not None and step <= 5:
                profiler.step()
            if step % config.checkpoint_every == 0 or step == config.steps:
                state = TrainingState(
                    step=step, loader=vars(position).copy(), extras={"loss_curve": curve}
                )
                save_checkpoint(checkpoint_root, state, model, optimizer, scheduler)
                log(f"step {step}/{config.steps} loss {curve[-1][1]:.4f} (checkpoint saved)")
                meter.exclude()
    if isinstance(stream, Prefetcher):
        stream.close()
    # result
    layers, hidden = model.config.num_hidden_layers, model.config.hidden_size
    matmul_params = sum(p.numel() for n, p in model.bert.encoder.named_parameters())
    mean_len = meter.padded_tokens / max(meter.samples, 1)
    perf = meter.report(
        device,
        transformer_flops_per_token(matmul_params, layers, hidden, mean_len),
        config.peak_flops,
    )
    return MlmResult(
        steps=step,
        resumed_from_step=resumed_from,
        loss_curve=curve,
        seconds=time.perf_counter() - started,
        device=str(device),
        precision=precision.mode,
        perf=perf,
    )
