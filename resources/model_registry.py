"""The model registry: every exported model that passed its gates, with its fingerprint, params,
metrics, gate results and artifact URIs.

Backends: SQLite (default, ``artifacts/registry.sqlite``) or DynamoDB (boto3; the table is
created on first use when missing, on-demand billing). With ``s3_uri`` set the model files are
also uploaded to ``<s3_uri>/<model_id>/`` (sha256 checksums, verified by S3) and the record
names those URIs. Credentials come from the AWS provider chain; ``TXN_DYNAMODB_ENDPOINT_URL`` /
``TXN_S3_ENDPOINT_URL`` point at a local server (moto) in tests.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Literal

import dagster as dg
from pydantic import Field

from ml_assets.core.infra.io import canonical_json

SCHEMA = """CREATE TABLE IF NOT EXISTS models (
    model_id TEXT PRIMARY KEY,
    registered_at REAL NOT NULL,
    record TEXT NOT NULL
)"""
ALIAS_SCHEMA = """CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT PRIMARY KEY,
    model_id TEXT NOT NULL REFERENCES models(model_id),
    updated_at REAL NOT NULL
)"""
CHAMPION = "champion"  # the alias of the model that serves: batch_predictions and consumers read it
ALIAS_PREFIX = "@"  # DynamoDB: an alias is an item keyed "@<alias>" beside the model records


class SqliteRegistry:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute(SCHEMA)
            db.execute(ALIAS_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def put(self, record: dict[str, Any]) -> None:
        with self._connect() as db:  # one transaction: the row is there whole or not at all
            db.execute(
                "INSERT OR REPLACE INTO models VALUES (?, ?, ?)",
                (record["model_id"], record["registered_at"], canonical_json(record)),
            )

    def get(self, model_id: str) -> dict[str, Any] | None:
        with self._connect() as db:
            row = db.execute("SELECT record FROM models WHERE model_id = ?", (model_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def list(self) -> list[dict[str, Any]]:
        with self._connect() as db:
            rows = db.execute("SELECT record FROM models ORDER BY registered_at").fetchall()
        return [json.loads(r[0]) for r in rows]

    def set_alias(self, alias: str, model_id: str) -> None:
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO aliases VALUES (?, ?, ?)", (alias, model_id, now()))

    def alias(self, alias: str) -> str | None:
        with self._connect() as db:
            row = db.execute("SELECT model_id FROM aliases WHERE alias = ?", (alias,)).fetchone()
        return row[0] if row else None

    def uri(self) -> str:
        return f"sqlite:///{self.path}"


class DynamoRegistry:
    def __init__(self, client: Any, table: str):
        self.client, self.table = client, table
        self._ensure_table()

    def _ensure_table(self) -> None:
        try:
            self.client.describe_table(TableName=self.table)
            return
        except self.client.exceptions.ResourceNotFoundException:
            pass
        self.client.create_table(
            TableName=self.table,
            KeySchema=[{"AttributeName": "model_id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "model_id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        self.client.get_waiter("table_exists").wait(TableName=self.table)

    def put(self, record: dict[str, Any]) -> None:
        self.client.put_item(
            TableName=self.table,
            Item={
                "model_id": {"S": record["model_id"]},
                "registered_at": {"N": repr(record["registered_at"])},
                "record": {"S": canonical_json(record)},
            },
        )

    def get(self, model_id: str) -> dict[str, Any] | None:
        item = self.client.get_item(
            TableName=self.table, Key={"model_id": {"S": model_id}}, ConsistentRead=True
        ).get("Item")
        return json.loads(item["record"]["S"]) if item else None

    def list(self) -> list[dict[str, Any]]:
        items, kwargs = [], {"TableName": self.table}
        while True:
            page = self.client.scan(**kwargs)
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        records = [
            json.loads(i["record"]["S"])
            for i in items
            if not i["model_id"]["S"].startswith(ALIAS_PREFIX)
        ]
        return sorted(records, key=lambda r: r["registered_at"])

    def set_alias(self, alias: str, model_id: str) -> None:
        self.client.put_item(
            TableName=self.table,
            Item={
                "model_id": {"S": ALIAS_PREFIX + alias},
                "registered_at": {"N": repr(now())},
                "alias_of": {"S": model_id},
            },
        )

    def alias(self, alias: str) -> str | None:
        item = self.client.get_item(
            TableName=self.table, Key={"model_id": {"S": ALIAS_PREFIX + alias}}, ConsistentRead=True
        ).get("Item")
        return item["alias_of"]["S"] if item else None

    def uri(self) -> str:
        return f"dynamodb://{self.table}"


class ModelRegistry(dg.ConfigurableResource):
    """Where exported models are recorded (and, optionally, their files uploaded)."""

    backend: Literal["sqlite", "dynamodb"] = Field(
        default_factory=lambda: os.environ.get("TXN_REGISTRY_BACKEND", "sqlite"),
        description="sqlite (default) or dynamodb (TXN_REGISTRY_BACKEND).",
    )
    sqlite_path: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_REGISTRY_SQLITE"),
        description="SQLite file (default: <artifact store>/registry.sqlite).",
    )
    dynamodb_table: str = Field(
        default_factory=lambda: os.environ.get("TXN_REGISTRY_TABLE", "txn-ml-models"),
        description="DynamoDB table (TXN_REGISTRY_TABLE), created on first use if missing.",
    )
    dynamodb_endpoint_url: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_DYNAMODB_ENDPOINT_URL"),
        description="DynamoDB endpoint (a local server in tests); default: AWS.",
    )
    s3_uri: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_REGISTRY_S3_URI"),
        description="s3://bucket/prefix to upload model files to (TXN_REGISTRY_S3_URI); none: local only.",
    )
    s3_endpoint_url: str | None = Field(
        default_factory=lambda: os.environ.get("TXN_S3_ENDPOINT_URL"),
        description="S3-compatible endpoint (MinIO, SeaweedFS, moto).",
    )

    def target(self, store_root: Path) -> dict[str, str | None]:
        """Where a record goes: part of the registering asset's fingerprint. The default SQLite
        file lives in the store and travels with it (a copied or pulled store holds its records),
        so it is named relative to the store; an explicit path or table is named as given."""
        if self.backend == "dynamodb":
            where = self.dynamodb_table
        else:
            where = self.sqlite_path or "<artifact store>/registry.sqlite"
        return {"backend": self.backend, "where": where, "s3_uri": self.s3_uri}

    def _sqlite(self, store_root: Path) -> Path:
        return Path(self.sqlite_path) if self.sqlite_path else store_root / "registry.sqlite"

    def open(self, store_root: Path) -> SqliteRegistry | DynamoRegistry:
        if self.backend == "sqlite":
            return SqliteRegistry(self._sqlite(store_root))
        import boto3

        client = boto3.client("dynamodb", endpoint_url=self.dynamodb_endpoint_url)
        return DynamoRegistry(client, self.dynamodb_table)

    def champion(self, store_root: Path) -> dict[str, Any] | None:
        """The record the champion alias points to; None before any model was promoted."""
        registry = self.open(store_root)
        model_id = registry.alias(CHAMPION)
        if model_id is None:
            return None
        record = registry.get(model_id)
        if record is None:
            raise LookupError(
                f"{registry.uri()}: alias {CHAMPION!r} points to model {model_id}, which has no "
                "record; the registry was edited by hand: re-register a model or drop the alias"
            )
        return record

    def upload(self, model_id: str, files: dict[str, Path]) -> dict[str, str]:
        """Upload files under <s3_uri>/<model_id>/ (skipping those already there); {name: uri}."""
        if not self.s3_uri:
            return {}
        from dagster_aws.s3 import S3Resource

        from ml_assets.core.infra.transfer import split_uri
        from resources.blob_backends import s3_backend_from_resource

        _, bucket, prefix = split_uri(self.s3_uri)
        backend = s3_backend_from_resource(
            S3Resource(endpoint_url=self.s3_endpoint_url), bucket, prefix.rstrip("/")
        )
        uris = {}
        for name, path in sorted(files.items()):
            key = f"{model_id}/{name}"
            if not backend.exists(key):
                backend.put_file(key, path)
            uris[name] = backend.uri(key)
        return uris


def now() -> float:
    return time.time()
