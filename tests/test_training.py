import numpy as np
import pytest
import torch

from ml_assets.core.infra.io import read_json
from ml_assets.core.params import MlmBackboneParams
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.text.vocab import load_tokenizer
from ml_assets.training.checkpoint import find_latest_checkpoint, list_checkpoints
from ml_assets.training.data import (
    BucketedBatches,
    LoaderPosition,
    collate,
    encode_texts,
    mask_tokens,
)
from ml_assets.training.mlm import MlmRun, pretrain_mlm
from ml_assets.training.model import count_parameters, load_pruned_mlm

from .conftest import SAMPLE_DESCRIPTIONS


def test_bucketed_batches_cover_each_row_once_per_epoch():
    lengths = np.random.default_rng(0).integers(3, 40, size=1037)
    batches = BucketedBatches(lengths, batch_size=32, seed=5).epoch_batches(0)
    seen = np.concatenate(batches)
    assert sorted(seen.tolist()) == list(range(1037))
    # length bucketing: padding share far below random batching
    padded = sum(len(b) * lengths[b].max() for b in batches)
    assert lengths.sum() / padded > 0.9


def test_loader_resumes_at_the_exact_next_batch():
    batches = BucketedBatches(np.arange(100) % 7 + 1, batch_size=8, seed=3)
    stream = batches.iterate(LoaderPosition())
    first = [next(stream) for _ in range(20)]  # crosses the epoch boundary (13 batches/epoch)
    position, _ = first[9]
    resumed = batches.iterate(position)
    for (_, expected), (_, actual) in zip(
        first[10:], (next(resumed) for _ in range(10)), strict=True
    ):
        assert np.array_equal(expected, actual)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [(7_823, 490), (600, 400), (20, 400), (40_000, 800)],
    ids=["default data: two epochs", "a few hundred rows: the floor", "tiny", "the cap"],
)
def test_training_length_follows_the_data_between_a_floor_and_a_cap(rows, expected):
    from ml_assets.core.params import MultitaskModelParams
    from ml_assets.training.finetune import training_steps

    assert training_steps(rows, MultitaskModelParams()) == expected
    notebook = MultitaskModelParams(min_steps=0)  # baseline_model's: epochs alone
    assert training_steps(600, notebook) == 38


def test_mask_rates_and_80_10_10_split():
    ids = torch.randint(10, 1000, (400, 64))
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = True
    inputs, labels = mask_tokens(
        ids,
        special,
        mask_prob=0.15,
        mask_id=4,
        vocab_size=1000,
        generator=torch.Generator().manual_seed(0),
    )
    chosen = labels != -100
    assert not chosen[:, 0].any()  # special tokens never masked
    rate = chosen.float().sum() / (~special).sum()
    assert abs(rate - 0.15) < 0.01
    masked = (inputs == 4) & chosen
    unchanged = (inputs == ids) & chosen
    assert abs(masked.sum() / chosen.sum() - 0.8) < 0.02
    assert (
        abs(unchanged.sum() / chosen.sum() - 0.1) < 0.02
    )  # (random may rarely equal the original)
    assert torch.equal(labels[chosen], ids[chosen])


def test_finetuning_masks_only_text_pieces_at_the_configured_rate():
    from ml_assets.training.data import mask_pieces

    ids = torch.randint(10, 1000, (400, 64))
    keep = torch.zeros_like(ids, dtype=torch.bool)
    keep[:, 0] = keep[:, -8:] = True  # [CLS] and padding
    masked = mask_pieces(ids, keep, prob=0.2, mask_id=4, generator=torch.Generator().manual_seed(0))
    changed = masked != ids
    assert not changed[keep].any()
    assert torch.all(masked[changed] == 4)
    assert abs(changed.float().sum() / (~keep).sum() - 0.2) < 0.01


