"""An int8 recipe that adapts to the model: the configured one, plus the fewest quantized
MatMuls kept in fp32 that bring int8 back within the export gate on the validation split.

Quantization error is spread over every layer, but on a given model a few MatMuls carry more
of it than the rest. Keeping those few in fp32 costs +0.45 MB each on MiniLM (a 384 x 384
weight; +1.8 MB for an FFN projection) and little latency, so the gate can hold without giving
up int8 for the whole graph.

The search (costs measured by benchmarks/int8_recipe.py):
1. Quantize with the configured recipe and score the validation rows: if every head passes,
   stop (one quantization, one scoring pass: the common case).
2. Critical rows: those whose int8 margin for the reference's class is below ``headroom`` times
   the row's largest logit error. Only they can flip when part of the error goes away: on the
   6-layer model (blocks of 128) one node kept fp32 moved a row's logits by more than 2.4x that
   row's whole int8 error on 1 % of rows and 3.9x on 0.1 %; the default headroom is 3.
3. Rank every quantized MatMul by the logit error left on the critical rows when it alone is
   kept fp32 (lowest first). ``restore_fp32_nodes`` builds each variant by a graph edit in
   memory (~0.01 s; re-quantizing takes ~0.35 s); an onnxruntime session and the scoring of
   the critical rows are the cost.
4. A node that passes alone is taken; else the top 1, 2, ... are kept fp32 until the estimate
   passes: every non-critical row keeps its base answer. That set is confirmed on every row,
   and the record's numbers are those of the file written. Where scoring rows apart changes
   their logits (the dynamic kernel's per-batch activation scale; blocks of 128, which move
   with padding) every try is scored on every row instead.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx

from ml_assets.core.quality.export_gates import allowed_drop_pt, required_agreement
from ml_assets.core.serving.scoring import (
    AMOUNT_INPUT,
    checked_amounts,
    cpu_session,
    session_reads_amount,
)
from ml_assets.core.training_data.labels import IGNORE_INDEX
from ml_assets.training.data import length_sorted_batches, sorted_slices
from ml_assets.training.export import quantize_int8, quantized_weight_nodes, restore_fp32_nodes


def choose_int8_recipe(
    fp32_path: Path,
    int8_path: Path,
    recipe: dict,
    sequences: Sequence[np.ndarray],
    pad_id: int,
    reference_logits: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
    *,
    min_agreement: float,
    max_drop_pt: float,
    max_fp32_nodes: int,
    batch_size: int = 64,
    threads: int = 2,
    headroom: float = 3.0,
    log: Callable[[str], None] = print,
    amounts: np.ndarray | None = None,
) -> dict:
    """Write to ``int8_path`` the int8 model of ``fp32_path`` quantized with ``recipe`` (the
    keyword arguments of ``quantize_int8``) plus at most ``max_fp32_nodes`` of its quantized
    MatMuls kept fp32: the fewest, in rank order, with which every head reaches
    ``min_agreement`` argmax agreement with ``reference_logits`` and loses at most
    ``max_drop_pt`` accuracy points on the rows ``labels`` marks (IGNORE_INDEX: unlabeled), all
    measured on ``sequences`` (the validation split's token ids; ``amounts``, their rows'
    amounts, for a model that reads them).

    Never raises on a model that misses the gate: the record says ``passed: False``, the file
    is the best try (fewest points short of the gate), and ``reason`` says what was reached and
    what to change. Returns a JSON-able record: ``base_recipe``; ``recipe``, ``quantize_int8``
    keyword arguments that reproduce the file for the blockwise kernel; ``kept_fp32``, the node
    names kept fp32 beyond the base recipe; ``base`` and ``chosen``, per head ``agreement``,
    ``accuracy_drop_pt`` and ``labeled``, both measured on every row; ``rows``; ``tries``;
    ``seconds``; ``passed``; ``reason`` (None when passed); and, when the base recipe failed,
    ``quantized_nodes``, ``critical_rows``, ``estimated_on`` ("critical" or "all": the rows
    tries were scored on) and ``ranking``.
    """
    started = time.perf_counter()
    if not len(sequences):
        raise ValueError("choose_int8_recipe: no validation sequences to measure int8 on")
    gate = _Gate(min_agreement, max_drop_pt)
    seconds = {}
    quantize_int8(Path(fp32_path), Path(int8_path), **recipe)
    int8 = onnx.load(str(int8_path))
    seconds["quantize"] = time.perf_counter() - started
    judge = _Judge(sequences, pad_id, reference_logits, labels, batch_size, threads, amounts)
    base = judge.measure_base(int8)
    seconds["score_base"] = time.perf_counter() - started - seconds["quantize"]
    record = {
        "base_recipe": _jsonable(recipe),
        "recipe": _jsonable(recipe),
        "kept_fp32": [],
        "base": base,
        "chosen": base,
        "rows": len(sequences),
        "tries": [],
        "passed": gate.passes(base),
        "reason": None,
    }
    log(f"int8 with the configured recipe: {_describe(base)} on {len(sequences)} rows")
    if record["passed"]:
        record["seconds"] = _rounded(seconds, started)
        return record

    fp32 = onnx.load(str(fp32_path))
    candidates = quantized_weight_nodes(fp32, int8)
    critical = critical_rows(judge.base_logits, reference_logits, headroom)
    judge.focus(critical, int8)
    searched = candidates if max_fp32_nodes > 0 else []  # 0: report, do not search
    ranked, record["ranking"] = _rank_nodes(int8, fp32, searched, judge, gate)
    seconds["ranking"] = record["ranking"]["seconds"]
    log(
        f"int8: ranked {len(candidates)} quantized MatMuls on {len(judge.critical)} rows "
        f"({len(critical)} critical) in {seconds['ranking']:.1f} s; keeping up to "
        f"{max_fp32_nodes} of them fp32"
    )
    search_started = time.perf_counter()
    kept, chosen, model = _search(int8, fp32, ranked, judge, gate, record, max_fp32_nodes)
    seconds["search"] = time.perf_counter() - search_started
    onnx.checker.check_model(model)
    onnx.save(model, str(int8_path))
    passed = gate.passes(chosen)
    record.update(
        recipe=_with_nodes(recipe, kept),
        kept_fp32=kept,
        chosen=chosen,
        quantized_nodes=len(candidates),
        critical_rows=len(critical),
        estimated_on=judge.estimated_on,
        passed=passed,
        reason=None if passed else _reason(chosen, kept, recipe, gate, max_fp32_nodes, candidates),
    )
    record["seconds"] = _rounded(seconds, started)
    log(f"int8 with {len(kept)} MatMuls kept fp32: {_describe(chosen)}")
    return record


def parity(
    predicted: dict[str, np.ndarray],
    reference: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
) -> dict[str, dict]:
    """Per head: argmax agreement with the reference on every row, and the accuracy points lost
    against the reference's accuracy on the labeled rows (0.0 when a head has none)."""
    report = {}
    for head, answer in predicted.items():
        keep = labels[head] != IGNORE_INDEX
        drop = 0.0
        if keep.any():
            truth = labels[head][keep]
            drop = float(np.mean(reference[head][keep] == truth) - np.mean(answer[keep] == truth))
        report[head] = {
            "agreement": float(np.mean(answer == reference[head])),
            "accuracy_drop_pt": drop * 100,
            "labeled": int(keep.sum()),
            "rows": len(answer),
        }
    return report


