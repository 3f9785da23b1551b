"""Never pay twice: real materializations on one persistent store (tiny profile).

Memoization lives in the artifact store, not in Dagster's records, so the runs share one
in-memory Dagster instance: on SQLite a memo-hit run of the graph takes 2x as long, most of it
event-log writes (a connection and a commit per event, ~800 events a run;
benchmarks/run_records.py). SQLite instances are what the tiny graph, the kill test and the
launcher tests run on."""

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest
import yaml

from ml_assets.definitions import ASSETS, CHECKS, GRAPH, PARTITIONED, build_resources
from ml_assets.wiring.plan import build_plan
from resources.params import ParamsResource
from tests.graph import TINY_DAYS, TINY_RANGE, copy_store, materialization_metadata

REPO = Path(__file__).resolve().parents[1]
ALL = {
    "tokenized_corpus",
    "raw_transactions",
    "transaction_features",
    "training_features",
    "baseline_model",
    "model_evaluation",
    "batch_predictions",
    "registered_model",
    "pruned_tokenizer",
    "mlm_backbone",
    "multitask_model",
    "onnx_model",
    "tfidf_reference",
    "frozen_encoder_reference",
}

FINETUNE_AND_AFTER = {
    "multitask_model",
    "baseline_model",
    "onnx_model",
    "model_evaluation",
    "batch_predictions",
    "registered_model",
}

# judged against the champion: a change of champion re-runs these, and nothing else
COMPARISON = {"model_evaluation", "registered_model", "batch_predictions"}

pytestmark = pytest.mark.slow


class Pipeline:
    def __init__(self, tmp: Path, instance: dg.DagsterInstance):
        self.params_path = tmp / "params.yaml"
        shutil.copy(REPO / "params.yaml", self.params_path)
        self.root = tmp / "artifacts"
        self.instance = instance

    def resources(self) -> dict:
        resources = build_resources(str(self.root))
        resources["params"] = ParamsResource(path=str(self.params_path), profile="tiny")
        return resources

    def set_param(self, section: str, key: str, value) -> None:
        data = yaml.safe_load(self.params_path.read_text())
        data[section][key] = value
        self.params_path.write_text(yaml.safe_dump(data))

    def run(self, run_config: dict | None = None) -> dict[str, dict]:
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            resources=self.resources(),
            instance=self.instance,
            tags=TINY_RANGE,
            run_config=run_config or {},
        )
        assert result.success
        return materialization_metadata(result)

    def plan(self):
        return {
            p.asset: p
            for p in build_plan(
                self.resources()["artifact_store"], ASSETS, str(self.params_path), "tiny"
            )
        }


def recomputed(run: dict[str, dict]) -> set[str]:
    return {asset for asset, md in run.items() if md["memoized"] is False}


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory, tiny_graph):
    """A copy of the session's computed store (its run is `computed`) on an instance of its
    own: `first` is this module's first run on it, which must compute nothing."""
    with dg.DagsterInstance.ephemeral() as instance:
        pipe = Pipeline(tmp_path_factory.mktemp("memo"), instance)
        copy_store(tiny_graph.root, pipe.root)
        pipe.computed = tiny_graph.computed
        pipe.first = pipe.run()
        yield pipe


def test_second_run_computes_nothing(pipeline):
    assert recomputed(pipeline.computed) == ALL
    # the copied store, a new instance, twice: nothing is computed
    second = pipeline.run()
    for run in (pipeline.first, second):
        assert recomputed(run) == set()
    for asset, md in second.items():
        assert md["memoized"] is True
        if asset in PARTITIONED:  # a range run: per-day figures in a table, none recomputed
            assert md["partitions_computed"] == 0 and md["partitions"] == len(TINY_DAYS)
            continue
        assert md["fingerprint"] == pipeline.computed[asset]["fingerprint"]
        assert (
            md["artifact_digest"] == pipeline.computed[asset]["artifact_digest"]
        )  # same data version
        assert md["produced_by_run"] == pipeline.computed[asset]["produced_by_run"]
        assert md["seconds_saved"] >= 0
    # the original metrics are reported again on a hit
    assert (
        second["multitask_model"]["test_category_acc"]
        == pipeline.computed["multitask_model"]["test_category_acc"]
    )
    assert all(p.status == "fresh" for p in pipeline.plan().values())


def test_a_param_recomputes_only_finetune_and_after_and_an_equal_override_reuses_it(pipeline):
    """A params.yaml change retrains what it affects; the same value as a run-config override
    is the same fingerprint (the effective params count, not where they were set)."""
    pipeline.set_param("multitask_model", "learning_rate", 2.0e-4)
    plan = pipeline.plan()
    assert plan["multitask_model"].status == "stale"
    assert "param multitask_model.learning_rate: 5e-05 -> 0.0002" in plan["multitask_model"].reasons
    assert plan["onnx_model"].status == "stale"
    # the plain finetune has its own learning rate (baseline_model section): it stays fresh
    assert plan["baseline_model"].status == "fresh"
    after = FINETUNE_AND_AFTER - {"baseline_model"}
    assert {a for a, p in plan.items() if p.status == "fresh"} == ALL - after
    run = pipeline.run()
    assert recomputed(run) == after
    retrained = run["multitask_model"]["fingerprint"]
    assert retrained != pipeline.first["multitask_model"]["fingerprint"]
    pipeline.set_param(
        "multitask_model", "learning_rate", 5.0e-5
    )  # back: the old models are reused; only the comparison is new (the other one is champion)
    assert recomputed(pipeline.run()) == COMPARISON

    # params.yaml back at 5e-5, 2e-4 from the launchpad: the model trained above, not retrained
    overridden = pipeline.run({"ops": {"multitask_model": {"config": {"learning_rate": 2.0e-4}}}})
    assert overridden["multitask_model"]["fingerprint"] == retrained
    assert recomputed(overridden) - COMPARISON == set()