def test_the_weight_average_is_a_bias_corrected_ema_and_swaps_in_and_out():
    from ml_assets.training.finetune import WeightAverage

    model = torch.nn.Linear(3, 1, bias=False)
    average = WeightAverage(model, decay=0.9)
    ema, steps = torch.zeros(1, 3), 30
    for step in range(steps):
        with torch.no_grad():
            model.weight.fill_(float(step + 1))
        average.update()
        ema = 0.9 * ema + 0.1 * model.weight.detach()
    expected = ema / (1 - 0.9**steps)
    (stored,) = average.tensors().values()
    assert torch.allclose(stored, ema)
    with average.swapped_in():
        assert torch.allclose(model.weight, expected)
        assert 20.0 < float(model.weight[0, 0]) < 30.0  # recent steps weigh most
    assert torch.all(model.weight == 30.0)  # the training weights are back
    restored = WeightAverage(model, decay=0.9)
    restored.restore(average.tensors(), updates=steps)
    pairs = zip(restored.averaged(), average.averaged(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs)


def test_pruned_model_hidden_states_match_original(backbone_source, tiny_tokenizer_dir):
    from transformers import AutoTokenizer, BertModel

    from ml_assets.core.infra.io import read_json

    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    pruned, params_before = load_pruned_mlm(backbone_source, new_to_old)
    original = BertModel.from_pretrained(backbone_source).eval()
    pruned.eval()
    assert count_parameters(pruned) < params_before * 0.6
    text = "tst* blue bottle coffee oakland ca"
    old_ids = AutoTokenizer.from_pretrained(backbone_source)(text, return_tensors="pt")["input_ids"]
    new_ids = load_tokenizer(tiny_tokenizer_dir)(text, return_tensors="pt")["input_ids"]
    assert [new_to_old[i] for i in new_ids[0].tolist()] == old_ids[0].tolist()
    with torch.no_grad():
        a = original(input_ids=old_ids).last_hidden_state
        b = pruned.bert(input_ids=new_ids).last_hidden_state
    assert torch.allclose(a, b, atol=1e-5)
    assert (
        pruned.cls.predictions.decoder.weight.data_ptr()
        == pruned.bert.embeddings.word_embeddings.weight.data_ptr()
    )


class Preempted(Exception):
    pass


def crash_after_checkpoint(step: int):
    def log(message: str) -> None:
        if message.startswith(f"step {step}/") and "checkpoint saved" in message:
            raise Preempted(message)

    return log


def _train(
    tokenizer_dir,
    backbone_source,
    root,
    steps,
    seed=0,
    log=lambda _: None,
    prefetch=False,
    hooks=None,
    anchor=0.0,
):
    tokenizer = FolderTokenizer.load(tokenizer_dir)
    from ml_assets.core.infra.io import read_json

    new_to_old = read_json(tokenizer_dir / "id_map.json")["new_to_old"]
    sequences = encode_texts(tokenizer, [t.lower() for t in SAMPLE_DESCRIPTIONS] * 6, 32)
    model, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1, seed=seed)
    settings = MlmBackboneParams(
        batch_size=8,
        steps=steps,
        learning_rate=1e-3,
        weight_decay=0.01,
        warmup_steps=1,
        mask_prob=0.15,
        checkpoint_every=3,
        seed=seed,
        anchor=anchor,
    )
    result = pretrain_mlm(
        model,
        sequences,
        settings,
        MlmRun(batch_size=8, prefetch=prefetch),
        special_ids=tokenizer.all_special_ids,
        mask_id=tokenizer.mask_token_id,
        pad_id=tokenizer.pad_token_id,
        checkpoint_root=root,
        device=torch.device("cpu"),
        log=log,
        hooks=hooks,
    )
    return model, result


@pytest.fixture(autouse=True)
def _deterministic():
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(False)


