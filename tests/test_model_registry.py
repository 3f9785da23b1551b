"""The model registry: SQLite, and DynamoDB + S3 on a real local server (moto in server mode)."""

from __future__ import annotations

import os

import pytest

from resources.model_registry import CHAMPION, DynamoRegistry, ModelRegistry, SqliteRegistry


def record(model_id: str, at: float, accuracy: float) -> dict:
    return {
        "model_id": model_id,
        "registered_at": at,
        "metrics": {"category/all/accuracy": accuracy},
        "gates": {"parity": {"category": {"agreement": 0.995}}},
        "artifacts": {"local": f"/store/onnx_model/{model_id}"},
    }


def check_registry(registry) -> None:
    assert registry.get("m1") is None
    registry.put(record("m1", 1.0, 0.8))
    registry.put(record("m2", 2.0, 0.9))
    assert registry.get("m1") == record("m1", 1.0, 0.8)
    registry.put(record("m1", 3.0, 0.85))  # re-registering the same model replaces its record
    assert [r["model_id"] for r in registry.list()] == ["m2", "m1"]
    assert registry.get("m1")["metrics"]["category/all/accuracy"] == 0.85
    # the champion alias: absent until a promotion, then moved by each one
    assert registry.alias(CHAMPION) is None
    registry.set_alias(CHAMPION, "m2")
    assert registry.alias(CHAMPION) == "m2"
    registry.set_alias(CHAMPION, "m1")
    assert registry.alias(CHAMPION) == "m1"
    assert [r["model_id"] for r in registry.list()] == ["m2", "m1"]  # an alias is no record


def test_sqlite_registry(tmp_path):
    registry = SqliteRegistry(tmp_path / "registry.sqlite")
    check_registry(registry)
    reopened = SqliteRegistry(tmp_path / "registry.sqlite")  # durable across processes
    assert reopened.get("m2") == record("m2", 2.0, 0.9)
    assert reopened.alias(CHAMPION) == "m1"


def test_the_champion_is_its_record(tmp_path):
    resource = ModelRegistry(backend="sqlite", sqlite_path=str(tmp_path / "r.sqlite"))
    assert resource.champion(tmp_path) is None  # before any promotion
    registry = resource.open(tmp_path)
    registry.put(record("m1", 1.0, 0.8))
    registry.set_alias(CHAMPION, "m1")
    assert resource.champion(tmp_path) == record("m1", 1.0, 0.8)


@pytest.fixture
def aws(moto_endpoint, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    return moto_endpoint


def test_dynamodb_registry_creates_its_table(aws):
    import boto3

    client = boto3.client("dynamodb", endpoint_url=aws)
    table = f"models-{os.urandom(3).hex()}"
    check_registry(DynamoRegistry(client, table))
    assert client.describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE"


def test_model_files_are_uploaded_and_named_in_the_record(aws, tmp_path):
    import boto3

    s3 = boto3.client("s3", endpoint_url=aws)
    bucket = f"models-{os.urandom(3).hex()}"
    s3.create_bucket(Bucket=bucket)
    (tmp_path / "model_int8.onnx").write_bytes(b"int8 bytes")
    registry = ModelRegistry(
        backend="dynamodb",
        dynamodb_table=f"t-{os.urandom(3).hex()}",
        dynamodb_endpoint_url=aws,
        s3_uri=f"s3://{bucket}/registry/",
        s3_endpoint_url=aws,
    )
    uris = registry.upload("abc123", {"model_int8.onnx": tmp_path / "model_int8.onnx"})
    assert uris == {"model_int8.onnx": f"s3://{bucket}/registry/abc123/model_int8.onnx"}
    body = s3.get_object(Bucket=bucket, Key="registry/abc123/model_int8.onnx")["Body"].read()
    assert body == b"int8 bytes"
    opened = registry.open(tmp_path)
    opened.put({**record("abc123", 5.0, 0.9), "artifacts": uris})
    assert opened.get("abc123")["artifacts"] == uris
    assert registry.target(tmp_path)["backend"] == "dynamodb"
