"""The whole graph, materialized in-process on a real (temporary) Dagster instance, tiny profile."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl
import pytest

from ml_assets.core.infra.io import verify_entry
from ml_assets.core.infra.layouts import PREDICTIONS_FILE
from ml_assets.core.quality.comparison import short_name
from ml_assets.core.quality.sketches import FULL_SIZE_PICTURES, INLINE_LIMIT
from ml_assets.definitions import ASSETS, CHECKS, PARTITIONED, build_resources
from ml_assets.wiring.daily import range_tags
from tests.graph import TINY_DAYS

EXPECTED_METADATA = {
    # daily-partitioned, materialized as one range: totals and a per-day table
    "raw_transactions": {
        "partitions",
        "rows_in",
        "rows_kept",
        "rows_quarantined",
        "duplicates_dropped",
        "rows_read",
        "by_partition",
    },
    "transaction_features": {
        "partitions",
        "rows",
        "bytes_in",
        "parquet_bytes",
        "parquet_to_jsonl_ratio",
        "rows_per_second",
        "dataset",
        "by_partition",
    },
    "training_features": {
        "rows",
        "days",
        "first_day",
        "last_day",
        "rows_train",
        "rows_valid",
        "rows_test",
        "splits",
        "merchant_keys",
        "largest_merchant_share",
    },
    "pruned_tokenizer": {
        "vocab_before",
        "vocab_after",
        "heldout_identity_rate",
        "heldout_unk_rate_original",
        "heldout_unk_rate_pruned",
    },
    "tokenized_corpus": {"rows", "tokens", "mean_tokens_per_row", "token_dtype", "rows_per_second"},
    "mlm_backbone": {
        "params_before_pruning",
        "params_after_pruning",
        "steps",
        "tokens_per_second",
        "final_mlm_loss",
        "loss_curve",
        "full_size_pictures",
        "data_wait_share",
        "padding_share",
        "samples_per_second",
        "peak_memory_mb",
    },
    "multitask_model": {
        "test_category_acc",
        "test_category_f1",
        "test_transaction_type_acc",
        "test_transaction_type_f1",
        "heldout_category_acc",
        "best_step",
        "ngram_bag_category_gate",
        "ngram_bag_category_prior",
        "ngram_bag_transaction_type_prior",
    },
    "baseline_model": {"test_category_acc", "best_step", "valid_rows_full", "valid_curve"},
    "tfidf_reference": {
        "test_category_acc",
        "heldout_category_acc",
        "test_transaction_type_acc",
        "category_chosen_c",
        "tfidf_features",
        "fit_seconds",
    },
    "frozen_encoder_reference": {
        "test_category_acc",
        "heldout_category_acc",
        "pooling",
        "backbone",
        "fit_seconds",
    },
    "onnx_model": {
        "fp32_onnx_bytes",
        "int8_onnx_bytes",
        "category_agreement",
        "category_int8_delta_pt",
        "latency_raw_p50_ms",
        "latency_raw_p99_ms",
        "latency_reference_ms_measured",
        "int8_recipe",
        "int8_nodes_kept_fp32",
        "opset",
    },
    "model_evaluation": {
        "test_rows",
        "rows_per_second",
        "category_slices",
        "transaction_type_slices",
        "category_confusion",
        "category_mistakes",
        "reliability",
        "full_size_pictures",
        "category_all_acc",
        "category_heldout_f1",
        "category_seen_acc",
        "category_ece",
        "heldout_merchant_mean",
        "heldout_missed",
        "regressions",
        "recipe_uplift",
        "uplift_category_acc_pt",
        "category_by_model",
        "transaction_type_by_model",
        "side_by_side",
        "champion",
        "heldout_acc_int8",
        "heldout_acc_tfidf",
        "heldout_acc_frozen",
        "heldout_acc_plain",
        "heldout_acc_fp32",
        "heldout_lead",
    },
    "batch_predictions": {"champion", "source", "rows", "rows_per_second", "threads", "preview"},
    "registered_model": {
        "model_id",
        "status",
        "champion",
        "rejection_reasons",
        "verdict",
        "rules",
        "registry",
        "uploaded_files",
        "artifact_uris",
    },
}


@pytest.fixture(scope="module")
def materialized(tiny_graph):
    """The session's computed tiny graph (conftest): its result, instance and store."""
    return tiny_graph


