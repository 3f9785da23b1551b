"""Optimizer and schedule shared by pretraining and finetuning."""

from __future__ import annotations

import torch


def make_optimizer(
    groups: list[dict], weight_decay: float, device: torch.device
) -> torch.optim.AdamW:
    """AdamW; biases and LayerNorm weights get no weight decay (as in BERT)."""
    param_groups = []
    for group in groups:
        decay, no_decay = [], []
        for name, param in group["named_params"]:
            if not param.requires_grad:
                continue
            (no_decay if param.ndim < 2 or "LayerNorm" in name else decay).append(param)
        param_groups.append({"params": decay, "lr": group["lr"], "weight_decay": weight_decay})
        param_groups.append({"params": no_decay, "lr": group["lr"], "weight_decay": 0.0})
    return torch.optim.AdamW(param_groups, fused=device.type == "cuda")


def linear_warmup_decay(optimizer: torch.optim.Optimizer, warmup: int, total: int):
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def autocast_for(device: torch.device):
    """bf16 autocast on GPUs that support it; fp32 (no autocast) on CPU."""
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return torch.autocast(device.type, enabled=False)
