"""Exact resume: the negative control (no RNG restore -> different weights), the SIGTERM path
(an emergency checkpoint between periodic ones), and kill -9 in the middle of a checkpoint write."""

from __future__ import annotations

import functools
import subprocess
import sys

import pytest
import torch

from ml_assets.training.checkpoint import find_latest_checkpoint, list_checkpoints
from ml_assets.training.mlm import TrainingHooks
from ml_assets.training.preemption import Preempted
from tests.test_training import _train

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _deterministic():
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(False)


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(
        torch.equal(x, y)
        for (_, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True)
    )


def _stop_at(step: int) -> TrainingHooks:
    reached = {"step": 0}
    return TrainingHooks(
        should_stop=lambda: reached["step"] >= step,
        on_step=lambda s, loss: reached.update(step=s),
    )


def test_sigterm_path_checkpoints_between_intervals_and_resumes_exactly(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    straight, _ = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "a", steps=8)
    with pytest.raises(Preempted) as stopped:
        _train(tiny_tokenizer_dir, backbone_source, tmp_path / "b", steps=8, hooks=_stop_at(4))
    assert stopped.value.step == 4  # checkpoint_every is 3: step 4 is an emergency checkpoint
    assert list_checkpoints(tmp_path / "b")[-1].name == "step-00000004"
    resumed, result = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "b", steps=8)
    assert result.resumed_from_step == 4
    assert _same_weights(straight, resumed)


def test_negative_control_without_rng_restore_weights_differ(
    tiny_tokenizer_dir, backbone_source, tmp_path, monkeypatch
):
    """The exact-resume tests have teeth: skip restoring RNG state and dropout masks after the
    resume differ, so the final weights do too."""
    straight, _ = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "a", steps=8)
    with pytest.raises(Preempted):
        _train(tiny_tokenizer_dir, backbone_source, tmp_path / "b", steps=8, hooks=_stop_at(4))
    monkeypatch.setattr("ml_assets.training.checkpoint._rng_restore", lambda *a: None)
    resumed, result = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "b", steps=8)
    assert result.resumed_from_step == 4
    assert not _same_weights(straight, resumed)


def test_kill_9_during_checkpoint_write_resumes_from_the_previous_one(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    root = tmp_path / "ckpt"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.kill_during_checkpoint", str(tiny_tokenizer_dir), str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -9, proc.stderr[-2000:]
    leftovers = list(root.glob(".tmp-step-00000006.*"))
    assert leftovers, "the killed write should have left its temp folder behind"
    assert find_latest_checkpoint(root).name == "step-00000003"
    straight, _ = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "a", steps=8)
    resumed, result = _train(tiny_tokenizer_dir, backbone_source, root, steps=8)
    assert result.resumed_from_step == 3
    assert _same_weights(straight, resumed)
    assert not list(root.glob(".tmp-step-*")), "leftovers are cleaned on the next save"


