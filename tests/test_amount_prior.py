"""The amount beside the text: buckets that PyTorch and onnxruntime agree on, a table that
counts what training saw, a weight taken only for a clear gain, and a model that carries the
prior through save, load, ONNX export and the serving scorer."""

import numpy as np
import onnxruntime as ort
import pytest
import torch
from transformers import BertConfig

from ml_assets.core.serving.scoring import AMOUNT_INPUT, checked_amounts, pad_batch
from ml_assets.training.amount_prior import (
    MAGNITUDES,
    AmountPrior,
    amount_table,
    buckets_numpy,
    choose_amount_weight,
)
from ml_assets.training.finetune import predict_logits
from ml_assets.training.model import MultiTaskModel

HEADS = {"category": ["coffee", "rent", "salary"], "transaction_type": ["card", "transfer"]}
# every bucket's edges: 2**k - 1 starts magnitude k; the float32 just below it does not
EDGES = np.array([0.0, 0.99, 1.0, 2.99, 3.0, 1023.0, 1e9, -1.0, -0.5, -3.0, -1e9])


def test_buckets_split_spending_from_money_in_at_powers_of_two():
    assert buckets_numpy(EDGES).tolist() == [15, 15, 16, 16, 17, 25, 29, 1, 0, 2, 14]
    just_below = np.nextafter(np.float32(1023.0), np.float32(0))
    assert buckets_numpy(np.array([just_below])).tolist() == [15 + 9]
    assert buckets_numpy(np.array([-1e9, 1e9])).max() == 2 * MAGNITUDES - 1


def test_the_table_says_which_label_a_bucket_holds_more_of_than_average():
    buckets = np.array([1, 1, 1, 1, 25, 25, 20, 20])
    labels = np.array([0, 0, 0, 1, 1, 1, 2, -100])  # the last row is unlabeled
    table = amount_table(buckets, labels, 3)
    assert table.shape == (2 * MAGNITUDES, 3)
    assert table[1].argmax() == 0 and table[25].argmax() == 1 and table[20].argmax() == 2
    assert table[1, 0] > 0 > table[1, 2]
    np.testing.assert_allclose(table[5], table[6])  # buckets no row fell in: the prior alone


