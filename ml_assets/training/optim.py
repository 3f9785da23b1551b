"""Optimizer, schedule, precision and device settings shared by pretraining and finetuning."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch


def make_optimizer(
    groups: list[dict], weight_decay: float, device: torch.device
) -> torch.optim.AdamW:
    """AdamW (fused kernels on CUDA); biases and LayerNorm weights get no weight decay (BERT),
    nor a group that says ``"weight_decay": 0.0`` (rows of a table trained in part: decoupled
    decay would shrink the rows that get no gradient)."""
    param_groups = []
    for group in groups:
        decay, no_decay = [], []
        for name, param in group["named_params"]:
            if not param.requires_grad:
                continue
            (no_decay if param.ndim < 2 or "LayerNorm" in name else decay).append(param)
        decayed = group.get("weight_decay", weight_decay)
        param_groups.append({"params": decay, "lr": group["lr"], "weight_decay": decayed})
        param_groups.append({"params": no_decay, "lr": group["lr"], "weight_decay": 0.0})
    return torch.optim.AdamW(param_groups, fused=device.type == "cuda")


def linear_warmup_decay(optimizer: torch.optim.Optimizer, warmup: int, total: int):
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


@dataclass
class Precision:
    """bf16 autocast where the GPU supports it; fp16 + a grad scaler on GPUs without bf16 (T4);
    fp32 on CPU (CPU autocast gains nothing for this model size and costs accuracy)."""

    mode: str
    device: torch.device
    scaler: torch.amp.GradScaler | None = None

    def autocast(self):
        if self.mode == "fp32":
            return contextlib.nullcontext()
        dtype = torch.bfloat16 if self.mode == "bf16" else torch.float16
        return torch.autocast(self.device.type, dtype=dtype)

    def backward_and_step(
        self,
        loss: torch.Tensor,
        optimizer: torch.optim.Optimizer,
        parameters,
        clip: float,
        step: bool,
    ) -> None:
        """Backward for one micro-batch; on ``step``, unscale, clip and apply the update."""
        (self.scaler.scale(loss) if self.scaler else loss).backward()
        if not step:
            return
        if self.scaler:
            self.scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(parameters, clip)
        if self.scaler:
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def choose_precision(device: torch.device, requested: str = "auto") -> Precision:
    if requested == "auto":
        if device.type != "cuda":
            requested = "fp32"
        else:
            requested = "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    if requested != "fp32" and device.type != "cuda":
        raise ValueError(
            f"precision {requested!r} needs a CUDA device; use auto or fp32 on {device}"
        )
    scaler = torch.amp.GradScaler("cuda") if requested == "fp16" else None
    return Precision(requested, device, scaler)


def configure_device(device: torch.device) -> None:
    """TF32 matmuls on Ampere+ GPUs: ~8x fp32 throughput for the fp32 parts, ample precision."""
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True


def autocast_for(device: torch.device):
    """Inference autocast: the same choice as training's ``auto`` precision."""
    return choose_precision(device).autocast()


def largest_batch_that_fits(step_fn, start: int, limit: int, device: torch.device) -> int:
    """Double the batch size from ``start`` while one forward+backward fits in GPU memory.

    On CPU there is no memory wall worth probing: ``start`` is returned unchanged."""
    if device.type != "cuda":
        return start
    best, size = start, start
    while size <= limit:
        try:
            step_fn(size)
            best, size = size, size * 2
        except torch.cuda.OutOfMemoryError:
            break
        finally:
            torch.cuda.empty_cache()
    return best
