"""Validation and quarantine: a planted-defects export yields exactly the expected counts and
reasons, nothing is lost (rows in = kept + quarantined + duplicates), and a bad line never
hides the good lines after it (polars' NDJSON reader is not trusted for this)."""

from __future__ import annotations

import json

import pytest

from ml_assets.core.intake.ingest import scan_transactions

GOOD = {
    "transaction_id": "t1",
    "posted_date": "2026-03-01",
    "amount": -4.5,
    "description": "TST* BLUE BOTTLE",
}


def planted_defects() -> tuple[list[bytes], dict[str, int]]:
    lines = [
        json.dumps(GOOD).encode(),  # 1 kept
        b'{"transaction_id": "t2", "posted_date": ',  # 2 malformed JSON
        json.dumps({**GOOD, "transaction_id": "t3", "amount": "abc"}).encode(),  # 3 wrong type
        json.dumps(
            {**GOOD, "transaction_id": "t4", "posted_date": "2026-13-45"}
        ).encode(),  # 4 bad date
        json.dumps({**GOOD, "transaction_id": "t5", "description": "  "}).encode(),  # 5 empty
        json.dumps(
            {**GOOD, "transaction_id": "t6", "description": "X" * 1_000_000}
        ).encode(),  # 6 1 MB
        b'{"transaction_id": "t7", "posted_date": "2026-03-01", "amount": 1, "description": "caf\xe9"}',  # 7 latin-1
        json.dumps(GOOD).encode(),  # 8 exact duplicate of line 1: dropped
        json.dumps({**GOOD, "amount": 99.0}).encode(),  # 9 same id, other content
        json.dumps({**GOOD, "transaction_id": "t10", "currency": "US"}).encode(),  # 10 bad currency
        json.dumps({**GOOD, "transaction_id": "t11"}).encode(),  # 11 kept, after all of the above
        b"[1, 2, 3]",  # 12 not an object
        b'{"transaction_id": "t13", "posted_date": "2026-03-01", "amo',  # 13 truncated last line
    ]
    expected = {
        "malformed_json": 1,
        "bad_amount": 1,
        "bad_date": 1,
        "missing_field": 1,
        "description_too_long": 1,
        "invalid_utf8": 1,
        "conflicting_duplicate_id": 1,
        "bad_currency": 1,
        "not_an_object": 1,
        "truncated_line": 1,
    }
    return lines, expected


def test_planted_defects_give_exact_counts_and_reasons(tmp_path):
    lines, expected = planted_defects()
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"\n".join(lines))  # no newline after the last line: it is truncated
    result = scan_transactions(path, max_description_chars=512)
    assert result.rows_in == 13
    assert result.kept["transaction_id"].to_list() == ["t1", "t11"]
    assert result.duplicates == 1
    assert dict(result.reasons) == expected
    assert result.kept.height + result.quarantined.height + result.duplicates == result.rows_in
    quarantined = result.quarantined
    assert quarantined["line"].to_list() == [2, 3, 4, 5, 6, 7, 9, 10, 12, 13]
    assert set(quarantined["source"]) == {str(path)}
    by_reason = {r["reason"]: r for r in quarantined.iter_rows(named=True)}
    assert by_reason["bad_date"]["field"] == "posted_date"
    assert by_reason["description_too_long"]["raw_bytes"] > 1_000_000
    assert len(by_reason["description_too_long"]["raw"]) <= 2000  # the 1 MB row is not copied
    assert "export.jsonl:7" in by_reason["invalid_utf8"]["detail"]


def test_summary_names_top_reasons_and_example_lines(tmp_path):
    path = tmp_path / "d.jsonl"
    rows = [
        json.dumps({**GOOD, "transaction_id": f"t{i}", "posted_date": "31/12/2026"})
        for i in range(3)
    ]
    path.write_text("\n".join([json.dumps(GOOD), *rows]) + "\n")
    result = scan_transactions(path)
    assert result.quarantined_share == pytest.approx(0.75)
    summary = result.summary()
    assert summary.startswith("bad_date x3") and f"{path}:2" in summary


