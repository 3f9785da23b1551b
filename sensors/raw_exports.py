"""A sensor that turns new or rewritten export objects under the S3/GCS prefix of
``raw_transactions.path`` into runs for the days they feed, once per object version."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import dagster as dg

from ml_assets.core.intake.raw_days import export_days, export_homes
from ml_assets.core.params import RawTransactionsParams
from ml_assets.wiring.daily import daily_partitions, range_tags
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource
from resources.raw_sources import fetch_exports, is_remote, list_exports, relative_key
from sensors.schedules import daily_ingest_job


def changed_objects(seen: dict[str, str], current: dict[str, str]) -> list[str]:
    """Keys that are new or whose ETag/generation changed since the cursor."""
    return sorted(key for key, identity in current.items() if seen.get(key) != identity)


def contiguous_ranges(days: list[str]) -> list[tuple[str, str]]:
    """[d1, d2, d3, d7] -> [(d1, d3), (d7, d7)]: one run per unbroken range of days."""
    ranges: list[tuple[str, str]] = []
    for day in sorted(set(days)):
        previous = (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()
        if ranges and ranges[-1][1] == previous:
            ranges[-1] = (ranges[-1][0], day)
        else:
            ranges.append((day, day))
    return ranges


def days_of(uri: str, names: list[str], settings: RawTransactionsParams, store: ArtifactStore):
    """name -> the days an export feeds: the day in its name, or (undated, or day_from:
    posted_date) the posted dates of its rows, read from a verified download into the store's cache (the run reuses it)."""
    homes = export_homes(settings, dict.fromkeys(names, ""), None)  # by name, as the run does
    days = {name: [d] for name in names if (d := homes[name]) is not None}
    undated = [n for n in names if n not in days]
    if undated:
        files, _ = fetch_exports(
            uri, settings.format, store.root_path / "_downloads", set(undated), lambda _: None
        )
        for name, path in files.items():
            days[name] = export_days({name: path}, settings, {name: None})
    return days


@dg.sensor(
    job=daily_ingest_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description=(
        "Watches the S3/GCS prefix in raw_transactions.path; a new or rewritten export requests "
        "a run of raw_transactions + transaction_features for exactly the days it feeds (the day "
        "in its name, or its rows' posted dates), once per object version."
    ),
)
def new_raw_exports(
    context: dg.SensorEvaluationContext, params: ParamsResource, artifact_store: ArtifactStore
):
    settings = params.get(RawTransactionsParams)
    if settings.source != "files" or not is_remote(settings.path or ""):
        return dg.SkipReason("raw_transactions.path is not an s3:// or gs:// prefix")
    uri = settings.path
    _, objects = list_exports(uri, settings.format)
    current = {relative_key(uri, o.key): o.identity for o in objects}
    seen = json.loads(context.cursor) if context.cursor else {}
    changed = changed_objects(seen, current)
    if not changed:
        return dg.SensorResult(skip_reason=dg.SkipReason("no new exports"), cursor=context.cursor)
    existing = set(daily_partitions(params.load().partitions.start_date).get_partition_keys())
    days_by_name = days_of(uri, changed, settings, artifact_store)
    # an export for a day that is not a partition yet (today) waits: it stays out of the cursor
    ready = [n for n in changed if all(d in existing for d in days_by_name[n])]
    waiting = sorted(set(changed) - set(ready))
    if waiting:
        context.log.info(f"waiting for their day to become a partition: {waiting}")
    cursor = {**seen, **{n: current[n] for n in ready}}
    days = sorted({d for n in ready for d in days_by_name[n]})
    # the run key names the object versions: a sensor restart never requests them twice
    versions = hashlib.sha256(
        json.dumps({n: current[n] for n in ready}, sort_keys=True).encode()
    ).hexdigest()[:16]
    requests = []
    for first, last in contiguous_ranges(days):
        feeding = [n for n in ready if any(first <= d <= last for d in days_by_name[n])]
        tags = {"raw_exports": ",".join(feeding)[:1000], "raw_exports_count": str(len(feeding))}
        if first == last:
            requests.append(
                dg.RunRequest(run_key=f"{first}:{versions}", partition_key=first, tags=tags)
            )
        else:
            requests.append(
                dg.RunRequest(
                    run_key=f"{first}...{last}:{versions}", tags={**tags, **range_tags(first, last)}
                )
            )
    if not requests:
        return dg.SensorResult(
            skip_reason=dg.SkipReason(f"{len(waiting)} export(s) wait for their day"),
            cursor=json.dumps(cursor),
        )
    return dg.SensorResult(run_requests=requests, cursor=json.dumps(cursor))
