"""GPU placement and cost accounting for training jobs (pure: no dagster, no cloud client).

A job is one or more attempts (Batch retries in place, the launcher resubmits); each attempt
ran on one placement (tier, GPU, spot or on-demand) for some seconds and ended succeeded,
preempted, failed or cancelled. The accounting sums GPU-hours and prices them from params.
"""

from __future__ import annotations

from dataclasses import dataclass

from ml_assets.core.infra.job_protocol import (
    EVENT_CHECKPOINT,
    EVENT_PREEMPTED,
    EVENT_PROGRESS,
    EVENT_RESUMED,
)
from ml_assets.core.params import GpuParams

# code versions leave this module out: what a job cost, not what it computed
AFFECTS_OUTPUTS = False


@dataclass(frozen=True)
class Placement:
    tier: str
    machine_type: str
    gpu_type: str
    gpu_count: int
    spot: bool

    @property
    def provisioning(self) -> str:
        return "SPOT" if self.spot else "STANDARD"


@dataclass
class Attempt:
    placement: Placement
    seconds: float
    outcome: str  # succeeded | preempted | failed | cancelled
    steps_lost: int = 0


def choose_tier(gpu: GpuParams, requested: str | None, model_params: int) -> str:
    """``auto``: 8 GPUs only where data parallelism pays (above ~500 M parameters), else one A100."""
    tier = requested or gpu.tier
    if tier != "auto":
        return tier
    return "large" if model_params >= gpu.multi_gpu_min_params else "standard"


def placement_for(
    gpu: GpuParams, tier: str, preemptions: int, spot: bool | None = None
) -> Placement:
    """Spot unless disabled, or once ``on_demand_after_preemptions`` preemptions happened."""
    spec = gpu.tiers[tier]
    wants_spot = gpu.spot if spot is None else spot
    return Placement(
        tier=tier,
        machine_type=spec.machine_type,
        gpu_type=spec.gpu_type,
        gpu_count=spec.gpu_count,
        spot=wants_spot and preemptions < gpu.on_demand_after_preemptions,
    )


def estimate_encoder_parameters(config: dict) -> int:
    """Parameters of a transformer encoder from its config.json (embeddings + layers), for
    ``auto``; DistilBERT names the sizes ``dim``, ``n_layers`` and ``hidden_dim``; ELECTRA's
    and ALBERT's embeddings are ``embedding_size`` wide, projected to the hidden size."""
    hidden = config.get("hidden_size", config.get("dim"))
    layers = config.get("num_hidden_layers", config.get("n_layers"))
    layers = config.get("num_hidden_groups", layers)  # ALBERT's layers share one group's weights
    inner = config.get("intermediate_size", config.get("hidden_dim", 4 * hidden))
    width = config.get("embedding_size") or hidden  # ELECTRA's and ALBERT's are narrower
    rows = config["vocab_size"] + config.get("max_position_embeddings", 512)
    embeddings = rows * width + (width * hidden if width != hidden else 0)
    per_layer = 4 * hidden * hidden + 2 * hidden * inner
    return embeddings + layers * per_layer


def accounting(attempts: list[Attempt], gpu: GpuParams) -> dict:
    """Metadata for a materialization: what ran where, what was lost, what it cost."""
    if not attempts:
        raise ValueError("a training job has at least one attempt")
    gpu_hours = spot_cost = on_demand_cost = 0.0
    for attempt in attempts:
        placement = attempt.placement
        hours = attempt.seconds / 3600 * placement.gpu_count
        price = gpu.prices_usd_per_gpu_hour[placement.gpu_type]
        gpu_hours += hours
        spot_cost += hours * (price.spot if placement.spot else price.on_demand)
        on_demand_cost += hours * price.on_demand
    last = attempts[-1].placement
    return {
        "tier": last.tier,
        "machine_type": last.machine_type,
        "gpu_type": last.gpu_type,
        "gpu_count": last.gpu_count,
        "provisioning": last.provisioning,
        "attempts": len(attempts),
        "preemptions": sum(a.outcome == "preempted" for a in attempts),
        "fell_back_to_on_demand": any(a.placement.spot for a in attempts) and not last.spot,
        "steps_lost": sum(a.steps_lost for a in attempts),
        "gpu_hours": round(gpu_hours, 6),
        "estimated_cost_usd": round(spot_cost, 6),
        "on_demand_cost_usd": round(on_demand_cost, 6),
        "spot_savings_usd": round(on_demand_cost - spot_cost, 6),
    }


def steps_lost(reached: int | None, resumed_from: int | None) -> int:
    """Work redone after a preemption: the last step an attempt reported minus where the next
    attempt resumed. A hard kill can hide the last few reports, so this is a lower bound."""
    if reached is None or resumed_from is None:
        return 0
    return max(0, reached - resumed_from)


_STEP_EVENTS = (EVENT_PROGRESS, EVENT_CHECKPOINT, EVENT_PREEMPTED)


def steps_lost_per_resume(messages: list[dict]) -> list[int]:
    """From the job's Pipes messages (in order): for each resume after the first start, the
    steps redone, i.e. the last step the previous attempt reported minus the resumed step."""
    lost, last_step, starts = [], None, 0
    for message in messages:
        event = message.get("event")
        if event == EVENT_RESUMED:
            if starts > 0:
                lost.append(steps_lost(last_step, message["step"]))
            starts += 1
            last_step = message["step"]
        elif event in _STEP_EVENTS:
            last_step = message["step"]
    return lost


def steps_since_checkpoint(messages: list[dict]) -> int:
    """Steps the running attempt would lose if it stopped now (0 after an emergency checkpoint)."""
    last_step = last_checkpoint = None
    for message in messages:
        event = message.get("event")
        if event in _STEP_EVENTS:
            last_step = message["step"]
        if event in (EVENT_CHECKPOINT, EVENT_RESUMED):
            last_checkpoint = message["step"]
    return steps_lost(last_step, last_checkpoint)
