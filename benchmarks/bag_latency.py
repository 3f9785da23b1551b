"""What the n-gram bag's character n-grams cost a request: the bag alone (no encoder) exported
to ONNX at the default profile's sizes (a 28,456-token vocabulary, 131,072 buckets, 23 label
columns, random weights), with and without the words' characters, timed at batch 1 on token
ids of a 30-token description, the two sessions alternating request by request.

Usage: python benchmarks/bag_latency.py [--requests 2000] [--tokens 30] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.training.ngram_bag import NgramBag  # noqa: E402

VOCAB, BUCKETS, COLUMNS = 28456, 131072, {"category": 19, "transaction_type": 4}


class BagOnly(torch.nn.Module):
    def __init__(self, bag: NgramBag):
        super().__init__()
        self.bag = bag

    def forward(self, ids, mask):
        logprobs, coverage = self.bag(ids, mask)
        return (*logprobs, coverage)


def session(char_grams: bool, folder: Path, threads: int):
    import onnxruntime as ort

    torch.manual_seed(0)
    bag = NgramBag(VOCAB, BUCKETS, COLUMNS, char_grams=char_grams)
    bag.table.normal_()
    if char_grams:  # tokens of 2-12 characters from a 60-letter alphabet
        bag.char_codes.copy_(torch.randint(2, 62, (VOCAB, 16), dtype=torch.int16))
        bag.char_lengths.copy_(torch.randint(2, 13, (VOCAB,), dtype=torch.uint8))
    ids = torch.tensor([[101, 2000, 3000, 4000, 102]])
    path = folder / f"bag-{char_grams}.onnx"
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
    torch.onnx.export(
        BagOnly(bag), (ids, torch.ones_like(ids)), str(path),
        input_names=["input_ids", "attention_mask"], dynamic_axes=axes, opset_version=17,
        dynamo=False,
    )  # fmt: skip
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--tokens", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    ids = np.random.default_rng(0).integers(1000, VOCAB, (1, args.tokens)).astype(np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    with tempfile.TemporaryDirectory() as folder:
        sessions = {chars: session(chars, Path(folder), args.threads) for chars in (False, True)}
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(100):  # warm-up
            for s in sessions.values():
                s.run(None, feed)
        for _ in range(args.requests):
            for chars, s in sessions.items():
                started = time.perf_counter()
                s.run(None, feed)
                times[chars].append(1000 * (time.perf_counter() - started))
    print("| bag | p50 ms | p90 ms |\n|---|---|---|")
    for chars, label in ((False, "token n-grams only"), (True, "+ the words' characters")):
        p50, p90 = np.percentile(times[chars], [50, 90])
        print(f"| {label} | {p50:.3f} | {p90:.3f} |")
    extra = np.median(times[True]) - np.median(times[False])
    print(
        f"characters add {extra:.3f} ms at p50 ({np.median(times[True]) / np.median(times[False]):.1f}x the bag)"
    )


if __name__ == "__main__":
    main()
