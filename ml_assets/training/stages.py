"""The two training stages as plain functions: input folders in, an artifact folder out.

They run inside the training job (``ml_assets.training.job``), locally or on a GCP VM, so they
import neither dagster nor the artifact store: inputs are folders, the output is a folder, and
the result is JSON-able metadata. Charts are written as PNG files beside the artifact; the
asset turns them into pictures in the Dagster UI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ml_assets.core.infra.io import atomic_write_json, read_json
from ml_assets.core.infra.layouts import (
    MODEL_HISTORY_FILE,
    MODEL_METRICS_FILE,
    PARAMS_FILE,
    SPLITS,
    TOKENIZER_DIR,
    TOKENIZER_ID_MAP,
)
from ml_assets.core.params import MlmBackboneParams, MultitaskModelParams
from ml_assets.core.text.backbones import resolve_backbone
from ml_assets.training.preemption import TrainingHooks

MLM_CURVE_PNG = "loss_curve.png"
VALID_CURVE_PNG = "valid_curve.png"
# what early stopping watches, by multitask_model.early_stopping_rows
VALID_SCORE_NAMES = {
    "seen_and_heldout": "mean of seen- and held-out-merchant accuracy",
    "heldout_merchants": "held-out merchants' mean macro-F1",
    "all": "mean macro-F1",
}
SKETCH_SUFFIX = ".md"  # beside each PNG: the inline sketch of the same curve (Markdown)


def write_curve(folder: Path, png_name: str, png: bytes, points, alt: str) -> None:
    """A curve as its full PNG and, beside it, the sketch the UI draws in place."""
    from ml_assets.core.quality.sketches import line_sketch

    (folder / png_name).write_bytes(png)
    (folder / png_name).with_suffix(SKETCH_SUFFIX).write_text(line_sketch(points, alt))


def accumulation_for(tokens_per_step: int | None, batch_size: int, mean_tokens: float) -> int:
    """Micro-batches per optimizer step so one step sees about ``tokens_per_step`` real tokens."""
    if not tokens_per_step:
        return 1
    return max(1, round(tokens_per_step / (batch_size * mean_tokens)))


def train_mlm_backbone(
    *,
    corpus_dir: Path,
    tokenizer_dir: Path,
    settings: MlmBackboneParams,
    folder: Path,
    checkpoint_root: Path,
    log: Callable[[str], None] = print,
    hooks: TrainingHooks | None = None,
) -> dict:
    from ml_assets.core.quality.plots import line_chart_png
    from ml_assets.core.training_data.corpus import TokenizedSplit
    from ml_assets.training.mlm import MlmRun, pretrain_mlm, probe_batch_size
    from ml_assets.training.model import count_parameters, load_pruned_mlm, pick_device
    from ml_assets.training.perf import GPU_UNTIMED_STEPS, peak_flops_for

    device = pick_device()
    train = TokenizedSplit(corpus_dir, "train", settings.max_length)
    meta = train.meta
    net, params_before = load_pruned_mlm(
        resolve_backbone(read_json(tokenizer_dir / PARAMS_FILE)["backbone"]),
        read_json(tokenizer_dir / TOKENIZER_ID_MAP)["new_to_old"],
        settings.num_layers,
        settings.seed,
    )
    if settings.steps == 0:  # pretraining off: the sliced, un-adapted backbone is the output
        net.cpu().save_pretrained(folder, safe_serialization=True)
        log("mlm_backbone.steps is 0: no masked-LM pretraining, the backbone is only sliced")
        atomic_write_json(folder / "loss_curve.json", [])  # the same layout, an empty curve
        write_curve(
            folder,
            MLM_CURVE_PNG,
            line_chart_png({}, "No MLM pretraining (mlm_backbone.steps: 0)", "step", "loss"),
            [],
            "no MLM pretraining",
        )
        return {
            "params_before_pruning": params_before,
            "params_after_pruning": count_parameters(net),
            "vocab_size": net.config.vocab_size,
            "layers": net.config.num_hidden_layers,
            "steps": 0,
            "training_rows": len(train),
        }
    batch_size = settings.batch_size
    if settings.auto_batch_size:
        batch_size = probe_batch_size(net, settings.max_length, batch_size, 16384, device)
        log(
            f"batch size {batch_size} ({'probed' if device.type == 'cuda' else 'CPU: as configured'})"
        )
    accumulation = accumulation_for(
        settings.tokens_per_step, batch_size, float(train.lengths.mean())
    )
    result = pretrain_mlm(
        net,
        train,
        settings,
        MlmRun(
            batch_size=batch_size,
            accumulation=accumulation,
            profile_dir=folder / "profile" if settings.profile else None,
            peak_flops=peak_flops_for(device, settings.peak_tflops),
            untimed_steps=GPU_UNTIMED_STEPS if device.type == "cuda" else 0,
        ),
        special_ids=meta["special_ids"],
        mask_id=meta["mask_id"],
        pad_id=meta["pad_id"],
        checkpoint_root=checkpoint_root,
        device=device,
        log=log,
        hooks=hooks,
    )
    if result.world_size > 1:
        import torch.distributed as dist

        if dist.get_rank() != 0:
            return {}  # rank 0 writes the artifact
    net.cpu().save_pretrained(folder, safe_serialization=True)
    atomic_write_json(folder / "loss_curve.json", result.loss_curve)
    write_curve(
        folder,
        MLM_CURVE_PNG,
        line_chart_png({"MLM loss": result.loss_curve}, "MLM pretraining loss", "step", "loss"),
        result.loss_curve,
        "MLM loss",
    )
    return {
        "params_before_pruning": params_before,
        "params_after_pruning": count_parameters(net),
        "vocab_size": net.config.vocab_size,
        "layers": net.config.num_hidden_layers,
        "steps": result.steps,
        "resumed_from_step": result.resumed_from_step,
        "batch_size": batch_size,
        "accumulation": accumulation,
        "world_size": result.world_size,
        "training_rows": len(train),
        "train_seconds": round(result.seconds, 2),
        "final_mlm_loss": round(result.final_loss, 4),
        "first_mlm_loss": round(result.loss_curve[0][1], 4) if result.loss_curve else None,
        "device": result.device,
        "precision": result.precision,
        **(result.perf if result.perf.get("timed_steps") else {}),
    }


def train_multitask_model(
    *,
    corpus_dir: Path,
    tokenizer_dir: Path,
    backbone_dir: Path,
    settings: MultitaskModelParams,
    folder: Path,
    checkpoint_root: Path | None = None,
    log: Callable[[str], None] = print,
    hooks: TrainingHooks | None = None,
) -> dict:
    from ml_assets.core.infra.layouts import copy_tokenizer
    from ml_assets.core.quality.plots import line_chart_png
    from ml_assets.core.training_data.corpus import TokenizedSplit
    from ml_assets.training.finetune import (
        LabeledSet,
        evaluate,
        finetune,
        head_vocabularies,
        labeled_view,
    )
    from ml_assets.training.model import MultiTaskModel, pick_device

    splits = {name: TokenizedSplit(corpus_dir, name, settings.max_length) for name in SPLITS}
    meta = splits["train"].meta
    heads = head_vocabularies(meta, settings.heads)
    sets = {name: labeled_view(split, heads) for name, split in splits.items()}
    for name, data in sets.items():
        if len(data.sequences) == 0:
            raise ValueError(
                f"no labeled rows in the {name} split; add labeled data or change the split shares"
            )
    full_valid = len(sets["valid"].sequences)
    every_valid = sets["valid"]  # the n-gram bag's mix is chosen on seen and unseen merchants
    if settings.early_stopping_rows == "heldout_merchants":
        sets["valid"] = heldout_subset(sets["valid"])
        if len(sets["valid"].sequences) == 0:
            raise ValueError(
                "early_stopping_rows is heldout_merchants but the valid split has no labeled "
                "row of a held-out merchant; raise transaction_features.heldout_valid_merchant_pct "
                "or set multitask_model.early_stopping_rows: all"
            )
    if settings.valid_sample and settings.valid_sample < full_valid:  # tier 1: cheap, stratified
        from ml_assets.core.training_data.labels import stratified_sample

        first_head = settings.heads[0]
        rows = stratified_sample(
            sets["valid"].labels[first_head], settings.valid_sample, settings.seed
        )
        sets["valid"] = LabeledSet(
            sequences=sets["valid"].sequences.subset(rows),
            labels={head: values[rows] for head, values in sets["valid"].labels.items()},
        )
    valid_score = (
        seen_and_heldout_score(sets["valid"])
        if settings.early_stopping_rows == "seen_and_heldout"
        else None
    )
    heldout = heldout_subset(sets["test"])
    device = pick_device()
    import torch

    pooling = settings.pooling
    if pooling == "auto":  # as the configured backbone was trained to be read
        from ml_assets.training.references import trained_pooling

        backbone = resolve_backbone(read_json(tokenizer_dir / PARAMS_FILE)["backbone"])
        pooling = trained_pooling(backbone)
    torch.manual_seed(settings.seed)  # head initialization: same recipe, same starting point
    net = MultiTaskModel.from_backbone(backbone_dir, heads, settings.dropout, pooling)
    added = _added_pieces(tokenizer_dir) if settings.train_added_pieces else []
    result = finetune(
        net,
        sets["train"],
        sets["valid"],
        settings,
        pad_id=meta["pad_id"],
        device=device,
        mask_id=meta["mask_id"],
        special_ids=meta["special_ids"],
        log=log,
        checkpoint_root=checkpoint_root,
        hooks=hooks,
        valid_score=valid_score,
        added_pieces=added,
    )
    bag = {}
    if settings.ngram_bag:
        from ml_assets.training.bag_fitting import attach_bag

        encoder_only = evaluate(net, sets["test"], 128, meta["pad_id"], device)
        bag = attach_bag(
            net, sets["train"], every_valid, settings, meta["pad_id"], device, log,
            tokenizer_dir, backbone_dir,
        )  # fmt: skip
    from ml_assets.training.amount_fitting import attach_amount_prior, row_amounts

    amount = {}
    if settings.amount_prior:
        amount = attach_amount_prior(net, sets["train"], every_valid, meta["pad_id"], device, log)
    test = evaluate(net, sets["test"], 128, meta["pad_id"], device, row_amounts(sets["test"]))
    test_heldout = (
        evaluate(net, heldout, 128, meta["pad_id"], device, row_amounts(heldout))
        if len(heldout.sequences)
        else {}
    )
    score_name = VALID_SCORE_NAMES[settings.early_stopping_rows]
    # a pass resumed from a checkpoint that records no score has its macro-F1
    passes = [(h["step"], h.get("valid_score", h["valid_macro_f1"])) for h in result.history]
    curve = {score_name: passes}
    net.cpu().save(folder)
    copy_tokenizer(tokenizer_dir, folder / TOKENIZER_DIR)
    atomic_write_json(
        folder / MODEL_METRICS_FILE, {"test": test, "test_heldout_merchants": test_heldout}
    )
    atomic_write_json(folder / MODEL_HISTORY_FILE, result.history)
    write_curve(
        folder,
        VALID_CURVE_PNG,
        line_chart_png(curve, "Validation during finetuning", "step", "score"),
        next(iter(curve.values())),
        f"validation: {score_name}",
    )
    metadata = {
        "heads": {head: len(names) for head, names in heads.items()},
        **{f"{name}_rows": len(data.sequences) for name, data in sets.items()},
        "test_heldout_merchant_rows": len(heldout.sequences),
        "pooling": pooling,
        "valid_rows_full": full_valid,
        "steps": result.steps,
        "best_step": result.best_step,
        "best_valid_score": round(result.best_score, 4),
        "valid_score": score_name,
        "stopped_early": result.stopped_early,
        "train_seconds": round(result.seconds, 2),
        "trainable_params": result.trainable_params,
        "lora_r": settings.lora_r,
        "device": str(device),
        **result.perf,
    }
    if bag:
        metadata["ngram_bag_seconds"] = bag["seconds"]
        for head in heads:
            threshold, low, high, token_share = bag["gate"][head]
            signal = f" (single tokens' {token_share:g})" if token_share else ""
            shares = f"{low:g} on every row" if low == high else f"{low:g}-{high:g}"
            metadata[f"ngram_bag_{head}_gate"] = (
                f"weight {shares} around coverage {threshold:g}{signal}, C {bag['c'][head]:g}"
                if high
                else f"encoder alone (the bag scored below it on validation), C {bag['c'][head]:g}"
            )
            if head in bag.get("prior", {}):
                metadata[f"ngram_bag_{head}_prior"] = prior_summary(bag["prior"][head])
            if encoder_only[head]["n"]:
                metadata[f"{head}_encoder_acc"] = round(encoder_only[head]["accuracy"], 4)
    if amount:
        metadata["amount_prior"] = net.reads_amount
        for head in heads:
            metadata[f"amount_prior_{head}"] = (
                f"weight {amount['weight'][head]:g} "
                f"(valid: {amount['valid_gain_pt'][head]:+.2f} points)"
            )
    for head in heads:
        if test[head]["n"] == 0:
            continue
        metadata[f"test_{head}_acc"] = round(test[head]["accuracy"], 4)
        metadata[f"test_{head}_f1"] = round(test[head]["macro_f1"], 4)
        if test_heldout and test_heldout[head]["n"] > 0:
            metadata[f"heldout_{head}_acc"] = round(test_heldout[head]["accuracy"], 4)
            metadata[f"heldout_{head}_f1"] = round(test_heldout[head]["macro_f1"], 4)
    metadata["test_mean_acc"] = round(
        float(np.mean([m["accuracy"] for m in test.values() if m["n"]])), 4
    )
    return metadata


def prior_summary(measured: dict) -> str:
    """One line of what ``gate_priors`` measured for a head, for the asset's metadata."""
    if "probe_lead" not in measured:
        return str(measured["prior"])
    start = (
        "unseen rows to the encoder"
        if measured["prior"] == "encoder"
        else f"the bag's share {measured['prior']:g} on every row"
    )
    return (
        f"{start}: out of fold on {measured['rows']} train rows of {measured['merchants']} "
        f"merchants, a probe on the starting backbone {measured['probe_out_of_fold']:g} %, "
        f"the bag {measured['bag_out_of_fold']:g} % (lead {measured['probe_lead']:+g} "
        f"± {measured['probe_lead_error']:g} points)"
    )


