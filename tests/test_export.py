import time
from collections import Counter

import numpy as np
import onnx
import polars as pl
import pytest
import torch

from ml_assets.core.infra.io import read_json
from ml_assets.core.intake.ingest import RAW_SCHEMA
from ml_assets.core.serving.latency import measure_latency
from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model
from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.text.vocab import load_tokenizer
from ml_assets.core.training_data.features import build_features
from ml_assets.training.data import encode_texts
from ml_assets.training.export import export_onnx, quantize_int8
from ml_assets.training.finetune import predict_logits
from ml_assets.training.model import MultiTaskModel, load_pruned_mlm

from .conftest import SAMPLE_DESCRIPTIONS

HEADS = {"category": ["a", "b", "c", "d"], "transaction_type": ["x", "y"]}


@pytest.fixture(scope="module")
def exported(tiny_tokenizer_dir, backbone_source, tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=2)
    mlm.save_pretrained(out / "backbone")
    torch.manual_seed(0)
    model = MultiTaskModel.from_backbone(out / "backbone", HEADS, dropout=0.1).eval()
    (out / "model").mkdir()
    model.save(out / "model")
    export_onnx(model, out / "fp32.onnx", opset=17)
    quantize_int8(out / "fp32.onnx", out / "int8.onnx")  # the default: blockwise
    quantize_int8(out / "fp32.onnx", out / "int8_dynamic.onnx", kernel="dynamic")
    return out, MultiTaskModel.load(out / "model")


