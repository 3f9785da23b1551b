"""Benchmark: serving latency and batch throughput of the shipped model, 2 threads.

Batch-1 p50/p99 over real transaction strings (the test split), tokenization included, for
PyTorch fp32 eager, ONNX fp32, ONNX int8 (the onnx_model artifact) and the other int8 kernel
(dynamic MatMulInteger, quantized here); batch scoring rows/s of the int8 model and of PyTorch
on the same length-sorted batches; both int8 kernels' argmax agreement with PyTorch.

On a shared VM the speed of the machine drifts by tens of percent within minutes, so the paths
are measured in interleaved rounds (every path once per round, in the same minute) and each
ratio is computed within a round; the table shows the median over rounds.
Goals: int8 >= 5x PyTorch eager at p50; int8 batch scoring ahead of PyTorch.

    python benchmarks/inference.py [--artifacts artifacts] [--rounds 5] [--requests 300]

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


def time_requests(score_one, texts: list[str], requests: int, offset: int, warmup: int = 20):
    """p50 and p99 in ms of ``requests`` batch-1 calls, texts taken from ``offset`` on."""
    timings = []
    for i in range(warmup + requests):
        started = time.perf_counter()
        score_one(texts[(offset + i) % len(texts)])
        if i >= warmup:
            timings.append(time.perf_counter() - started)
    values = np.asarray(timings) * 1000
    return float(np.percentile(values, 50)), float(np.percentile(values, 99))


def rows_per_second(score_all, count: int) -> float:
    started = time.perf_counter()
    score_all()
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--artifacts", default=str(REPO / "artifacts"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=300, help="batch-1 requests per round")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    import polars as pl
    import torch

    from ml_assets.core.infra.io import read_json
    from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model
    from ml_assets.training.export import quantize_int8
    from ml_assets.training.finetune import predict_logits
    from ml_assets.training.model import MultiTaskModel
    from resources.artifact_store import ArtifactStore

    torch.set_num_threads(args.threads)
    store = ArtifactStore(root=args.artifacts)
    onnx = store.current_ref("onnx_model").verified()
    model = store.current_ref("multitask_model").verified()
    features = store.current_ref("training_features").verified()
    serving = read_json(onnx.dir / "serving.json")
    test = pl.read_parquet(features.dir / "features.parquet").filter(pl.col("split") == "test")
    texts, amounts = test["description"].to_list(), test["amount"].to_numpy()
    typical = np.array([-12.5])  # one request's amount: a card purchase

    def scorer(path: Path) -> OnnxScorer:
        return OnnxScorer(
            path, onnx.dir / "tokenizer", serving["heads"], serving["max_length"], args.threads
        )

    int8, fp32 = scorer(onnx.dir / "model_int8.onnx"), scorer(onnx.dir / "model_fp32.onnx")
    net = MultiTaskModel.load(model.dir).eval()
    tokenizer, max_length = int8.tokenizer, serving["max_length"]
    device = torch.device("cpu")

    def onnx_one(s: OnnxScorer):
        return lambda text: s.logits(encode_for_model(tokenizer, [text], max_length), 1, typical)

    def torch_one(text: str):
        with torch.inference_mode():
            sequences = encode_for_model(tokenizer, [text], max_length)
            predict_logits(net, sequences, 1, int8.pad_id, device, typical)

    workdir = tempfile.TemporaryDirectory()
    dynamic_path = Path(workdir.name) / "dynamic_int8.onnx"
    quantize_int8(
        onnx.dir / "model_fp32.onnx",
        dynamic_path,
        kernel="dynamic",
        keep_fp32_nodes=HEADS_FP32,
        quantize_embeddings=False,  # the dynamic quantizer already makes the Gather int8
    )
    dynamic = scorer(dynamic_path)
    paths = {
        "PyTorch fp32 eager": torch_one,
        "ONNX fp32": onnx_one(fp32),
        "ONNX int8 (shipped)": onnx_one(int8),
        "ONNX int8 dynamic kernel": onnx_one(dynamic),
    }
    bs = args.batch_size
    batch_paths = {
        "PyTorch fp32": lambda: predict_logits(
            net, encode_for_model(tokenizer, texts, max_length), bs, int8.pad_id, device, amounts
        ),
        "ONNX int8 (shipped)": lambda: int8.logits(
            encode_for_model(tokenizer, texts, max_length), bs, amounts
        ),
    }
    latency = {name: [] for name in paths}
    throughput = {name: [] for name in batch_paths}
    for round_ in range(args.rounds):
        for name, one in paths.items():
            time.sleep(1)  # let the previous path's spinning worker threads go idle
            latency[name].append(time_requests(one, texts, args.requests, round_ * args.requests))
        for name, run in batch_paths.items():
            time.sleep(1)
            throughput[name].append(rows_per_second(run, len(texts)))

    print(
        f"{len(texts)} test strings; {args.rounds} interleaved rounds of {args.requests} batch-1 "
        f"requests per path; {args.threads} threads; batch scoring in length-sorted batches of {bs}"
    )
    print(f"{'path':26s} {'p50 ms':>8s} {'p99 ms':>8s}   (median over rounds; p50 range)")
    for name, rounds in latency.items():
        p50s, p99s = [r[0] for r in rounds], [r[1] for r in rounds]
        print(
            f"{name:26s} {np.median(p50s):8.2f} {np.median(p99s):8.2f}   "
            f"({min(p50s):.2f}-{max(p50s):.2f})"
        )
    ratios = [
        e[0] / s[0]
        for e, s in zip(latency["PyTorch fp32 eager"], latency["ONNX int8 (shipped)"], strict=True)
    ]
    print(
        f"int8 vs PyTorch eager at p50: {np.median(ratios):.1f}x median over rounds "
        f"({min(ratios):.1f}-{max(ratios):.1f}x; goal >= 5x)"
    )
    for name, values in throughput.items():
        print(f"batch scoring, {name}: {np.median(values):,.0f} rows/s (tokenization included)")
    batch_ratios = [
        i / t
        for i, t in zip(throughput["ONNX int8 (shipped)"], throughput["PyTorch fp32"], strict=True)
    ]
    print(
        f"batch scoring int8 / PyTorch: {np.median(batch_ratios):.2f}x median over rounds "
        f"({min(batch_ratios):.2f}-{max(batch_ratios):.2f}x; goal > 1)"
    )

    sequences = encode_for_model(tokenizer, texts, max_length)
    reference = predict_logits(net, sequences, 256, int8.pad_id, device, amounts)
    shipped, plain = int8.logits(sequences, 256, amounts), dynamic.logits(sequences, 256, amounts)
    for head in serving["heads"]:
        want = reference[head].argmax(1)
        print(
            f"argmax agreement with PyTorch, {head}: shipped recipe "
            f"{np.mean(shipped[head].argmax(1) == want):.4f} "
            f"({(onnx.dir / 'model_int8.onnx').stat().st_size / 1e6:.1f} MB), dynamic kernel "
            f"(MatMulInteger, per-channel) {np.mean(plain[head].argmax(1) == want):.4f} "
            f"({dynamic_path.stat().st_size / 1e6:.1f} MB)"
        )
    workdir.cleanup()


if __name__ == "__main__":
    main()