def test_corrupt_artifact_is_detected_and_recomputed(pipeline):
    store = pipeline.resources()["artifact_store"]
    day = TINY_DAYS[3]
    before = store.partition_refs("transaction_features")[day]
    parquet = before.dir / "features.parquet"  # also the dataset's hard link: same bytes
    data = bytearray(parquet.read_bytes())
    data[len(data) // 2] ^= 0xFF
    parquet.write_bytes(bytes(data))
    plan = pipeline.plan()["transaction_features"]
    assert plan.status == "stale" and plan.reasons[0].startswith(f"1 of {len(TINY_DAYS)} days")
    assert "corrupt" in plan.reasons[1]
    assert parquet.read_bytes() == bytes(data)  # plan is read-only: the entry is untouched
    run = pipeline.run()
    # that one day is rebuilt to identical bytes, so no model is recomputed (the comparison
    # is, when an earlier test of this module left another candidate as champion)
    assert recomputed(run) - COMPARISON == {"transaction_features"}
    assert run["transaction_features"]["partitions_computed"] == 1
    after = store.partition_refs("transaction_features")[day].verified()
    assert after.digest == before.digest
    dataset_file = store.hive_dataset("transaction_features") / f"date={day}" / "part-0.parquet"
    assert dataset_file.samefile(after.dir / "features.parquet")  # the link was repaired
    (aside,) = before.dir.parent.glob(f".corrupt-{before.dir.name}-*")  # kept, with its reason
    assert "features.parquet" in json.loads((aside / "CORRUPT_REASON.json").read_text())["reason"]


def test_half_written_entry_is_treated_as_missing(pipeline):
    entry = Path(pipeline.first["pruned_tokenizer"]["artifact_path"])
    assert entry.is_relative_to(pipeline.root)  # this module's copy, not the session's store
    (entry / "MANIFEST.json").unlink()  # as if the writer died before committing
    run = pipeline.run()
    assert recomputed(run) == {"pruned_tokenizer"}


def test_plan_cli_explains_before_running(pipeline, capsys, monkeypatch):
    from ml_assets.__main__ import main

    monkeypatch.setenv("TXN_PARAMS_PROFILE", "tiny")  # main() exports --profile; restore after
    pipeline.set_param("mlm_backbone", "mask_prob", 0.2)
    try:
        assert (
            main(
                [
                    "plan",
                    "--artifacts",
                    str(pipeline.root),
                    "--params",
                    str(pipeline.params_path),
                    "--profile",
                    "tiny",
                ]
            )
            == 0
        )
    finally:
        pipeline.set_param("mlm_backbone", "mask_prob", 0.15)
    out = capsys.readouterr().out
    assert "fresh    pruned_tokenizer" in out
    assert "param mlm_backbone.mask_prob: 0.15 -> 0.2" in out
    assert "input mlm_backbone: upstream is stale and will be recomputed" in out
    # mlm_backbone and what it feeds; the baseline never sees the pretrained backbone
    assert f"6 of {len(GRAPH)} assets to compute" in out


def test_plan_on_an_empty_store_says_never_materialized(tmp_path, capsys, monkeypatch):
    from ml_assets.__main__ import main

    monkeypatch.setenv("TXN_PARAMS_PROFILE", "tiny")
    assert main(["plan", "--artifacts", str(tmp_path), "--profile", "tiny"]) == 0
    out = capsys.readouterr().out
    assert "missing  raw_transactions" in out and "no day materialized in this store" in out
    assert "missing  pruned_tokenizer" in out
    assert f"{len(GRAPH)} of {len(GRAPH)} assets to compute" in out


def test_gc_keeps_every_current_entry_and_the_champion(pipeline, capsys):
    from ml_assets.__main__ import main

    def listing() -> set[Path]:
        return {p for p in pipeline.root.rglob("*") if p.is_dir()}

    args = ["gc", "--artifacts", str(pipeline.root), "--keep", "0"]
    before = listing()
    assert main([*args, "--dry-run"]) == 0
    report = capsys.readouterr().out
    assert "would remove" in report and listing() == before  # a dry run changes nothing
    assert main(args) == 0
    report = capsys.readouterr().out
    removed = [line for line in report.splitlines() if line.startswith("removed /")]
    assert removed  # the earlier tests of this module left older entries
    store = pipeline.resources()["artifact_store"]
    for asset in GRAPH:
        refs = (
            store.partition_refs(asset).values()
            if asset in PARTITIONED
            else [store.current_ref(asset)]
        )
        for ref in refs:
            ref.verified()  # every pointer still names a whole entry
    champion = pipeline.resources()["model_registry"].champion(pipeline.root)
    assert (pipeline.root / "onnx_model" / champion["onnx_model_key"] / "MANIFEST.json").is_file()
    assert main(args) == 0 and "removed 0 folder(s)" in capsys.readouterr().out
