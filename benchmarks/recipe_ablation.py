"""Benchmark: each step of the finetuning recipe over several seeds, on the default profile's data.

Every variant runs the project's own code (``prune_vocabulary``, ``write_corpus``,
``train_mlm_backbone``, ``train_multitask_model``, ``train_baseline_model``) on the same
training_features snapshot, differing only in the params named in VARIANTS. Reports PyTorch fp32
test accuracy (%) per head, overall and on merchants never seen in training, as mean ± std over
seeds (the finetuning seed and, with MLM, the pretraining seed), and the training seconds.

    python benchmarks/recipe_ablation.py --features PATH/features.parquet \\
        [--seeds 21 22 23] [--variants cls_used_vocab mean ...] [--out results.jsonl]

``--features``: a training_features entry (``artifacts/training_features/<fp>/features.parquet``
after ``scripts/quickstart.sh``). Each finetuning takes ~2-4 min on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.infra.io import atomic_write_json  # noqa: E402
from ml_assets.core.infra.layouts import PARAMS_FILE, training_texts  # noqa: E402
from ml_assets.core.params import load_params  # noqa: E402
from ml_assets.core.text.backbones import resolve_backbone  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.core.text.vocab import prune_vocabulary  # noqa: E402
from ml_assets.core.training_data.corpus import write_corpus  # noqa: E402

# name -> overrides of the default params (sections pruned_tokenizer, mlm_backbone,
# multitask_model); "mlm": False finetunes from the un-adapted backbone (baseline_model's path).
VARIANTS: dict[str, dict] = {
    "previous": {
        "label": "previous default: 3 layers, used-pieces vocab, [CLS], MLM, lr 1e-4 x 3 epochs",
        "pruned_tokenizer": {"keep_latin_pieces": False},
        "mlm_backbone": {"num_layers": 3, "steps": 360},
        "multitask_model": {
            "pooling": "cls",
            "label_smoothing": 0.0,
            "early_stopping_rows": "all",
            "learning_rate": 1e-4,
            "max_epochs": 3,
            "freeze_word_embeddings": False,
        },
        "mlm": True,
    },
    "plain": {"label": "plain finetune, 6 layers (baseline_model)", "plain": True, "mlm": False},
    "default": {
        "label": "default recipe: 6 layers, frozen word embeddings, early stopping on seen and held-out merchants",
        "mlm": False,
    },
    "default-3-layers": {
        "label": "default recipe at 3 layers",
        "mlm_backbone": {"num_layers": 3},
        "mlm": False,
    },
    "default+llrd": {
        "label": "default recipe + layer-wise lr decay 0.8 (embeddings at 0.26x)",
        "multitask_model": {"layer_lr_decay": 0.8},
        "mlm": False,
    },
    "default+3-epochs": {
        "label": "default recipe, 3 epochs",
        "multitask_model": {"max_epochs": 3},
        "mlm": False,
    },
    "default+llrd+3-epochs": {
        "label": "default recipe + layer-wise lr decay 0.8, 3 epochs",
        "multitask_model": {"layer_lr_decay": 0.8, "max_epochs": 3},
        "mlm": False,
    },
    "default+llrd-0.7+3-epochs": {
        "label": "default recipe + layer-wise lr decay 0.7, 3 epochs",
        "multitask_model": {"layer_lr_decay": 0.7, "max_epochs": 3},
        "mlm": False,
    },
    "default+mask-0.1": {
        "label": "default recipe + 10 % of training pieces masked each step",
        "multitask_model": {"token_mask_prob": 0.1},
        "mlm": False,
    },
    "default+mask-0.2": {
        "label": "default recipe + 20 % of training pieces masked each step",
        "multitask_model": {"token_mask_prob": 0.2},
        "mlm": False,
    },
    "default+ema-0.99": {
        "label": "default recipe + weight averaging (EMA, decay 0.99)",
        "multitask_model": {"weight_average_decay": 0.99},
        "mlm": False,
    },
    "default+ema-0.995": {
        "label": "default recipe + weight averaging (EMA, decay 0.995)",
        "multitask_model": {"weight_average_decay": 0.995},
        "mlm": False,
    },
    "default+lr-3e-5": {
        "label": "default recipe, encoder lr 3e-5",
        "multitask_model": {"learning_rate": 3e-5},
        "mlm": False,
    },
    "default+lr-3e-5+3-epochs": {
        "label": "default recipe, encoder lr 3e-5, 3 epochs",
        "multitask_model": {"learning_rate": 3e-5, "max_epochs": 3},
        "mlm": False,
    },
    "default+probe-1e-4": {
        "label": "default recipe + heads initialized by a linear probe (LP-FT, L2 1e-4)",
        "multitask_model": {"head_init": "linear_probe", "probe_l2": 1e-4},
        "mlm": False,
    },
    "default+probe-1e-2": {
        "label": "default recipe + heads initialized by a linear probe (LP-FT, L2 1e-2)",
        "multitask_model": {"head_init": "linear_probe", "probe_l2": 1e-2},
        "mlm": False,
    },
    "default+mlm": {
        "label": "default recipe + MLM pretraining (360 steps)",
        "mlm_backbone": {"steps": 360},
        "mlm": True,
    },
}
"""Rows of the table, by name. Unnamed params are the defaults of params.yaml; ``plain`` applies
the baseline_model section's keys over multitask_model's, as baseline_model does."""


def deep_merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) else value
    return out


def prune_into(tokenizer_dir: Path, features: pl.DataFrame, tokenizer_params: dict) -> None:
    """The pruned tokenizer of ``features``' training text, as pruned_tokenizer writes it."""
    tokenizer_dir.mkdir(parents=True)
    prune_vocabulary(
        resolve_backbone(tokenizer_params["backbone"]),
        sorted(set(training_texts(features))),
        tokenizer_dir,
        keep_short_pieces=tokenizer_params["keep_short_pieces"],
        keep_latin_pieces=tokenizer_params["keep_latin_pieces"],
        add_unknown_chars=tokenizer_params["add_unknown_chars"],
    )
    atomic_write_json(tokenizer_dir / PARAMS_FILE, tokenizer_params)