def critical_rows(
    int8_logits: dict[str, np.ndarray], reference_logits: dict[str, np.ndarray], headroom: float
) -> np.ndarray:
    """Indices of the rows on which some head's int8 margin for the reference's class
    (negative: int8 disagrees) is below ``headroom`` times the row's largest logit error: only
    there can keeping part of the graph fp32 change the answer."""
    critical = np.zeros(len(next(iter(reference_logits.values()))), dtype=bool)
    for head, reference in reference_logits.items():
        rows = np.arange(len(reference))
        target = reference.argmax(1)
        others = int8_logits[head].copy()
        others[rows, target] = -np.inf
        margin = int8_logits[head][rows, target] - others.max(1)
        error = np.abs(int8_logits[head] - reference).max(1)
        critical |= margin < headroom * error
    return np.flatnonzero(critical)


def _rank_nodes(
    int8: onnx.ModelProto, fp32: onnx.ModelProto, candidates: list[str], judge: _Judge, gate: _Gate
) -> tuple[list[dict], dict]:
    """Each candidate kept fp32 alone, scored on the critical rows: the mean squared error of
    the logits there against the reference (the ranking: lowest first, i.e. the node whose
    quantization error moves the logits most), the (row, head) pairs there that agree with it,
    and the gate's shortfall estimated from them. Returns the ranked entries and the report."""
    started = time.perf_counter()
    reference = {head: logits[judge.critical] for head, logits in judge.reference_logits.items()}
    measured = []
    for name in candidates:
        estimate, logits = judge.estimate(restore_fp32_nodes(int8, fp32, [name]))
        measured.append(
            {
                "node": name,
                "logit_mse": sum(float(np.mean((logits[h] - reference[h]) ** 2)) for h in logits),
                "agreeing": sum(
                    int((logits[h].argmax(1) == reference[h].argmax(1)).sum()) for h in logits
                ),
                "shortfall_pt": gate.shortfall(estimate),
            }
        )
    order = sorted(measured, key=lambda m: m["logit_mse"])  # stable: ties stay in graph order
    report = {
        "measured": "each quantized MatMul alone kept fp32, on the critical rows: mean squared "
        "logit error against the reference (ranks), (row, head) pairs agreeing with it, the "
        "gate's shortfall in points",
        "order": order,
        "seconds": time.perf_counter() - started,
    }
    return order, report


