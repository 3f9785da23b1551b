"""choose_int8_recipe on a tiny real MiniLM whose configured int8 export misses the gate."""

import json
from collections import Counter
from types import SimpleNamespace

import numpy as np
import onnx
import pytest
import torch

from ml_assets.core.infra.io import read_json
from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model
from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.training_data.labels import IGNORE_INDEX
from ml_assets.training.data import length_sorted_batches
from ml_assets.training.export import (
    export_onnx,
    quantize_int8,
    quantized_weight_nodes,
    restore_fp32_nodes,
)
from ml_assets.training.finetune import predict_logits
from ml_assets.training.int8_recipe import choose_int8_recipe
from ml_assets.training.model import MultiTaskModel, load_pruned_mlm, pool

HEADS = {"category": ["a", "b", "c", "d"], "transaction_type": ["x", "y"]}
# params.yaml's onnx_model recipe: blockwise, blocks of 16, the heads fp32, int8 embedding rows
CONFIGURED = {
    "kernel": "blockwise",
    "block_size": 16,
    "keep_fp32_nodes": ("^/(?!encoder/)",),
    "quantize_embeddings": True,
}
MAX_LENGTH = 32


@pytest.fixture(scope="module")
def sensitive(tiny_tokenizer_dir, backbone_source, tmp_path_factory):
    """A 2-layer MiniLM with mean pooling whose heads are drawn at random over the standardized
    pooled features of the validation rows, so every class is predicted and margins spread: its
    int8 export flips ~1 % of rows, as a trained model's does. (Heads at their init predict one
    class for every row, and then int8 never disagrees.) PyTorch logits are the reference."""
    out = tmp_path_factory.mktemp("int8_recipe")
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=2)
    mlm.save_pretrained(out / "backbone")
    torch.manual_seed(0)
    model = MultiTaskModel.from_backbone(out / "backbone", HEADS, dropout=0.1, pooling="mean")
    model.eval()
    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    texts = generate_transactions(400, seed=3)["description"].to_list()
    sequences = encode_for_model(tokenizer, texts, MAX_LENGTH)
    _spread_heads(model, sequences, tokenizer.pad_token_id)
    export_onnx(model, out / "fp32.onnx", opset=17)
    reference = predict_logits(model, sequences, 64, tokenizer.pad_token_id, torch.device("cpu"))
    # half the rows labeled; the labels follow the reference 85 % of the time
    rng = np.random.default_rng(0)
    labels = {}
    for head, logits in reference.items():
        truth = np.where(
            rng.random(len(logits)) < 0.85, logits.argmax(1), rng.integers(0, 2, len(logits))
        )
        labels[head] = np.where(rng.random(len(logits)) < 0.5, truth, IGNORE_INDEX)
    return SimpleNamespace(
        fp32=out / "fp32.onnx",
        tokenizer_dir=tiny_tokenizer_dir,
        sequences=sequences,
        pad_id=tokenizer.pad_token_id,
        reference=reference,
        labels=labels,
    )


def _spread_heads(model: MultiTaskModel, sequences, pad_id: int) -> None:
    """Each head: random directions over the pooled features, centred on their mean and scaled
    to logits of std ~3 (seeded)."""
    batches, inverse = length_sorted_batches(sequences, 64, pad_id)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        hidden = [
            pool(model.encoder(input_ids=ids, attention_mask=mask).last_hidden_state, mask, "mean")
            for ids, mask in batches
        ]
        pooled = torch.cat(hidden)[inverse]
        for head in model.heads.values():
            weight = torch.randn(head.weight.shape, generator=generator)
            weight *= 3 / (pooled.std() * pooled.shape[1] ** 0.5)
            head.weight.copy_(weight)
            head.bias.copy_(-weight @ pooled.mean(0))


def _choose(model, int8_path, recipe=CONFIGURED, **gate):
    return choose_int8_recipe(
        model.fp32,
        int8_path,
        dict(recipe),
        model.sequences,
        model.pad_id,
        model.reference,
        model.labels,
        threads=1,
        log=lambda message: None,
        **gate,
    )


def _file_logits(model, path) -> dict[str, np.ndarray]:
    """Logits of an int8 file alone, through the serving scorer."""
    scorer = OnnxScorer(path, model.tokenizer_dir, HEADS, MAX_LENGTH, threads=1)
    return scorer.logits(model.sequences, batch_size=64)


def _agreement(model, logits: dict[str, np.ndarray]) -> dict[str, float]:
    return {
        head: float(np.mean(logits[head].argmax(1) == model.reference[head].argmax(1)))
        for head in HEADS
    }


def _min_agreement(report: dict[str, dict]) -> float:
    return min(values["agreement"] for values in report.values())


def test_a_configured_recipe_that_passes_costs_one_quantization(sensitive, tmp_path):
    record = _choose(
        sensitive, tmp_path / "int8.onnx", min_agreement=0.95, max_drop_pt=5.0, max_fp32_nodes=4
    )
    assert record["passed"] and record["reason"] is None
    assert record["kept_fp32"] == [] and record["tries"] == [] and "ranking" not in record
    assert record["recipe"] == record["base_recipe"] == json.loads(json.dumps(CONFIGURED))
    assert set(record["seconds"]) == {"quantize", "score_base", "total"}
    quantize_int8(sensitive.fp32, tmp_path / "again.onnx", **CONFIGURED)
    assert (tmp_path / "int8.onnx").read_bytes() == (tmp_path / "again.onnx").read_bytes()


