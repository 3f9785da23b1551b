"""The training entrypoint: ``python -m ml_assets.training.job`` (the container's entrypoint).

It runs as an external process under Dagster Pipes, started by the launcher resource
(``resources/launchers.py``): locally by ``PipesSubprocessClient``, on GCP by the Cloud Batch
Pipes client, optionally under ``torchrun --nproc_per_node=K``. Only ``dagster-pipes`` is
imported here, never dagster. Everything the job needs arrives in the Pipes extras, a
``core.job_protocol.JobRequest`` (stage, its trainer, settings, input / output / checkpoint folders
or gs:// URIs); the exit codes and reported events are defined there too.

Preemption: SIGTERM (and SIGINT, which Dagster sends on run termination) sets a flag; the loop
writes an emergency checkpoint and the process exits with EXIT_PREEMPTED. Under torchrun every
rank trains; only rank 0 talks to Pipes, moves files and writes checkpoints.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from dagster_pipes import (
    PipesContext,
    PipesDefaultContextLoader,
    PipesDefaultMessageWriter,
    PipesEnvVarParamsLoader,
    PipesGCSContextLoader,
    PipesGCSMessageWriter,
    PipesGCSMessageWriterChannel,
    open_dagster_pipes,
)

from ml_assets.core.infra.attempt_ledger import FAILED, FINISHED
from ml_assets.core.infra.job_protocol import (
    EVENT_CHECKPOINT,
    EVENT_PREEMPTED,
    EVENT_PROGRESS,
    EVENT_RESUMED,
    EVENT_STARTED,
    EXIT_PREEMPTED,
    GCS_TRANSPORT,
    TRANSPORT_ENV,
    JobRequest,
)
from ml_assets.training.preemption import Preempted, PreemptionGuard

PROGRESS_EVERY_SECONDS = 0.5


class ResumingGCSMessageWriter(PipesGCSMessageWriter):
    """Messages through GCS across Batch's in-place retries, which rerun the task with the same
    environment and so the same message prefix. Two rules keep one Pipes session alive over
    all attempts: an attempt continues the chunk numbering after the chunks already there
    (the reader reads 1, 2, 3, ...), and a preempted attempt does not send ``closed`` (the
    reader stops at the first one)."""

    def __init__(self, client, *, interval: float = 10):
        super().__init__(client, interval=interval)
        self.attempt_continues = False  # set on preemption: another attempt will follow

    def make_channel(self, params):
        writer = self

        class Channel(PipesGCSMessageWriterChannel):
            def write_message(self, message) -> None:
                if message.get("method") == "closed" and writer.attempt_continues:
                    return
                super().write_message(message)

        prefix = params.get("key_prefix")
        channel = Channel(self._client, params["bucket"], prefix, interval=self.interval)
        names = self._client.list_blobs(params["bucket"], prefix=f"{prefix}/" if prefix else None)
        indices = [int(Path(b.name).stem) for b in names if Path(b.name).stem.isdigit()]
        channel._counter = max(indices, default=0) + 1
        return channel


def _gcs_client():
    from google.cloud import storage

    if os.environ.get("STORAGE_EMULATOR_HOST"):  # a local emulator takes no credentials
        from google.auth.credentials import AnonymousCredentials

        return storage.Client(project="local", credentials=AnonymousCredentials())
    return storage.Client()


def _loaders():
    if os.environ.get(TRANSPORT_ENV) == GCS_TRANSPORT:
        client = _gcs_client()
        return PipesGCSContextLoader(client), ResumingGCSMessageWriter(client, interval=0)
    return PipesDefaultContextLoader(), PipesDefaultMessageWriter()


@contextlib.contextmanager
def _pipes_for_rank(rank: int):
    """Rank 0 opens Pipes; other ranks only read the context (for the extras)."""
    context_loader, message_writer = _loaders()
    if rank == 0:
        with open_dagster_pipes(
            context_loader=context_loader, message_writer=message_writer
        ) as pipes:
            yield pipes, JobRequest.from_extras(pipes.extras), message_writer
        return
    params = PipesEnvVarParamsLoader().load_context_params()
    with context_loader.load_context(params) as data:
        yield None, JobRequest.from_extras(data.get("extras") or {}), None


class Reporter:
    """Log lines and structured progress to the Dagster run (rank 0), stdout otherwise; with a
    ``ledger`` record (local checkpoints), the same steps are written beside the checkpoints,
    where they survive a kill of everything that watches this process."""

    def __init__(self, pipes: PipesContext | None, attempt: int, ledger: Path | None = None):
        self.pipes = pipes
        self.attempt = attempt
        self.ledger = ledger
        self._last_progress = 0.0

    def log(self, message: str) -> None:
        print(message, flush=True)  # also in the VM's logs (Cloud Logging) and the fake's output
        if self.pipes is not None:
            self.pipes.log.info(message)

    def event(self, event: str, **fields) -> None:
        if self.pipes is not None:
            self.pipes.report_custom_message({"event": event, "attempt": self.attempt, **fields})
        if self.ledger is not None and "step" in fields:
            from ml_assets.core.infra.attempt_ledger import PREEMPTED, update_attempt

            record = {"last_step": fields["step"]}
            if event == EVENT_RESUMED:
                record["resumed_from"] = fields["step"]
            elif event == EVENT_CHECKPOINT:
                record["last_checkpoint"] = fields["step"]
            elif event == EVENT_PREEMPTED:
                record["outcome"] = PREEMPTED
            update_attempt(self.ledger, **record)

    def ended(self, outcome: str) -> None:
        if self.ledger is not None:
            from ml_assets.core.infra.attempt_ledger import update_attempt

            update_attempt(self.ledger, outcome=outcome)

    def progress(self, step: int, loss: float) -> None:
        print(f"step {step} loss {loss:.4f}", flush=True)
        now = time.monotonic()
        if now - self._last_progress >= PROGRESS_EVERY_SECONDS:
            self._last_progress = now
            self.event(EVENT_PROGRESS, step=step, loss=round(loss, 5))


def _barrier(world: int) -> None:
    if world > 1:
        import torch.distributed as dist

        dist.barrier()


def _init_distributed() -> tuple[int, int]:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return 0, 1
    import torch
    import torch.distributed as dist

    if torch.cuda.is_available():
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        dist.init_process_group("nccl")
    else:
        dist.init_process_group("gloo")
    return dist.get_rank(), world


def _stage_inputs(
    spec: JobRequest, scratch: Path, rank: int, world: int, client
) -> dict[str, Path]:
    from ml_assets.core.infra.gcs_folders import download_folder, is_remote

    inputs = {}
    for name, location in spec.inputs.items():
        if is_remote(location):
            inputs[name] = scratch / "inputs" / name
            if rank == 0:
                download_folder(client, location, inputs[name])
        else:
            inputs[name] = Path(location)
    _barrier(world)
    return inputs


def run(
    spec: JobRequest, reporter: Reporter, rank: int, world: int, guard: PreemptionGuard
) -> dict:
    """Stage inputs, train with checkpoints mirrored where they must survive, commit the output."""
    from ml_assets.core.infra.gcs_folders import is_remote

    remote = any(is_remote(loc) for loc in [spec.output, *spec.inputs.values()])
    client = _gcs_client() if remote else None
    # one scratch folder per job attempt, shared by its torchrun ranks
    shared = os.environ.get("TORCHELASTIC_RUN_ID") or str(os.getpid())
    scratch = Path(spec.scratch or tempfile.gettempdir()) / f"txn-train-{shared}"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        return _run_in(scratch, spec, reporter, rank, world, guard, client)
    finally:
        if rank == 0:  # input copies and local checkpoint copies; the durable ones are in GCS
            shutil.rmtree(scratch, ignore_errors=True)


def _run_in(scratch, spec, reporter, rank, world, guard, client) -> dict:
    from ml_assets.core.infra.gcs_folders import (
        is_remote,
        mirror_checkpoint,
        restore_checkpoints,
        upload_folder,
    )
    from ml_assets.core.infra.io import staged_directory
    from ml_assets.training.preemption import TrainingHooks
    from ml_assets.training.trainers import TrainingJob

    trainer = _trainer(spec)
    settings = trainer.settings.model_validate(spec.settings)  # the one validation
    inputs = _stage_inputs(spec, scratch, rank, world, client)
    checkpoints, checkpoint_uri = Path(spec.checkpoints), None
    if is_remote(spec.checkpoints):
        checkpoint_uri, checkpoints = spec.checkpoints, scratch / "checkpoints"
        if rank == 0:
            restored = restore_checkpoints(client, checkpoint_uri, checkpoints, warn=reporter.log)
            reporter.log(
                f"remote checkpoints: resuming from step {restored}"
                if restored
                else "remote checkpoints: none, starting fresh"
            )
        _barrier(world)

    if world > 1 and trainer.single_process and rank != 0:
        reporter.log(f"rank {rank}: {spec.stage} trains on rank 0 only; nothing to do here")
        return {}

    def on_checkpoint(path: Path, step: int) -> None:
        if checkpoint_uri is not None:
            mirror_checkpoint(client, path, checkpoint_uri)
        reporter.event(EVENT_CHECKPOINT, step=step)

    hooks = TrainingHooks(
        should_stop=guard,
        on_checkpoint=on_checkpoint,
        on_step=reporter.progress,
        on_resume=lambda step: reporter.event(EVENT_RESUMED, step=step),
        checkpoint_seconds=spec.checkpoint_seconds,
    )
    output_remote = is_remote(spec.output)
    folder = scratch / "output" if output_remote else Path(spec.output)
    with contextlib.ExitStack() as stack:
        if output_remote and rank == 0:
            folder = stack.enter_context(staged_directory(scratch / "output"))
        metadata = trainer.train(
            TrainingJob(
                inputs=inputs,
                settings=settings,
                folder=folder,
                checkpoint_root=checkpoints,
                log=reporter.log,
                hooks=hooks,
            )
        )
    if output_remote and rank == 0:
        upload_folder(client, scratch / "output", spec.output)
    return metadata


def _trainer(spec: JobRequest):
    """The request's trainer, once its inputs are the roles it reads."""
    from ml_assets.training.trainers import resolve_trainer

    trainer = resolve_trainer(spec.trainer)
    if sorted(spec.inputs) != sorted(trainer.inputs):
        raise ValueError(
            f"training stage {spec.stage}: inputs {sorted(spec.inputs)}, but {spec.trainer} "
            f"reads {sorted(trainer.inputs)}"
        )
    return trainer


