"""Multitask finetuning with validation-based early stopping."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from ml_assets.core.params import MultitaskModelParams
from ml_assets.core.quality.metrics import head_metrics
from ml_assets.core.training_data.corpus import TokenizedSplit
from ml_assets.training.checkpoint import TrainingState
from ml_assets.training.data import (
    IGNORE_INDEX,
    BucketedBatches,
    LoaderPosition,
    collate,
    length_sorted_batches,
    mask_pieces,
    sorted_slices,
)
from ml_assets.training.loop import TrainingRun
from ml_assets.training.model import MultiTaskModel
from ml_assets.training.optim import autocast_for
from ml_assets.training.perf import ThroughputMeter
from ml_assets.training.preemption import TrainingHooks
from ml_assets.training.probe import initialize_heads_by_probe


@dataclass
class LabeledSet:
    """Token id sequences plus one label-id array per head (IGNORE_INDEX where unlabeled)."""

    sequences: Sequence[np.ndarray]
    labels: dict[str, np.ndarray]


@dataclass
class FinetuneResult:
    steps: int
    best_step: int
    best_score: float | None  # None: no validation pass ran
    stopped_early: bool
    seconds: float
    samples: int
    history: list[dict] = field(default_factory=list)
    perf: dict[str, float] = field(default_factory=dict)
    trainable_params: int = 0


@torch.no_grad()
def predict_logits(
    model: MultiTaskModel,
    sequences: Sequence[np.ndarray],
    batch_size: int,
    pad_id: int,
    device: torch.device,
    amounts: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Logits per head in input order; batches are length-sorted to avoid padding waste.
    With ``amounts`` (one per sequence), what a model that reads them adds (``forward``'s
    ``amount``)."""
    model.eval()
    batches, inverse = length_sorted_batches(sequences, batch_size, pad_id)
    if amounts is not None and model.amount_prior is not None:
        if len(amounts) != len(sequences):
            raise ValueError(f"{len(amounts)} amounts for {len(sequences)} sequences")
        amounts = np.asarray(amounts, np.float32)
    else:
        amounts = None
    outputs = {name: [] for name in model.head_names}
    for (ids, mask), part in zip(
        batches, sorted_slices(amounts, inverse, batch_size), strict=False
    ):
        amount = None if part is None else torch.from_numpy(part).to(device)
        with autocast_for(device):
            logits = model(ids.to(device), mask.to(device), amount)
        for name, value in zip(model.head_names, logits, strict=True):
            outputs[name].append(value.float().cpu().numpy())
    return {name: np.concatenate(parts)[inverse] for name, parts in outputs.items()}


def evaluate(
    model: MultiTaskModel,
    data: LabeledSet,
    batch_size: int,
    pad_id: int,
    device: torch.device,
    amounts: np.ndarray | None = None,
) -> dict[str, dict[str, float]]:
    logits = predict_logits(model, data.sequences, batch_size, pad_id, device, amounts)
    return metrics_of(model, logits, data)


def metrics_of(
    model: MultiTaskModel, logits: dict[str, np.ndarray], data: LabeledSet
) -> dict[str, dict[str, float]]:
    """Accuracy, macro-F1 and n per head of ``logits`` against ``data``'s labels."""
    results = {}
    for name in model.head_names:
        labels = data.labels[name]
        keep = labels != IGNORE_INDEX
        predicted = logits[name].argmax(axis=1)
        # a head with no labels in this set has no metrics (reported as n=0, never as 0.0)
        results[name] = (
            head_metrics(labels[keep], predicted[keep], len(model.head_labels[name]))
            if keep.any()
            else {"n": 0}
        )
    return results


def mean_macro_f1(metrics: dict[str, dict[str, float]]) -> float:
    scored = [m["macro_f1"] for m in metrics.values() if m["n"] > 0]
    if not scored:
        raise ValueError("no head has labeled rows in the validation split")
    return float(np.mean(scored))


def encoder_groups(model: MultiTaskModel, learning_rate: float, decay: float) -> list[dict]:
    """Optimizer groups for the encoder with layer-wise learning-rate decay (ULMFiT, ELECTRA):
    the top layer trains at ``learning_rate``, each layer below at ``decay`` times the one
    above, the embeddings last, so finetuning moves the general lower layers least.
    ``decay == 1`` is one group at one rate."""
    named = list(model.encoder.named_parameters())
    if decay == 1.0:
        return [{"named_params": named, "lr": learning_rate}]
    layers = model.encoder.config.num_hidden_layers
    depth: dict[int, list] = {}
    for name, param in named:
        parts = name.split(".")
        index = next(
            (int(parts[i + 1]) for i, part in enumerate(parts[:-1])
             if part in ("layer", "layers") and parts[i + 1].isdigit()),
            None,
        )  # fmt: skip
        if index is not None:
            k = layers - 1 - index  # 0 = the top layer
        elif any(part.startswith("embedding") for part in parts):
            k = layers  # the embeddings, and ELECTRA's and ALBERT's projection out of them
        else:
            k = 0  # anything above the layers (none in BertModel without a pooler)
        depth.setdefault(k, []).append((name, param))
    return [
        {"named_params": params, "lr": learning_rate * decay**k}
        for k, params in sorted(depth.items())
    ]


