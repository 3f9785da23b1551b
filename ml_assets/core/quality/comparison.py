"""Side by side: every model of a run scored on the same test rows and the same slices.

The candidate (int8, as shipped), its fp32 twin, the finetune without MLM pretraining, the
reference models and the current champion each give ``{head: {slice: head_report}}``; these
helpers align reference probabilities to the candidate's label order and lay the reports out
as one table (markdown) and one picture.
"""

from __future__ import annotations

import numpy as np
import polars as pl

# the models set side by side, in the table's row order
CANDIDATE = "candidate (int8)"
FP32_TWIN = "candidate fp32 twin"
BASELINE = "baseline_model (plain finetune)"
CHAMPION_PREFIX = "champion "


def primary_head(heads) -> str:
    """The head a run is judged on (held-out merchants, promotion, the side-by-side picture):
    category where the data has it, else the first."""
    return "category" if "category" in heads else next(iter(heads))


def champion_label(model_id: str) -> str:
    return f"{CHAMPION_PREFIX}{model_id[:8]}"


SLICES = ("all", "heldout_merchants", "seen_merchants", "short", "long")
SLICE_TITLES = {
    "all": "all",
    "heldout_merchants": "held-out merchants",
    "seen_merchants": "seen merchants",
    "short": "short",
    "long": "long",
}


def aligned_probabilities(
    predictions: pl.DataFrame,
    labels: dict[str, list[str]],
    transaction_ids: pl.Series,
    names: dict[str, list[str]],
) -> dict[str, np.ndarray]:
    """A reference's ``{head}_probs`` rows in ``transaction_ids`` order, columns reordered to
    ``names[head]`` (a label the reference never saw gets probability 0). Every requested id
    must be present: a reference scored on other test rows is an error, not a gap."""
    order = pl.DataFrame({"transaction_id": transaction_ids}).with_row_index("_row")
    joined = order.join(predictions, on="transaction_id", how="left").sort("_row")
    out = {}
    for head, wanted in names.items():
        column = joined[f"{head}_probs"]
        if column.null_count():
            raise ValueError(
                f"reference predictions lack {column.null_count()} of the {len(order)} test rows; "
                "it was fit on another training_features snapshot: rematerialize it"
            )
        probs = np.stack(column.to_numpy()).astype(np.float32)
        out[head] = by_label_name(probs, labels[head], wanted)
    return out


def by_label_name(probs: np.ndarray, have: list[str], wanted: list[str]) -> np.ndarray:
    """Columns of ``probs`` (in ``have`` order) reordered to ``wanted``; a wanted label the
    model never had gets probability 0."""
    index = {label: i for i, label in enumerate(have)}
    aligned = np.zeros((len(probs), len(wanted)), dtype=np.float32)
    for j, label in enumerate(wanted):
        if label in index:
            aligned[:, j] = probs[:, index[label]]
    return aligned


def reference_names(names) -> list[str]:
    """The reference models among ``names``, in their order: every model but the candidate,
    its twin, the plain finetune and champions."""
    others = (CANDIDATE, FP32_TWIN, BASELINE)
    return [n for n in names if n not in others and not n.startswith(CHAMPION_PREFIX)]


def in_table_order(names) -> list[str]:
    """Candidate, its twin, the plain finetune, the references, then champions."""
    fixed = [CANDIDATE, FP32_TWIN, BASELINE, *reference_names(names)]
    return [n for n in fixed if n in names] + sorted(n for n in names if n not in fixed)


def comparison_table(reports: dict[str, dict], heads: list[str]) -> str:
    """Markdown: one row per model, accuracy (%) per head and slice; n in the header."""
    reports = {name: reports[name] for name in in_table_order(reports)}
    first = next(iter(reports.values()))
    columns = [(h, s) for h in heads for s in SLICES if s in first.get(h, {})]
    header = " | ".join(f"{h} {SLICE_TITLES[s]} (n={first[h][s]['n']})" for h, s in columns)
    lines = [f"| model | {header} |", "|---" * (len(columns) + 1) + "|"]
    for model, report in reports.items():
        cells = [
            f"{100 * report[h][s]['accuracy']:.1f}" if s in report.get(h, {}) else "–"
            for h, s in columns
        ]
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def short_slice(name: str) -> str:
    """A slice's name in a word, for metadata keys and narrow tables: heldout_merchants ->
    heldout."""
    return name.removesuffix("_merchants")


def short_name(model: str) -> str:
    """A model's name in a few characters, for pictures and metadata keys: int8, fp32, plain,
    tfidf, frozen, champion."""
    fixed = {CANDIDATE: "int8", FP32_TWIN: "fp32", BASELINE: "plain"}
    if model in fixed:
        return fixed[model]
    if model.startswith(CHAMPION_PREFIX):
        return "champion"
    return model.removesuffix("_reference").split("_")[0]


HEAD_TABLE_SLICES = ("all", "heldout_merchants", "seen_merchants")


def head_table(reports: dict[str, dict], head: str) -> str:
    """Markdown for one head: one row per model (short names, spelled out below the table),
    accuracy (%) on all rows, held-out and seen merchants, the rows counted in the first line.
    Four narrow columns, so it fits the UI's metadata column."""
    reports = {name: reports[name] for name in in_table_order(reports) if head in reports[name]}
    first = next(iter(reports.values()))[head]
    columns = [s for s in HEAD_TABLE_SLICES if s in first]
    titles = " | ".join(SLICE_TITLES[s].removesuffix(" merchants") for s in columns)
    lines = [
        f"| {head} % | {titles} |",
        "|---" * (len(columns) + 1) + "|",
        "| rows | " + " | ".join(str(first[s]["n"]) for s in columns) + " |",
    ]
    for model, report in reports.items():
        cells = [
            f"{100 * report[head][s]['accuracy']:.1f}" if s in report[head] else "–"
            for s in columns
        ]
        lines.append(f"| {short_name(model)} | " + " | ".join(cells) + " |")
    legend = "; ".join(f"{short_name(model)}: {model}" for model in reports)
    return "\n".join(lines) + f"\n\n{legend}"


def accuracy_grid(reports: dict[str, dict], head: str) -> dict[str, dict[str, float]]:
    """{model: {slice: accuracy %}} for one head (the picture's data)."""
    return {
        model: {s: 100 * report[head][s]["accuracy"] for s in SLICES if s in report.get(head, {})}
        for model, report in reports.items()
        if head in report
    }