def _ledger_record(spec: JobRequest, rank: int) -> Path | None:
    """This attempt's record beside local checkpoints (rank 0). Remote checkpoints have the
    GCP launcher's own ledger of Batch attempts."""
    from ml_assets.core.infra.attempt_ledger import begin_attempt
    from ml_assets.core.infra.gcs_folders import is_remote

    if rank != 0 or not spec.checkpoints or is_remote(spec.checkpoints):
        return None
    return begin_attempt(Path(spec.checkpoints))


def pipes_metadata(metadata: dict) -> dict:
    """Pipes takes scalars as they are; nested values must say they are JSON."""
    return {
        key: {"raw_value": value, "type": "json"} if isinstance(value, dict | list) else value
        for key, value in metadata.items()
    }


def parse_cli(argv: list[str] | None = None) -> None:
    """No options: everything arrives through the Pipes context. ``--help`` says so."""
    import argparse

    argparse.ArgumentParser(
        prog="python -m ml_assets.training.job",
        description=(
            "Run one training stage (mlm_backbone, multitask_model or baseline_model) as a "
            "Dagster Pipes process. Started by the TrainingLauncher (locally or as a GCP Batch "
            "job); its stage, params, input/output/checkpoint locations arrive in the Pipes "
            "context (DAGSTER_PIPES_CONTEXT / DAGSTER_PIPES_MESSAGES). Exit code 85: preempted "
            "after an emergency checkpoint (retry resumes)."
        ),
    ).parse_args(argv)