def test_resume_is_bit_identical(tiny_tokenizer_dir, backbone_source, tmp_path):
    straight, straight_result = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "a", steps=8)
    # interrupted right after the step-3 checkpoint; a fresh model then resumes from it
    with pytest.raises(Preempted):
        _train(
            tiny_tokenizer_dir,
            backbone_source,
            tmp_path / "b",
            steps=8,
            log=crash_after_checkpoint(3),
        )
    resumed, resumed_result = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "b", steps=8)
    assert resumed_result.resumed_from_step == 3
    assert resumed_result.loss_curve == straight_result.loss_curve
    for (name, a), (_, b) in zip(
        straight.state_dict().items(), resumed.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    assert [p.name for p in list_checkpoints(tmp_path / "b")] == [
        "step-00000006",
        "step-00000008",
    ]  # keep 2


def test_the_anchor_holds_pretraining_near_the_backbone_and_resumes_exactly(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    from ml_assets.core.infra.io import read_json

    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    backbone, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1, seed=0)
    start = dict(backbone.named_parameters())

    def drift(model) -> float:
        return max(float((p - start[n]).abs().max()) for n, p in model.named_parameters())

    free, _ = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "free", steps=8)
    # lr up to 1e-3 x 500: each step ends up to half-way back to the backbone
    held, held_result = _train(
        tiny_tokenizer_dir, backbone_source, tmp_path / "held", steps=8, anchor=500.0
    )
    assert 0 < drift(held) < 0.6 * drift(free)
    # the pull aims at the backbone, not at the checkpoint a resumed run starts from
    with pytest.raises(Preempted):
        _train(
            tiny_tokenizer_dir,
            backbone_source,
            tmp_path / "resumed",
            steps=8,
            anchor=500.0,
            log=crash_after_checkpoint(3),
        )
    resumed, resumed_result = _train(
        tiny_tokenizer_dir, backbone_source, tmp_path / "resumed", steps=8, anchor=500.0
    )
    assert resumed_result.resumed_from_step == 3
    assert resumed_result.loss_curve == held_result.loss_curve
    for (name, a), (_, b) in zip(
        held.state_dict().items(), resumed.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name


def test_corrupt_newest_checkpoint_falls_back(tiny_tokenizer_dir, backbone_source, tmp_path):
    _train(tiny_tokenizer_dir, backbone_source, tmp_path, steps=6)
    newest = list_checkpoints(tmp_path)[-1]
    weights = newest / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-10] ^= 0xFF
    weights.write_bytes(bytes(data))
    warnings = []
    assert find_latest_checkpoint(tmp_path, warn=warnings.append).name == "step-00000003"
    assert "does not match the manifest" in warnings[0]


def test_collate_pads_to_longest():
    ids, mask = collate([np.array([2, 5, 3]), np.array([2, 3])], pad_id=0)
    assert ids.tolist() == [[2, 5, 3], [2, 3, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 1, 0]]


