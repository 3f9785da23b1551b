"""What the training launcher and the training job agree on, in one place.

The launcher (``resources/launchers.py``, ``resources/gcp_batch.py``) starts
``python -m ml_assets.training.job`` under Dagster Pipes; the job reads its request from the
Pipes extras, reports events and exits with a code the launcher interprets. Both sides import
this module and nothing else of each other: a field renamed here is renamed on both.
Plain Python: no dagster, no torch (it sits in ``core``, below both sides).
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields

# The folders a job reads, by role ({role: a committed entry's folder or gs:// URI}); each
# trainer (ml_assets/training/trainers.py) says which roles it reads
CORPUS_INPUT, TOKENIZER_INPUT, BACKBONE_INPUT = "corpus", "tokenizer", "backbone"

# How the Pipes context and messages travel: "gcs" on Cloud Batch (the VM reaches no Dagster
# process); unset: Pipes' local defaults (a temp file, the subprocess's own pipes).
TRANSPORT_ENV = "TXN_PIPES_TRANSPORT"
GCS_TRANSPORT = "gcs"

EXIT_PREEMPTED = 85  # the job's: "stopped on SIGTERM after a complete checkpoint"
BATCH_PREEMPTED_EXIT = 50001  # Cloud Batch's reserved exit code for a preempted Spot VM
RETRYABLE_EXIT_CODES = (BATCH_PREEMPTED_EXIT, EXIT_PREEMPTED)

# The custom messages the job reports ({"event": ..., "attempt": N, ...}), read by the
# launcher's ledger (preemptions, resumes, steps lost) and the cost report.
EVENT_STARTED = "started"  # world_size, host
EVENT_RESUMED = "resumed"  # step (0 on a fresh start)
EVENT_PROGRESS = "progress"  # step, loss (every PROGRESS_EVERY_SECONDS of the job)
EVENT_CHECKPOINT = "checkpoint"  # step: a checkpoint is committed
EVENT_PREEMPTED = "preempted"  # step, signal, seconds_to_checkpoint


def is_retryable(exit_code: int | None) -> bool:
    """A preemption (ours or Batch's): rerun and resume, never a failure of the code."""
    return exit_code in RETRYABLE_EXIT_CODES


@dataclass(frozen=True)
class JobRequest:
    """One training job, as the Pipes extras carry it.

    ``inputs``, ``output`` and ``checkpoints`` are local folders or ``gs://`` URIs (the job
    stages remote ones through a scratch folder)."""

    stage: str  # the asset being trained (names its logs and folders)
    trainer: str  # "module:NAME" of the Trainer that runs it (ml_assets/training/trainers.py)
    settings: dict  # the JSON of the trainer's settings model, validated by the job
    inputs: dict[str, str]  # role (the trainer's inputs) -> a committed artifact entry
    output: str  # where the artifact is committed
    checkpoints: str  # this fingerprint's checkpoints
    checkpoint_seconds: float | None = None  # also checkpoint after this much time
    scratch: str | None = None  # where remote folders are staged (None: the temp dir)

    def to_extras(self) -> dict:
        return asdict(self)

    @classmethod
    def from_extras(cls, extras: dict) -> JobRequest:
        """The request in ``extras``; a clear error names what is missing or unknown."""
        names = {f.name for f in fields(cls)}
        required = {f.name for f in fields(cls) if f.default is MISSING}
        missing = sorted(required - set(extras))
        if missing:
            raise ValueError(
                f"training job: the Pipes extras lack {missing} (got {sorted(extras)}); start "
                "the job through the TrainingLauncher resource, which sends them"
            )
        return cls(**{k: v for k, v in extras.items() if k in names})
