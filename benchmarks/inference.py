"""Benchmark: serving latency and batch throughput of the shipped model, one run, 2 threads.

Batch-1 p50/p99 over >= 1000 real transaction strings (the test split), tokenization included,
for PyTorch fp32 eager, ONNX fp32, ONNX int8 (the onnx_model artifact) and the other int8
kernel (dynamic MatMulInteger, quantized here); batch scoring rows/s of the int8 model
(length-sorted batches); and both int8 kernels' argmax agreement with PyTorch.
Goals: int8 p50 <= 3 ms, p99 <= 8 ms, >= 5x faster than PyTorch eager at p50; >= 1000 rows/s.

    python benchmarks/inference.py [--artifacts artifacts] [--requests 1000] [--threads 2]

Needs a materialized store (scripts/quickstart.sh).
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


HEADS_FP32 = ("^/(?!encoder/)",)  # as the shipped recipe: only the heads stay fp32


def percentiles(timings: list[float]) -> dict[str, float]:
    values = np.asarray(timings) * 1000
    return {"p50": float(np.percentile(values, 50)), "p99": float(np.percentile(values, 99))}


def time_requests(score_one, texts: list[str], requests: int, warmup: int = 30) -> dict:
    timings = []
    for i in range(warmup + requests):
        started = time.perf_counter()
        score_one(texts[i % len(texts)])
        if i >= warmup:
            timings.append(time.perf_counter() - started)
    return percentiles(timings)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--artifacts", default=str(REPO / "artifacts"))
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import polars as pl
    import torch

    from ml_assets.core.export import quantize_int8
    from ml_assets.core.io import read_json
    from ml_assets.core.scoring import OnnxScorer, encode_for_model
    from ml_assets.training.finetune import predict_logits
    from ml_assets.training.model import MultiTaskModel
    from resources.artifact_store import ArtifactStore

    torch.set_num_threads(args.threads)
    store = ArtifactStore(root=args.artifacts)
    onnx = store.current_ref("onnx_model").verified()
    model = store.current_ref("multitask_model").verified()
    features = store.current_ref("training_features").verified()
    serving = read_json(onnx.dir / "serving.json")
    texts = (
        pl.read_parquet(features.dir / "features.parquet")
        .filter(pl.col("split") == "test")["description"]
        .to_list()
    )
    if len(texts) < 1000:
        print(f"note: only {len(texts)} test strings; requests cycle through them")

    def scorer(path: Path) -> OnnxScorer:
        return OnnxScorer(
            path, onnx.dir / "tokenizer", serving["heads"], serving["max_length"], args.threads
        )

    int8, fp32 = scorer(onnx.dir / "model_int8.onnx"), scorer(onnx.dir / "model_fp32.onnx")
    net = MultiTaskModel.load(model.dir).eval()
    tokenizer, max_length = int8.tokenizer, serving["max_length"]

    def onnx_one(s: OnnxScorer):
        return lambda text: s.logits(encode_for_model(tokenizer, [text], max_length), 1)

    def torch_one(text: str):
        ids = encode_for_model(tokenizer, [text], max_length)
        with torch.inference_mode():
            predict_logits(net, ids, 1, int8.pad_id, torch.device("cpu"))

    results = {
        "PyTorch fp32 eager": time_requests(torch_one, texts, args.requests),
        "ONNX fp32": time_requests(onnx_one(fp32), texts, args.requests),
        "ONNX int8 (shipped)": time_requests(onnx_one(int8), texts, args.requests),
    }
    sequences = encode_for_model(tokenizer, texts, max_length)
    started = time.perf_counter()
    reference = predict_logits(net, sequences, 256, int8.pad_id, torch.device("cpu"))
    torch_batch = len(texts) / (time.perf_counter() - started)
    started = time.perf_counter()
    encoded = encode_for_model(tokenizer, texts, max_length)
    shipped = int8.logits(encoded, 256)
    int8_batch = len(texts) / (time.perf_counter() - started)

    with tempfile.TemporaryDirectory() as tmp:  # the other int8 kernel, same run, for the record
        plain = Path(tmp) / "dynamic_int8.onnx"
        quantize_int8(
            onnx.dir / "model_fp32.onnx", plain, kernel="dynamic", keep_fp32_nodes=HEADS_FP32
        )
        dynamic = scorer(plain)
        plain_logits = dynamic.logits(sequences, 256)
        plain_bytes = plain.stat().st_size
        results["ONNX int8 dynamic kernel"] = time_requests(onnx_one(dynamic), texts, args.requests)

    print(f"{len(texts)} test strings, {args.requests} batch-1 requests, {args.threads} threads")
    print(f"{'path':24s} {'p50 ms':>8s} {'p99 ms':>8s}")
    for name, value in results.items():
        print(f"{name:24s} {value['p50']:8.2f} {value['p99']:8.2f}")
    eager, shipped_lat = results["PyTorch fp32 eager"], results["ONNX int8 (shipped)"]
    print(
        f"int8 vs PyTorch eager at p50: {eager['p50'] / shipped_lat['p50']:.1f}x  (goal >= 5x); "
        f"int8 p50 {shipped_lat['p50']:.2f} ms (goal <= 3), p99 {shipped_lat['p99']:.2f} ms "
        "(goal <= 8)"
    )
    print(
        f"batch scoring, int8 (tokenization included, length-sorted batches of 256): "
        f"{int8_batch:,.0f} rows/s (goal >= 1000); PyTorch fp32, same batches, tokenized: "
        f"{torch_batch:,.0f} rows/s"
    )
    for head in serving["heads"]:
        want = reference[head].argmax(1)
        print(
            f"argmax agreement with PyTorch, {head}: shipped recipe "
            f"{np.mean(shipped[head].argmax(1) == want):.4f} "
            f"({(onnx.dir / 'model_int8.onnx').stat().st_size / 1e6:.1f} MB), dynamic kernel "
            f"(MatMulInteger, per-channel) {np.mean(plain_logits[head].argmax(1) == want):.4f} "
            f"({plain_bytes / 1e6:.1f} MB)"
        )


if __name__ == "__main__":
    main()