def test_prefetched_training_is_identical(tiny_tokenizer_dir, backbone_source, tmp_path):
    plain, plain_result = _train(tiny_tokenizer_dir, backbone_source, tmp_path / "a", steps=4)
    threaded, threaded_result = _train(
        tiny_tokenizer_dir, backbone_source, tmp_path / "b", steps=4, prefetch=True
    )
    assert threaded_result.loss_curve == plain_result.loss_curve
    for (name, a), (_, b) in zip(
        plain.state_dict().items(), threaded.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name


def test_lora_finetuning_trains_few_weights_and_merges(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    from transformers import BertModel

    from ml_assets.core.params import MultitaskModelParams
    from ml_assets.training.finetune import LabeledSet, finetune
    from ml_assets.training.model import MultiTaskModel

    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=2, seed=0)
    mlm.save_pretrained(tmp_path / "backbone")
    heads = {"category": ["a", "b"], "transaction_type": ["x", "y"]}
    model = MultiTaskModel.from_backbone(tmp_path / "backbone", heads, dropout=0.1)
    frozen_before = {k: v.clone() for k, v in model.encoder.state_dict().items()}
    sequences = encode_texts(tokenizer, [t.lower() for t in SAMPLE_DESCRIPTIONS] * 4, 32)
    labels = {
        "category": np.arange(len(sequences)) % 2,
        "transaction_type": np.arange(len(sequences)) % 2,
    }
    data = LabeledSet(sequences, labels)
    config = MultitaskModelParams(
        batch_size=8,
        max_epochs=1,
        max_steps=4,
        eval_every=2,
        patience=5,
        learning_rate=1e-2,
        head_learning_rate=1e-2,
        weight_decay=0.0,
        warmup_steps=0,
        seed=0,
        lora_r=4,
        lora_alpha=8,
        label_smoothing=0.0,
        freeze_word_embeddings=False,
    )
    result = finetune(
        model,
        data,
        data,
        config,
        pad_id=tokenizer.pad_token_id,
        device=torch.device("cpu"),
        log=lambda _m: None,
    )
    total = sum(p.numel() for p in model.parameters())
    assert 0 < result.trainable_params < 0.1 * total
    assert type(model.encoder) is BertModel  # adapters merged: a plain encoder again
    after = model.encoder.state_dict()
    assert set(after) == set(frozen_before)
    changed = [k for k in after if not torch.equal(after[k], frozen_before[k])]
    assert changed and all("query" in k or "value" in k for k in changed)  # only LoRA targets moved
    (tmp_path / "model").mkdir()
    model.save(tmp_path / "model")
    MultiTaskModel.load(tmp_path / "model")


def test_profiler_flag_writes_a_tensorboard_trace(tiny_tokenizer_dir, backbone_source, tmp_path):
    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    sequences = encode_texts(tokenizer, [t.lower() for t in SAMPLE_DESCRIPTIONS] * 6, 32)
    model, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1, seed=0)
    settings = MlmBackboneParams(
        batch_size=8,
        steps=6,
        learning_rate=1e-3,
        weight_decay=0.0,
        warmup_steps=1,
        mask_prob=0.15,
        checkpoint_every=100,
        seed=0,
    )
    result = pretrain_mlm(
        model,
        sequences,
        settings,
        MlmRun(batch_size=8, profile_dir=tmp_path / "profile"),
        special_ids=tokenizer.all_special_ids,
        mask_id=tokenizer.mask_token_id,
        pad_id=tokenizer.pad_token_id,
        checkpoint_root=tmp_path / "ckpt",
        device=torch.device("cpu"),
        log=lambda _m: None,
    )
    traces = list((tmp_path / "profile").glob("*.pt.trace.json"))
    assert len(traces) == 1 and traces[0].stat().st_size > 1000
    assert result.perf["timed_steps"] == 6 and result.perf["tokens_per_second"] > 0


def test_mean_pooling_ignores_padding_and_cls_reads_the_first_token():
    from ml_assets.training.model import pool

    hidden = torch.tensor([[[1.0, 1.0], [3.0, 5.0], [100.0, 100.0]]])
    mask = torch.tensor([[1, 1, 0]])  # the third position is padding
    assert torch.equal(pool(hidden, mask, "mean"), torch.tensor([[2.0, 3.0]]))
    assert torch.equal(pool(hidden, mask, "cls"), torch.tensor([[1.0, 1.0]]))


def test_pooling_is_saved_with_the_model(backbone_source, tiny_tokenizer_dir, tmp_path):
    from ml_assets.training.model import MultiTaskModel

    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1)
    mlm.save_pretrained(tmp_path / "backbone")
    heads = {"category": ["a", "b"]}
    model = MultiTaskModel.from_backbone(tmp_path / "backbone", heads, 0.1, pooling="mean")
    model.save(tmp_path)
    assert MultiTaskModel.load(tmp_path).pooling == "mean"
    with pytest.raises(ValueError, match="pooling must be one of"):
        MultiTaskModel.from_backbone(tmp_path / "backbone", heads, 0.1, pooling="max")


