"""Declarative automation: a change of code/params requests exactly the affected asset, and new
upstream data requests its dependents — evaluated by Dagster's own evaluator on a real instance."""

import dagster as dg
import pytest

from ml_assets.definitions import ASSETS, CHECKS, build_resources, versioned_assets
from tests.graph import copy_store, materialize_tiny_graph

pytestmark = pytest.mark.slow
NAMES = [a.key.to_user_string() for a in ASSETS]


def requested(result) -> set[str]:
    return {name for name in NAMES if result.get_num_requested(dg.AssetKey(name)) > 0}


def definitions(root, code_versions: dict[str, str] | None = None) -> dg.Definitions:
    def bump(spec: dg.AssetSpec) -> dg.AssetSpec:
        version = (code_versions or {}).get(spec.key.to_user_string())
        return spec.replace_attributes(code_version=version) if version else spec

    # the assets as the code location serves them (with code versions), some bumped
    assets = dg.map_asset_specs(bump, versioned_assets(profile="tiny"))
    return dg.Definitions(
        assets=assets, asset_checks=CHECKS, resources=build_resources(str(root), profile="tiny")
    )


@pytest.fixture(scope="module")
def settled(tmp_path_factory, tiny_graph):
    """A copy of the session's computed store, materialized into an instance of its own (all
    memo hits), and automation evaluated until it requests nothing: (defs, instance, cursor).
    The tests below only add events after it, in file order; none changes the store."""
    root = copy_store(tiny_graph.root, tmp_path_factory.mktemp("automation") / "artifacts")
    with dg.instance_for_test() as instance:
        assert materialize_tiny_graph(root, instance).success
        defs = definitions(root)
        first = dg.evaluate_automation_conditions(defs=defs, instance=instance)
        second = dg.evaluate_automation_conditions(
            defs=defs, instance=instance, cursor=first.cursor
        )
        assert requested(second) == set()  # everything materialized, nothing changed
        yield root, instance, second.cursor


def test_code_change_requests_that_asset_and_its_dependents_only(settled):
    root, instance, cursor = settled
    changed = definitions(root, {"multitask_model": "new-finetune-code"})
    third = dg.evaluate_automation_conditions(defs=changed, instance=instance, cursor=cursor)
    # the changed asset, plus its dependent in the same run (eager's will_be_requested);
    # nothing upstream. If the new weights were byte-identical, onnx_model would be memoized.
    # batch_predictions scores the newest raw day (the generator's last, ingested) with the
    # model the registry serves, so it follows
    assert requested(third) == {
        "multitask_model",
        "onnx_model",
        "model_evaluation",
        "registered_model",
        "batch_predictions",
    }


def test_new_upstream_data_version_requests_dependents(settled):
    root, instance, cursor = settled
    # multitask_model re-materialized with different bytes -> onnx_model and its dependents
    instance.report_runless_asset_event(
        dg.AssetMaterialization(
            "multitask_model", tags={"dagster/data_version": "different-weights"}
        )
    )
    third = dg.evaluate_automation_conditions(
        defs=definitions(root), instance=instance, cursor=cursor
    )
    assert requested(third) == {
        "onnx_model",
        "model_evaluation",
        "registered_model",
        "batch_predictions",
    }
