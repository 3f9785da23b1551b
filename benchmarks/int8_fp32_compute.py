"""Benchmark: a store's shipped int8 model with its most erring MatMuls computing in fp32.

A blockwise int8 MatMul (``MatMulNBits``) keeps its int8 weights whatever its
``accuracy_level``: 4 (as shipped) quantizes the activations too and computes in int8, 0
dequantizes the weights and computes in fp32. Less error, no size cost, more time. For each
store: every such MatMul alone switched to fp32 compute, ranked by the logit error left on a
sample of validation rows against the PyTorch model; then the top k switched together. Prints,
per variant, argmax agreement with PyTorch on validation and test, the first head's test
accuracy (all / held-out / seen merchants, %) and the batch-1 p50 of the bare graph.

    python benchmarks/int8_fp32_compute.py --artifacts DIR [DIR ...] [--top 2 4 6] [--rank-rows 800]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def with_fp32_compute(model, names: set[str]):
    import onnx

    edited = onnx.ModelProto()
    edited.CopyFrom(model)
    for node in edited.graph.node:
        if node.name in names:
            for attribute in node.attribute:
                if attribute.name == "accuracy_level":
                    attribute.i = 0
    return edited


def batch1_p50_ms(model, sequences, heads, requests: int = 320) -> float:
    from ml_assets.core.serving.scoring import AMOUNT_INPUT, cpu_session, session_reads_amount

    session = cpu_session(model.SerializeToString(), 2)
    outputs = [f"logits_{head}" for head in heads]
    times = []
    for i in range(requests):
        ids = np.asarray(sequences[i % len(sequences)])[None, :]
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if session_reads_amount(session):  # a typical card purchase
            feed[AMOUNT_INPUT] = np.array([-12.5], dtype=np.float32)
        started = time.perf_counter()
        session.run(outputs, feed)
        times.append(time.perf_counter() - started)
    return 1000 * float(np.median(times[20:]))


def measure(artifacts: str, tops: list[int], rank_rows: int) -> None:
    import onnx
    import polars as pl
    import torch

    from ml_assets.core.infra.io import read_json
    from ml_assets.core.serving.scoring import encode_for_model
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer
    from ml_assets.core.training_data.labels import IGNORE_INDEX
    from ml_assets.training.finetune import predict_logits
    from ml_assets.training.int8_recipe import onnx_logits
    from ml_assets.training.model import MultiTaskModel
    from resources.artifact_store import ArtifactStore

    store = ArtifactStore(root=artifacts)
    onnx_dir = store.current_ref("onnx_model").verified().dir
    net = MultiTaskModel.load(store.current_ref("multitask_model").verified().dir).eval()
    features_dir = store.current_ref("training_features").verified().dir
    features = pl.read_parquet(features_dir / "features.parquet")
    max_length = read_json(onnx_dir / "serving.json")["max_length"]
    tokenizer = FolderTokenizer.load(onnx_dir / "tokenizer")
    pad, heads, head = tokenizer.pad_token_id, list(net.head_labels), next(iter(net.head_labels))

    def split(name: str):
        rows = features.filter(pl.col("split") == name)
        sequences = encode_for_model(tokenizer, rows["description"].to_list(), max_length)
        names = net.head_labels[head]
        labels = np.array([names.index(v) if v in names else IGNORE_INDEX for v in rows[head]])
        amounts = rows["amount"].to_numpy()
        reference = predict_logits(net, sequences, 64, pad, torch.device("cpu"), amounts)
        return sequences, labels, rows["heldout_merchant"].to_numpy(), reference, amounts

    valid, test = split("valid"), split("test")
    shipped = onnx.load(str(onnx_dir / "model_int8.onnx"))
    nodes = [n.name for n in shipped.graph.node if n.op_type == "MatMulNBits"]
    sample = np.random.default_rng(0).choice(len(valid[0]), min(rank_rows, len(valid[0])), False)
    sampled = [valid[0][i] for i in sample]
    ranked = []
    for name in nodes:
        logits = onnx_logits(
            with_fp32_compute(shipped, {name}), sampled, pad, heads, 64, 2, valid[4][sample]
        )
        error = sum(float(np.mean((logits[h] - valid[3][h][sample]) ** 2)) for h in heads)
        ranked.append((error, name))
    ranked.sort()

    def agreement(model, data) -> float:
        logits = onnx_logits(model, data[0], pad, [head], 64, 2, data[4])[head].argmax(1)
        return 100 * float(np.mean(logits == data[3][head].argmax(1))), logits

    print(f"\n== {artifacts}: {len(nodes)} MatMulNBits; errors of the top 6 alone in fp32:")
    print("   " + ", ".join(f"{e:.2e}" for e, _ in ranked[:6]))
    print(f"{'variant':10s} {'valid agr':>9s} {'test agr':>8s}  all / held-out / seen   p50 ms")
    for k in [0, *tops]:
        model = with_fp32_compute(shipped, {name for _, name in ranked[:k]})
        valid_agreement, _ = agreement(model, valid)
        test_agreement, predicted = agreement(model, test)
        _, labels, heldout, _ = test
        keep = labels != IGNORE_INDEX

        def accuracy(mask, predicted=predicted, labels=labels):
            return 100 * float(np.mean(predicted[mask] == labels[mask]))

        slices = [accuracy(keep), accuracy(keep & heldout), accuracy(keep & ~heldout)]
        print(
            f"{'shipped' if k == 0 else f'top {k}':10s} {valid_agreement:9.2f} {test_agreement:8.2f}"
            f"  {' / '.join(f'{a:.1f}' for a in slices)}   {batch1_p50_ms(model, test[0], heads):.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--artifacts", nargs="+", required=True, help="stores to measure")
    parser.add_argument("--top", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--rank-rows", type=int, default=800)
    args = parser.parse_args()
    for artifacts in args.artifacts:
        measure(artifacts, args.top, args.rank_rows)


if __name__ == "__main__":
    main()