def test_layer_wise_learning_rate_decay(backbone_source, tiny_tokenizer_dir, tmp_path):
    from ml_assets.training.finetune import encoder_groups
    from ml_assets.training.model import MultiTaskModel

    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=3)
    mlm.save_pretrained(tmp_path / "backbone")
    model = MultiTaskModel.from_backbone(tmp_path / "backbone", {"category": ["a", "b"]}, 0.1)
    groups = encoder_groups(model, 1e-4, 0.5)

    def part(name: str) -> str:  # "encoder.layer.2.attention..." -> "2"; "embeddings..." as is
        return name.split(".")[2] if name.startswith("encoder.layer.") else name.split(".")[0]

    by_rate = {g["lr"]: {part(n) for n, _ in g["named_params"]} for g in groups}
    assert by_rate == {1e-4: {"2"}, 5e-5: {"1"}, 2.5e-5: {"0"}, 1.25e-5: {"embeddings"}}
    assert sum(len(g["named_params"]) for g in groups) == len(
        list(model.encoder.named_parameters())
    )
    (single,) = encoder_groups(model, 1e-4, 1.0)
    assert single["lr"] == 1e-4


def test_the_probe_fits_a_logistic_regression_and_skips_unlabeled_rows():
    from ml_assets.training.data import IGNORE_INDEX
    from ml_assets.training.probe import fit_softmax_regression

    generator = torch.Generator().manual_seed(0)
    centers = torch.randn(3, 8, generator=generator) * 4
    labels = np.arange(300) % 3
    features = centers[labels] + torch.randn(300, 8, generator=generator)
    unlabeled = labels.copy()
    unlabeled[::2] = IGNORE_INDEX
    # the rows left out carry labels no class center predicts: fitting them would cost accuracy
    features[::2] = torch.randn(150, 8, generator=generator) * 4
    weight, bias, accuracy = fit_softmax_regression(features, unlabeled, 3, l2=1e-3)
    assert weight.shape == (3, 8) and bias.shape == (3,)
    kept = features[1::2]
    assert accuracy == 1.0
    assert np.array_equal((kept @ weight.T + bias).argmax(1).numpy(), labels[1::2])
    again = fit_softmax_regression(features, unlabeled, 3, l2=1e-3)
    assert torch.equal(again[0], weight)  # deterministic: no random draws
    strong = fit_softmax_regression(features, unlabeled, 3, l2=1.0)[0]
    assert strong.norm() < weight.norm() / 2  # l2 shrinks the weights


def test_probed_heads_read_the_frozen_features(backbone_source, tiny_tokenizer_dir, tmp_path):
    from ml_assets.training.finetune import predict_logits
    from ml_assets.training.model import MultiTaskModel
    from ml_assets.training.probe import initialize_heads_by_probe

    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1)
    mlm.save_pretrained(tmp_path / "backbone")
    heads = {"category": ["a", "b", "c"], "transaction_type": ["x", "y"]}
    model = MultiTaskModel.from_backbone(tmp_path / "backbone", heads, 0.1, pooling="mean")
    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    sequences = encode_texts(tokenizer, [t.lower() for t in SAMPLE_DESCRIPTIONS], 32)
    labels = {
        "category": np.arange(len(sequences)) % 3,
        "transaction_type": np.arange(len(sequences)) % 2,
    }
    encoder_before = {k: v.clone() for k, v in model.encoder.state_dict().items()}
    report = initialize_heads_by_probe(
        model, sequences, labels, l2=1e-4, batch_size=4, pad_id=tokenizer.pad_token_id,
        device=torch.device("cpu"),
    )  # fmt: skip
    assert report["category"] == 1.0 and report["transaction_type"] == 1.0  # distinct texts
    after = model.encoder.state_dict()
    assert all(torch.equal(v, after[k]) for k, v in encoder_before.items())  # encoder untouched
    logits = predict_logits(model, sequences, 4, tokenizer.pad_token_id, torch.device("cpu"))
    for head, values in labels.items():
        assert np.array_equal(logits[head].argmax(1), values)


