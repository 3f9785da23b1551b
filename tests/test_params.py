from pathlib import Path

import pytest
import yaml

from ml_assets.core.params import ParamsError, load_params

REPO_PARAMS = Path(__file__).resolve().parents[1] / "params.yaml"


@pytest.fixture(autouse=True)
def _no_profile_from_env(monkeypatch):
    monkeypatch.delenv("TXN_PARAMS_PROFILE", raising=False)


def test_repo_params_validate_for_every_profile():
    raw = yaml.safe_load(REPO_PARAMS.read_text())
    defaults = load_params(REPO_PARAMS)
    assert defaults.raw_transactions.source == "synthetic"
    for profile in raw["profiles"]:
        params = load_params(REPO_PARAMS, profile)
        assert params.mlm_backbone.steps >= 1


def test_tiny_profile_overrides_only_what_it_names():
    default, tiny = load_params(REPO_PARAMS), load_params(REPO_PARAMS, "tiny")
    assert tiny.raw_transactions.n_rows < default.raw_transactions.n_rows
    assert tiny.mlm_backbone.learning_rate == default.mlm_backbone.learning_rate


def test_unknown_key_is_named(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("mlm_backbone:\n  stepz: 3\n")
    with pytest.raises(ParamsError, match=r"mlm_backbone\.stepz"):
        load_params(path)


def test_unknown_profile_lists_known_ones():
    with pytest.raises(ParamsError, match="unknown profile 'huge'.*tiny"):
        load_params(REPO_PARAMS, "huge")


def test_bad_combination_explains_fix(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("raw_transactions:\n  source: files\n")
    with pytest.raises(ParamsError, match="needs `path`"):
        load_params(path)


def test_env_profile_is_used(monkeypatch):
    monkeypatch.setenv("TXN_PARAMS_PROFILE", "tiny")
    assert (
        load_params(REPO_PARAMS).raw_transactions.n_rows
        == load_params(REPO_PARAMS, "tiny").raw_transactions.n_rows
    )


def test_a_yaml_syntax_error_names_the_file_line_and_column(tmp_path):
    bad = tmp_path / "params.yaml"
    bad.write_text("multitask_model:\n  dropout: 0.1\n  learning_rate: [oops\n")
    with pytest.raises(ParamsError, match=rf"{bad}:4:1: not valid YAML"):
        load_params(bad)


def test_every_profile_is_validated_at_load_with_the_line_of_the_bad_value(tmp_path):
    text = REPO_PARAMS.read_text()
    assert "\nprofiles:\n" in text
    text = text.replace(
        "\nprofiles:\n", "\nprofiles:\n  broken:\n    multitask_model:\n      dropout: lots\n", 1
    )
    bad = tmp_path / "params.yaml"
    bad.write_text(text)
    line = text.splitlines().index("      dropout: lots") + 1
    with pytest.raises(
        ParamsError, match=rf"profile=broken\): line {line}: multitask_model.dropout"
    ):
        load_params(bad)  # the default profile is selected; the broken one still fails the load


def test_params_yaml_is_generated_from_the_schema():
    from ml_assets.wiring.generated_files import drift
    from ml_assets.wiring.params_yaml import render_params_yaml

    generated = render_params_yaml()
    assert REPO_PARAMS.read_text() == generated, (
        "params.yaml drifted from the params schema; run `python -m ml_assets params-yaml`\n"
        + drift(REPO_PARAMS, generated)
    )


def test_the_generated_file_loads_back_as_the_schema_defaults_and_profiles(tmp_path):
    """Every section is in the file (DVC reads them), each loads as exactly the schema's
    defaults, and its profiles are the built-in ones, each giving what it gives over the
    defaults."""
    from ml_assets.core.params import PipelineParams, deep_merge
    from ml_assets.core.profiles import profile_values
    from ml_assets.wiring.params_yaml import render_params_yaml

    path = tmp_path / "params.yaml"
    path.write_text(render_params_yaml())
    raw = yaml.safe_load(path.read_text())
    assert raw.pop("profiles") == profile_values()
    assert list(raw) == list(PipelineParams.model_fields)
    defaults = PipelineParams()
    for section, values in raw.items():
        assert values == defaults.section(section), section  # no key left to the schema
    assert load_params(path) == defaults
    for name, overrides in profile_values().items():
        assert load_params(path, name) == PipelineParams.model_validate(deep_merge({}, overrides))


def test_every_description_in_the_schema_is_a_comment_in_the_file():
    from ml_assets.core.params import PipelineParams
    from ml_assets.core.profiles import PROFILES

    comments = " ".join(
        line.split("# ", 1)[1] for line in REPO_PARAMS.read_text().splitlines() if "# " in line
    )
    texts = [PipelineParams.model_fields[s].annotation.__doc__ for s in PipelineParams.model_fields]
    for field in PipelineParams.model_fields.values():
        texts += [f.description for f in field.annotation.model_fields.values()]
    for profile in PROFILES.values():
        texts += [profile.why, *(o.why for o in profile.sections.values())]
    missing = [t for t in texts if t and " ".join(t.split()) not in comments]
    assert not missing, missing


@pytest.mark.parametrize(
    "value",
    [
        "2026-01-01", "yes", "null", "1.5", "", "a: b", "#x", "\t", "|", "%m/%d/%Y",
        "^/(?!encoder/)", "txn-split-v1", "caf\u00e9", 5e-05, 2e-4, 1e16, -0.0, 0.25, 10,
        True, None, [3.0, "on"], {"Chase*.CSV": {"csv_preset": "card_activity"}}, {},
    ],
)  # fmt: skip
def test_a_written_value_reads_back_equal_and_of_its_type(value):
    from ml_assets.wiring.params_yaml import scalar

    read = yaml.safe_load(f"key: {scalar(value)}\n")["key"]
    assert read == value and type(read) is type(value)


def test_cli_check_reports_drift_and_regenerates(tmp_path, monkeypatch, capsys):
    from ml_assets.__main__ import main
    from ml_assets.wiring.params_yaml import render_params_yaml

    target = tmp_path / "params.yaml"
    monkeypatch.setattr("ml_assets.wiring.params_yaml.PARAMS_YAML", target)
    target.write_text(render_params_yaml().replace("  seed: 7", "  seed: 8", 1))
    assert main(["params-yaml", "--check"]) == 1
    out = capsys.readouterr().out
    assert "-  seed: 8" in out and "+  seed: 7" in out
    assert "drifted from the params schema" in out and "`python -m ml_assets params-yaml`" in out
    assert target.read_text().count("seed: 8") == 1  # --check writes nothing
    assert main(["params-yaml"]) == 0
    assert target.read_text() == render_params_yaml()
    assert main(["params-yaml", "--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_the_launchpad_shows_every_section_key_as_a_typed_optional_field():
    """Each asset's run config has one field per key of its params section (the launchpad's
    form), none required, typed as the section model types it."""
    from dagster._config import ConfigTypeKind

    from ml_assets.core import params as sections
    from ml_assets.definitions import ASSETS

    expected = {
        "raw_transactions": sections.RawTransactionsParams,
        "transaction_features": sections.TransactionFeaturesParams,
        "training_features": sections.TrainingFeaturesParams,
        "pruned_tokenizer": sections.PrunedTokenizerParams,
        "tokenized_corpus": sections.TokenizedCorpusParams,
        "mlm_backbone": sections.MlmBackboneParams,
        "multitask_model": sections.MultitaskModelParams,
        "baseline_model": sections.BaselineModelParams,
        "onnx_model": sections.OnnxModelParams,
        "model_evaluation": sections.ModelEvaluationParams,
        "tfidf_reference": sections.ReferenceModelsParams,
        "frozen_encoder_reference": sections.ReferenceModelsParams,
        "batch_predictions": sections.BatchPredictionsParams,
    }
    by_name = {a.key.to_user_string(): a for a in ASSETS}
    assert set(expected) <= set(by_name)
    for asset, section in expected.items():
        fields = by_name[asset].op.config_schema.config_type.fields
        assert set(section.model_fields) <= set(fields), asset
        assert not any(field.is_required for field in fields.values()), asset
    fields = by_name["multitask_model"].op.config_schema.config_type.fields
    learning_rate = fields["learning_rate"].config_type
    assert learning_rate.kind == ConfigTypeKind.NONEABLE and learning_rate.inner_type.key == "Float"
    assert fields["heads"].config_type.inner_type.kind == ConfigTypeKind.ARRAY
    assert {"tier", "spot"} <= set(fields)  # where to run: not part of the fingerprint
    assert "default: 5e-05" in fields["learning_rate"].description
