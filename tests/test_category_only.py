"""A user's labeled export with a category column and no transaction type, as a card issuer
writes it (no ids, no merchant, no type), through the whole tiny graph with no edit of the
heads: the type head is left out with a warning on every model, every model trains on the
category head alone, and the run ends in a comparison and a registry decision."""

from __future__ import annotations

import logging
from pathlib import Path

import dagster as dg
import pytest
import yaml

from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.definitions import ASSETS, CHECKS, build_resources
from ml_assets.wiring.daily import range_tags

MODELS = ("tfidf_reference", "frozen_encoder_reference", "baseline_model", "multitask_model")


def write_export(path: Path, rows: int = 1000, one_label: bool = False) -> tuple[str, str]:
    """A CSV of Date, Description, Amount and Category only, 1,000 rows over 10 days, 40 % of
    them labeled, as a user who categorized part of their history (``one_label``: all with the
    same category), and 20 % "Uncategorized", as budgeting apps write a row nobody
    categorized. Returns its days."""
    rows = generate_transactions(rows, seed=11, labeled_fraction=1.0, days=10)
    lines = ["Date,Description,Amount,Category"]
    for i, row in enumerate(rows.iter_rows(named=True)):
        label = ("Groceries" if one_label else row["category"]) if i % 5 < 2 else ""
        label = "Uncategorized" if i % 5 == 2 else label
        description = row["description"].replace('"', "'")
        year, month, day = str(row["posted_date"]).split("-")
        lines.append(f'{month}/{day}/{year},"{description}",{row["amount"]:.2f},{label}')
    path.write_text("\r\n".join(lines) + "\r\n")
    days = sorted({f"{d}" for d in rows["posted_date"]})
    return days[0], days[-1]


def materialize_export(folder: Path, first: str, last: str):
    """The whole tiny graph on ``folder/card.csv``: (result, the warnings it logged)."""
    data = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())
    data["raw_transactions"].update(
        source="files",
        path=str(folder / "card.csv"),
        column_map={
            "Date": "posted_date",
            "Description": "description",
            "Amount": "amount",
            "Category": "category",
        },
        date_format="%m/%d/%Y",
    )
    data["profiles"]["tiny"].pop("raw_transactions")  # the synthetic generator's size
    (folder / "params.yaml").write_text(yaml.safe_dump(data))
    from resources.params import ParamsResource

    resources = build_resources(str(folder / "artifacts"), profile="tiny")
    resources["params"] = ParamsResource(path=str(folder / "params.yaml"), profile="tiny")
    with dg.instance_for_test() as instance:
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            resources=resources,
            instance=instance,
            tags=range_tags(first, last),
            raise_on_error=False,
        )
        warnings = [
            e.user_message
            for e in instance.all_logs(result.run_id)
            if e.level == logging.WARNING and e.user_message
        ]
    return result, warnings


@pytest.fixture(scope="module")
def category_only(tmp_path_factory):
    folder = tmp_path_factory.mktemp("category_only")
    result, warnings = materialize_export(folder, *write_export(folder / "card.csv"))
    yield result, warnings, folder


def test_a_head_of_one_label_stops_the_run_before_any_model(tmp_path):
    """The blocking check on training_features fails, naming the column; no model is fit."""
    result, _ = materialize_export(tmp_path, *write_export(tmp_path / "card.csv", 400, True))
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert not checks["heads_have_labels"].passed
    assert "'Groceries'" in checks["heads_have_labels"].metadata["failures"].value
    fitted = [m for m in (*MODELS, "mlm_backbone") if result.asset_materializations_for_node(m)]
    assert fitted == []


def test_the_graph_runs_without_the_missing_head(category_only):
    result, _, _ = category_only
    failed = [e.step_key for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert failed == []
    assert result.success


def test_every_model_says_the_type_head_was_left_out(category_only):
    result, warnings, _ = category_only
    for model in MODELS:
        (event,) = result.asset_materializations_for_node(model)
        note = event.metadata["heads_left_out"].value
        assert note.startswith("head 'transaction_type' left out: no row carries"), model
        assert any(note in w for w in warnings), model  # and in the run's log


def test_the_comparison_and_the_decision_are_on_category_alone(category_only):
    import json

    result, _, _ = category_only
    (evaluation,) = result.asset_materializations_for_node("model_evaluation")
    report = json.loads(
        (Path(evaluation.metadata["artifact_path"].value) / "evaluation.json").read_text()
    )
    assert set(report["report"]) == {"category"}
    assert all(set(model) == {"category"} for model in report["comparison"].values())
    assert "| tfidf |" in evaluation.metadata["category_by_model"].value
    assert "transaction_type_by_model" not in evaluation.metadata
    (registered,) = result.asset_materializations_for_node("registered_model")
    verdict = registered.metadata["verdict"].value
    assert verdict.startswith(("PROMOTED: ", "REJECTED: "))
    assert "category on held-out merchants: candidate" in verdict
    (scored,) = result.asset_materializations_for_node("batch_predictions")
    columns = [c.name for c in scored.metadata["preview"].value.schema.columns]
    assert "category_confidence" in columns and "transaction_type" not in columns


def test_uncategorized_rows_are_read_as_unlabeled_and_said(category_only):
    """The app's "Uncategorized" is no category: no model learns it as a class, its rows stay
    (scored, unlabeled), and the run's log and the features' metadata say how many."""
    import json

    result, warnings, _ = category_only
    events = result.asset_materializations_for_node("transaction_features")
    # the range run's output (recorded for each of its days) and each day's own record
    whole = [e for e in events if "by_partition" in e.metadata]
    days = [e for e in events if "by_partition" not in e.metadata]
    assert len(days) == 10 and whole
    said = [e.metadata["labels_read_as_none"].value.get("category: Uncategorized", 0) for e in days]
    assert sum(said) == 200  # every fifth row of the 1,000
    for event in whole:
        assert event.metadata["labels_read_as_none"].value == {"category: Uncategorized": 200}
    assert sum(e.metadata["rows"].value for e in days) == 1000
    assert any(
        "category 'Uncategorized' on 200 rows" in w and "no_label_values" in w for w in warnings
    )
    (reference,) = result.asset_materializations_for_node("tfidf_reference")
    folder = Path(reference.metadata["artifact_path"].value)
    labels = json.loads((folder / "labels.json").read_text())["category"]
    assert "Uncategorized" not in labels and len(labels) >= 2
