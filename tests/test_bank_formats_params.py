"""A small params file of one's own is the documented way to read one's exports: it gets the
built-in profiles (tiny, gpu) of the repository's params.yaml, may define or override its own
(its own win), and its reading keys are validated with the key named."""

from __future__ import annotations

import pytest
import yaml

from ml_assets.core.params import DEFAULT_PARAMS_PATH, ParamsError, load_params

BUILTIN = yaml.safe_load(DEFAULT_PARAMS_PATH.read_text())["profiles"]
SMALL = "raw_transactions: {source: files, path: /data/exports, csv_preset: card_activity}\n"


@pytest.fixture(autouse=True)
def _no_profile_from_env(monkeypatch):
    monkeypatch.delenv("TXN_PARAMS_PROFILE", raising=False)


def test_a_partial_params_file_gets_the_builtin_profiles(tmp_path, monkeypatch):
    path = tmp_path / "my-params.yaml"
    path.write_text(SMALL)
    monkeypatch.setenv("TXN_PARAMS_PROFILE", "tiny")
    tiny = load_params(path)
    assert tiny.raw_transactions.source == "files"  # its own keys, under the profile's
    assert tiny.raw_transactions.csv_preset == "card_activity"
    assert tiny.mlm_backbone.steps == BUILTIN["tiny"]["mlm_backbone"]["steps"]
    assert tiny.raw_transactions.n_rows == BUILTIN["tiny"]["raw_transactions"]["n_rows"]
    assert load_params(path, "gpu").mlm_backbone.steps == BUILTIN["gpu"]["mlm_backbone"]["steps"]
    monkeypatch.delenv("TXN_PARAMS_PROFILE")
    assert load_params(path).mlm_backbone.steps == 0  # no profile: the defaults


def test_its_own_profiles_win_and_unknown_ones_list_both(tmp_path):
    path = tmp_path / "my-params.yaml"
    path.write_text(
        SMALL + "profiles:\n  tiny:\n    mlm_backbone: {steps: 1}\n"
        "  laptop:\n    multitask_model: {max_steps: 50}\n"
    )
    tiny = load_params(path, "tiny")
    assert tiny.mlm_backbone.steps == 1
    assert tiny.raw_transactions.n_rows == 40000  # its tiny replaces the built-in one whole
    assert load_params(path, "laptop").multitask_model.max_steps == 50
    with pytest.raises(ParamsError, match=r"unknown profile 'huge'; defined: \['gpu', 'laptop'"):
        load_params(path, "huge")


def test_its_own_broken_profile_fails_at_load_with_its_line(tmp_path):
    path = tmp_path / "my-params.yaml"
    path.write_text(SMALL + "profiles:\n  mine:\n    multitask_model:\n      dropout: lots\n")
    with pytest.raises(ParamsError, match=r"profile=mine\): line 5: multitask_model.dropout"):
        load_params(path)


def test_reading_keys_are_validated_with_the_key_named(tmp_path):
    path = tmp_path / "my-params.yaml"
    path.write_text(
        "raw_transactions:\n  source: files\n  path: /data\n  exports:\n"
        "    'Chase*.CSV': {csv_preset: chase}\n"
    )
    with pytest.raises(ParamsError, match=r"line 5: raw_transactions.exports.Chase\*.CSV: .*chase"):
        load_params(path)
    path.write_text("raw_transactions: {decimal: ';'}\n")
    with pytest.raises(ParamsError, match="raw_transactions.decimal"):
        load_params(path)


def test_the_repository_params_file_is_its_own_profiles(tmp_path):
    from ml_assets.core.params import builtin_profiles

    assert builtin_profiles(DEFAULT_PARAMS_PATH) == {}  # nothing to add to itself
    copy = tmp_path / "params.yaml"
    data = yaml.safe_load(DEFAULT_PARAMS_PATH.read_text())
    del data["profiles"]["tiny"]["promotion"]  # a full copy's own tiny wins, keys removed too
    copy.write_text(yaml.safe_dump(data))
    assert load_params(copy, "tiny").promotion.min_margin_pt == 3.0
