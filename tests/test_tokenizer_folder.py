"""The pipeline reads its tokenizer folders with ``tokenizers`` alone, and gets transformers' ids."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.text.vocab import load_tokenizer, pipeline_digest, read_original
from tests.conftest import SAMPLE_DESCRIPTIONS

REPO = Path(__file__).resolve().parents[1]
# every kind of character a bank export can hold: accents, CJK, combining marks, ligatures,
# no-break and zero-width spaces, symbols, digits, punctuation runs
ALPHABET = "abcxyzABCÉéèçñßøÅ日本語中文ÿ'\"#*/\\-_.,:;!?()[]{}0123456789 \t\u00a0\u200b\u0301ﬁ①Ⅻ€$"


def messy_texts(n: int = 2000) -> list[str]:
    rng = random.Random(0)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60))) for _ in range(n)]
    return [*SAMPLE_DESCRIPTIONS, "", "   ", "AMZN Mktp US*2K4 Seattle WA", *texts]


@pytest.mark.parametrize("folder", ["pruned", "backbone"])
@pytest.mark.parametrize("max_length", [None, 8, 64])
def test_ids_equal_transformers_ids(folder, max_length, tiny_tokenizer_dir, backbone_source):
    path = tiny_tokenizer_dir if folder == "pruned" else Path(backbone_source)
    theirs = load_tokenizer(path)
    ours = FolderTokenizer.load(path)
    texts = messy_texts()
    expected = theirs(
        texts,
        add_special_tokens=True,
        truncation=max_length is not None,
        max_length=max_length,
        padding=False,
    )["input_ids"]
    assert ours.encode(texts, max_length) == expected
    if max_length == 8:
        assert max(map(len, expected)) == 8  # the cut really happened
    unspecial = theirs(texts, add_special_tokens=False)["input_ids"]
    assert ours.encode(texts, special_tokens=False) == unspecial
    assert ours.tokens(texts[:50]) == [theirs.convert_ids_to_tokens(ids) for ids in unspecial[:50]]


def test_special_tokens_and_size_equal_transformers(tiny_tokenizer_dir):
    theirs, ours = load_tokenizer(tiny_tokenizer_dir), FolderTokenizer.load(tiny_tokenizer_dir)
    assert len(ours) == len(theirs)
    assert ours.all_special_ids == sorted(theirs.all_special_ids)
    for role in ("pad_token_id", "mask_token_id", "sep_token_id", "unk_token"):
        assert getattr(ours, role) == getattr(theirs, role), role
    assert ours.encode([]) == []
    wrapped = FolderTokenizer.of_transformers(theirs)
    assert wrapped.encode(SAMPLE_DESCRIPTIONS, 16) == ours.encode(SAMPLE_DESCRIPTIONS, 16)


def test_a_broken_folder_names_the_file(tiny_tokenizer_dir, tmp_path):
    with pytest.raises(FileNotFoundError, match="special_tokens_map.json"):
        FolderTokenizer.load(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{not json")
    (tmp_path / "special_tokens_map.json").write_text(json.dumps({"pad_token": "[PAD]"}))
    with pytest.raises(ValueError, match=str(tmp_path)):
        FolderTokenizer.load(tmp_path)
    (tmp_path / "tokenizer.json").write_text((tiny_tokenizer_dir / "tokenizer.json").read_text())
    (tmp_path / "special_tokens_map.json").write_text(json.dumps({"pad_token": "<pad>"}))
    with pytest.raises(ValueError, match="'<pad>' is not in the vocabulary"):
        FolderTokenizer.load(tmp_path)


def test_serving_and_tokenizing_need_no_transformers():
    """The ONNX scorer, the corpus writer and the training input path import without it."""
    modules = "ml_assets.core.serving.scoring, ml_assets.core.training_data.corpus, ml_assets.training.data"
    code = f"import sys, {modules}; print('transformers' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False", result.stderr


def test_the_original_is_read_directly_only_when_it_is_the_pipeline_transformers_built(
    tiny_tokenizer_dir, backbone_source, tmp_path
):
    """The tokenizer check reads the backbone's tokenizer.json without transformers when its
    digest matches the one recorded at pruning, and through transformers otherwise."""
    recorded = json.loads((tiny_tokenizer_dir / "id_map.json").read_text())[
        "source_pipeline_sha256"
    ]
    assert recorded == pipeline_digest(load_tokenizer(backbone_source).backend_tokenizer)
    texts = messy_texts(300)
    expected = FolderTokenizer.of_transformers(load_tokenizer(backbone_source)).tokens(texts)
    for digest in (recorded, "0" * 64, None):
        assert read_original(backbone_source, digest).tokens(texts) == expected
    # the same files with the lowercasing step gone: another pipeline, so not read directly
    changed = tmp_path / "changed"
    changed.mkdir()
    for name in ("tokenizer.json", "special_tokens_map.json", "tokenizer_config.json", "vocab.txt"):
        (changed / name).write_bytes((Path(backbone_source) / name).read_bytes())
    spec = json.loads((changed / "tokenizer.json").read_text())
    spec["normalizer"]["lowercase"] = False
    (changed / "tokenizer.json").write_text(json.dumps(spec))
    assert pipeline_digest(FolderTokenizer.load(changed).backend) != recorded
    code = (
        "import sys; from ml_assets.core.text.vocab import read_original;"
        f"read_original({backbone_source!r}, {recorded!r}); print('transformers' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False", result.stderr