def _finetune(
    tokenizer_dir,
    backbone_source,
    backbone_dir,
    checkpoints,
    hooks=None,
    token_mask_prob=0.0,
    weight_average_decay=0.0,
    head_init="random",
):
    """A real (1-layer) MultiTaskModel finetuned 9 steps with evaluation every 3."""
    import numpy as np

    from ml_assets.core.infra.io import read_json
    from ml_assets.core.params import MultitaskModelParams
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer
    from ml_assets.training.data import encode_texts
    from ml_assets.training.finetune import LabeledSet, finetune
    from ml_assets.training.model import MultiTaskModel, load_pruned_mlm
    from tests.conftest import SAMPLE_DESCRIPTIONS

    tokenizer = FolderTokenizer.load(tokenizer_dir)
    if not backbone_dir.exists():
        new_to_old = read_json(tokenizer_dir / "id_map.json")["new_to_old"]
        mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1, seed=0)
        mlm.save_pretrained(backbone_dir)
    heads = {"category": ["a", "b", "c"], "transaction_type": ["x", "y"]}
    torch.manual_seed(0)  # head initialization (the stage seeds it from params the same way)
    model = MultiTaskModel.from_backbone(backbone_dir, heads, dropout=0.1)
    sequences = encode_texts(tokenizer, [t.lower() for t in SAMPLE_DESCRIPTIONS] * 4, 32)
    labels = {
        "category": np.arange(len(sequences)) % 3,
        "transaction_type": (np.arange(len(sequences)) // 3) % 2,
    }
    config = MultitaskModelParams(
        batch_size=8,
        max_epochs=3,
        max_steps=9,
        eval_every=3,
        patience=5,
        learning_rate=1e-3,
        head_learning_rate=1e-2,
        weight_decay=0.01,
        warmup_steps=1,
        seed=0,
        label_smoothing=0.0,
        freeze_word_embeddings=False,
        token_mask_prob=token_mask_prob,
        weight_average_decay=weight_average_decay,
        head_init=head_init,
    )
    result = finetune(
        model,
        LabeledSet(sequences, labels),
        LabeledSet(sequences, labels),
        config,
        pad_id=tokenizer.pad_token_id,
        device=torch.device("cpu"),
        mask_id=tokenizer.mask_token_id,
        special_ids=tokenizer.all_special_ids,
        log=lambda _m: None,
        checkpoint_root=checkpoints,
        hooks=hooks,
    )
    return model, result


@pytest.mark.parametrize(
    "recipe",
    [
        {},
        {"token_mask_prob": 0.3},
        {"weight_average_decay": 0.9},
        {"head_init": "linear_probe"},
    ],
    ids=str,
)
def test_finetuning_resumes_exactly_with_its_early_stopping_state(
    tiny_tokenizer_dir, backbone_source, tmp_path, recipe
):
    """Also with masking augmentation (the pieces a step masks depend on the step alone), with
    weight averaging (the average is in the checkpoint) and with heads initialized by a linear
    probe (a resumed run takes its heads from the checkpoint instead of probing again)."""
    backbone = tmp_path / "backbone"
    run = functools.partial(_finetune, tiny_tokenizer_dir, backbone_source, backbone, **recipe)
    straight, straight_result = run(tmp_path / "a")
    with pytest.raises(Preempted) as stopped:
        run(tmp_path / "b", hooks=_stop_at(5))
    assert stopped.value.step == 5
    resumed, result = run(tmp_path / "b")
    assert result.history == straight_result.history
    assert result.best_step == straight_result.best_step
    assert _same_weights(straight, resumed)


def _checkpointed_linear(root, steps=(3, 6)):
    """A tiny model checkpointed at `steps`, its weights set to the step number each time."""
    from ml_assets.training.checkpoint import TrainingState, save_checkpoint

    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in steps:
        with torch.no_grad():
            model.weight.fill_(step)
        save_checkpoint(root, TrainingState(step=step, loader={}), model, optimizer, None)
    return model, optimizer


def test_a_checkpoint_pruned_while_it_loads_gives_way_to_the_previous_one(tmp_path, monkeypatch):
    """An identical run training at the same time prunes the newest checkpoint between its
    verification and its load: resume takes the previous one, whole."""
    import ml_assets.training.checkpoint as checkpoint

    model, optimizer = _checkpointed_linear(tmp_path)
    real_load_file, calls = checkpoint.load_file, []

    def pruned_once(path, *args, **kwargs):
        calls.append(path)
        if "step-00000006" in str(path):
            raise FileNotFoundError(path)
        return real_load_file(path, *args, **kwargs)

    monkeypatch.setattr(checkpoint, "load_file", pruned_once)
    fresh = torch.nn.Linear(4, 2)
    warnings = []
    path, state = checkpoint.resume_latest(
        tmp_path, fresh, torch.optim.SGD(fresh.parameters(), lr=0.1), None, torch.device("cpu"),
        warn=warnings.append,
    )  # fmt: skip
    assert path.name == "step-00000003" and state.step == 3
    assert torch.equal(fresh.weight, torch.full((2, 4), 3.0))
    assert any("step-00000006" in w for w in warnings)


def test_a_partly_loaded_model_is_never_trained_on(tmp_path, monkeypatch):
    import ml_assets.training.checkpoint as checkpoint

    _checkpointed_linear(tmp_path, steps=(3,))

    def gone(path, *args, **kwargs):
        raise FileNotFoundError(path)

    monkeypatch.setattr(checkpoint, "load_file", gone)
    model = torch.nn.Linear(4, 2)
    with pytest.raises(checkpoint.ArtifactIntegrityError, match="run again"):
        checkpoint.resume_latest(
            tmp_path, model, torch.optim.SGD(model.parameters(), lr=0.1), None, torch.device("cpu")
        )
