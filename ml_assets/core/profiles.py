"""The built-in params profiles: named partial overrides, deep-merged over the schema's defaults
(``core/params.py``) when selected with TXN_PARAMS_PROFILE or the ``params`` resource's
``profile``. Each override says why it exists; ``python -m ml_assets params-yaml`` writes them,
reasons as comments, into params.yaml's ``profiles:`` block, and every params file gets them
(its own profiles of the same name win).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

# code versions leave this module out: a profile's values reach an asset through its resolved
# params, which are hashed separately
AFFECTS_OUTPUTS = False


@dataclass(frozen=True)
class Override:
    """A section's keys as the profile sets them, and why (empty: self-evident)."""

    values: dict[str, Any]
    why: str = ""


@dataclass(frozen=True)
class Profile:
    why: str
    sections: dict[str, Override] = field(default_factory=dict)

    def values(self) -> dict[str, dict[str, Any]]:
        """{section: {key: value}}, the plain data load_params merges."""
        return {name: copy.deepcopy(override.values) for name, override in self.sections.items()}


PROFILES: dict[str, Profile] = {
    "tiny": Profile(
        why="for the tests and CI (TXN_PARAMS_PROFILE=tiny): the whole graph in <= 2 minutes "
        "on 2 CPU cores, every stage exercised on a small model",
        sections={
            "raw_transactions": Override(
                {"n_rows": 3000, "labeled_fraction": 0.4, "days": 10},
                why="ten daily partitions: a run logs a few events per partition, and each is "
                "a SQLite commit (30 days cost a memoized launch ~5 s more)",
            ),
            "transaction_features": Override(
                {"heldout_test_merchant_pct": 15, "heldout_valid_merchant_pct": 10}
            ),
            "pruned_tokenizer": Override(
                {"identity_sample": 500, "keep_latin_pieces": False},
                why="the tiny corpus's own pieces only: a 4x smaller embedding table keeps CI's "
                "training fast",
            ),
            "mlm_backbone": Override(
                {
                    "num_layers": 2,
                    "batch_size": 16,
                    "steps": 6,
                    "warmup_steps": 2,
                    "checkpoint_every": 3,
                }
            ),
            "multitask_model": Override(
                {
                    "batch_size": 16,
                    "max_steps": 30,
                    "eval_every": 10,
                    "patience": 2,
                    "max_epochs": 1,
                    "ngram_buckets": 4096,
                    "ngram_c_grid": [10.0],
                    "ngram_chars": False,
                },
                why="the bag's character n-grams add ~5 s of regression to each tiny fit; CI "
                "tests them in tests/test_ngram_bag.py (graph, numpy, save/load, ONNX) and on a "
                "real tokenizer folder",
            ),
            "baseline_model": Override({"max_epochs": 1}),
            "reference_models": Override(
                {"frozen_layers": 2},
                why="the candidate's depth: all six layers take ~10 s of each tiny graph on one "
                "core, 2 about 2 s",
            ),
            "onnx_model": Override({"latency_requests": 50, "latency_rounds": 2}),
            "export_gates": Override(
                {
                    "latency_budget_ms": 250.0,
                    "min_argmax_agreement": 0.9,
                    "max_accuracy_drop_pt": 2.0,
                },
                why="tiny models are barely trained and CI machines are shared: these gates "
                "test the mechanics",
            ),
            "promotion": Override(
                {
                    "min_margin_pt": -100.0,
                    "min_overall_margin_pt": -100.0,
                    "max_regression_pt": 100.0,
                },
                why="a 30-step model neither beats TF-IDF nor reliably its last retraining; "
                "the promotion rules are tested with real margins",
            ),
        },
    ),
    "gpu": Profile(
        why="for a CUDA machine (TXN_PARAMS_PROFILE=gpu): the default recipe plus masked-LM "
        "pretraining at a scale the CPU default cannot afford (2000 steps of 512 rows, a gentle "
        "rate), for text unlike the backbone's. On the built-in data it costs about 10 points "
        "overall and 16-19 on held-out merchants (benchmarks/RESULTS.md), so the default leaves it "
        "off; the promotion gate decides whether its candidate beats the champion",
        sections={
            "mlm_backbone": Override(
                {
                    "steps": 2000,
                    "batch_size": 512,
                    "learning_rate": 5.0e-5,
                    "warmup_steps": 100,
                    "checkpoint_every": 500,
                }
            ),
        },
    ),
}


def profile_values() -> dict[str, dict[str, dict[str, Any]]]:
    """{profile: {section: {key: value}}}: fresh plain data, safe for the caller to change."""
    return {name: profile.values() for name, profile in PROFILES.items()}
