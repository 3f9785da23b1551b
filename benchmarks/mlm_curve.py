"""Benchmark: does masked-LM pretraining on the run's own text pay, and at which labeled share?

A learning curve: the share of training rows that keep their labels (the others keep only their
text, as most rows of a real export) × the backbone the candidate finetunes from (the
un-adapted backbone, or masked-LM pretrained on every training row's text at the default or a
gentler learning rate, or held near the backbone's weights) × seeds. Every run is the project's
own code (``prune_vocabulary``, ``write_corpus``, ``train_mlm_backbone``,
``train_multitask_model``) on one training_features snapshot; valid and test keep every label,
so each share is scored on the same rows. Pretraining reads only text, so one pretrained
backbone per seed serves every share.

    python benchmarks/mlm_curve.py --features PATH/features.parquet \\
        [--shares 2 10 30] [--seeds 21 22 23] \\
        [--backbones none mlm mlm-gentle mlm-anchored mlm-gpu] \\
        [--finetune KEY=VALUE ...] [--out mlm_curve.jsonl]

``--shares``: the percentage of train rows that keep a label, at most those labeled in the
snapshot (the default data labels 25 % of them). Reports the candidate's PyTorch test accuracy (%, first head: all,
held-out and seen merchants), its encoder alone, and CPU seconds. Resumable through ``--out``.
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
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.params import load_params  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.core.training_data.corpus import write_corpus  # noqa: E402

sys.path.insert(0, str(REPO / "benchmarks"))
from recipe_ablation import prune_into  # noqa: E402

# name -> overrides of params.yaml's mlm_backbone section; None: the un-adapted backbone
BACKBONES: dict[str, dict | None] = {
    "none": None,
    "mlm": {"steps": 360},  # the recipe ablation's pretraining, at the default rate (2e-4)
    "mlm-gentle": {"steps": 360, "learning_rate": 5e-5},
    # held near the backbone (mlm_backbone.anchor: L2-SP)
    "mlm-anchored": {"steps": 360, "anchor": 300.0},
    # the `gpu` profile's pretraining (params.yaml), at a scale a CPU cannot afford
    "mlm-gpu": {
        key: value
        for key, value in load_params(profile="gpu").section("mlm_backbone").items()
        if key in ("steps", "batch_size", "learning_rate", "warmup_steps", "checkpoint_every")
    },
}
LABELS = {
    "none": "no pretraining",
    "mlm": "MLM, 360 steps, lr 2e-4",
    "mlm-gentle": "MLM, 360 steps, lr 5e-5",
    "mlm-anchored": "MLM, 360 steps, lr 2e-4, held near the backbone (anchor 300)",
    "mlm-gpu": "MLM, `gpu` profile ({steps} steps of {batch_size}, lr {learning_rate:g})".format(
        **BACKBONES["mlm-gpu"]
    ),
}


def keep_labeled_share(features: pl.DataFrame, pct: float, seed: int) -> pl.DataFrame:
    """``features`` with labels on ``pct`` % of the train rows at most (drawn by ``seed`` from
    the labeled ones); every other split keeps its labels."""
    labeled_train = features.with_row_index("_row").filter(
        (pl.col("split") == "train") & pl.col("labeled")
    )["_row"]
    rng = np.random.default_rng(seed)
    train_rows = int((features["split"] == "train").sum())
    keep = min(len(labeled_train), int(round(pct / 100 * train_rows)))
    dropped = np.setdiff1d(labeled_train.to_numpy(), rng.choice(labeled_train, keep, replace=False))
    drop = pl.Series(np.isin(np.arange(features.height), dropped))
    label_columns = [c for c in ("category", "transaction_type") if c in features.columns]
    return features.with_columns(
        *[pl.when(drop).then(None).otherwise(pl.col(c)).alias(c) for c in label_columns],
        pl.when(drop).then(False).otherwise(pl.col("labeled")).alias("labeled"),
    )


def run(args) -> None:
    from ml_assets.core.params import MlmBackboneParams, MultitaskModelParams
    from ml_assets.training.stages import train_mlm_backbone, train_multitask_model

    features = pl.read_parquet(args.features)
    params = load_params()
    tokenizer_params = params.section("pruned_tokenizer")
    max_length = params.section("tokenized_corpus")["max_length"]
    work = args.work or Path(tempfile.mkdtemp(prefix="mlm-curve-"))
    tokenizer_dir = work / "tokenizer"
    if not tokenizer_dir.exists():  # the text is the same at every share
        prune_into(tokenizer_dir, features, tokenizer_params)
    tokenizer = FolderTokenizer.load(tokenizer_dir)
    done = (
        [json.loads(line) for line in args.out.read_text().splitlines()]
        if args.out.exists()
        else []
    )
    train_rows = int((features["split"] == "train").sum())
    for seed in args.seeds:
        for backbone_name in args.backbones:
            todo = [
                s
                for s in args.shares
                if not any(
                    r["seed"] == seed and r["backbone"] == backbone_name and r["share"] == s
                    for r in done
                )
            ]
            if not todo:
                continue  # resumable: finished runs are kept in --out
            backbone_dir = work / f"backbone-{backbone_name}-{seed}"
            mlm = params.section("mlm_backbone") | (BACKBONES[backbone_name] or {"steps": 0})
            mlm["seed"] = seed
            if not (backbone_dir / "done").exists():
                corpus_dir = work / "corpus-all"
                if not corpus_dir.exists():
                    corpus_dir.mkdir()
                    write_corpus(corpus_dir, tokenizer, features, max_length)
                backbone_dir.mkdir(exist_ok=True)
                cpu_started, wall_started = time.process_time(), time.perf_counter()
                train_mlm_backbone(  # steps 0: the backbone sliced, not trained
                    corpus_dir=corpus_dir,
                    tokenizer_dir=tokenizer_dir,
                    settings=MlmBackboneParams.model_validate(mlm),
                    folder=backbone_dir,
                    checkpoint_root=work / "mlm-checkpoints" / f"{backbone_name}-{seed}",
                    log=lambda _m: None,
                )
                pretrain_cpu = time.process_time() - cpu_started
                pretrain_wall = time.perf_counter() - wall_started
                (backbone_dir / "done").write_text(f"{pretrain_cpu:.1f} {pretrain_wall:.1f}")
            else:
                pretrain_cpu, pretrain_wall = map(
                    float, (backbone_dir / "done").read_text().split()
                )
            for share in todo:
                subset = keep_labeled_share(features, share, seed)
                corpus_dir = work / f"corpus-{share}-{seed}"
                if not corpus_dir.exists():
                    corpus_dir.mkdir()
                    write_corpus(corpus_dir, tokenizer, subset, max_length)
                finetune = params.section("multitask_model") | args.finetune | {"seed": seed}
                finetune["heads"] = [  # as the graph does: a head with no label is left out
                    h for h in finetune["heads"] if features[h].drop_nulls().len()
                ]
                cpu_started, wall_started = time.process_time(), time.perf_counter()
                with tempfile.TemporaryDirectory(dir=work) as scratch:
                    metadata = train_multitask_model(
                        corpus_dir=corpus_dir,
                        tokenizer_dir=tokenizer_dir,
                        backbone_dir=backbone_dir,
                        settings=MultitaskModelParams.model_validate(finetune),
                        folder=Path(scratch),
                        log=lambda _m: None,
                    )
                head = next(iter(metadata["heads"]))
                labeled = int(((subset["split"] == "train") & subset["labeled"]).sum())
                result = {
                    "seed": seed,
                    "backbone": backbone_name,
                    "share": share,
                    "labeled_train_rows": labeled,
                    "labeled_train_pct": round(100 * labeled / train_rows, 1),
                    "head": head,
                    **score(metadata, head),
                    "pretrain_cpu_seconds": round(pretrain_cpu, 1),
                    "finetune_cpu_seconds": round(time.process_time() - cpu_started, 1),
                    "pretrain_seconds": round(pretrain_wall, 1),
                    "finetune_seconds": round(time.perf_counter() - wall_started, 1),
                    "device": metadata.get("device"),
                }
                print(json.dumps(result), flush=True)
                with args.out.open("a") as out:
                    out.write(json.dumps(result) + "\n")
                done.append(result)
    print(summary_table(done))


def score(metadata: dict, head: str) -> dict:
    """The first head's test accuracy, %, all / held-out / seen merchants, and the encoder's."""
    n_all, n_heldout = metadata["test_rows"], metadata["test_heldout_merchant_rows"]
    everyone, heldout = metadata[f"test_{head}_acc"], metadata[f"heldout_{head}_acc"]
    seen = (everyone * n_all - heldout * n_heldout) / max(n_all - n_heldout, 1)
    return {
        "all": round(100 * everyone, 2),
        "heldout": round(100 * heldout, 2),
        "seen": round(100 * seen, 2),
        "encoder_all": round(100 * metadata.get(f"{head}_encoder_acc", everyone), 2),
        "gate": metadata.get(f"ngram_bag_{head}_gate"),
    }


def summary_table(results: list[dict]) -> str:
    lines = [
        "| labeled train rows | backbone | seeds | all | held-out | seen | encoder alone, all |",
        "|---|---|---|---|---|---|---|",
    ]
    for share in sorted({r["share"] for r in results}):
        for name in BACKBONES:
            rows = [r for r in results if r["share"] == share and r["backbone"] == name]
            if not rows:
                continue
            pct = np.mean([r["labeled_train_pct"] for r in rows])
            cells = []
            for key in ("all", "heldout", "seen", "encoder_all"):
                values = np.array([r[key] for r in rows])
                spread = values.std(ddof=1) if len(values) > 1 else 0.0
                cells.append(f"{values.mean():.1f} ± {spread:.1f}")
            lines.append(
                f"| {pct:.1f} % | {LABELS[name]} | {len(rows)} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", required=True, type=Path)
    parser.add_argument("--shares", type=float, nargs="+", default=[2.0, 10.0, 30.0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 22, 23])
    parser.add_argument("--backbones", nargs="+", default=list(BACKBONES), choices=list(BACKBONES))
    parser.add_argument("--out", type=Path, default=Path("mlm_curve.jsonl"))
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument(
        "--finetune",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="multitask_model params over params.yaml's (values read as YAML)",
    )
    args = parser.parse_args()
    args.finetune = {k: yaml.safe_load(v) for k, v in (a.split("=", 1) for a in args.finetune)}
    run(args)


if __name__ == "__main__":
    main()