def test_early_stopping_keeps_the_pass_with_the_best_valid_score(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    """The score finetune is given decides the kept pass, and the history records it beside
    the heads' mean macro-F1; the kept weights are that pass's."""
    from ml_assets.core.params import MultitaskModelParams
    from ml_assets.training.finetune import LabeledSet, finetune, predict_logits
    from ml_assets.training.model import MultiTaskModel

    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1, seed=0)
    mlm.save_pretrained(tmp_path / "backbone")
    sequences = encode_texts(tokenizer, [t.lower() for t in SAMPLE_DESCRIPTIONS] * 4, 32)
    data = LabeledSet(sequences, {"category": np.arange(len(sequences)) % 2})
    config = MultitaskModelParams(
        heads=["category"], batch_size=8, max_epochs=1, max_steps=6, min_steps=6, eval_every=2,
        patience=5, learning_rate=1e-3, head_learning_rate=1e-2, warmup_steps=0, seed=0,
    )  # fmt: skip
    passes = []

    def first_pass_best(logits: dict[str, np.ndarray]) -> float:
        passes.append(logits["category"].copy())
        return -float(len(passes))  # every later pass scores lower

    model = MultiTaskModel.from_backbone(tmp_path / "backbone", {"category": ["a", "b"]}, 0.1)
    result = finetune(
        model, data, data, config, pad_id=tokenizer.pad_token_id, device=torch.device("cpu"),
        log=lambda _m: None, valid_score=first_pass_best,
    )  # fmt: skip
    assert [h["step"] for h in result.history] == [2, 4, 6] and len(passes) == 3
    assert result.best_step == 2 and result.best_score == -1.0
    assert [h["valid_score"] for h in result.history] == [-1.0, -2.0, -3.0]
    assert all(0.0 <= h["valid_macro_f1"] <= 1.0 for h in result.history)
    kept = predict_logits(model, sequences, 16, tokenizer.pad_token_id, torch.device("cpu"))
    np.testing.assert_allclose(kept["category"], passes[0], atol=1e-5)
    assert not np.allclose(passes[0], passes[-1], atol=1e-5)


def test_added_pieces_train_while_the_pretrained_vectors_stay_frozen(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    """With the word embeddings frozen, ``train_added_pieces`` trains the rows of the pieces
    the pruning added (they start as [UNK]'s vector): those rows move, every other row of the
    table is bit-identical, [UNK]'s own included. Off, no row moves."""
    from ml_assets.core.params import MultitaskModelParams
    from ml_assets.core.text.id_map import added_piece_ids
    from ml_assets.training.finetune import LabeledSet, finetune
    from ml_assets.training.model import MultiTaskModel

    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    unk_old = new_to_old[tokenizer.unk_token_id]
    grown = [*new_to_old, unk_old, unk_old]  # two pieces added for characters the backbone lacks
    added = added_piece_ids(grown, unk_old)
    assert added == [len(new_to_old), len(new_to_old) + 1]
    mlm, _ = load_pruned_mlm(backbone_source, grown, num_layers=2, seed=0)
    mlm.save_pretrained(tmp_path / "backbone")
    texts = [t.lower() for t in SAMPLE_DESCRIPTIONS] * 4
    sequences = encode_texts(tokenizer, texts, 32)
    for i, row in enumerate(sequences):  # the added pieces stand in the middle of every row
        row[1] = added[i % 2]
    labels = {"category": np.arange(len(sequences)) % 2}
    data = LabeledSet(sequences, labels)

    def trained(train_added: bool) -> tuple[torch.Tensor, torch.Tensor]:
        torch.manual_seed(0)
        model = MultiTaskModel.from_backbone(tmp_path / "backbone", {"category": ["a", "b"]}, 0.1)
        before = model.encoder.get_input_embeddings().weight.detach().clone()
        config = MultitaskModelParams(
            batch_size=8, max_epochs=1, max_steps=4, eval_every=2, patience=5,
            head_learning_rate=1e-2, warmup_steps=0, seed=0, label_smoothing=0.0,
            train_added_pieces=train_added,
        )  # fmt: skip
        finetune(
            model, data, data, config, pad_id=tokenizer.pad_token_id,
            device=torch.device("cpu"), log=lambda _m: None, added_pieces=added,
        )  # fmt: skip
        return before, model.encoder.get_input_embeddings().weight.detach()

    before, after = trained(True)
    moved = (before != after).any(dim=1).nonzero().flatten().tolist()
    assert moved == added
    before, after = trained(False)
    assert torch.equal(before, after)