def seen_and_heldout_score(valid) -> Callable[[dict[str, np.ndarray]], float]:
    """The score early stopping keeps the best pass of, as the n-gram bag's gate is chosen: per
    head, the mean of accuracy on seen and on held-out merchants of ``valid``, a merchant
    counting as at most ``MERCHANT_ROW_CAP`` rows; the mean over heads with labels. On a valid
    split whose held-out slice is a few dozen merchants, neither that slice nor one chain in it
    decides alone."""
    from ml_assets.core.training_data.labels import IGNORE_INDEX
    from ml_assets.training.ngram_bag import kept_row_weights, seen_and_heldout_accuracy

    rows = valid.sequences.row_table()
    heldout, merchants = rows["heldout_merchant"].to_numpy(), rows["merchant_key"].to_numpy()
    kept = {head: labels != IGNORE_INDEX for head, labels in valid.labels.items()}
    weights = {head: kept_row_weights(merchants, keep) for head, keep in kept.items()}

    def score(logits: dict[str, np.ndarray]) -> float:
        scored = [
            seen_and_heldout_accuracy(
                logits[head].argmax(axis=1) == valid.labels[head], keep, heldout, weights[head]
            )
            for head, keep in kept.items()
            if keep.any()
        ]
        if not scored:
            raise ValueError("no head has labeled rows in the validation split")
        return float(np.mean(scored))

    return score