def main() -> int:
    parse_cli(sys.argv[1:])
    rank, world = _init_distributed()
    guard = PreemptionGuard().install(signal.SIGTERM, signal.SIGINT)
    attempt = int(os.environ.get("BATCH_TASK_RETRY_ATTEMPT", "0"))
    exit_code = 0
    with _pipes_for_rank(rank) as (pipes, spec, writer):
        reporter = Reporter(pipes, attempt, _ledger_record(spec, rank))
        reporter.event(EVENT_STARTED, world_size=world, host=os.uname().nodename)
        try:
            metadata = run(spec, reporter, rank, world, guard)
        except Preempted as stop:
            reporter.log(
                f"{guard.signal_name or 'stop'} received: checkpoint at step {stop.step} committed; exiting {EXIT_PREEMPTED}"
            )
            # the budget is ~30 s on a Spot VM: how long signal -> committed checkpoint took
            seconds = time.monotonic() - guard.received_at if guard.received_at else None
            reporter.event(
                EVENT_PREEMPTED,
                step=stop.step,
                signal=guard.signal_name,
                seconds_to_checkpoint=seconds,
            )
            if isinstance(writer, ResumingGCSMessageWriter):
                writer.attempt_continues = True  # the next attempt continues this Pipes session
            exit_code = EXIT_PREEMPTED
        except BaseException:
            reporter.ended(FAILED)
            raise
        else:
            reporter.ended(FINISHED)
            if pipes is not None:
                pipes.report_asset_materialization(metadata=pipes_metadata(metadata))
    if world > 1:
        import torch.distributed as dist

        dist.destroy_process_group()
    return exit_code


if __name__ == "__main__":
    sys.exit(main())


def main_exit() -> None:
    """Console script ``txn-train`` (the container's entrypoint)."""
    sys.exit(main())
