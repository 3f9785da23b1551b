"""The reference pages are generated from the code: every parameter, command, asset and check
is on them, and the fingerprints column says what recomputing a key's change costs."""

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("gen_reference", REPO / "docs/gen_reference.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    out = tmp_path_factory.mktemp("reference")
    assert generator.main([str(out)]) == 0
    return {p.name: p.read_text() for p in out.iterdir()}


def rows_of(page: str, section: str) -> dict[str, list[str]]:
    """{key: cells} of a section's table on the params page."""
    body = page.split(f"## `{section}` {{#{section}}}", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in body.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[cells[0].strip("`")] = cells
    return rows


def test_every_parameter_is_on_the_params_page(pages):
    from ml_assets.core.params import PipelineParams

    for section, field in PipelineParams.model_fields.items():
        rows = rows_of(pages["params.md"], section)
        assert set(rows) == set(field.annotation.model_fields), section
        assert all(cells[3] != "not determined" for cells in rows.values()), section


def test_the_fingerprints_column_is_measured(pages):
    params = pages["params.md"]
    # the plain finetune reads multitask_model's section with its own recipe keys over it
    assert rows_of(params, "multitask_model")["learning_rate"][3] == "`multitask_model`"
    assert rows_of(params, "multitask_model")["batch_size"][3] == (
        "`multitask_model`, `baseline_model`"
    )
    assert rows_of(params, "multitask_model")["heads"][3] == (
        "`multitask_model`, `baseline_model`, `tfidf_reference`, `frozen_encoder_reference`"
    )
    assert rows_of(params, "export_gates")["min_argmax_agreement"][3] == (
        "`onnx_model`, `registered_model`"  # the int8 recipe aims at the parity targets
    )
    assert rows_of(params, "export_gates")["latency_budget_ms"][3] == "`registered_model`"
    # where and how work runs, never what it produces
    assert {cells[3] for cells in rows_of(params, "gpu").values()} == {"none"}
    assert rows_of(params, "partitions")["start_date"][3] == "none"


def test_every_asset_check_and_command_is_on_its_page(pages):
    from ml_assets.__main__ import main  # noqa: F401 - the CLI the page is read from
    from ml_assets.definitions import CHECKS, GRAPH

    for asset in GRAPH:
        assert f"## `{asset}` {{#{asset}}}" in pages["assets.md"]
    for checks in CHECKS:
        for spec in checks.check_specs:
            assert f"| `{spec.name}` |" in pages["assets.md"]
    assert "| `raw_rows_accounted_for` |" in pages["assets.md"]
    for command in ("days", "plan", "materialize-stale", "dvc-yaml", "comparison", "gc", "inspect"):
        assert command in pages["cli.md"]
    assert "--keep KEEP" in pages["cli.md"] and "gc: entries kept per asset" in pages["cli.md"]
    assert "`nightly_stale_assets` | `30 2 * * *` (UTC) | stopped" in pages["automation.md"]
