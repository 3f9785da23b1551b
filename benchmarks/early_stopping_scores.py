"""Benchmark: which validation score should the candidate's early stopping watch?

One finetuning run per data set and seed goes to its last step (no early stop) and records the
encoder's logits on every valid and test row at each validation pass (``TrainingHooks
.on_evaluated``). Each score below then picks its checkpoint as ``finetune`` would (the best so
far, stopping after ``patience`` passes without gain), the n-gram bag's gates are chosen on the
valid rows as ``attach_bag`` does, and the candidate's test accuracy follows: every score is
judged on the same training run, so the differences are the scores' alone.

* ``heldout_merchants``: mean macro-F1 of the heads on the valid split's held-out merchants,
  sampled to ``valid_sample`` rows (``early_stopping_rows: heldout_merchants``);
* ``all``: the same on all valid rows (``early_stopping_rows: all``);
* ``heldout_capped``: accuracy on held-out merchants, each merchant counting as at most
  ``MERCHANT_ROW_CAP`` rows (one chain among a few dozen held-out merchants cannot decide);
* ``seen_and_heldout``: the mean of that and the same on seen merchants, as the n-gram bag's
  gate is chosen (``early_stopping_rows: seen_and_heldout``, ``stages.seen_and_heldout_score``);
* ``mixed``: the gate's score of the encoder and the bag mixed, the gates chosen at that pass.

    python benchmarks/early_stopping_scores.py --features PATH/features.parquet \\
        [--seeds 21 22 23] [--out early_stopping.jsonl] [--work DIR]

Prints, per run, the step each score keeps and the candidate's PyTorch test accuracy (%, first
head: all, held-out and seen merchants); resumable through ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.params import load_params  # noqa: E402
from ml_assets.core.quality.metrics import macro_f1  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.core.training_data.corpus import write_corpus  # noqa: E402
from ml_assets.core.training_data.labels import IGNORE_INDEX, stratified_sample  # noqa: E402
from ml_assets.training.finetune import LabeledSet  # noqa: E402
from ml_assets.training.ngram_bag import kept_row_weights, seen_and_heldout_accuracy  # noqa: E402
from ml_assets.training.stages import seen_and_heldout_score  # noqa: E402

sys.path.insert(0, str(REPO / "benchmarks"))
from recipe_ablation import prune_into  # noqa: E402

SCORES = ("heldout_merchants", "all", "heldout_capped", "seen_and_heldout", "mixed")


def mixed(encoder: np.ndarray, bag: np.ndarray, coverage: np.ndarray, gate) -> np.ndarray:
    """``NgramBag.mix`` in numpy: the gate's share of the bag, per row."""
    from ml_assets.training.ngram_bag import gate_weights

    shifted = encoder - encoder.max(axis=1, keepdims=True)
    logprobs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    w = gate_weights(coverage, gate)[:, None]
    return (1 - w) * logprobs + w * bag


class Views:
    """The valid and test rows of one run, with what each score needs of them."""

    def __init__(self, sets: dict, settings, bag_parts: dict):
        self.sets = sets
        valid = sets["valid"]
        table = valid.sequences.row_table()
        self.heldout = table["heldout_merchant"].to_numpy()
        self.merchants = table["merchant_key"].to_numpy()
        self.bag = bag_parts
        first = settings.heads[0]
        # the rows finetune validates on, as train_multitask_model picks them
        self.sampled = {}
        for name, base in (("heldout", np.flatnonzero(self.heldout)), ("all", None)):
            rows = np.arange(len(self.heldout)) if base is None else base
            if settings.valid_sample and settings.valid_sample < len(self.heldout):
                labels = valid.labels[first][rows]
                rows = rows[stratified_sample(labels, settings.valid_sample, settings.seed)]
            self.sampled[name] = rows
        rows = self.sampled["all"]
        self.shipped = seen_and_heldout_score(
            LabeledSet(
                sequences=valid.sequences.subset(rows),
                labels={head: values[rows] for head, values in valid.labels.items()},
            )
        )

    def score(self, name: str, logits: dict[str, np.ndarray]) -> float:
        if name == "seen_and_heldout":  # the project's own score, on the rows finetune sees
            rows = self.sampled["all"]
            return self.shipped({head: values[rows] for head, values in logits.items()})
        valid, values = self.sets["valid"], []
        for head, sizes in self.bag["sizes"].items():
            labels = valid.labels[head]
            if name in ("heldout_merchants", "all"):  # mean macro-F1
                rows = self.sampled["heldout" if name == "heldout_merchants" else "all"]
                rows = rows[labels[rows] != IGNORE_INDEX]
                if len(rows):
                    predicted = logits[head][rows].argmax(axis=1)
                    values.append(macro_f1(labels[rows], predicted, sizes))
                continue
            keep = labels != IGNORE_INDEX
            if name == "mixed":
                gate = self.gate(logits, head)
                predicted = mixed(
                    logits[head], self.bag["valid"][head], self.bag["valid_coverage"], gate
                ).argmax(axis=1)
            else:
                predicted = logits[head].argmax(axis=1)
            if name == "heldout_capped":  # the held-out slice alone
                keep = keep & self.heldout
            if keep.any():
                weights = kept_row_weights(self.merchants, keep)
                right = predicted == labels
                values.append(seen_and_heldout_accuracy(right, keep, self.heldout, weights))
        return float(np.mean(values))

    def gate(self, logits: dict[str, np.ndarray], head: str):
        from ml_assets.training.ngram_bag import choose_gates

        valid = self.sets["valid"]
        return choose_gates(
            {head: logits[head]}, {head: self.bag["valid"][head]}, self.bag["valid_coverage"],
            {head: valid.labels[head]}, self.heldout, IGNORE_INDEX, merchants=self.merchants,
        )[head]  # fmt: skip