class _Gate:
    def __init__(self, min_agreement: float, max_drop_pt: float):
        self.min_agreement, self.max_drop_pt = min_agreement, max_drop_pt

    def passes(self, report: dict[str, dict]) -> bool:
        return self.shortfall(report) == 0

    def shortfall(self, report: dict[str, dict]) -> float:
        """Points missing to pass, summed over heads (agreement and accuracy points alike)."""
        return sum(
            max(
                0.0,
                required_agreement(self.min_agreement, values["rows"]) - values["agreement"] - 1e-9,
            )
            * 100
            + max(
                0.0,
                values["accuracy_drop_pt"]
                - allowed_drop_pt(self.max_drop_pt, values["labeled"])
                - 1e-9,
            )
            for values in report.values()
        )


class _Judge:
    """Parity with the reference of an in-memory model: measured on every validation row, or
    estimated from the critical rows alone (every other row keeps the base model's answer)."""

    def __init__(self, sequences, pad_id, reference_logits, labels, batch_size, threads, amounts):
        self.sequences, self.pad_id = list(sequences), pad_id
        self.amounts = None if amounts is None else np.asarray(amounts)
        self.reference_logits, self.labels = reference_logits, labels
        self.reference = {head: logits.argmax(1) for head, logits in reference_logits.items()}
        self.batch_size, self.threads = batch_size, threads
        self.base_logits: dict[str, np.ndarray] = {}
        self.critical = np.arange(len(self.sequences))
        self.estimated_on = "all"

    def measure_base(self, model: onnx.ModelProto) -> dict[str, dict]:
        """``measure``, keeping the logits: estimates start from the base model's answers."""
        self.base_logits = self.logits(model, np.arange(len(self.sequences)))
        return parity(_argmax(self.base_logits), self.reference, self.labels)

    def measure(self, model: onnx.ModelProto, anchor: bool = False) -> dict[str, dict]:
        """Parity on every row; with ``anchor``, later estimates start from this model's answers."""
        logits = self.logits(model, np.arange(len(self.sequences)))
        if anchor:
            self.base_logits = logits
        return parity(_argmax(logits), self.reference, self.labels)

    def focus(self, critical: np.ndarray, base: onnx.ModelProto) -> None:
        """Estimate from the ``critical`` rows if the base model scores them alone as it did
        among every row. With the dynamic kernel (one activation scale per batch) or blockwise
        blocks of 128 (results move with padding, up to 0.28 logits on MiniLM) it does not, and
        estimates are measured on every row instead: slower, still exact."""
        alone = self.logits(base, critical) if len(critical) else {}
        if alone and all(
            np.abs(alone[head] - self.base_logits[head][critical]).max() <= 1e-3 for head in alone
        ):
            self.critical, self.estimated_on = critical, "critical"

    def estimate(self, model: onnx.ModelProto) -> tuple[dict[str, dict], dict[str, np.ndarray]]:
        """Parity estimated from the critical rows, and the logits on them."""
        answers = _argmax(self.base_logits)
        logits = self.logits(model, self.critical)
        for head, values in logits.items():
            answers[head][self.critical] = values.argmax(1)
        return parity(answers, self.reference, self.labels), logits

    def logits(self, model: onnx.ModelProto, rows: np.ndarray) -> dict[str, np.ndarray]:
        return onnx_logits(
            model,
            [self.sequences[i] for i in rows],
            self.pad_id,
            list(self.reference_logits),
            self.batch_size,
            self.threads,
            None if self.amounts is None else self.amounts[rows],
        )