def test_saved_model_round_trips(exported):
    out, reloaded = exported
    original = MultiTaskModel.load(out / "model")
    for (name, a), (_, b) in zip(
        original.state_dict().items(), reloaded.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    assert reloaded.head_labels == HEADS


def test_fp32_onnx_matches_pytorch(exported, tiny_tokenizer_dir):
    out, model = exported
    scorer = OnnxScorer(out / "fp32.onnx", tiny_tokenizer_dir, HEADS, max_length=32, threads=1)
    sequences = encode_for_model(scorer.tokenizer, SAMPLE_DESCRIPTIONS, 32)
    onnx_logits = scorer.logits(sequences, batch_size=4)  # mixed lengths: padding + dynamic axes
    torch_logits = predict_logits(model, sequences, 4, scorer.pad_id, torch.device("cpu"))
    for head in HEADS:
        np.testing.assert_allclose(onnx_logits[head], torch_logits[head], atol=1e-4)


def test_both_int8_kernels_are_int8(exported):
    out, _ = exported
    ops = {
        name: Counter(n.op_type for n in onnx.load(str(out / name)).graph.node)
        for name in ("int8.onnx", "int8_dynamic.onnx")
    }
    assert ops["int8.onnx"]["MatMulNBits"] == 2 * 6  # 2 layers x (q, k, v, attn out, ffn up, down)
    assert ops["int8_dynamic.onnx"]["MatMulInteger"] >= 2 * 6
    assert (out / "int8_dynamic.onnx").stat().st_size < (out / "fp32.onnx").stat().st_size / 2.5
    with pytest.raises(ValueError, match="int8_kernel must be one of"):
        quantize_int8(out / "fp32.onnx", out / "x.onnx", kernel="static")


def test_embedding_rows_are_int8_and_decode_closely(exported, tiny_tokenizer_dir):
    out, _ = exported
    quantize_int8(out / "fp32.onnx", out / "int8_fp32_embeddings.onnx", quantize_embeddings=False)
    quantize_int8(out / "fp32.onnx", out / "int8_rows.onnx")
    graph = onnx.load(str(out / "int8_rows.onnx")).graph
    tables = {i.name: i for i in graph.initializer}
    (name,) = [n for n in tables if n.endswith("_int8")]
    assert tables[name].data_type == onnx.TensorProto.INT8
    assert tables[name].dims[0] == len(load_tokenizer(tiny_tokenizer_dir))  # the word embeddings
    assert tables[name.removesuffix("_int8") + "_row_scale"].dims[1] == 1
    smaller = (out / "int8_fp32_embeddings.onnx").stat().st_size - (
        out / "int8_rows.onnx"
    ).stat().st_size
    assert smaller > 0.7 * 384 * 3 * tables[name].dims[0]  # ~3 of every 4 bytes of the table
    texts = generate_transactions(200, seed=5)["description"].to_list()
    logits = {}
    for variant in ("int8_fp32_embeddings.onnx", "int8_rows.onnx"):
        scorer = OnnxScorer(out / variant, tiny_tokenizer_dir, HEADS, max_length=32, threads=1)
        logits[variant] = scorer.logits(encode_for_model(scorer.tokenizer, texts, 32))["category"]
    drift = np.abs(logits["int8_rows.onnx"] - logits["int8_fp32_embeddings.onnx"]).max()
    assert drift < 0.05 * np.abs(logits["int8_fp32_embeddings.onnx"]).max()


def test_int8_is_smaller_and_mostly_agrees(exported, tiny_tokenizer_dir):
    out, model = exported
    # blockwise: matmul weights ~4x smaller, and the word embeddings stored as int8 rows
    assert (out / "int8.onnx").stat().st_size < (out / "fp32.onnx").stat().st_size / 2
    scorer = OnnxScorer(out / "int8.onnx", tiny_tokenizer_dir, HEADS, max_length=32, threads=1)
    texts = generate_transactions(300, seed=3)["description"].to_list()
    sequences = encode_for_model(scorer.tokenizer, texts, 32)
    onnx_pred = scorer.logits(sequences)["category"].argmax(1)
    torch_pred = predict_logits(model, sequences, 64, scorer.pad_id, torch.device("cpu"))[
        "category"
    ].argmax(1)
    # random heads make near-ties common, so this bound is loose; the real gate runs in onnx_model
    assert np.mean(onnx_pred == torch_pred) > 0.85
    latency = measure_latency(scorer, texts, requests=20, rounds=2)
    assert 0 < latency["own_p50_ms"] <= latency["own_p99_ms"] <= latency["raw_p99_ms"]
    assert latency["reference_ms_measured"] > 0
    predicted = scorer.predict(texts[:3])
    assert set(predicted) == set(HEADS) and all(
        p in HEADS["category"] for p in predicted["category"]
    )


def test_serving_token_ids_equal_training_token_ids(tiny_tokenizer_dir):
    """No train-serve skew: the scorer's path (raw text in) gives byte-identical ids to the
    features path (normalize in polars, then the training encoder)."""
    raw = generate_transactions(500, seed=11)
    features = build_features(
        raw.select(list(RAW_SCHEMA)),
        max_description_chars=512,
        heldout_test_pct=10,
        heldout_valid_pct=10,
        seen_test_pct=5,
        seen_valid_pct=5,
        salt="s",
    )
    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    served = encode_for_model(tokenizer, raw["description"].to_list(), 48)
    trained = encode_texts(tokenizer, features["text"].to_list(), 48)
    assert len(served) == len(trained) == 500
    for a, b in zip(served, trained, strict=True):
        assert a.astype(np.int64).tobytes() == b.astype(np.int64).tobytes()
    assert (
        pl.Series(features["text"]).str.contains("[A-Z]").sum() == 0
    )  # normalized text is lowercase


def test_latency_keeps_each_texts_fastest_time_and_scales_by_the_reference():
    """Noise only adds: a text slowed in one round counts at its fastest; a machine twice as
    slow for the reference as the serving hardware halves the figures."""
    from ml_assets.core.quality.export_gates import on_serving_hardware
    from ml_assets.core.serving.latency import measure_against_reference

    cost = {0: 0.002, 1: 0.004}  # seconds per text
    calls = {"n": 0}

    def request(i: int) -> None:
        calls["n"] += 1
        time.sleep(cost[i] + (0.02 if calls["n"] % 3 == 0 else 0.0))  # every third one is hit

    measured = measure_against_reference(
        request, lambda: time.sleep(0.002), texts=2, requests=2, rounds=4, warmup=0
    )
    assert measured["own_p50_ms"] < 5 < measured["raw_p99_ms"]  # the hits are gone
    assert 1.9 < measured["reference_ms_measured"] < 3.5
    serving = on_serving_hardware(measured, measured["reference_ms_measured"] / 2)
    assert serving["machine_slowdown"] == pytest.approx(2.0)
    assert serving["p99_ms"] == pytest.approx(measured["own_p99_ms"] / 2)
