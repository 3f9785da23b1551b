"""Where raw exports come from: a local path, or an S3 / GCS prefix fetched with verified,
resumable downloads. Clients come from dagster-aws ``S3Resource`` (endpoint
``TXN_S3_ENDPOINT_URL`` for S3-compatible stores; credentials from the AWS provider chain) and
dagster-gcp ``GCSResource`` (``TXN_GCP_PROJECT``; Application Default Credentials)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ml_assets.core.infra.io import safe_join
from ml_assets.core.infra.transfer import (
    GCSSource,
    RangeSource,
    RemoteObject,
    S3Source,
    download_verified,
    split_uri,
)
from ml_assets.core.intake.ingest import format_of


def is_remote(path: str) -> bool:
    return path.startswith(("s3://", "gs://"))


def range_source(uri: str) -> tuple[RangeSource, str]:
    scheme, bucket, prefix = split_uri(uri)
    if scheme == "s3":
        from dagster_aws.s3 import S3Resource

        client = S3Resource(endpoint_url=os.environ.get("TXN_S3_ENDPOINT_URL")).get_client()
        return S3Source(client, bucket), prefix
    from dagster_gcp import GCSResource

    client = GCSResource(project=os.environ.get("TXN_GCP_PROJECT")).get_client()
    return GCSSource(client, bucket), prefix


def list_exports(uri: str, fmt: str) -> tuple[RangeSource, list[RemoteObject]]:
    """The readable objects under the prefix (JSONL/CSV/Parquet, optionally .gz), sorted."""
    source, prefix = range_source(uri)
    objects = sorted(
        (o for o in source.list(prefix) if format_of(Path(o.key), fmt, strict=False)),
        key=lambda o: o.key,
    )
    if not objects:
        raise FileNotFoundError(
            f"{uri}: no .jsonl/.csv/.parquet (or .gz) objects under this prefix"
        )
    return source, objects


def relative_key(uri: str, key: str) -> str:
    """An object's name below the configured prefix (what day names are read from)."""
    prefix = split_uri(uri)[2]
    return key[len(prefix) :].lstrip("/") if key.startswith(prefix) else key


def fetch_exports(
    uri: str,
    fmt: str,
    cache: Path,
    names: set[str] | None = None,
    log: Callable[[str], None] = print,
) -> tuple[dict[str, Path], dict]:
    """Download (or resume, or reuse) the exports under ``uri`` (only ``names`` when given)
    into ``cache``, each verified: {name below the prefix: local path}, transfer figures."""
    source, objects = list_exports(uri, fmt)
    scheme, bucket, _ = split_uri(uri)
    files, fetched_bytes, verified = {}, 0, {}
    for obj in objects:
        name = relative_key(uri, obj.key)
        if names is not None and name not in names:
            continue
        dest = safe_join(cache, scheme, bucket, obj.key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        report = download_verified(source, obj, dest)
        fetched_bytes += obj.size
        verified[report.verified_by] = verified.get(report.verified_by, 0) + 1
        log(f"{obj.uri}: {obj.size} bytes, verified by {report.verified_by}")
        files[name] = dest
    return files, {"objects": len(files), "bytes_in": fetched_bytes, "verified_by": verified}


def listing_fingerprint(uri: str, fmt: str) -> dict[str, str]:
    """Object name below the prefix -> size:ETag/generation: a rewritten or new object changes
    the fingerprint of the days it feeds."""
    return {relative_key(uri, o.key): f"{o.size}:{o.identity}" for o in list_exports(uri, fmt)[1]}