def test_csv_rows_are_quarantined_per_line(tmp_path):
    path = tmp_path / "export.csv"
    path.write_bytes(
        b"transaction_id,posted_date,amount,description\n"
        b"a,2026-01-01,1,OK\n"
        b"b,2026-01-01,1,caf\xe9\n"
        b"c,2026-01-01,oops,X\n"
        b"d,2026-01-01,2,ALSO OK\n"
    )
    result = scan_transactions(path)
    assert result.kept["transaction_id"].to_list() == ["a", "d"]
    assert dict(result.reasons) == {"invalid_utf8": 1, "bad_amount": 1}
    assert result.quarantined["line"].to_list() == [3, 4]


def test_a_malformed_line_never_hides_the_rest_of_the_file(tmp_path):
    path = tmp_path / "d.jsonl"
    good = [json.dumps({**GOOD, "transaction_id": f"g{i}"}) for i in range(50)]
    path.write_text("\n".join([*good[:10], '{"broken": ', *good[10:]]) + "\n")
    result = scan_transactions(path)
    assert result.kept.height == 50 and result.quarantined.height == 1


def _materialize_raw(tmp_path, overrides, partition_key="2026-03-01", last_day=None):
    """raw_transactions for one day (the planted rows are posted 2026-03-01), or the days
    partition_key..last_day in one run."""
    from ml_assets.wiring.daily import range_tags

    tags = range_tags(partition_key, last_day) if last_day else None
    partition_key = None if last_day else partition_key
    import dagster as dg

    from ml_assets.assets.raw_transactions import RawTransactionsConfig
    from ml_assets.definitions import ASSETS, CHECKS, build_resources

    with dg.instance_for_test() as instance:
        return dg.materialize(
            [*ASSETS, *CHECKS],
            selection=dg.AssetSelection.assets("raw_transactions"),
            resources=build_resources(str(tmp_path / "store"), profile="tiny"),
            instance=instance,
            run_config=dg.RunConfig(ops={"raw_transactions": RawTransactionsConfig(**overrides)}),
            partition_key=partition_key,
            tags=tags,
            raise_on_error=False,
        )


def test_asset_reports_and_checks_the_accounting(tmp_path):
    lines, expected = planted_defects()
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"\n".join(lines))
    result = _materialize_raw(
        tmp_path, {"source": "files", "path": str(path), "max_quarantine_share": 1.0}
    )
    assert result.success
    metadata = {
        k: v.value
        for k, v in result.get_asset_materialization_events()[
            0
        ].event_specific_data.materialization.metadata.items()
    }
    assert (metadata["rows_in"], metadata["rows_kept"]) == (13, 2)
    assert (metadata["rows_quarantined"], metadata["duplicates_dropped"]) == (10, 1)
    assert metadata["quarantine_by_reason"] == expected
    # the run's verdict; each day has its own too
    (check,) = [c for c in result.get_asset_check_evaluations() if c.partition is None]
    assert all(c.passed for c in result.get_asset_check_evaluations())
    assert check.check_name == "raw_rows_accounted_for" and check.passed


def test_too_many_bad_rows_fail_the_load_naming_reasons_and_lines(tmp_path):
    lines, _ = planted_defects()
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"\n".join(lines))
    result = _materialize_raw(tmp_path, {"source": "files", "path": str(path)})
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    message = failure.step_failure_data.error.message
    assert "10 of 13 rows" in message and "max_quarantine_share=0.05" in message
    assert "malformed_json x1" in message and f"{path}:2" in message


def test_gzip_jsonl_and_csv_are_read(tmp_path):
    import gzip

    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(json.dumps(GOOD).encode() + b"\n"))
    (tmp_path / "b.csv.gz").write_bytes(
        gzip.compress(b"transaction_id,posted_date,amount,description\nc1,2026-01-01,1,X\n")
    )
    result = scan_transactions(tmp_path)
    assert sorted(result.kept["transaction_id"]) == ["c1", "t1"] and result.rows_in == 2
