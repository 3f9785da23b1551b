"""Training-loop visibility: throughput, data-wait share, padding share, memory, MFU, GPU use.

Data-wait is the time the loop spends blocked on producing the next batch (indexing the memory
map, padding, masking) divided by the whole step time; above ~5 % the accelerator is hungry.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

# Steps a GPU run leaves out of its throughput: torch.compile traces and compiles during the
# first ones (MiniLM on an H200, batch 4,096: 60.9 s for the first 5 steps)
GPU_UNTIMED_STEPS = 5


@dataclass
class ThroughputMeter:
    """Per step: data time (last step's end -> batch ready) + compute time (-> step end).

    The first ``warmup_steps`` steps are timed apart (``warmup_seconds``) and left out of the
    rates: on a GPU they hold torch.compile's tracing, kernel autotuning and the allocator's
    growth, which a short benchmark would otherwise report as the training's speed."""

    warmup_steps: int = 0
    real_tokens: int = 0
    padded_tokens: int = 0
    samples: int = 0
    steps: int = 0
    data_seconds: float = 0.0
    total_seconds: float = 0.0
    warmup_seconds: float = 0.0
    clock: Callable[[], float] = time.perf_counter
    _seen: int = 0
    _data: float = 0.0
    _last: float = 0.0

    def __post_init__(self) -> None:
        self._last = self.clock()

    def batch_ready(self) -> None:
        self._data = self.clock() - self._last

    def step_done(
        self, real_tokens: int, padded_tokens: int, samples: int, device: torch.device
    ) -> None:
        if device.type == "cuda":
            torch.cuda.synchronize()  # otherwise async kernels make the data path look slow
        now = self.clock()
        self._seen += 1
        if self._seen <= self.warmup_steps:
            self.warmup_seconds += now - self._last
        else:
            self.total_seconds += now - self._last
            self.data_seconds += self._data
            self.real_tokens += real_tokens
            self.padded_tokens += padded_tokens
            self.samples += samples
            self.steps += 1
        self._last, self._data = now, 0.0

    def exclude(self) -> None:
        """Call after work that is neither data nor training (evaluation, checkpoints)."""
        self._last = self.clock()

    def report(
        self,
        device: torch.device,
        flops_per_token: float | None = None,
        peak_flops: float | None = None,
    ) -> dict[str, float]:
        seconds = max(self.total_seconds, 1e-9)
        out = {
            "tokens_per_second": round(self.real_tokens / seconds, 1),
            "samples_per_second": round(self.samples / seconds, 1),
            "data_wait_share": round(self.data_seconds / seconds, 4),
            "padding_share": round(1 - self.real_tokens / max(self.padded_tokens, 1), 4),
            "peak_memory_mb": round(peak_memory_mb(device), 1),
            "timed_steps": self.steps,
            "warmup_steps": self._seen - self.steps,
            "warmup_seconds": round(self.warmup_seconds, 2),
        }
        if device.type == "cuda" and flops_per_token and peak_flops:
            out["mfu"] = round(flops_per_token * self.real_tokens / seconds / peak_flops, 4)
        utilization = gpu_utilization(device)
        if utilization is not None:
            out["gpu_utilization"] = utilization
        return out


def peak_memory_mb(device: torch.device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    return (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    )  # Linux: KiB -> MiB (process peak RSS)


def gpu_utilization(device: torch.device) -> float | None:
    """Instantaneous GPU utilization (%) from NVML, where pynvml is installed and a GPU is used."""
    if device.type != "cuda":
        return None
    try:
        import pynvml
    except ImportError:
        return None
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(device.index or 0)
    return float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)


def transformer_flops_per_token(
    params_without_embeddings: int, layers: int, hidden: int, seq_len: float
) -> float:
    """Training FLOPs per token: 6 x matmul params (fwd + bwd) + attention scores (PaLM appendix B)."""
    return 6 * params_without_embeddings + 12 * layers * hidden * seq_len


# Dense bf16 matmul peaks used for MFU when params give none. H200: measured 790 TFLOP/s here
# (../shared/reference); the others are vendor figures.
PEAK_BF16_FLOPS = {"H200": 790e12, "H100": 989e12, "A100": 312e12, "L4": 121e12, "T4": 65e12}


def peak_flops_for(device: torch.device, override_tflops: float | None = None) -> float | None:
    if override_tflops:
        return override_tflops * 1e12
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    return next((flops for key, flops in PEAK_BF16_FLOPS.items() if key in name), None)
