"""Where the training steps run: locally (PipesSubprocessClient) or on GCP Spot GPUs (Batch).

Both launchers run the same entrypoint, ``python -m ml_assets.training.job``, under Dagster
Pipes; the asset does not know which one ran it. The GCP path stages inputs in GCS (content-
addressed, uploaded once), submits a Batch job on the chosen tier, resubmits when Batch gives
up on preemptions (on-demand after ``gpu.on_demand_after_preemptions``), downloads and
verifies the output, and accounts for attempts, lost steps, GPU-hours and cost.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import dagster as dg
from pydantic import Field

from ml_assets.core.infra.attempt_ledger import current_job, summarize
from ml_assets.core.infra.gpu_cost import (
    Attempt,
    accounting,
    choose_tier,
    placement_for,
    steps_lost_per_resume,
    steps_since_checkpoint,
)
from ml_assets.core.infra.io import MANIFEST, ArtifactRef
from ml_assets.core.infra.job_protocol import EVENT_PREEMPTED, JobRequest
from ml_assets.core.params import GpuParams

# code versions leave this module out: where a training job runs, not what it computes
AFFECTS_OUTPUTS = False

GPU_EVENT = "gpu_event"  # AssetObservation metadata key the Slack sensor watches


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


class TrainingLauncher(dg.ConfigurableResource):
    """Runs a training stage as an external Pipes process, locally or as a Cloud Batch job."""

    kind: Literal["local", "gcp_batch"] = Field(
        default_factory=lambda: _env("TXN_LAUNCHER", "local"),
        description="local (CPU or local GPU) or gcp_batch (TXN_LAUNCHER).",
    )
    local_processes: int = Field(
        default_factory=lambda: int(_env("TXN_LOCAL_PROCESSES", "1")),
        description="> 1: run the local job under torchrun --nproc_per_node=N (DDP).",
    )
    project: str | None = Field(default_factory=lambda: _env("TXN_GCP_PROJECT"))
    region: str = Field(default_factory=lambda: _env("TXN_GCP_REGION", "us-central1"))
    bucket: str | None = Field(
        default_factory=lambda: _env("TXN_GCP_BUCKET"),
        description="GCS bucket for Pipes context/messages, staged inputs, outputs, checkpoints.",
    )
    prefix: str = Field(default_factory=lambda: _env("TXN_GCP_PREFIX", "txn-ml"))
    image: str | None = Field(
        default_factory=lambda: _env("TXN_TRAINING_IMAGE"),
        description="The prod image (Artifact Registry URI) whose entrypoint is the training job.",
    )
    service_account: str | None = Field(default_factory=lambda: _env("TXN_GCP_SERVICE_ACCOUNT"))
    batch_endpoint: str | None = Field(
        default_factory=lambda: _env("TXN_BATCH_ENDPOINT"),
        description="Override the Batch API endpoint (a local fake in tests); unset: Google's.",
    )
    poll_interval_seconds: float = Field(
        default_factory=lambda: float(_env("TXN_BATCH_POLL_SECONDS", "10"))
    )

    def train(
        self,
        context: dg.AssetExecutionContext,
        *,
        stage: str,
        trainer: str,
        entrypoint: str,
        settings: dict[str, Any],
        inputs: dict[str, ArtifactRef],
        output: Path,
        checkpoints: Path,
        fingerprint: str,
        gpu: GpuParams,
        tier: str | None = None,
        spot: bool | None = None,
        model_params: int = 0,
    ) -> dict[str, Any]:
        """Run ``stage`` with ``trainer`` (its record's) so that ``output`` holds its artifact;
        return metadata (incl. cost)."""
        request = {"stage": stage, "trainer": trainer, "settings": settings}
        if self.kind == "local":
            return self._train_local(context, request, entrypoint, inputs, output, checkpoints, gpu)
        return self._train_gcp(
            context, request, inputs, output, fingerprint, gpu, tier, spot, model_params
        )

    # --- local --------------------------------------------------------------------------------
    def _train_local(self, context, request, entrypoint, inputs, output, checkpoints, gpu) -> dict:
        extras = JobRequest(
            **request,
            inputs={name: str(ref.dir) for name, ref in inputs.items()},
            output=str(output),
            checkpoints=str(checkpoints),
            checkpoint_seconds=gpu.checkpoint_minutes * 60,
        ).to_extras()
        command = [sys.executable, "-m", entrypoint]
        if self.local_processes > 1:
            command = [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                f"--nproc_per_node={self.local_processes}",
                "-m",
                entrypoint,
            ]
        started = time.monotonic()
        invocation = dg.PipesSubprocessClient().run(context=context, command=command, extras=extras)
        seconds = time.monotonic() - started
        metadata = reported_metadata(invocation)
        device = str(metadata.get("device", "cpu"))
        gpus = max(1, self.local_processes) if device.startswith("cuda") else 0
        # the job's own records beside the checkpoints: earlier attempts of this fingerprint
        # killed with their Dagster run (kill -9, a crash) count, and so do the steps they lost
        attempts = summarize(current_job(Path(checkpoints)))
        return {
            **metadata,
            "launcher": "local",
            "tier": "local",
            "gpu_type": device,
            "gpu_count": gpus,
            "provisioning": "local",
            **attempts,
            "gpu_hours": round(seconds / 3600 * gpus, 6),
            "estimated_cost_usd": 0.0,  # own hardware: not priced
            "cost_basis": "local machine (unpriced)",
        }

    # --- GCP Batch ----------------------------------------------------------------------------
    def _gcs(self):
        from dagster_gcp import GCSResource

        return GCSResource(project=self.project).get_client()

    def _check_gcp_settings(self) -> None:
        missing = [
            env
            for env, value in (
                ("TXN_GCP_PROJECT", self.project),
                ("TXN_GCP_BUCKET", self.bucket),
                ("TXN_TRAINING_IMAGE", self.image),
            )
            if not value
        ]
        if missing:
            raise dg.Failure(
                f"launcher gcp_batch needs {', '.join(missing)} (see docs/guides/gpus-on-gcp.md)"
            )

    def _stage_inputs(self, gcs, inputs: dict[str, ArtifactRef]) -> dict[str, str]:
        """Content-addressed by digest: an input already in the bucket is not uploaded again."""
        from ml_assets.core.infra.gcs_folders import upload_folder

        uris = {}
        for name, ref in inputs.items():
            uri = f"gs://{self.bucket}/{self.prefix}/inputs/{ref.asset}/{ref.digest}"
            if (
                not gcs.bucket(self.bucket)
                .blob(f"{self.prefix}/inputs/{ref.asset}/{ref.digest}/{MANIFEST}")
                .exists()
            ):
                upload_folder(gcs, ref.dir, uri)
            uris[name] = uri
        return uris

    def _train_gcp(
        self, context, request, inputs, output, fingerprint, gpu, tier, spot, model_params
    ) -> dict:
        from ml_assets.core.infra.gcs_folders import download_folder
        from resources.gcp_batch import PipesGcpBatchClient

        self._check_gcp_settings()
        gcs = self._gcs()
        stage = request["stage"]
        base = f"gs://{self.bucket}/{self.prefix}"
        output_uri = f"{base}/outputs/{stage}/{fingerprint}/{context.run.run_id}"
        extras = JobRequest(
            **request,
            inputs=self._stage_inputs(gcs, inputs),
            output=output_uri,
            checkpoints=f"{base}/checkpoints/{stage}/{fingerprint}",
            checkpoint_seconds=gpu.checkpoint_minutes * 60,
        ).to_extras()
        client = PipesGcpBatchClient(
            project=self.project,
            region=self.region,
            bucket=self.bucket,
            prefix=self.prefix,
            gcs_client=gcs,
            endpoint=self.batch_endpoint,
            poll_interval=self.poll_interval_seconds,
        )
        ledger = Ledger()
        metadata, job_name = self._submit_until_done(
            context, client, extras, stage, gpu, choose_tier(gpu, tier, model_params), spot, ledger
        )
        for attempt, lost in zip(
            (a for a in ledger.attempts if a.outcome == "preempted"),
            steps_lost_per_resume(ledger.messages),
            strict=False,
        ):
            attempt.steps_lost = lost
        with tempfile.TemporaryDirectory(prefix="txn-output-") as scratch:
            local = download_folder(gcs, output_uri, Path(scratch) / "output")
            for item in local.iterdir():
                if item.name != MANIFEST:
                    shutil.move(str(item), output / item.name)
        drills = [
            m["seconds_to_checkpoint"]
            for m in ledger.messages
            if m.get("event") == EVENT_PREEMPTED and m.get("seconds_to_checkpoint") is not None
        ]
        return {
            **metadata,
            "launcher": "gcp_batch",
            "batch_job": job_name,
            **accounting(ledger.attempts, gpu),
            # SIGTERM -> emergency checkpoint committed (GCE allows ~30 s on a Spot VM)
            **({"sigterm_to_checkpoint_seconds_max": round(max(drills), 3)} if drills else {}),
        }

    def _submit_until_done(self, context, client, extras, stage, gpu, tier, spot, ledger):
        """Submit Batch jobs until one succeeds: Batch retries preempted tasks in place; when it
        gives up, resubmit (on-demand after enough preemptions). Any other failure raises."""
        from resources.gcp_batch import batch_job_spec

        outcome = None
        for submission in range(1, gpu.max_submissions + 1):
            placement = placement_for(gpu, tier, ledger.preemptions, spot)
            if ledger.attempts and ledger.attempts[-1].placement.spot and not placement.spot:
                observe(
                    context,
                    stage,
                    "fell_back_to_on_demand",
                    job=outcome.job_name,
                    attempt=len(ledger.attempts) + 1,
                    preemptions=ledger.preemptions,
                    steps_lost=0,
                )
            context.log.info(
                f"submission {submission}/{gpu.max_submissions}: {placement.tier} tier, "
                f"{placement.gpu_count}x {placement.gpu_type} ({placement.provisioning})"
            )

            def on_preempted(task_attempt, count, job_name, live_messages, placement=placement):
                observe(
                    context,
                    stage,
                    "preempted",
                    job=job_name,
                    attempt=len(ledger.attempts) + count,
                    steps_lost=steps_since_checkpoint(ledger.messages + list(live_messages)),
                    provisioning=placement.provisioning,
                )

            outcome = client.run(
                context=context,
                extras=extras,
                job_spec=lambda env, placement=placement: batch_job_spec(
                    image=self.image,
                    env=env,
                    placement=placement,
                    region=self.region,
                    service_account=self.service_account,
                    task_retries=gpu.batch_task_retries,
                    labels={
                        "dagster-run": context.run.run_id[:63],
                        "asset": stage.replace("_", "-"),
                    },
                ),
                on_preempted=on_preempted,
            )
            ledger.record(outcome, placement)
            if outcome.state == "SUCCEEDED":
                return reported_metadata(outcome.invocation), outcome.job_name
            if not outcome.gave_up_on_preemption:
                codes = [task.exit_code for task in outcome.attempts]
                raise dg.Failure(
                    f"Cloud Batch job {outcome.job_name} ended {outcome.state} (task exit codes "
                    f"{codes}); its logs are in Cloud Logging under that job name",
                    metadata={"batch_job": outcome.job_name},
                )
            context.log.warning(
                f"Batch gave up on {outcome.job_name} after preemptions; resubmitting"
            )
        raise dg.Failure(
            f"{stage}: still preempted after {gpu.max_submissions} Batch jobs; raise "
            "gpu.max_submissions or lower gpu.on_demand_after_preemptions"
        )


class Ledger:
    """Every task attempt of every submitted job, and the job's Pipes messages, in order."""

    def __init__(self) -> None:
        self.attempts: list[Attempt] = []
        self.messages: list[dict] = []

    @property
    def preemptions(self) -> int:
        return sum(a.outcome == "preempted" for a in self.attempts)

    def record(self, outcome, placement) -> None:
        self.messages.extend(outcome.custom_messages)
        for task in outcome.attempts:
            kind = "succeeded" if task.exit_code == 0 else "failed"
            kind = "preempted" if task.preempted else kind
            self.attempts.append(Attempt(placement=placement, seconds=task.seconds, outcome=kind))


def observe(context: dg.AssetExecutionContext, asset: str, event: str, **fields) -> None:
    """Record a GPU job event in the run's event log (the Slack sensor turns it into a message)."""
    context.log_event(
        dg.AssetObservation(
            asset_key=asset, metadata={GPU_EVENT: event, "run_id": context.run.run_id, **fields}
        )
    )


def reported_metadata(invocation: dg.PipesClientCompletedInvocation) -> dict[str, Any]:
    """The metadata the process reported with its materialization, as plain values."""
    results = [r for r in invocation.get_results() if isinstance(r, dg.MaterializeResult)]
    if not results:
        raise dg.Failure("the training job exited without reporting a materialization")
    return {
        key: getattr(value, "value", value) for key, value in (results[-1].metadata or {}).items()
    }