def test_keeping_the_most_sensitive_matmuls_fp32_passes_the_gate(sensitive, tmp_path):
    path = tmp_path / "int8.onnx"
    record = _choose(sensitive, path, min_agreement=0.99, max_drop_pt=0.5, max_fp32_nodes=4)
    json.dumps(record)  # JSON-able as it is

    assert _min_agreement(record["base"]) < 0.99  # the configured recipe really fails
    assert record["passed"] and record["reason"] is None
    assert 1 <= len(record["kept_fp32"]) <= 4
    assert all(v["agreement"] >= 0.99 for v in record["chosen"].values())
    assert all(v["accuracy_drop_pt"] <= 0.5 for v in record["chosen"].values())
    # kept: the one node that passes alone, or the top of the ranking by logit error
    assert record["quantized_nodes"] == 2 * 6  # 2 layers x (q, k, v, attn out, ffn up, down)
    assert record["estimated_on"] == "critical"  # blocks of 16: rows score alike in any batch
    ranking = record["ranking"]["order"]
    alone = [entry["node"] for entry in ranking if entry["shortfall_pt"] == 0][:1]
    top = [entry["node"] for entry in ranking][: len(record["kept_fp32"])]
    assert record["kept_fp32"] in (alone, top)
    assert all(name.startswith("/encoder/") for name in record["kept_fp32"])
    assert record["tries"][-1] == {
        "kept_fp32": record["kept_fp32"],
        "rows": "all",
        "agreement": {head: v["agreement"] for head, v in record["chosen"].items()},
        "accuracy_drop_pt": {head: v["accuracy_drop_pt"] for head, v in record["chosen"].items()},
        "shortfall_pt": 0.0,
        "passed": True,
    }
    # the record's numbers are those of the file written, recomputed from the file alone
    written = _file_logits(sensitive, path)
    assert _agreement(sensitive, written) == {
        head: v["agreement"] for head, v in record["chosen"].items()
    }
    graph = onnx.load(str(path)).graph
    kept = [node for node in graph.node if node.name in record["kept_fp32"]]
    assert [node.op_type for node in kept] == ["MatMul"] * len(record["kept_fp32"])
    assert Counter(n.op_type for n in graph.node)["MatMulNBits"] == 12 - len(kept)
    # the recipe in the record reproduces the file with quantize_int8 alone
    quantize_int8(sensitive.fp32, tmp_path / "again.onnx", **record["recipe"])
    again = _file_logits(sensitive, tmp_path / "again.onnx")
    for head, logits in written.items():
        np.testing.assert_array_equal(logits, again[head])


def test_an_unreachable_gate_reports_the_best_agreement_and_does_not_raise(sensitive, tmp_path):
    path = tmp_path / "int8.onnx"
    record = _choose(sensitive, path, min_agreement=1.0, max_drop_pt=0.5, max_fp32_nodes=1)

    # no single MatMul kept fp32 brings every row back, as the ranking measured
    assert all(entry["shortfall_pt"] > 0 for entry in record["ranking"]["order"])
    assert not record["passed"]
    assert len(record["kept_fp32"]) <= 1
    best = _min_agreement(record["chosen"])
    assert best >= _min_agreement(record["base"])
    assert f"best agreement reached is {best:.4f}" in record["reason"]
    assert f"with {len(record['kept_fp32'])} MatMuls kept fp32" in record["reason"]
    assert "raise onnx_model.max_fp32_nodes (now 1, of 12)" in record["reason"]
    assert "export_gates.min_argmax_agreement" in record["reason"]
    # the best try is written, and its numbers are the file's
    assert _agreement(sensitive, _file_logits(sensitive, path)) == {
        head: v["agreement"] for head, v in record["chosen"].items()
    }


def test_restoring_dynamic_int8_nodes_removes_their_whole_subgraph(sensitive, tmp_path):
    """The dynamic kernel replaces a MatMul by DynamicQuantizeLinear (shared by the MatMuls
    that read one tensor), MatMulInteger, Cast and Muls: all of it goes, the shared part last."""
    recipe = {"kernel": "dynamic", "per_channel": False, "quantize_embeddings": False}
    quantize_int8(sensitive.fp32, tmp_path / "dynamic.onnx", **recipe)
    fp32, int8 = onnx.load(str(sensitive.fp32)), onnx.load(str(tmp_path / "dynamic.onnx"))
    names = quantized_weight_nodes(fp32, int8)
    # the heads too: the dynamic quantizer renames a Gemm, so keep_fp32_nodes misses it
    assert len(names) == 2 * 6 + 2 and names[-2:] == ["/category/Gemm", "/transaction_type/Gemm"]
    query = restore_fp32_nodes(int8, fp32, [names[0]])  # layer 0 query: its input feeds k, v
    ops = Counter(node.op_type for node in query.graph.node)
    assert ops["MatMulInteger"] == len(names) - 1
    assert (
        ops["DynamicQuantizeLinear"]
        == Counter(n.op_type for n in int8.graph.node)["DynamicQuantizeLinear"]
    )
    restored = restore_fp32_nodes(int8, fp32, names)
    ops = Counter(node.op_type for node in restored.graph.node)
    assert ops["MatMulInteger"] == ops["DynamicQuantizeLinear"] == 0
    onnx.checker.check_model(restored)
    weights = {init.name for init in restored.graph.initializer}
    leftover = [name for name in weights if name.endswith(("_quantized", "_scale", "_zero_point"))]
    assert leftover and all(name.startswith("encoder.embeddings.") for name in leftover)