def corpus_for(features: pl.DataFrame, tokenizer_params: dict, work: Path, max_length: int):
    """The pruned tokenizer and tokenized corpus for one vocabulary setting (cached)."""
    key = "latin" if tokenizer_params["keep_latin_pieces"] else "used"
    tokenizer_dir, corpus_dir = work / f"tokenizer-{key}", work / f"corpus-{key}"
    if not corpus_dir.exists():
        prune_into(tokenizer_dir, features, tokenizer_params)
        corpus_dir.mkdir()
        write_corpus(corpus_dir, FolderTokenizer.load(tokenizer_dir), features, max_length)
    return tokenizer_dir, corpus_dir


def run_variant(name: str, seed: int, features: pl.DataFrame, work: Path) -> dict:
    from ml_assets.core.params import MlmBackboneParams, MultitaskModelParams
    from ml_assets.training.stages import (
        train_baseline_model,
        train_mlm_backbone,
        train_multitask_model,
    )

    spec = VARIANTS[name]
    params = load_params()
    sections = {
        s: deep_merge(params.section(s), spec.get(s, {}))
        for s in ("pruned_tokenizer", "mlm_backbone", "multitask_model")
    }
    if spec.get("plain"):
        sections["multitask_model"].update(params.section("baseline_model"))
    sections["multitask_model"]["seed"] = seed
    sections["mlm_backbone"]["seed"] = seed
    tokenizer_dir, corpus_dir = corpus_for(
        features,
        sections["pruned_tokenizer"],
        work,
        params.section("tokenized_corpus")["max_length"],
    )
    finetune = MultitaskModelParams.model_validate(sections["multitask_model"])
    started, cpu_started = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(dir=work) as scratch:
        scratch = Path(scratch)
        (scratch / "model").mkdir()
        if spec["mlm"]:
            (scratch / "backbone").mkdir()
            train_mlm_backbone(
                corpus_dir=corpus_dir,
                tokenizer_dir=tokenizer_dir,
                settings=MlmBackboneParams.model_validate(sections["mlm_backbone"]),
                folder=scratch / "backbone",
                checkpoint_root=scratch / "mlm-checkpoints",
                log=lambda _m: None,
            )
            metadata = train_multitask_model(
                corpus_dir=corpus_dir,
                tokenizer_dir=tokenizer_dir,
                backbone_dir=scratch / "backbone",
                settings=finetune,
                folder=scratch / "model",
                log=lambda _m: None,
            )
        else:
            metadata = train_baseline_model(
                corpus_dir=corpus_dir,
                tokenizer_dir=tokenizer_dir,
                settings=finetune,
                num_layers=sections["mlm_backbone"]["num_layers"],
                init_seed=seed,
                folder=scratch / "model",
                log=lambda _m: None,
            )
    return {
        "variant": name,
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 1),
        # CPU seconds of every thread: what the run costs, steadier than wall time on a shared VM
        "cpu_seconds": round(time.process_time() - cpu_started, 1),
        **{
            key: round(100 * metadata[key.replace("accuracy", "acc")], 2)
            for key in (
                "test_category_accuracy",
                "heldout_category_accuracy",
                "test_transaction_type_accuracy",
                "heldout_transaction_type_accuracy",
            )
        },
    }


def summary_table(results: list[dict]) -> str:
    columns = (
        ("test_category_accuracy", "category, all"),
        ("heldout_category_accuracy", "category, held-out merchants"),
        ("test_transaction_type_accuracy", "type, all"),
        ("heldout_transaction_type_accuracy", "type, held-out"),
        ("cpu_seconds", "CPU seconds per run"),
    )
    lines = ["| recipe | seeds | " + " | ".join(label for _, label in columns) + " |"]
    lines.append("|---" * (len(columns) + 2) + "|")
    for name in VARIANTS:
        rows = [r for r in results if r["variant"] == name]
        if not rows:
            continue
        cells = []
        for key, _ in columns:
            values = np.array([r[key] for r in rows if key in r])
            if not len(values):
                cells.append("–")
                continue
            cells.append(
                f"{values.mean():.1f} ± {values.std(ddof=1) if len(values) > 1 else 0:.1f}"
            )
        lines.append(f"| {VARIANTS[name]['label']} | {len(rows)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", required=True, type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 22, 23])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--out", type=Path, default=Path("recipe_ablation.jsonl"))
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    features = pl.read_parquet(args.features)
    done = (
        [json.loads(line) for line in args.out.read_text().splitlines()]
        if args.out.exists()
        else []
    )
    work = args.work or Path(tempfile.mkdtemp(prefix="ablation-"))
    for name in args.variants:
        for seed in args.seeds:
            if any(r["variant"] == name and r["seed"] == seed for r in done):
                continue  # resumable: finished runs are kept in --out
            result = run_variant(name, seed, features, work)
            print(json.dumps(result), flush=True)
            with args.out.open("a") as out:
                out.write(json.dumps(result) + "\n")
            done.append(result)
    print(summary_table(done))


if __name__ == "__main__":
    main()