@pytest.mark.slow
def test_every_asset_materializes_with_metadata(materialized):
    result, _, _ = materialized
    assert result.success
    materializations = [
        e.event_specific_data.materialization for e in result.get_asset_materialization_events()
    ]
    events = {}  # per asset the output's event (a range run's per-day events follow it)
    for m in materializations:
        events.setdefault(m.asset_key.to_user_string(), m)
    assert set(events) == set(EXPECTED_METADATA)
    for asset, keys in EXPECTED_METADATA.items():
        missing = keys - set(events[asset].metadata)
        assert not missing, f"{asset} lacks metadata {missing}"
        if asset not in PARTITIONED:
            verify_entry(Path(events[asset].metadata["artifact_path"].value))
    md = {k: events[k].metadata for k in events}
    assert md["raw_transactions"]["partitions"].value == len(TINY_DAYS)
    # every generated row is kept (synthetic data is clean) and reaches the training window
    assert md["raw_transactions"]["rows_read"].value == md["raw_transactions"]["rows_kept"].value
    assert md["raw_transactions"]["rows_kept"].value == md["transaction_features"]["rows"].value
    assert md["transaction_features"]["rows"].value == md["training_features"]["rows"].value
    assert md["training_features"]["days"].value == len(TINY_DAYS)
    assert (
        md["pruned_tokenizer"]["vocab_after"].value
        < md["pruned_tokenizer"]["vocab_before"].value
        == 30522
    )
    assert (
        md["mlm_backbone"]["params_after_pruning"].value
        < md["mlm_backbone"]["params_before_pruning"].value
    )
    assert md["onnx_model"]["int8_onnx_bytes"].value < md["onnx_model"]["fp32_onnx_bytes"].value / 2
    assert 0.0 <= md["multitask_model"]["test_category_acc"].value <= 1.0


@pytest.mark.slow
def test_metadata_reads_in_place_in_the_ui(materialized):
    """What the asset pages draw: keys short enough for the UI's key column (longer ones run
    into the next column), every Markdown value but the full-size pictures under the UI's
    inline limit (longer ones hide behind a button), and each stage's pictures as inline SVG,
    listed before the numbers."""
    from ml_assets.wiring.stage import stage_of

    result, _, _ = materialized
    events = {}
    for event in result.get_asset_materialization_events():
        m = event.event_specific_data.materialization
        events.setdefault(m.asset_key.to_user_string(), m)
    for asset, event in events.items():
        long = [key for key in event.metadata if len(key) > 32]
        assert not long, (asset, long)
        hidden = [
            key
            for key, value in event.metadata.items()
            if isinstance(value, dg.MarkdownMetadataValue)
            and key != FULL_SIZE_PICTURES
            and len(value.value) >= INLINE_LIMIT
        ]
        assert not hidden, (asset, hidden)
    for assets_def in ASSETS:
        stage = stage_of(assets_def)
        if not stage.pictures:
            continue
        keys = list(events[stage.key].metadata)
        pictures = [
            key
            for pattern in stage.pictures
            for key in (
                [pattern]
                if "<head>" not in pattern
                else [pattern.replace("<head>", h) for h in ("category", "transaction_type")]
            )
        ]
        for key in pictures:
            value = events[stage.key].metadata[key].value
            assert value.startswith("![") and "(<data:image/svg+xml," in value, (stage.key, key)
        numbers = [k for k in keys if isinstance(events[stage.key].metadata[k].value, float)]
        assert max(keys.index(k) for k in pictures) < min(keys.index(k) for k in numbers)
        assert FULL_SIZE_PICTURES in keys


@pytest.mark.slow
def test_checks_run(materialized):
    result, _, _ = materialized
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert set(checks) == {
        "heads_have_labels",
        "pruned_tokenizer_identical_on_training_text",
        "data_wait_below_5_percent",
        "raw_rows_accounted_for",
        "int8_matches_pytorch",
        "latency_within_budget",
        "int8_size_within_budget",
        "candidate_promoted",
    }
    for gate in (
        "int8_matches_pytorch",
        "latency_within_budget",
        "int8_size_within_budget",
        "candidate_promoted",  # the tiny profile's margins let its 30-step model through
    ):
        assert checks[gate].passed, checks[gate].metadata
    assert checks["pruned_tokenizer_identical_on_training_text"].passed
    assert checks["heads_have_labels"].passed
    assert checks["raw_rows_accounted_for"].passed
    # a verdict per day (the check's history by partition) and one for the run's days
    rows = [
        c for c in result.get_asset_check_evaluations() if c.check_name == "raw_rows_accounted_for"
    ]
    assert sorted(c.partition for c in rows if c.partition) == list(TINY_DAYS)
    assert all(c.passed for c in rows) and len(rows) == len(TINY_DAYS) + 1
    # the promotion check's page draws its description: the verdict and every rule
    description = checks["candidate_promoted"].description
    assert description.startswith("**PROMOTED**: ") and "| margin over references" in description
    waits = [
        c
        for c in result.get_asset_check_evaluations()
        if c.check_name == "data_wait_below_5_percent"
    ]
    assert {c.asset_key.to_user_string() for c in waits} == {
        "mlm_backbone",
        "multitask_model",
        "baseline_model",
    }
    for check in waits:
        assert 0 <= check.metadata["data_wait_share"].value <= 1
        assert check.severity == dg.AssetCheckSeverity.WARN