def valid_rows(seed: int, amounts_say_the_label: bool):
    """200 validation rows of 40 merchants (half held out) whose text model is right on 70 %;
    the amounts either carry the label (spending for coffee, a large sum for rent, money in for
    salary) or are drawn alike for every label."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, 200)
    merchants = np.array([f"m{i % 40}" for i in range(200)])
    heldout = np.array([i % 40 < 20 for i in range(200)])
    right = rng.random(200) < 0.7
    guess = np.where(right, labels, (labels + rng.integers(1, 3, 200)) % 3)
    logprobs = np.log(np.full((200, 3), 0.2))
    logprobs[np.arange(200), guess] = np.log(0.6)
    if amounts_say_the_label:
        amounts = np.select([labels == 0, labels == 1], [-4.5, -1500.0], 3000.0)
    else:
        amounts = -rng.uniform(2, 200, 200)
    return labels, amounts, logprobs, heldout, merchants


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_weight_is_taken_only_where_the_amounts_gain_clearly_on_validation(seed):
    labels, amounts, logprobs, heldout, merchants = valid_rows(seed, amounts_say_the_label=True)
    table = amount_table(buckets_numpy(amounts), labels, 3)
    terms = table[buckets_numpy(amounts)]
    weight, gain = choose_amount_weight(logprobs, terms, labels, heldout, merchants)
    assert weight > 0 and gain > 20
    fixed = (logprobs + weight * terms).argmax(1) == labels
    assert fixed.mean() > ((logprobs.argmax(1) == labels).mean() + 0.2)

    labels, amounts, logprobs, heldout, merchants = valid_rows(seed, amounts_say_the_label=False)
    train_buckets = buckets_numpy(-np.random.default_rng(seed + 9).uniform(2, 200, 600))
    table = amount_table(train_buckets, np.random.default_rng(seed).integers(0, 3, 600), 3)
    weight, _ = choose_amount_weight(
        logprobs, table[buckets_numpy(amounts)], labels, heldout, merchants
    )
    assert weight == 0.0


def tiny_model(prior: bool) -> MultiTaskModel:
    config = BertConfig(
        vocab_size=40, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, pad_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    net = MultiTaskModel(config, HEADS, dropout=0.0, pooling="mean").eval()
    if prior:
        net.amount_prior = AmountPrior({h: len(n) for h, n in HEADS.items()})
        net.amount_prior.table.copy_(torch.randn(net.amount_prior.table.shape) * 3)
        net.amount_prior.weight.copy_(torch.tensor([1.0, 0.0]))  # category reads it, type not
    return net


SEQUENCES = [np.array([2, 5, 6, 7, 3]), np.array([2, 8, 3]), np.array([2, 9, 10, 11, 12, 3])]


def test_a_model_that_reads_amounts_survives_save_load_export_and_serving(tmp_path):
    from ml_assets.training.export import export_onnx

    net = tiny_model(prior=True)
    amounts = EDGES[[1, 5, 7]]
    with torch.no_grad():
        text_only = predict_logits(net, SEQUENCES, 2, 0, torch.device("cpu"))
    expected = predict_logits(net, SEQUENCES, 2, 0, torch.device("cpu"), amounts)
    assert not np.allclose(expected["category"], text_only["category"])
    np.testing.assert_allclose(expected["transaction_type"], text_only["transaction_type"])
    net.save(tmp_path)
    loaded = MultiTaskModel.load(tmp_path)
    assert loaded.reads_amount
    np.testing.assert_allclose(
        predict_logits(loaded, SEQUENCES, 3, 0, torch.device("cpu"), amounts)["category"],
        expected["category"],
        atol=1e-6,
    )
    export_onnx(loaded, tmp_path / "model.onnx", opset=17)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()][-1] == AMOUNT_INPUT
    feed = pad_batch(SEQUENCES, 0, amounts)
    for got, head in zip(session.run(None, feed), HEADS, strict=True):
        np.testing.assert_allclose(got, expected[head], atol=1e-4)


def test_a_model_saved_with_the_prior_after_the_mix_asks_to_be_retrained(tmp_path):
    """A model saved when the prior's terms went after the bag's mix (its config without a
    placement) had its weight chosen for that: loading it says so instead of mixing otherwise."""
    import json

    net = tiny_model(prior=True)
    net.save(tmp_path)
    config_file = next(tmp_path.glob("*config.json"))
    config = json.loads(config_file.read_text())
    assert config["amount_prior"]["placement"] == "encoder_side"
    del config["amount_prior"]["placement"]
    config_file.write_text(json.dumps(config))
    with pytest.raises(ValueError, match="materialize multitask_model again"):
        MultiTaskModel.load(tmp_path)


def test_a_text_only_model_exports_without_the_amount_input(tmp_path):
    from ml_assets.training.export import export_onnx

    net = tiny_model(prior=False)
    assert not net.reads_amount
    export_onnx(net, tmp_path / "model.onnx", opset=17)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["input_ids", "attention_mask"]


def test_a_model_that_reads_amounts_says_so_when_they_are_missing():
    assert checked_amounts(False, None, 3) is None
    with pytest.raises(ValueError, match="reads each transaction's amount"):
        checked_amounts(True, None, 3)
    with pytest.raises(ValueError, match="expected 3 finite numbers"):
        checked_amounts(True, [1.0, 2.0], 3)
    with pytest.raises(ValueError, match="NaN"):
        checked_amounts(True, [1.0, float("nan"), 2.0], 3)


def test_the_export_gates_and_the_scorer_feed_each_rows_amount(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    """onnx_model's path on a model that reads amounts: the int8 recipe measured with each
    row's amount, the int8 scorer against PyTorch (parity), batch-1 latency."""
    from ml_assets.core.infra.io import read_json
    from ml_assets.core.serving.latency import measure_latency
    from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model
    from ml_assets.training.export import export_onnx
    from ml_assets.training.int8_recipe import choose_int8_recipe
    from ml_assets.training.model import load_pruned_mlm
    from ml_assets.training.parity import compare_with_pytorch

    from .conftest import SAMPLE_DESCRIPTIONS

    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=1)
    mlm.save_pretrained(tmp_path / "backbone")
    torch.manual_seed(0)
    net = MultiTaskModel.from_backbone(tmp_path / "backbone", HEADS, 0.0, "mean").eval()
    net.amount_prior = AmountPrior({h: len(n) for h, n in HEADS.items()})
    net.amount_prior.table.copy_(torch.randn(net.amount_prior.table.shape) * 5)
    net.amount_prior.weight.fill_(1.0)
    export_onnx(net, tmp_path / "fp32.onnx", opset=17)
    texts = SAMPLE_DESCRIPTIONS * 4
    amounts = np.resize(EDGES, len(texts))
    scorer = OnnxScorer(tmp_path / "fp32.onnx", tiny_tokenizer_dir, HEADS, 32, threads=1)
    sequences = encode_for_model(scorer.tokenizer, texts, 32)
    reference = predict_logits(net, sequences, 8, scorer.pad_id, torch.device("cpu"), amounts)
    labels = {h: reference[h].argmax(1) for h in HEADS}
    record = choose_int8_recipe(
        tmp_path / "fp32.onnx", tmp_path / "int8.onnx", {}, sequences, scorer.pad_id,
        reference, labels, min_agreement=0.9, max_drop_pt=10.0, max_fp32_nodes=0,
        threads=1, log=lambda _: None, amounts=amounts,
    )  # fmt: skip
    assert record["passed"], record["reason"]
    int8 = OnnxScorer(tmp_path / "int8.onnx", tiny_tokenizer_dir, HEADS, 32, threads=1)
    assert int8.reads_amount
    parity = compare_with_pytorch(int8, net, texts, labels, 8, amounts)
    assert all(parity[h]["agreement"] >= 0.9 for h in HEADS)
    # the amounts decide: the same texts with other amounts score otherwise
    moved = int8.logits(sequences, 8, -amounts)["category"]
    assert not np.allclose(moved, int8.logits(sequences, 8, amounts)["category"])
    latency = measure_latency(int8, texts, requests=8, rounds=1, amounts=amounts)
    assert latency["raw_p50_ms"] > 0