def kept_step(scores: list[tuple[int, float]], patience: int) -> int:
    """The step finetune keeps for these (step, score) passes: the first best, stopping after
    ``patience`` passes without a gain."""
    best_score, best_step, bad = -1.0, 0, 0
    for step, score in scores:
        if score > best_score:
            best_score, best_step, bad = score, step, 0
        else:
            bad += 1
            if bad >= patience:
                break
    return best_step


def test_accuracy(views: Views, logits: dict, test_logits: dict, head: str) -> dict:
    test = views.sets["test"]
    gate = views.gate(logits, head)
    predicted = mixed(
        test_logits[head], views.bag["test"][head], views.bag["test_coverage"], gate
    ).argmax(axis=1)
    labels = test.labels[head]
    heldout = test.sequences.row_table()["heldout_merchant"].to_numpy()
    keep = labels != IGNORE_INDEX
    right = predicted == labels
    return {
        "all": round(100 * float(right[keep].mean()), 2),
        "heldout": round(100 * float(right[keep & heldout].mean()), 2),
        "seen": round(100 * float(right[keep & ~heldout].mean()), 2),
        "encoder_all": round(100 * float((test_logits[head].argmax(1) == labels)[keep].mean()), 2),
        "gate": [round(float(x), 2) for x in gate],
    }