@pytest.mark.slow
def test_data_versions_are_content_hashes(materialized):
    result, instance, _ = materialized
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        if mat.partition is not None:  # each day's latest record: its own entry's digest
            record = instance.get_latest_data_version_record(
                mat.asset_key, partition_key=mat.partition
            )
            event = record.asset_event
            assert event.tags["dagster/data_version"] == event.metadata["artifact_digest"].value
            continue
        record = instance.get_latest_materialization_event(mat.asset_key)
        assert (
            record.asset_materialization.tags["dagster/data_version"]
            == mat.metadata["artifact_digest"].value
        )


@pytest.mark.slow
def test_nightly_schedule_requests_only_model_assets_whose_fingerprint_changed(
    materialized, tmp_path
):
    import yaml

    from ml_assets.definitions import build_definitions
    from resources.artifact_store import ArtifactStore
    from resources.params import ParamsResource
    from sensors.schedules import nightly_stale_assets

    _, _, root = materialized
    repo = build_definitions().get_repository_def()

    def tick(params: ParamsResource):
        context = dg.build_schedule_context(
            repository_def=repo,
            resources={"artifact_store": ArtifactStore(root=str(root)), "params": params},
        )
        return nightly_stale_assets(context)

    assert isinstance(tick(ParamsResource(profile="tiny")), dg.SkipReason)  # all fresh
    data = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())
    data["multitask_model"]["learning_rate"] = 3.0e-4
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    request = tick(ParamsResource(path=str(tmp_path / "params.yaml"), profile="tiny"))
    assert {k.to_user_string() for k in request.asset_selection} == {
        "multitask_model",  # the plain finetune (baseline_model) has its own learning rate
        "onnx_model",
        "model_evaluation",
        "batch_predictions",
        "registered_model",
    }


