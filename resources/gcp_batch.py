"""A Dagster Pipes client for Google Cloud Batch: one training job on a (Spot) GPU VM.

dagster-gcp ships no Batch client, so this follows its Dataproc client: the context goes to
GCS (``PipesGCSContextInjector``), messages come back through GCS (``PipesGCSMessageReader``),
the job runs the project's container with the Pipes bootstrap variables in its environment.
One ``run`` is one Batch job; Batch itself retries a preempted task in place (a lifecycle
policy retries only the preemption exit codes). The launcher resource resubmits when Batch
gives up, switching to on-demand after enough preemptions.

``endpoint`` points the real ``google-cloud-batch`` client (REST transport) at another server,
which is how the tests drive it against a local fake of the Batch API.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import dagster as dg
from dagster._core.definitions.resource_annotation import TreatAsResourceParam
from dagster._core.errors import DagsterExecutionInterruptedError

from ml_assets.core.infra.gpu_cost import Placement
from ml_assets.core.infra.job_protocol import (
    GCS_TRANSPORT,
    RETRYABLE_EXIT_CODES,
    TRANSPORT_ENV,
    is_retryable,
)

# code versions leave this module out: where a training job runs, not what it computes
AFFECTS_OUTPUTS = False

TERMINAL_STATES = {"SUCCEEDED", "FAILED", "CANCELLED"}
JOB_ENTRYPOINT = ["python", "-m", "ml_assets.training.job"]  # the image's ENTRYPOINT too


def batch_job_spec(
    *,
    image: str,
    env: Mapping[str, str],
    placement: Placement,
    region: str,
    service_account: str | None,
    task_retries: int,
    labels: Mapping[str, str],
    max_run_hours: float = 24.0,
) -> dict[str, Any]:
    """The Batch ``Job`` (snake_case proto fields) for one training task on one VM.

    Retries are for preemption only: a code bug fails the task at once instead of burning the
    retry budget; multi-GPU tiers start the same entrypoint under torchrun."""
    if placement.gpu_count > 1:
        entrypoint = "torchrun"
        commands = ["--standalone", f"--nproc_per_node={placement.gpu_count}", *JOB_ENTRYPOINT[1:]]
    else:
        entrypoint, commands = JOB_ENTRYPOINT[0], JOB_ENTRYPOINT[1:]
    allocation: dict[str, Any] = {
        "instances": [
            {
                "install_gpu_drivers": True,
                "policy": {
                    "machine_type": placement.machine_type,
                    "provisioning_model": placement.provisioning,
                    "accelerators": [{"type_": placement.gpu_type, "count": placement.gpu_count}],
                },
            }
        ],
        "location": {"allowed_locations": [f"regions/{region}"]},
    }
    if service_account:
        allocation["service_account"] = {"email": service_account}
    return {
        "task_groups": [
            {
                "task_count": 1,
                "task_spec": {
                    "runnables": [
                        {
                            "container": {
                                "image_uri": image,
                                "entrypoint": entrypoint,
                                "commands": commands,
                                "options": "--shm-size=16g",  # DataLoader workers share memory
                            }
                        }
                    ],
                    "environment": {"variables": dict(env)},
                    "max_retry_count": task_retries,
                    "max_run_duration": f"{int(max_run_hours * 3600)}s",
                    "lifecycle_policies": [
                        {
                            "action": "RETRY_TASK",
                            "action_condition": {"exit_codes": list(RETRYABLE_EXIT_CODES)},
                        },
                        {"action": "FAIL_TASK", "action_condition": {"exit_codes": [1, 2]}},
                    ],
                },
            }
        ],
        "allocation_policy": allocation,
        "labels": dict(labels),
        "logs_policy": {"destination": "CLOUD_LOGGING"},
    }


@dataclass
class TaskAttempt:
    seconds: float
    exit_code: int | None  # None: still running or ended without one (cancelled)

    @property
    def preempted(self) -> bool:
        return is_retryable(self.exit_code)


@dataclass
class BatchOutcome:
    job_name: str
    state: str
    attempts: list[TaskAttempt] = field(default_factory=list)
    invocation: dg.PipesClientCompletedInvocation | None = None
    custom_messages: list[dict] = field(default_factory=list)

    @property
    def gave_up_on_preemption(self) -> bool:
        return self.state == "FAILED" and bool(self.attempts) and self.attempts[-1].preempted


def _seconds(stamp) -> float:
    if isinstance(stamp, dt.datetime):
        return stamp.timestamp()
    return float(stamp.seconds) + float(stamp.nanos) / 1e9  # protobuf Timestamp


def attempts_from_events(events: Sequence[Any], now: float | None = None) -> list[TaskAttempt]:
    """Task attempts from a job's status events: RUNNING starts one; an event that carries a
    task exit code (or a terminal task state) ends it."""
    attempts: list[TaskAttempt] = []
    started: float | None = None
    for event in sorted(events, key=lambda e: _seconds(e.event_time)):
        state = event.task_state.name if event.task_state else ""
        at = _seconds(event.event_time)
        has_exit = "task_execution" in event and event.task_execution is not None
        if state == "RUNNING" and started is None:
            started = at
        elif started is not None and (has_exit or state in TERMINAL_STATES):
            code = event.task_execution.exit_code if has_exit else None
            attempts.append(TaskAttempt(seconds=at - started, exit_code=code))
            started = None
    if started is not None:
        attempts.append(TaskAttempt(seconds=(now or time.time()) - started, exit_code=None))
    return attempts


class PipesGcpBatchClient(dg.PipesClient, TreatAsResourceParam):
    """Submit one Batch job running the training entrypoint; stream its Pipes messages."""

    def __init__(
        self,
        *,
        project: str,
        region: str,
        bucket: str,
        prefix: str,
        gcs_client,
        batch_client=None,
        endpoint: str | None = None,
        poll_interval: float = 5.0,
    ):
        self.project = project
        self.region = region
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.gcs_client = gcs_client
        self.batch_client = batch_client or make_batch_client(endpoint)
        self.poll_interval = poll_interval

    def get_default_message_reader(self, task) -> dg.PipesMessageReader:  # noqa: ARG002
        from dagster_gcp.pipes import PipesGCSMessageReader

        return PipesGCSMessageReader(bucket=self.bucket, client=self.gcs_client, interval=1)

    def run(  # type: ignore[override]
        self,
        *,
        context: dg.AssetExecutionContext,
        extras: dict[str, Any],
        job_spec: Callable[[Mapping[str, str]], dict[str, Any]],
        on_preempted: Callable[[TaskAttempt, int, str, list[dict]], None] = lambda *a: None,
    ) -> BatchOutcome:
        """``job_spec(env)`` builds the Job for the session's bootstrap environment;
        ``on_preempted(attempt, count, job_name, messages so far)`` runs once per preemption."""
        from dagster_gcp.pipes import PipesGCSContextInjector, PipesGCSMessageReader
        from google.cloud import batch_v1

        injector = PipesGCSContextInjector(
            bucket=self.bucket, client=self.gcs_client, key_prefix=f"{self.prefix}/pipes/context-"
        )
        reader = PipesGCSMessageReader(bucket=self.bucket, client=self.gcs_client, interval=1)
        parent = f"projects/{self.project}/locations/{self.region}"
        with dg.open_pipes_session(
            context=context, context_injector=injector, message_reader=reader, extras=extras
        ) as session:
            env = {**session.get_bootstrap_env_vars(), TRANSPORT_ENV: GCS_TRANSPORT}
            job = batch_v1.Job(job_spec(env))
            job_id = f"txn-{context.run.run_id[:8]}-{int(time.time() * 1000) % 10**10}"
            created = self.batch_client.create_job(parent=parent, job=job, job_id=job_id)
            context.log.info(f"submitted Cloud Batch job {created.name}")
            outcome = BatchOutcome(job_name=created.name, state="QUEUED")
            seen_preemptions = 0
            try:
                while True:
                    current = self.batch_client.get_job(name=created.name)
                    outcome.state = current.status.state.name
                    outcome.attempts = attempts_from_events(current.status.status_events)
                    done = [a for a in outcome.attempts if a.preempted]
                    if len(done) > seen_preemptions:
                        time.sleep(2)  # the reader polls every second: let the last messages in
                    for attempt in done[seen_preemptions:]:
                        seen_preemptions += 1
                        context.log.warning(
                            f"{created.name}: task preempted (exit {attempt.exit_code}) after "
                            f"{attempt.seconds:.0f} s; Batch retries it from the last checkpoint"
                        )
                        on_preempted(
                            attempt,
                            seen_preemptions,
                            created.name,
                            list(session.get_custom_messages()),
                        )
                    if outcome.state in TERMINAL_STATES:
                        break
                    time.sleep(self.poll_interval)
            except DagsterExecutionInterruptedError:
                context.log.warning(f"run terminated: cancelling Cloud Batch job {created.name}")
                self.batch_client.cancel_job(name=created.name)
                raise
            context.log.info(f"Cloud Batch job {created.name} ended {outcome.state}")
        outcome.invocation = dg.PipesClientCompletedInvocation(
            session, metadata={"batch_job": created.name}
        )
        outcome.custom_messages = list(session.get_custom_messages())
        return outcome


def make_batch_client(endpoint: str | None = None):
    """The real client; with ``endpoint`` (e.g. http://127.0.0.1:PORT) REST and no credentials."""
    from google.cloud import batch_v1

    if endpoint is None:
        return batch_v1.BatchServiceClient()
    from google.api_core.client_options import ClientOptions
    from google.auth.credentials import AnonymousCredentials

    return batch_v1.BatchServiceClient(
        transport="rest",
        client_options=ClientOptions(api_endpoint=endpoint),
        credentials=AnonymousCredentials(),
    )