def one_run(features: pl.DataFrame, work: Path, seed: int, dump: Path | None = None) -> dict:
    from ml_assets.core.infra.layouts import SPLITS
    from ml_assets.core.params import MlmBackboneParams, MultitaskModelParams
    from ml_assets.core.training_data.corpus import TokenizedSplit
    from ml_assets.training.bag_fitting import token_texts
    from ml_assets.training.finetune import head_vocabularies, labeled_view, predict_logits
    from ml_assets.training.ngram_bag import bag_logprobs_numpy, coverage_numpy, fit_bag
    from ml_assets.training.preemption import TrainingHooks
    from ml_assets.training.stages import train_mlm_backbone, train_multitask_model

    params = load_params()
    max_length = params.section("tokenized_corpus")["max_length"]
    tokenizer_dir, corpus_dir = work / "tokenizer", work / "corpus"
    if not tokenizer_dir.exists():
        prune_into(tokenizer_dir, features, params.section("pruned_tokenizer"))
    if not corpus_dir.exists():
        corpus_dir.mkdir()
        write_corpus(corpus_dir, FolderTokenizer.load(tokenizer_dir), features, max_length)
    backbone_dir = work / f"backbone-{seed}"
    if not backbone_dir.exists():
        backbone_dir.mkdir()
        mlm = params.section("mlm_backbone") | {"steps": 0, "seed": seed}
        train_mlm_backbone(  # steps 0: the backbone sliced, not trained
            corpus_dir=corpus_dir, tokenizer_dir=tokenizer_dir,
            settings=MlmBackboneParams.model_validate(mlm), folder=backbone_dir,
            checkpoint_root=work / "mlm-checkpoints" / str(seed),
            log=lambda _m: None,
        )  # fmt: skip
    section = params.section("multitask_model") | {"seed": seed}
    section["heads"] = [h for h in section["heads"] if features[h].drop_nulls().len()]
    settings = MultitaskModelParams.model_validate(section)
    splits = {name: TokenizedSplit(corpus_dir, name, settings.max_length) for name in SPLITS}
    heads = head_vocabularies(splits["train"].meta, settings.heads)
    sets = {name: labeled_view(split, heads) for name, split in splits.items()}
    pad_id = splits["train"].meta["pad_id"]
    passes: list[tuple[int, dict, dict]] = []
    vocab: list[int] = []

    def record(step: int, model) -> None:
        import torch

        vocab[:] = [model.encoder.config.vocab_size]
        device = torch.device("cpu")
        passes.append((
            step,
            predict_logits(model, sets["valid"].sequences, 64, pad_id, device),
            predict_logits(model, sets["test"].sequences, 64, pad_id, device),
        ))  # fmt: skip

    with tempfile.TemporaryDirectory(dir=work) as scratch:
        train_multitask_model(
            corpus_dir=corpus_dir, tokenizer_dir=tokenizer_dir, backbone_dir=backbone_dir,
            settings=MultitaskModelParams.model_validate(section | {"patience": 10**6}),
            folder=Path(scratch), log=lambda _m: None, hooks=TrainingHooks(on_evaluated=record),
        )  # fmt: skip
    vocab_size = vocab[0]
    pieces = token_texts(tokenizer_dir, vocab_size) if settings.ngram_chars else None
    bag, _ = fit_bag(
        (sets["train"].sequences, sets["train"].labels), vocab_size, settings.ngram_buckets,
        heads, settings.ngram_c_grid, (sets["valid"].sequences, sets["valid"].labels),
        IGNORE_INDEX, log=lambda _m: None, pieces=pieces,
    )  # fmt: skip
    bag_parts = {
        "sizes": {h: len(v) for h, v in heads.items()},
        **{split: bag_logprobs_numpy(bag, sets[split].sequences) for split in ("valid", "test")},
        **{
            f"{split}_coverage": coverage_numpy(bag, sets[split].sequences)
            for split in ("valid", "test")
        },
    }
    views = Views(sets, settings, bag_parts)
    head = settings.heads[0]
    shipped = kept_step(
        [(step, views.score("heldout_merchants", valid)) for step, valid, _ in passes],
        settings.patience,
    )
    kept = next((v, t) for s, v, t in passes if s == shipped)
    # the logits of the pass the shipped score keeps, and the bag's: for offline study
    if dump is not None:
        np.savez_compressed(
            dump,
            **{f"{split}_{head}_encoder": kept[i][head]
               for i, split in enumerate(("valid", "test")) for head in heads},
            **{f"{split}_{head}_bag": bag_parts[split][head]
               for split in ("valid", "test") for head in heads},
            **{f"{split}_{head}_labels": sets[split].labels[head]
               for split in ("valid", "test") for head in heads},
            **{f"{split}_heldout": sets[split].sequences.row_table()["heldout_merchant"].to_numpy()
               for split in ("valid", "test")},
            **{f"{split}_merchants": sets[split].sequences.row_table()["merchant_key"].to_numpy()
               .astype(str) for split in ("valid", "test")},
            valid_coverage=bag_parts["valid_coverage"], test_coverage=bag_parts["test_coverage"],
        )  # fmt: skip
    result: dict = {"seed": seed, "steps": [p[0] for p in passes], "scores": {}}
    for name in SCORES:
        per_pass = [(step, views.score(name, valid)) for step, valid, _ in passes]
        step = kept_step(per_pass, settings.patience)
        valid, test = next((v, t) for s, v, t in passes if s == step)
        result["scores"][name] = {
            "step": step,
            "valid": [round(s, 4) for _, s in per_pass],
            **test_accuracy(views, valid, test, head),
        }
    return result


def summary(results: list[dict]) -> str:
    lines = ["| score | runs | all | held-out | seen | steps kept |", "|---|---|---|---|---|---|"]
    for name in SCORES:
        cells = []
        for key in ("all", "heldout", "seen"):
            values = np.array([r["scores"][name][key] for r in results])
            cells.append(f"{values.mean():.1f}")
        steps = ", ".join(str(r["scores"][name]["step"]) for r in results)
        lines.append(f"| {name} | {len(results)} | " + " | ".join(cells) + f" | {steps} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", required=True, type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[21, 22, 23])
    parser.add_argument("--out", type=Path, default=Path("early_stopping.jsonl"))
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    features = pl.read_parquet(args.features)
    work = args.work or Path(tempfile.mkdtemp(prefix="early-stopping-"))
    work.mkdir(parents=True, exist_ok=True)
    done = [json.loads(x) for x in args.out.read_text().splitlines()] if args.out.exists() else []
    for seed in args.seeds:
        if any(r["seed"] == seed for r in done):
            continue
        result = one_run(features, work, seed, work / f"logits-{seed}.npz")
        print(json.dumps(result), flush=True)
        with args.out.open("a") as out:
            out.write(json.dumps(result) + "\n")
        done.append(result)
    print(summary(done))


if __name__ == "__main__":
    main()
