"""A local fake of the Cloud Batch v1 REST API that the real ``google-cloud-batch`` client
talks to (REST transport, ``api_endpoint=http://127.0.0.1:PORT``, anonymous credentials).

It runs each task's container command as a local subprocess (``python``/``torchrun``
entrypoints map to this interpreter) with the job's environment plus the variables Batch sets
(BATCH_TASK_INDEX, BATCH_TASK_RETRY_ATTEMPT, BATCH_JOB_ID), and reports job and task states
and status events the way Batch does. Preemption is injected like GCE does it: SIGTERM, a
grace period, SIGKILL, and the task fails with Batch's reserved exit code 50001; the task is
then retried if its lifecycle policies and ``maxRetryCount`` allow it. Cancel kills the task.

Covered: jobs.create / get / cancel / delete. Not covered: list, tasks.get, real VMs.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PREEMPTED_EXIT = 50001
_JOB_PATH = re.compile(r"^/v1/projects/([^/]+)/locations/([^/]+)/jobs(?:/([^/:?]+))?(:cancel)?$")
_STEP_LINE = re.compile(r"^step (\d+) ")
# proto enum numbers (the REST client sends enums as integers)
_ACTIONS = {0: "ACTION_UNSPECIFIED", 1: "RETRY_TASK", 2: "FAIL_TASK"}


@dataclass
class Preemption:
    at_step: int  # preempt once the task prints "step N ..." with N >= at_step
    grace_seconds: float = 5.0  # GCE gives Spot VMs ~30 s; 0 = hard stop, no emergency checkpoint


@dataclass
class FakeJob:
    name: str
    spec: dict
    state: str = "QUEUED"
    events: list[dict] = field(default_factory=list)
    attempts: int = 0
    process: subprocess.Popen | None = None
    cancelled: bool = False
    logs: list[str] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            **self.spec,
            "name": self.name,
            "uid": self.name.rsplit("/", 1)[-1] + "-uid",
            "status": {"state": self.state, "statusEvents": list(self.events)},
        }


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z")


class FakeBatch:
    """Start with ``with FakeBatch(cwd=...) as batch:``; ``batch.url`` is the api endpoint."""

    def __init__(self, cwd: str, extra_env: dict[str, str] | None = None):
        self.cwd = cwd
        self.extra_env = extra_env or {}
        self.jobs: dict[str, FakeJob] = {}
        self.preemptions: dict[int, Preemption] = {}  # global attempt number -> preemption
        self.cancel_requests: list[str] = []
        self._attempt_counter = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeBatch:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        for job in self.jobs.values():
            if job.process and job.process.poll() is None:
                job.process.kill()
        self._server.shutdown()
        self._server.server_close()

    # --- HTTP ---------------------------------------------------------------------------------
    def _handler(self):
        batch = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _reply(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _match(self):
                path = self.path.split("?", 1)[0]
                return _JOB_PATH.match(path)

            def do_POST(self):  # noqa: N802
                match = self._match()
                if not match:
                    return self._reply(404, {"error": {"code": 404, "message": self.path}})
                body = json.loads(
                    self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}"
                )
                project, location, job_id, cancel = match.groups()
                if cancel:
                    name = f"projects/{project}/locations/{location}/jobs/{job_id}"
                    return self._reply(200, batch.cancel(name))
                query = dict(
                    part.split("=", 1)
                    for part in self.path.partition("?")[2].split("&")
                    if "=" in part
                )
                job_id = query.get("jobId") or query.get("job_id") or uuid.uuid4().hex[:12]
                name = f"projects/{project}/locations/{location}/jobs/{job_id}"
                return self._reply(200, batch.create(name, body))

            def do_GET(self):  # noqa: N802
                match = self._match()
                name = match and f"projects/{match[1]}/locations/{match[2]}/jobs/{match[3]}"
                if not match or name not in batch.jobs:
                    return self._reply(
                        404,
                        {
                            "error": {
                                "code": 404,
                                "message": f"{self.path} not found",
                                "status": "NOT_FOUND",
                            }
                        },
                    )
                with batch._lock:
                    return self._reply(200, batch.jobs[name].to_json())

            def do_DELETE(self):  # noqa: N802
                match = self._match()
                name = match and f"projects/{match[1]}/locations/{match[2]}/jobs/{match[3]}"
                if not match or name not in batch.jobs:
                    return self._reply(404, {"error": {"code": 404, "message": "not found"}})
                return self._reply(200, batch.cancel(name))

        return Handler

    # --- jobs ---------------------------------------------------------------------------------
    def create(self, name: str, spec: dict) -> dict:
        job = FakeJob(name=name, spec=spec)
        with self._lock:
            self.jobs[name] = job
            self._event(job, "QUEUED", "Job state is set from QUEUED to SCHEDULED")
            job.state = "SCHEDULED"
        threading.Thread(target=self._run_job, args=(job,), daemon=True).start()
        with self._lock:
            return job.to_json()

    def cancel(self, name: str) -> dict:
        self.cancel_requests.append(name)
        job = self.jobs[name]
        with self._lock:
            job.cancelled = True
            if job.state not in ("SUCCEEDED", "FAILED", "CANCELLED"):
                job.state = "CANCELLATION_IN_PROGRESS"
        if job.process and job.process.poll() is None:  # the VM goes away: SIGTERM, then SIGKILL
            threading.Thread(
                target=self._preempt, args=(job.process, Preemption(0, 10.0)), daemon=True
            ).start()
        return {"name": f"{name}/operations/cancel-{uuid.uuid4().hex[:8]}", "done": False}

    def _event(
        self, job: FakeJob, task_state: str | None, description: str, exit_code: int | None = None
    ) -> None:
        event = {"type": "STATUS_CHANGED", "description": description, "eventTime": _now()}
        if task_state:
            event["taskState"] = task_state
        if exit_code is not None:
            event["taskExecution"] = {"exitCode": exit_code}
        job.events.append(event)

    def _task_spec(self, job: FakeJob) -> dict:
        return job.spec["taskGroups"][0]["taskSpec"]

    def _command(self, job: FakeJob) -> list[str]:
        container = self._task_spec(job)["runnables"][0]["container"]
        entry = container.get("entrypoint") or "python"
        base = {
            "python": [sys.executable],
            "torchrun": [sys.executable, "-m", "torch.distributed.run"],
        }
        if entry not in base:
            raise ValueError(f"fake Batch cannot run entrypoint {entry!r}")
        return base[entry] + list(container.get("commands", []))

    def _retry_allowed(self, job: FakeJob, exit_code: int) -> bool:
        spec = self._task_spec(job)
        for policy in spec.get("lifecyclePolicies", []):
            action = policy.get("action")
            action = _ACTIONS.get(action, action)
            if exit_code in policy.get("actionCondition", {}).get("exitCodes", []):
                if action == "FAIL_TASK":
                    return False
                if action == "RETRY_TASK":
                    break
        return job.attempts <= int(spec.get("maxRetryCount", 0))

    def _run_job(self, job: FakeJob) -> None:
        spec = self._task_spec(job)
        variables = spec.get("environment", {}).get("variables", {})
        while True:
            if job.cancelled:
                break
            with self._lock:
                attempt = self._attempt_counter
                self._attempt_counter += 1
                env = {
                    **os.environ,
                    **self.extra_env,
                    **variables,
                    "BATCH_TASK_INDEX": "0",
                    "BATCH_TASK_RETRY_ATTEMPT": str(job.attempts),
                    "BATCH_JOB_ID": job.name.rsplit("/", 1)[-1],
                }
                job.attempts += 1
                job.state = "RUNNING"
                self._event(job, "RUNNING", "Task state is updated from ASSIGNED to RUNNING")
            code = self._run_attempt(job, env, self.preemptions.get(attempt))
            job.exit_codes.append(code)
            if code == 0:
                with self._lock:
                    self._event(
                        job, "SUCCEEDED", "Task state is updated from RUNNING to SUCCEEDED", 0
                    )
                    job.state = "SUCCEEDED"
                return
            with self._lock:
                why = " due to Spot VM preemption" if code == PREEMPTED_EXIT else ""
                self._event(
                    job,
                    "FAILED",
                    f"Task state is updated from RUNNING to FAILED{why} with exit code {code}",
                    code,
                )
            if job.cancelled or not self._retry_allowed(job, code):
                break
        with self._lock:
            job.state = "CANCELLED" if job.cancelled else "FAILED"
            self._event(job, None, f"Job state is set from RUNNING to {job.state}")

    def _run_attempt(self, job: FakeJob, env: dict, preemption: Preemption | None) -> int:
        process = subprocess.Popen(
            self._command(job),
            cwd=self.cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # a VM's processes: SIGTERM goes to the whole group
        )
        job.process = process
        preempted = False
        for line in process.stdout:
            job.logs.append(line.rstrip())
            match = _STEP_LINE.match(line)
            if preemption and not preempted and match and int(match.group(1)) >= preemption.at_step:
                preempted = True
                threading.Thread(
                    target=self._preempt, args=(process, preemption), daemon=True
                ).start()
        code = process.wait()
        return PREEMPTED_EXIT if preempted else code

    @staticmethod
    def _preempt(process: subprocess.Popen, preemption: Preemption) -> None:
        """ACPI soft off (SIGTERM to every process of the 'VM'), grace period, hard off."""
        if preemption.grace_seconds > 0:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=preemption.grace_seconds)
                return
            except subprocess.TimeoutExpired:
                pass
        os.killpg(process.pid, signal.SIGKILL)
