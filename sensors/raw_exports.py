"""A sensor that turns new or rewritten export objects under the S3/GCS prefix of
``raw_transactions.path`` into a pipeline run, once per object version."""

from __future__ import annotations

import hashlib
import json

import dagster as dg

from resources.params import ParamsResource
from resources.raw_sources import is_remote, list_exports
from sensors.schedules import full_pipeline_job


def changed_objects(seen: dict[str, str], current: dict[str, str]) -> list[str]:
    """Keys that are new or whose ETag/generation changed since the cursor."""
    return sorted(key for key, identity in current.items() if seen.get(key) != identity)


@dg.sensor(
    job=full_pipeline_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description=(
        "Watches the S3/GCS prefix in raw_transactions.path; new or rewritten exports request a "
        "pipeline run (memoized: only what the new data affects is recomputed)."
    ),
)
def new_raw_exports(context: dg.SensorEvaluationContext, params: ParamsResource):
    section = params.section("raw_transactions")
    if section["source"] != "files" or not is_remote(section["path"] or ""):
        return dg.SkipReason("raw_transactions.path is not an s3:// or gs:// prefix")
    _, objects = list_exports(section["path"], section["format"])
    current = {o.key: o.identity for o in objects}
    seen = json.loads(context.cursor) if context.cursor else {}
    changed = changed_objects(seen, current)
    if not changed:
        return dg.SensorResult(
            skip_reason=dg.SkipReason("no new exports"), cursor=json.dumps(current)
        )
    # the run key is the set of object versions: a sensor restart never requests them twice
    run_key = hashlib.sha256(
        json.dumps({k: current[k] for k in changed}, sort_keys=True).encode()
    ).hexdigest()[:32]
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                run_key=run_key,
                tags={
                    "raw_exports": ",".join(changed)[:1000],
                    "raw_exports_count": str(len(changed)),
                },
            )
        ],
        cursor=json.dumps(current),
    )
