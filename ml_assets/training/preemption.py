"""Spot preemption, as the training process sees it.

GCE gives a Spot VM about 30 s between the ACPI soft-off (SIGTERM to the container) and the
hard stop. The handler only sets a flag: the loop finishes the step it is in, writes an
emergency checkpoint and the job exits with ``EXIT_PREEMPTED`` (``core/infra/job_protocol.py``),
which the launcher (and a Batch lifecycle policy) treats as "retry", never as a failure.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# code versions leave this module out: how a job survives preemption; a resumed run is bit-identical
AFFECTS_OUTPUTS = False


class Preempted(Exception):  # noqa: N818  (an event, not an error)
    """Raised by a training loop once the emergency checkpoint for ``step`` is committed."""

    def __init__(self, step: int):
        super().__init__(f"preempted: stopped after step {step} with a complete checkpoint")
        self.step = step


class PreemptionGuard:
    """Callable flag: ``guard()`` is True once SIGTERM (or SIGINT if asked) has arrived."""

    def __init__(self) -> None:
        self.requested = False
        self.signal_name: str | None = None
        self.received_at: float | None = None  # time.monotonic() of the first signal

    def install(self, *signals: signal.Signals) -> PreemptionGuard:
        for sig in signals or (signal.SIGTERM,):
            signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame) -> None:  # noqa: ARG002
        if not self.requested:
            self.received_at = time.monotonic()
        self.requested = True
        self.signal_name = signal.Signals(signum).name

    def __call__(self) -> bool:
        return self.requested


@dataclass
class TrainingHooks:
    """How a launcher watches and steers a run; the defaults run to completion silently."""

    should_stop: Callable[[], bool] = lambda: False  # True once SIGTERM arrived (preemption)
    on_checkpoint: Callable[[Path, int], None] = lambda path, step: None  # e.g. mirror to GCS
    on_step: Callable[[int, float], None] = lambda step, loss: None  # progress reporting
    on_resume: Callable[[int], None] = lambda step: None  # the step training starts from
    # after each validation pass, with the weights that were validated (e.g. extra metrics)
    on_evaluated: Callable[[int, object], None] = lambda step, model: None
    checkpoint_seconds: float | None = None  # also checkpoint when this much time passed