def heldout_subset(data):
    """The rows of a labeled split whose merchant is never seen in training."""
    from ml_assets.training.finetune import LabeledSet

    rows = np.flatnonzero(data.sequences.row_table()["heldout_merchant"].to_numpy())
    return LabeledSet(
        sequences=data.sequences.subset(rows),
        labels={head: values[rows] for head, values in data.labels.items()},
    )


def train_baseline_model(
    *,
    corpus_dir: Path,
    tokenizer_dir: Path,
    settings: MultitaskModelParams,
    num_layers: int | None,
    init_seed: int,
    folder: Path,
    checkpoint_root: Path | None = None,
    log: Callable[[str], None] = print,
    hooks: TrainingHooks | None = None,
) -> dict:
    """The same finetuning with the same budget, from the *un-adapted* backbone: the original
    weights sliced to the pruned vocabulary (and layers) exactly as pretraining starts from,
    but with no domain MLM pretraining, finetuned with ``settings`` (baseline_model passes its
    plain recipe). The difference to multitask_model is what the candidate's recipe buys."""
    import tempfile

    from ml_assets.training.model import load_pruned_mlm

    net, _ = load_pruned_mlm(
        resolve_backbone(read_json(tokenizer_dir / PARAMS_FILE)["backbone"]),
        read_json(tokenizer_dir / TOKENIZER_ID_MAP)["new_to_old"],
        num_layers,
        init_seed,
    )
    with tempfile.TemporaryDirectory(prefix="unadapted-backbone-") as unadapted:
        net.save_pretrained(unadapted, safe_serialization=True)
        log(
            f"baseline: finetuning from the un-adapted backbone ({net.config.num_hidden_layers} layers)"
        )
        return train_multitask_model(
            corpus_dir=corpus_dir,
            tokenizer_dir=tokenizer_dir,
            backbone_dir=Path(unadapted),
            settings=settings,
            folder=folder,
            checkpoint_root=checkpoint_root,
            log=log,
            hooks=hooks,
        )


def _added_pieces(tokenizer_dir: Path) -> list[int]:
    """The ids of the pieces ``pruned_tokenizer`` added for characters the backbone lacks."""
    from ml_assets.core.text.id_map import added_piece_ids
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer

    new_to_old = read_json(tokenizer_dir / TOKENIZER_ID_MAP)["new_to_old"]
    unk = FolderTokenizer.load(tokenizer_dir).unk_token_id
    return added_piece_ids(new_to_old, new_to_old[unk]) if unk is not None else []