def added_piece_group(model: MultiTaskModel, rows: Sequence[int], learning_rate: float) -> dict:
    """An optimizer group that trains only ``rows`` of the frozen word-embedding table: the
    pieces added for characters the backbone lacks, which start as [UNK]'s vector and hold
    nothing pretrained to keep. The other rows' gradients are zeroed, and no weight decay
    applies (decoupled decay would shrink every row)."""
    table = model.encoder.get_input_embeddings().weight
    mask = torch.zeros(table.shape[0], 1, dtype=table.dtype, device=table.device)
    mask[torch.as_tensor(list(rows), dtype=torch.long)] = 1.0
    table.requires_grad_(True)
    table.register_hook(lambda grad: grad * mask.to(grad.device))
    return {"named_params": [("added_pieces", table)], "lr": learning_rate, "weight_decay": 0.0}


def _copy_into(targets: list[torch.Tensor], sources: list[torch.Tensor]) -> None:
    for target, source in zip(targets, sources, strict=True):
        target.copy_(source)


class WeightAverage:
    """An exponential moving average of the trainable weights (Polyak averaging), read at
    each validation instead of the weights of one step. Bias-corrected like Adam's moments:
    the sum starts at zero and is divided by ``1 - decay**t``, so an early validation reads the
    average of the steps so far, not the initial weights."""

    def __init__(self, model: torch.nn.Module, decay: float):
        self.decay = decay
        self.names = [n for n, p in model.named_parameters() if p.requires_grad]
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.average = [torch.zeros_like(p) for p in self.params]
        self.updates = 0

    def update(self) -> None:
        with torch.no_grad():
            for average, param in zip(self.average, self.params, strict=True):
                average.lerp_(param.detach(), 1 - self.decay)
        self.updates += 1

    def averaged(self) -> list[torch.Tensor]:
        correction = 1.0 - self.decay**self.updates
        return [t / correction for t in self.average]

    def tensors(self) -> dict[str, torch.Tensor]:
        return {f"average.{n}": t for n, t in zip(self.names, self.average, strict=True)}

    def restore(self, tensors: dict[str, torch.Tensor], updates: int) -> None:
        for i, name in enumerate(self.names):
            self.average[i].copy_(tensors[f"average.{name}"])
        self.updates = updates

    @contextlib.contextmanager
    def swapped_in(self):
        """The model holds the average inside; the training weights come back after."""
        with torch.no_grad():
            kept = [p.detach().clone() for p in self.params]
            _copy_into(self.params, self.averaged())
        try:
            yield
        finally:
            with torch.no_grad():
                _copy_into(self.params, kept)


# The attention's query and value projections as architectures name them (BERT, RoBERTa,
# ELECTRA, ALBERT; DeBERTa; DistilBERT; MPNet), or its fused query-key-value one (ModernBERT)
LORA_TARGETS = (
    ("query", "value"),
    ("query_proj", "value_proj"),
    ("q_lin", "v_lin"),
    ("q", "v"),
    ("Wqkv",),
)


def lora_targets(encoder: torch.nn.Module) -> list[str]:
    """The names of the encoder's attention projections that get adapters."""
    linear = {
        name.rsplit(".", 1)[-1]
        for name, module in encoder.named_modules()
        if isinstance(module, torch.nn.Linear)
    }
    for names in LORA_TARGETS:
        if set(names) <= linear:
            return list(names)
    raise ValueError(
        f"multitask_model.lora_r > 0: no query and value projections found in the "
        f"{encoder.config.model_type!r} encoder (its linear layers: {sorted(linear)}); set "
        "multitask_model.lora_r: 0 to finetune every weight"
    )


def add_lora(model: MultiTaskModel, r: int, alpha: int) -> None:
    """Freeze the encoder and train low-rank adapters on its attention projections (peft)."""
    from peft import LoraConfig, get_peft_model

    targets = lora_targets(model.encoder)
    config = LoraConfig(r=r, lora_alpha=alpha, lora_dropout=0.1, target_modules=targets)
    model.encoder = get_peft_model(model.encoder, config)


def merge_lora(model: MultiTaskModel) -> None:
    """Fold the adapters into the weights: the saved model is a plain encoder again."""
    model.encoder = model.encoder.merge_and_unload()