@pytest.mark.slow
def test_serving_tokenizes_exactly_like_training(materialized):
    """No train-serve skew: the ids the ONNX scorer computes from raw descriptions are
    byte-identical to the ids training read from the corpus (built from the features' text)."""

    from ml_assets.core.infra.io import read_json
    from ml_assets.core.serving.scoring import encode_for_model
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer
    from ml_assets.core.training_data.corpus import TokenizedSplit
    from resources.artifact_store import ArtifactStore

    _, _, root = materialized
    store = ArtifactStore(root=str(root))
    corpus = store.current_ref("tokenized_corpus").verified()
    onnx = store.current_ref("onnx_model").verified()
    serving = read_json(onnx.dir / "serving.json")
    split = TokenizedSplit(corpus.dir, "test", max_length=serving["max_length"])
    rows = split.row_table()
    features = pl.read_parquet(store.current_ref("training_features").dir / "features.parquet")
    descriptions = dict(zip(features["transaction_id"], features["description"], strict=True))
    sample = list(range(0, len(split), max(1, len(split) // 300)))
    texts = [descriptions[rows["transaction_id"][i]] for i in sample]
    served = encode_for_model(
        FolderTokenizer.load(onnx.dir / "tokenizer"), texts, serving["max_length"]
    )
    assert len(sample) >= 100
    for i, ids in zip(sample, served, strict=True):
        trained = np.asarray(split[i], dtype=np.int64)
        assert trained.tobytes() == ids.astype(np.int64).tobytes(), texts[sample.index(i)]


@pytest.mark.slow
def test_the_registry_holds_the_exported_model(materialized):
    from resources.model_registry import SqliteRegistry

    result, _, root = materialized
    (event,) = result.asset_materializations_for_node("registered_model")
    model_id = event.metadata["model_id"].value
    record = SqliteRegistry(root / "registry.sqlite").get(model_id)
    assert record["model_id"] == model_id and record["artifacts"]["local"].startswith(str(root))
    assert 0 <= record["metrics"]["category/all/accuracy"] <= 1
    assert record["gates"]["parity"]["category"]["agreement"] >= 0.9  # the tiny profile's gate
    assert record["params"]["multitask_model"]["max_steps"] == 30
    assert record["status"] == "promoted" and record["promotion"]["reasons"] == []
    registry = SqliteRegistry(root / "registry.sqlite")
    assert registry.alias("champion") == model_id
    (scored,) = result.asset_materializations_for_node("batch_predictions")
    assert scored.metadata["champion"].value == model_id  # scoring reads the champion alias


@pytest.mark.slow
def test_the_comparison_puts_every_model_on_the_same_rows(materialized):
    import json

    from ml_assets.core.quality.comparison import BASELINE, CANDIDATE, FP32_TWIN

    result, _, _ = materialized
    (event,) = result.asset_materializations_for_node("model_evaluation")
    evaluation = json.loads(
        (Path(event.metadata["artifact_path"].value) / "evaluation.json").read_text()
    )
    comparison = evaluation["comparison"]
    references = {"tfidf_reference", "frozen_encoder_reference"}
    assert set(comparison) == {CANDIDATE, FP32_TWIN, BASELINE, *references}  # no champion yet
    rows = {
        name: {s: v["n"] for s, v in report["category"].items()}
        for name, report in comparison.items()
    }
    assert all(r == rows[CANDIDATE] for r in rows.values())  # same rows, same slices
    assert set(rows[CANDIDATE]) == {"all", "heldout_merchants", "seen_merchants", "short", "long"}
    # seen: merchants with a labeled train row; the predictions say which rows those are
    predictions = pl.read_parquet(Path(event.metadata["artifact_path"].value) / PREDICTIONS_FILE)
    seen = predictions.filter("seen_merchant", pl.col("category_true").is_not_null()).height
    assert 0 < seen == rows[CANDIDATE]["seen_merchants"]
    assert not predictions.filter("seen_merchant", "heldout_merchant").height
    assert comparison[CANDIDATE] == evaluation["report"]
    # the promotion margin's lead over the best reference, with its interval over merchants
    lead, held = evaluation["heldout_lead"], "heldout_merchants"
    best = max(references, key=lambda name: comparison[name]["category"][held]["accuracy"])
    points = 100 * (
        comparison[CANDIDATE]["category"][held]["accuracy"]
        - comparison[best]["category"][held]["accuracy"]
    )
    assert lead["against"] == best and lead["lead_pt"] == pytest.approx(points, abs=0.01)
    assert lead["low_pt"] <= lead["lead_pt"] <= lead["high_pt"]
    assert lead["rows"] == rows[CANDIDATE][held] and 0 < lead["merchants"] <= lead["rows"]
    assert "95 % interval" in event.metadata["heldout_lead"].value
    table = event.metadata["category_by_model"].value
    assert all(f"| {short_name(name)} |" in table and name in table for name in comparison)
    assert event.metadata["side_by_side"].value.startswith("![side by side](<data:image/svg+xml,")
    full = event.metadata["full_size_pictures"].value
    assert full.startswith("![side by side](data:image/png;base64,")


@pytest.mark.slow
def test_an_undertrained_candidate_is_rejected_with_reasons_in_the_cli_output(
    materialized, tmp_path
):
    """The tiny profile's 30-step model against the default promotion rules, in a fresh
    registry: rejected, recorded with its reasons, the champion alias untouched, scoring not
    run, and the reasons printed by the Dagster CLI itself."""
    import os
    import subprocess
    import sys

    import yaml

    from resources.model_registry import SqliteRegistry
    from tests.graph import copy_store

    _, _, root = materialized
    store = copy_store(root, tmp_path / "artifacts")
    data = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())
    del data["profiles"]["tiny"]["promotion"]  # the default margins
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    (tmp_path / "home").mkdir()
    env = {
        **os.environ,
        "DAGSTER_HOME": str(tmp_path / "home"),
        "TXN_ARTIFACTS_DIR": str(store),
        "TXN_PARAMS": str(tmp_path / "params.yaml"),
        "TXN_PARAMS_PROFILE": "tiny",
        "TXN_REGISTRY_SQLITE": str(tmp_path / "fresh-registry.sqlite"),
    }
    cli = Path(sys.executable).with_name("dg")
    run = subprocess.run(
        [str(cli), "launch", "--assets", "registered_model,batch_predictions"],
        cwd=Path(__file__).resolve().parents[1],  # dg finds the project from here
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert "not promoted, the champion is unchanged. REJECTED: " in output
    # the rule that failed, with the figure and what it required
    assert re.search(r"REJECTED: [a-z ]+: \w+/\w+ accuracy [\d.]+ % < [\d.]+ % required", output)
    # who won on this data, and by how much, on the same line
    assert "category on held-out merchants: candidate" in output and "best other model" in output
    assert "batch_predictions - STEP_SUCCESS" not in output  # blocked by the failed check
    registry = SqliteRegistry(tmp_path / "fresh-registry.sqlite")
    (record,) = registry.list()
    assert record["status"] == "rejected" and record["promotion"]["reasons"]
    assert registry.alias("champion") is None


@pytest.mark.slow
def test_a_failed_gate_still_compares_every_model_and_rejects_the_candidate(
    materialized, tmp_path, monkeypatch
):
    """A copy of the store; a latency budget and a size budget nothing meets. The gates fail,
    the comparison still runs on every model, and the registry records the rejection with the
    failed gates and who won; scoring does not run. (The parity gate's failures are tested on
    models built to miss it: test_evaluation.py, test_int8_recipe.py.)"""
    import yaml

    from resources.model_registry import SqliteRegistry
    from resources.params import ParamsResource
    from tests.graph import copy_store

    _, _, root = materialized
    store = copy_store(root, tmp_path / "artifacts")
    data = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())
    tiny = data["profiles"]["tiny"]
    tiny["export_gates"].update(latency_budget_ms=0.001, max_int8_mb=0.001)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    monkeypatch.setenv("TXN_REGISTRY_SQLITE", str(tmp_path / "registry.sqlite"))
    resources = build_resources(str(store), profile="tiny")
    resources["params"] = ParamsResource(path=str(tmp_path / "params.yaml"), profile="tiny")
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            selection=["onnx_model", "model_evaluation", "batch_predictions", "registered_model"],
            resources=resources,
            instance=instance,
            raise_on_error=False,
        )
        errors = [
            e.user_message
            for e in instance.all_logs(result.run_id)
            if e.level >= logging.ERROR and e.user_message
        ]
    assert not result.success  # the promotion check is the one that blocks
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert not checks["int8_size_within_budget"].passed
    assert not checks["latency_within_budget"].passed and not checks["candidate_promoted"].passed
    latency = checks["latency_within_budget"].metadata
    assert latency["budget_ms"].value == 0.001 and latency["raw_p99_ms"].value > 0
    materialized_now = {
        e.event_specific_data.materialization.asset_key.to_user_string()
        for e in result.get_asset_materialization_events()
    }
    assert materialized_now == {"onnx_model", "model_evaluation", "registered_model"}
    (evaluation,) = result.asset_materializations_for_node("model_evaluation")
    assert "| tfidf |" in evaluation.metadata["category_by_model"].value
    (record,) = SqliteRegistry(tmp_path / "registry.sqlite").list()
    assert record["status"] == "rejected"
    gate_reasons = record["promotion"]["gate_failures"]
    assert any(
        r.startswith("export gate int8_size_within_budget: int8 model ") for r in gate_reasons
    )
    assert any(r.startswith("export gate latency_within_budget: p99 ") for r in gate_reasons)
    verdict = record["promotion"]["verdict"]
    assert verdict.startswith("REJECTED: export gate latency_within_budget")
    assert "category on held-out merchants: candidate" in verdict
    assert "held-out merchants (" in verdict and "95 % interval " in verdict
    assert any(verdict in line for line in errors)  # the run's log (what the CLI prints)


@pytest.mark.slow
def test_plan_shows_the_kept_verdicts_of_fresh_entries(materialized):
    """A memo hit re-judges nothing: plan reads the gates' and the promotion's verdicts from
    the entries and measures nothing."""
    from ml_assets.wiring.plan import build_plan, format_plan
    from resources.artifact_store import ArtifactStore

    _, _, root = materialized
    plans = {p.asset: p for p in build_plan(ArtifactStore(root=str(root)), ASSETS, profile="tiny")}
    assert plans["onnx_model"].status == "fresh"
    assert plans["onnx_model"].verdicts == [
        "gate int8_matches_pytorch: passed",
        "gate latency_within_budget: passed",
        "gate int8_size_within_budget: passed",
    ]
    (line,) = plans["registered_model"].verdicts
    assert ": PROMOTED: every gate and rule passed. category on held-out merchants" in line
    assert "           = gate latency_within_budget: passed" in format_plan(list(plans.values()))


def test_definitions_load():
    from ml_assets.definitions import build_definitions

    repo = build_definitions().get_repository_def()
    assert {k.to_user_string() for k in repo.assets_defs_by_key} == set(EXPECTED_METADATA)
    for schedule in ("daily_ingest_schedule", "nightly_stale_assets", "weekly_full_evaluation"):
        assert repo.has_schedule_def(schedule)
    assert repo.has_sensor_def("new_raw_exports")


def test_a_stage_judged_against_the_champion_names_one_of_its_inputs(monkeypatch):
    import dataclasses

    from ml_assets.assets import model_evaluation as module
    from ml_assets.wiring.plan import asset_graph

    assert asset_graph(ASSETS)["model_evaluation"][0].candidate_input == "onnx_model"
    monkeypatch.setattr(module, "STAGE", dataclasses.replace(module.STAGE, candidate_input="x"))
    with pytest.raises(ValueError, match="candidate_input 'x' is not one of its inputs"):
        asset_graph(ASSETS)


def _files_params(tmp_path, data_path):
    params = tmp_path / "params.yaml"
    params.write_text(
        "raw_transactions:\n"
        "  source: files\n"
        f"  path: {data_path}\n"
        "  column_map: {Id: transaction_id, Booked: posted_date, Amt: amount, Memo: description, Label: category}\n"
        '  date_format: "%m/%d/%Y"\n'
    )
    return params


def test_user_csv_flows_into_features(tmp_path):
    from ml_assets.assets.raw_transactions import raw_transactions
    from ml_assets.assets.transaction_features import transaction_features
    from resources.params import ParamsResource

    rows = [
        f"t{i},03/{1 + i % 28:02d}/2026,-{i}.25,SQ *CAFE {i % 7} AUSTIN TX,{'coffee' if i % 2 else ''}"
        for i in range(50)
    ]
    (tmp_path / "export.csv").write_text("Id,Booked,Amt,Memo,Label\n" + "\n".join(rows) + "\n")
    resources = build_resources(str(tmp_path / "artifacts"))
    resources["params"] = ParamsResource(path=str(_files_params(tmp_path, tmp_path / "export.csv")))
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [raw_transactions, transaction_features],
            resources=resources,
            instance=instance,
            tags=range_tags("2026-03-01", "2026-03-28"),  # the posted dates in the file
        )
    assert result.success
    raw_md = result.asset_materializations_for_node("raw_transactions")[0].metadata
    features_md = result.asset_materializations_for_node("transaction_features")[0].metadata
    assert raw_md["rows_kept"].value == 50 and raw_md["rows_read"].value == 50
    assert features_md["rows"].value == 50
    day = resources["artifact_store"].partition_refs("raw_transactions")["2026-03-02"]
    assert (day.dir / "transactions.jsonl").read_text().count("\n") == 2  # t1 and t29


