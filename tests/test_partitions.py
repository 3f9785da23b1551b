"""Daily partitions: which export feeds which day, nothing lost when rows are split by day,
a new day processes only that day, and training reads only the days of its window."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.partitions import (
    date_in_key,
    scan_window,
    split_by_day,
    window_days,
)
from ml_assets.wiring.daily import range_tags
from tests.graph import materialization_metadata

ROW = {"posted_date": "2026-03-01", "amount": -4.5, "description": "TST* BLUE BOTTLE"}
# two labels per head, so training_features passes its heads_have_labels check
LABELS = (
    {"category": "dining", "transaction_type": "card_purchase"},
    {"category": "coffee", "transaction_type": "refund"},
)


def write_jsonl(path: Path, rows: list[dict], extra_lines: tuple[bytes, ...] = ()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r).encode() for r in rows] + list(extra_lines)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.mark.parametrize(
    ("key", "day"),
    [
        ("2026-01-05.jsonl", "2026-01-05"),
        ("exports/date=2026-01-05/part-0.parquet", "2026-01-05"),
        ("bank/export_20260105.csv.gz", "2026-01-05"),
        ("bank/2026/01/05/x.jsonl", "2026-01-05"),
        ("backfill-2025-12-31/2026-01-05.jsonl", "2026-01-05"),  # the deepest date wins
        ("export.jsonl", None),
        ("export_2026-13-45.jsonl", None),  # not a date
        ("acct_123456789.jsonl", None),
    ],
)
def test_the_day_an_export_is_named_for(key, day):
    assert date_in_key(key) == day


def test_split_by_day_keeps_every_row_somewhere(tmp_path):
    dated = write_jsonl(
        tmp_path / "2026-03-01.jsonl",
        [
            {**ROW, "transaction_id": "a"},
            {**ROW, "transaction_id": "b", "posted_date": "2026-02-28"},  # late posting
        ],
    )
    undated = write_jsonl(
        tmp_path / "history.jsonl",
        [
            {**ROW, "transaction_id": "a"},  # exact repeat of the dated file's row: dropped
            {**ROW, "transaction_id": "b", "amount": 1.0},  # same id, other content
            {**ROW, "transaction_id": "c", "posted_date": "2026-03-02"},
            {**ROW, "transaction_id": "d", "posted_date": "2026-01-15"},  # outside the run
            {**ROW, "transaction_id": "e", "amount": "abc"},  # quarantined on its file's day
        ],
    )
    per_file = {
        name: scan_transactions(path, files=[path], with_origin=True)
        for name, path in (("2026-03-01.jsonl", dated), ("history.jsonl", undated))
    }
    split = split_by_day(per_file, ["2026-03-01", "2026-03-02"])
    first, second = split.days["2026-03-01"], split.days["2026-03-02"]
    assert sorted(first.kept["transaction_id"]) == ["a", "b"]  # the dated file's rows, whole
    assert first.duplicates == 1
    conflicts = first.quarantined.filter(pl.col("reason") == "conflicting_duplicate_id")
    assert conflicts.height == 1 and f"{dated}:2" in conflicts["detail"][0]
    assert second.kept["transaction_id"].to_list() == ["c"]
    assert second.quarantined["reason"].to_list() == ["bad_amount"]  # the file's last day
    assert split.rows_for_other_days == 1  # d, ingested when 2026-01-15 is materialized
    assert split.rows_read == 7 == first.rows_in + second.rows_in + split.rows_for_other_days


def test_window_days():
    days = ["2026-03-01", "2026-03-02", "2026-03-04", "2026-03-05"]
    assert window_days(days, None, None) == days
    assert window_days(days, 2, None) == ["2026-03-04", "2026-03-05"]
    assert window_days(days, 3, "2026-03-04") == ["2026-03-02", "2026-03-04"]
    assert window_days([], 3, None) == []


def test_window_scan_never_opens_the_days_it_filters_out(tmp_path):
    for day in ("2026-03-01", "2026-03-02", "2026-03-03"):
        folder = tmp_path / f"date={day}"
        folder.mkdir()
        pl.DataFrame({"posted_date": [day] * 3, "x": [1, 2, 3]}).write_parquet(
            folder / "part-0.parquet"
        )
    (tmp_path / "date=2026-03-01" / "part-0.parquet").write_bytes(b"not parquet")  # a trap
    frame = scan_window(tmp_path, "2026-03-02", "2026-03-03").collect()
    assert frame.height == 6 and frame.columns == ["posted_date", "x"]
    with pytest.raises(pl.exceptions.ComputeError):  # the trap is real when it is in the window
        scan_window(tmp_path, "2026-03-01", "2026-03-03").collect()


def _materialize(root: Path, params_path: Path, selection, first=None, last=None):
    from ml_assets.definitions import ASSETS, CHECKS, build_resources
    from resources.params import ParamsResource

    resources = build_resources(str(root))
    resources["params"] = ParamsResource(path=str(params_path))
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            selection=selection,
            resources=resources,
            instance=instance,
            tags=range_tags(first, last) if last else None,
            partition_key=None if last else first,  # None: unpartitioned selection
        )
    assert result.success
    return materialization_metadata(result)


@pytest.mark.slow
def test_a_new_day_processes_only_that_day_and_training_reads_its_window(tmp_path):
    import yaml

    from tests.launch_harness import REPO

    exports = tmp_path / "exports"
    for n, day in enumerate(("2026-03-01", "2026-03-02")):
        rows = [
            {**ROW, **LABELS[i % 2], "transaction_id": f"{day}-{i}", "posted_date": day}
            for i in range(5 + n)
        ]
        write_jsonl(exports / f"{day}.jsonl", rows)
    data = yaml.safe_load((REPO / "params.yaml").read_text())
    data["raw_transactions"].update({"source": "files", "path": str(exports)})
    params_path = tmp_path / "params.yaml"
    params_path.write_text(yaml.safe_dump(data))
    root = tmp_path / "store"
    ingest = ["raw_transactions", "transaction_features"]

    first = _materialize(root, params_path, ingest, "2026-03-01", "2026-03-02")
    assert first["transaction_features"]["partitions_computed"] == 2
    write_jsonl(
        exports / "2026-03-03.jsonl",
        [
            {**ROW, **LABELS[i % 2], "transaction_id": f"n{i}", "posted_date": "2026-03-03"}
            for i in range(7)
        ],
    )
    new_day = _materialize(root, params_path, ingest, "2026-03-03")
    assert new_day["raw_transactions"]["source_files"] == 1  # only the new day's export
    assert (
        new_day["raw_transactions"]["rows_read"] == 7
        and new_day["transaction_features"]["rows"] == 7
    )
    again = _materialize(root, params_path, ingest, "2026-03-01", "2026-03-03")
    assert again["raw_transactions"]["partitions_computed"] == 0  # memoized per day
    assert again["transaction_features"]["partitions_computed"] == 0

    data["training_features"] = {"window_days": 2, "end_date": None}
    params_path.write_text(yaml.safe_dump(data))
    window = _materialize(root, params_path, ["training_features"])["training_features"]
    assert (window["first_day"], window["last_day"], window["rows"]) == (
        "2026-03-02",
        "2026-03-03",
        13,
    )
    assert window["days_outside_window"] == 1