def onnx_logits(
    model: onnx.ModelProto,
    sequences: Sequence[np.ndarray],
    pad_id: int,
    heads: list[str],
    batch_size: int,
    threads: int,
    amounts: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Logits per head of an in-memory model, in input order, scored in length-sorted batches
    with the serving scorer's session options (no file written: variants live in memory);
    ``amounts``, one per sequence, for a model that reads them."""
    session = cpu_session(model.SerializeToString(), threads)
    amounts = checked_amounts(session_reads_amount(session), amounts, len(sequences))
    outputs = [f"logits_{head}" for head in heads]  # export_onnx's output names
    batches, inverse = length_sorted_batches(sequences, batch_size, pad_id)
    parts = []
    for (ids, mask), part in zip(
        batches, sorted_slices(amounts, inverse, batch_size), strict=False
    ):
        feed = {"input_ids": ids.numpy(), "attention_mask": mask.numpy()}
        if part is not None:
            feed[AMOUNT_INPUT] = part.astype(np.float32)
        parts.append(session.run(outputs, feed))
    return {
        head: np.concatenate([part[k] for part in parts])[inverse] for k, head in enumerate(heads)
    }


def _search(
    int8, fp32, ranked, judge, gate, record, max_fp32_nodes
) -> tuple[list[str], dict, onnx.ModelProto]:
    """The fewest nodes kept fp32 that pass the gate on every row, or the best try.

    A node that passes alone is the answer when the confirmation on every row agrees. Else
    the top 1, 2, ... nodes by error are kept fp32 until the estimate passes (confirmed on every
    row; on a miss the search goes on from the measured answers). Ranking by error, not by rows
    flipped, is what converges: rows flipped by one node are mostly near-ties that the next
    node flips back (on the 6-layer model with dynamic per-tensor int8, 12 nodes ranked by rows
    flipped reached 96.6 %, 7 ranked by error 98.2 %). Appends each try to ``record["tries"]``.
    Returns the kept nodes, their parity on every row and the model."""
    best = (gate.shortfall(record["base"]), 0, [], int8)  # (shortfall, count): smaller is better

    def attempt(kept: list[str]) -> tuple[onnx.ModelProto, dict] | None:
        nonlocal best
        model = restore_fp32_nodes(int8, fp32, kept)
        estimate, _ = judge.estimate(model)
        record["tries"].append(_try(kept, estimate, judge.estimated_on, gate))
        best = min(best, (gate.shortfall(estimate), len(kept), kept, model), key=lambda b: b[:2])
        if not gate.passes(estimate):
            return None
        if judge.estimated_on == "all":
            return model, estimate
        measured = judge.measure(model, anchor=True)
        record["tries"].append(_try(kept, measured, "all", gate))
        return (model, measured) if gate.passes(measured) else None

    alone = [m["node"] for m in ranked if m["shortfall_pt"] == 0][:1]
    if alone and max_fp32_nodes >= 1 and (found := attempt(alone)):
        return alone, found[1], found[0]
    names = [m["node"] for m in ranked]
    for count in range(1, min(max_fp32_nodes, len(names)) + 1):
        if names[:count] != alone and (found := attempt(names[:count])):
            return names[:count], found[1], found[0]
    _, _, kept, model = best
    return kept, (judge.measure(model) if kept else record["base"]), model


def _try(kept: list[str], report: dict[str, dict], rows: str, gate: _Gate) -> dict:
    return {
        "kept_fp32": list(kept),
        "rows": rows,  # "critical": estimated from the critical rows; "all": measured on all
        "agreement": {head: values["agreement"] for head, values in report.items()},
        "accuracy_drop_pt": {head: values["accuracy_drop_pt"] for head, values in report.items()},
        "shortfall_pt": gate.shortfall(report),
        "passed": gate.passes(report),
    }


def _reason(chosen, kept, recipe, gate, max_fp32_nodes, candidates) -> str:
    worst = min(chosen, key=lambda head: chosen[head]["agreement"])
    drop = max(values["accuracy_drop_pt"] for values in chosen.values())
    levers = []
    if max_fp32_nodes < len(candidates):
        levers.append(
            f"raise onnx_model.max_fp32_nodes (now {max_fp32_nodes}, of {len(candidates)})"
        )
    elif recipe.get("quantize_embeddings", True):  # every MatMul was tried: the rest is there
        levers.append("set onnx_model.quantize_embeddings: false")
    if recipe.get("kernel", "blockwise") == "blockwise" and recipe.get("block_size", 128) > 16:
        levers.append(f"set a smaller onnx_model.block_size (now {recipe.get('block_size', 128)})")
    elif recipe.get("kernel") == "dynamic":
        levers.append("set onnx_model.int8_kernel: blockwise")
    levers.append(
        f"lower export_gates.min_argmax_agreement (now {gate.min_agreement}) or raise "
        f"export_gates.max_accuracy_drop_pt (now {gate.max_drop_pt})"
    )
    return (
        f"int8 misses the export gate on the validation split: the best agreement reached is "
        f"{chosen[worst]['agreement']:.4f} ({worst}; needs {gate.min_agreement}), accuracy drop "
        f"{drop:.2f} pt (allowed {gate.max_drop_pt}), with {len(kept)} MatMuls kept fp32 beyond "
        f"the recipe. To pass: " + "; or ".join(levers)
    )


def _describe(report: dict[str, dict]) -> str:
    return ", ".join(
        f"{head} agreement {v['agreement']:.4f} drop {v['accuracy_drop_pt']:.2f} pt"
        for head, v in report.items()
    )


def _argmax(logits: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {head: values.argmax(1) for head, values in logits.items()}


def _jsonable(recipe: dict) -> dict:
    return {
        key: list(value) if isinstance(value, tuple) else value for key, value in recipe.items()
    }


def _with_nodes(recipe: dict, kept: list[str]) -> dict:
    """The recipe whose ``keep_fp32_nodes`` also matches exactly the nodes ``kept``."""
    exact = [f"^{re.escape(name)}$" for name in kept]
    return _jsonable({**recipe, "keep_fp32_nodes": [*recipe.get("keep_fp32_nodes", ()), *exact]})


def _rounded(seconds: dict[str, float], started: float) -> dict[str, float]:
    return {
        key: round(value, 3)
        for key, value in {**seconds, "total": time.perf_counter() - started}.items()
    }