def training_steps(rows: int, config: MultitaskModelParams) -> int:
    """``max_epochs`` over ``rows``, but at least ``min_steps`` and at most ``max_steps``: the
    number of steps follows the data where it is large, and a few hundred labeled rows still
    get enough steps to fit the heads (early stopping guards the extra epochs)."""
    steps_per_epoch = -(-rows // config.batch_size)
    return min(config.max_steps, max(config.min_steps, steps_per_epoch * config.max_epochs))


def finetune(
    model: MultiTaskModel,
    train: LabeledSet,
    valid: LabeledSet,
    config: MultitaskModelParams,
    *,
    pad_id: int,
    device: torch.device,
    mask_id: int | None = None,
    special_ids: Sequence[int] = (),
    log: Callable[[str], None] = print,
    checkpoint_root: Path | None = None,
    hooks: TrainingHooks | None = None,
    valid_score: Callable[[dict[str, np.ndarray]], float] | None = None,
    added_pieces: Sequence[int] = (),
) -> FinetuneResult:
    """Train with validation every ``eval_every`` steps and early stopping on it.

    ``config`` is the ``multitask_model`` section as params.yaml and the run's config resolved
    it (baseline_model passes the same section with its plain recipe's keys over it); the data
    keys (heads, max_length, valid_sample, pooling, dropout) were applied by the caller.

    With ``checkpoint_root``, every evaluation (and ``hooks.checkpoint_seconds``, and a stop
    request) writes a checkpoint holding the model, optimizer, schedule, RNG, loader position,
    early-stopping state and the best weights so far; a rerun resumes from the newest one and
    ends with the same weights as an uninterrupted run.

    Early stopping keeps the pass with the best ``valid_score`` of the valid logits per head
    (None: the heads' mean macro-F1).

    ``config.token_mask_prob`` > 0 masks pieces of each training batch (``mask_id``; never
    ``special_ids`` or padding), drawn from a generator seeded by the step, so a resumed run
    masks exactly what the uninterrupted one did."""
    if config.token_mask_prob > 0 and mask_id is None:
        raise ValueError("multitask_model.token_mask_prob > 0 needs the tokenizer's [MASK] id")
    special = torch.tensor(sorted(special_ids), dtype=torch.long)
    # setup
    torch.manual_seed(config.seed)
    if config.lora_r > 0:
        add_lora(model, config.lora_r, config.lora_alpha)
    groups = [
        *encoder_groups(model, config.learning_rate, config.layer_lr_decay),
        {"named_params": list(model.heads.named_parameters()), "lr": config.head_learning_rate},
    ]
    if config.freeze_word_embeddings:
        # Only pieces of training text get gradients: the others (a merchant never seen in
        # training) would keep pretrained vectors the updated encoder no longer reads alike.
        model.encoder.get_input_embeddings().weight.requires_grad_(False)
        if config.train_added_pieces and len(added_pieces):
            table = model.encoder.get_input_embeddings().weight
            groups = [  # (the table trains in its own group alone)
                {**g, "named_params": [(n, q) for n, q in g["named_params"] if q is not table]}
                for g in groups
            ]
            groups.append(added_piece_group(model, added_pieces, config.head_learning_rate))
    total = training_steps(len(train.sequences), config)
    run = TrainingRun(
        model,
        groups,
        weight_decay=config.weight_decay,
        warmup_steps=config.warmup_steps,
        total_steps=total,
        precision=config.precision,
        device=device,
        checkpoint_root=checkpoint_root,
        hooks=hooks,
        log=log,
        distributed=False,  # under torchrun, finetuning runs on rank 0 alone
    )
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    average = (
        WeightAverage(model, config.weight_average_decay) if config.weight_average_decay else None
    )
    batches = BucketedBatches([len(s) for s in train.sequences], config.batch_size, config.seed)
    # best_score None: no pass yet (a score may be any float)
    best_state, best_score, best_step, bad_evals = None, None, 0, 0
    history, running, step, stopped_early = [], [], 0, False
    position = LoaderPosition()
    # resume
    state = run.resume("finetuning")
    if state is not None:
        step, position = state.step, LoaderPosition(**state.loader)
        extras = state.extras
        best_score, best_step, bad_evals = (
            extras["best_score"],
            extras["best_step"],
            extras["bad_evals"],
        )
        history, running = extras["history"], extras["running"]
        tensors = state.tensors or {}
        if average is not None:
            average.restore(tensors, updates=step)
        best_state = {k[len("best.") :]: v for k, v in tensors.items() if k.startswith("best.")}
        best_state = best_state or None
    elif config.head_init == "linear_probe":
        probe = initialize_heads_by_probe(
            model,
            train.sequences,
            train.labels,
            l2=config.probe_l2,
            batch_size=config.batch_size * 2,
            pad_id=pad_id,
            device=device,
        )
        fit = ", ".join(f"{h} {probe[h]:.3f}" for h in model.head_names)
        log(
            f"heads initialized by a linear probe in {probe['seconds']:.1f} s (train accuracy {fit})"
        )
    stream = batches.iterate(position)
    meter, started = ThroughputMeter(), time.perf_counter()

    def checkpoint_state() -> TrainingState:
        return TrainingState(
            step=step,
            loader=vars(position).copy(),
            extras={
                "best_score": best_score,
                "best_step": best_step,
                "bad_evals": bad_evals,
                "history": history,
                "running": running,
            },
            tensors={
                **{f"best.{k}": v for k, v in (best_state or {}).items()},
                **(average.tensors() if average is not None else {}),
            },
        )

    # loop
    while step < total:
        model.train()
        position, indices = next(stream)
        ids, mask = collate([train.sequences[i] for i in indices], pad_id)
        if config.token_mask_prob > 0:
            ids = mask_pieces(
                ids,
                torch.isin(ids, special) | (mask == 0),
                prob=config.token_mask_prob,
                mask_id=mask_id,
                generator=torch.Generator().manual_seed(config.seed * 1_000_003 + step),
            )
        targets = {
            name: torch.from_numpy(train.labels[name][indices]).long() for name in model.head_names
        }
        meter.batch_ready()
        with run.precision.autocast():
            logits = model(ids.to(device), mask.to(device))
            loss = sum(
                F.cross_entropy(
                    out.float(),
                    targets[name].to(device),
                    ignore_index=IGNORE_INDEX,
                    label_smoothing=config.label_smoothing,
                )
                for name, out in zip(model.head_names, logits, strict=True)
            )
        run.precision.backward_and_step(loss, run.optimizer, model.parameters(), 1.0, step=True)
        run.scheduler.step()
        if average is not None:
            average.update()
        step += 1
        running.append(float(loss.detach()))
        run.hooks.on_step(step, running[-1])
        meter.step_done(int(mask.sum()), mask.numel(), len(indices), device)
        evaluated = step % config.eval_every == 0 or step == total
        if evaluated:
            # with weight averaging the average is what is validated and kept
            with average.swapped_in() if average is not None else contextlib.nullcontext():
                logits = predict_logits(
                    model, valid.sequences, config.batch_size * 2, pad_id, device
                )
                metrics = metrics_of(model, logits, valid)
                f1 = mean_macro_f1(metrics)
                score = valid_score(logits) if valid_score else f1
                run.hooks.on_evaluated(step, model)
                improved = best_score is None or score > best_score
                if improved:
                    best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            history.append(
                {
                    "step": step,
                    "train_loss": float(np.mean(running)),
                    "valid_macro_f1": f1,
                    "valid_score": score,
                    **{f"valid_{h}_accuracy": m["accuracy"] for h, m in metrics.items() if m["n"]},
                }
            )
            running = []
            log(f"step {step}/{total} valid score {score:.4f} (mean macro-F1 {f1:.4f})")
            if improved:
                best_score, best_step, bad_evals = score, step, 0
            else:
                bad_evals += 1
                if bad_evals >= config.patience and step < total:
                    stopped_early = True
                    log(f"early stop at step {step}: no improvement for {bad_evals} evaluations")
                    break
            meter.exclude()
        run.after_step(step, due=evaluated, state=checkpoint_state, meter=meter)
    # result: the best validation state, adapters merged
    if best_state is not None:
        model.load_state_dict(best_state)
    if config.lora_r > 0:
        merge_lora(model)
    return FinetuneResult(
        steps=step,
        best_step=best_step,
        best_score=best_score,
        stopped_early=stopped_early,
        seconds=time.perf_counter() - started,
        samples=meter.samples,
        history=history,
        perf=meter.report(device),
        trainable_params=trainable,
    )


def head_vocabularies(meta: dict, heads: tuple[str, ...]) -> dict[str, list[str]]:
    from ml_assets.core.training_data.labels import trainable_heads

    vocab = {head: meta["labels"][head] for head in heads}
    for head, names in vocab.items():  # the asset left out empty heads; here every one trains
        trainable_heads([head], {head: names})
    return vocab


def labeled_view(split: TokenizedSplit, heads: dict[str, list[str]]) -> LabeledSet:
    """Rows with a label for at least one head, as sequences + label ids per head."""
    labels = np.stack([split.labels(head) for head in heads], axis=1)
    rows = np.flatnonzero((labels != IGNORE_INDEX).any(axis=1))
    view = split.subset(rows)
    return LabeledSet(sequences=view, labels={head: view.labels(head) for head in heads})