def test_malformed_user_file_fails_naming_file_and_line(tmp_path):
    from ml_assets.assets.raw_transactions import raw_transactions
    from resources.params import ParamsResource

    (tmp_path / "export.csv").write_text(
        "Id,Booked,Amt,Memo\na,03/01/2026,1.0,X\nb,03/02/2026,abc,Y\n"
    )
    resources = build_resources(str(tmp_path / "artifacts"))
    resources["params"] = ParamsResource(path=str(_files_params(tmp_path, tmp_path / "export.csv")))
    with (
        dg.instance_for_test() as instance,
        pytest.raises(Exception, match=r"export\.csv:3: field 'amount'"),
    ):
        dg.materialize(
            [raw_transactions], resources=resources, instance=instance, partition_key="2026-03-01"
        )


def test_the_uplift_reads_each_models_declared_outputs(tiny_graph):
    """model_evaluation's recipe uplift reads metrics.json and history.json, the files each
    finetuning writes into its artifact, and finds what the finetuning reported."""
    from ml_assets.assets.model_evaluation import training_summary

    for asset in ("multitask_model", "baseline_model"):
        reported = tiny_graph.computed[asset]
        summary = training_summary(tiny_graph.root / asset / reported["fingerprint"])
        assert {"test_category_acc", "heldout_category_acc", "best_step"} <= set(summary)
        assert summary == {key: reported[key] for key in summary}, asset
