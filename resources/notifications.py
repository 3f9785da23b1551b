"""Slack incoming-webhook notifications. The webhook URL is a secret: it comes from the
environment (``SLACK_WEBHOOK_URL`` through Dagster ``EnvVar``) and never appears in logs,
metadata or error messages."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import dagster as dg
from pydantic import Field

# code versions leave this module out: who hears about a run, not what it computes
AFFECTS_OUTPUTS = False


class SlackNotifier(dg.ConfigurableResource):
    webhook_url: str | None = Field(
        default=None, description="Incoming webhook URL; set SLACK_WEBHOOK_URL. Unset: disabled."
    )
    timeout_seconds: float = 5.0

    @property
    def enabled(self) -> bool:
        return bool(self.webhook_url)

    def post(self, text: str, log=None) -> bool:
        """Post ``text``; True if Slack accepted it. Failures are logged without the URL."""
        if not self.webhook_url:
            if log:
                log.info("Slack notification skipped: SLACK_WEBHOOK_URL is not set")
            return False
        request = urllib.request.Request(  # noqa: S310 (the scheme is checked below)
            self.webhook_url,
            data=json.dumps({"text": text}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        if not self.webhook_url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise ValueError("SLACK_WEBHOOK_URL must be an https:// URL")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:  # noqa: S310
                return 200 <= response.status < 300
        except (urllib.error.URLError, TimeoutError) as err:
            reason = getattr(err, "code", None) or type(err).__name__
            if log:
                log.warning(f"Slack notification failed ({reason}); the webhook URL is not logged")
            return False
