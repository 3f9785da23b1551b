"""Masked-LM continued pretraining of the pruned backbone, resumable from checkpoints."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from ml_assets.training.data import BucketedBatches, LoaderPosition, collate, mask_tokens
from ml_assets.training.optim import autocast_for, linear_warmup_decay, make_optimizer


@dataclass(frozen=True)
class MlmConfig:
    batch_size: int
    steps: int
    learning_rate: float
    weight_decay: float
    warmup_steps: int
    mask_prob: float
    checkpoint_every: int
    seed: int


@dataclass
class MlmResult:
    steps: int
    resumed_from_step: int
    loss_curve: list[tuple[int, float]]
    real_tokens: int
    seconds: float
    device: str

    @property
    def tokens_per_second(self) -> float:
        return self.real_tokens / self.seconds if self.seconds > 0 else 0.0

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
    model.to(device).train()
    optimizer = make_optimizer(
        [{"named_params": list(model.named_parameters()), "lr": config.learning_rate}],
        config.weight_decay,
        device,
    )
    scheduler = linear_warmup_decay(optimizer, config.warmup_steps, config.steps)
    batches = BucketedBatches([len(s) for s in sequences], config.batch_size, config.seed)
    special = torch.tensor(sorted(set(special_ids)))
    step, position, curve = 0, LoaderPosition(), []
    latest = find_latest_checkpoint(checkpoint_root, warn=log)
    if latest is not None:
        state = load_checkpoint(latest, model, optimizer, scheduler, device)
        step, position = state.step, LoaderPosition(**state.loader)
        curve = [tuple(point) for point in state.extras.get("loss_curve", [])]
        log(f"resumed MLM pretraining from {latest.name} (step {step})")
    resumed_from = step
    real_tokens, started = 0, time.perf_counter()
    stream = batches.iterate(position)
    while step < config.steps:
        position, indices = next(stream)
        input_ids, attention = collate([sequences[i] for i in indices], pad_id)
        # Masking randomness is a function of (seed, step): identical after a resume.
        generator = torch.Generator().manual_seed(config.seed * 1_000_003 + step)
        inputs, labels = mask_tokens(
            input_ids,
            torch.isin(input_ids, special),
            mask_prob=config.mask_prob,
            mask_id=mask_id,
            vocab_size=model.config.vocab_size,
            generator=generator,
        )
        if not (labels != -100).any():
            labels[0, 1] = input_ids[0, 1]  # a batch with no masked token would give NaN loss
        with autocast_for(device):
            loss = mlm_loss(model, inputs.to(device), attention.to(device), labels.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        real_tokens += int(attention.sum())
        curve.append((step, float(loss.detach())))
        if step % config.checkpoint_every == 0 or step == config.steps:
            state = TrainingState(
                step=step, loader=vars(position).copy(), extras={"loss_curve": curve}
            )
            save_checkpoint(checkpoint_root, state, model, optimizer, scheduler)
            log(f"step {step}/{config.steps} loss {curve[-1][1]:.4f} (checkpoint saved)")
    return MlmResult(
        steps=step,
        resumed_from_step=resumed_from,
        loss_curve=curve,
        real_tokens=real_tokens,
        seconds=time.perf_counter() - started,
        device=str(device),
    )
