"""Pruning a WordPiece (BERT-style) vocabulary down to the tokens a corpus uses.

A BPE (RoBERTa) or Unigram (XLM-RoBERTa) vocabulary is kept whole: its pieces merge into one
another, and no rule like WordPiece's keeps every word splittable once some are gone.

The pruned tokenizer must tokenize the pruning corpus exactly like the original, and must never
give any string more ``[UNK]`` than the original. WordPiece emits one ``[UNK]`` per word when no
piece matches, so keeping every single character both as ``c`` and ``##c`` (BERT vocabularies hold
each character in both forms) guarantees every word the original could split can still be split.
Unseen words may split into finer pieces, and a merchant name never seen in training then
reaches the model as characters it cannot recognize (measured: -25 points of category accuracy
on held-out merchants). ``keep_latin_pieces`` keeps every piece written only in the characters
that normalized Latin-script text can hold (a-z, the digit 0, ASCII punctuation): any such text
then tokenizes exactly as with the original, seen in training or not, while pieces of other
scripts, digits the normalizer maps away and unused slots are dropped. ``keep_short_pieces``
trades vocabulary size for fewer differences on other text. ``add_unknown_chars`` adds a piece
(``c`` and ``##c``) for every character of the texts the original vocabulary lacks (BERT's holds
a few thousand CJK characters, no Georgian, few Arabic letters), so a word holding one is no
longer a single ``[UNK]``: its embedding starts as ``[UNK]``'s (``new_to_old`` maps it there;
with word embeddings frozen the encoder keeps reading it so), and the n-gram bag reads its
characters.

Output layout of ``prune_vocabulary`` (a contract, pinned by ``tests/test_vocab.py``)::

    out_dir/
      tokenizer.json           # new model.vocab, special ids remapped, padding/truncation null
      vocab.txt                # one token per line, line number == new id
      tokenizer_config.json    # the original's, minus id- and path-bound keys
      special_tokens_map.json  # the original's (or rebuilt from the loaded tokenizer)
      id_map.json              # {"new_to_old": [...], "original_vocab_size": N, "source": "...",
                               #  "source_pipeline_sha256": the original pipeline's digest}

Embeddings follow the same map: ``W_new = W_old[new_to_old]`` (not ``resize_token_embeddings``,
which keeps the first rows).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokenizers import Tokenizer

from ml_assets.core.infra.layouts import TOKENIZER_FILES as OUTPUT_FILES
from ml_assets.core.infra.layouts import TOKENIZER_ID_MAP as ID_MAP_FILE
from ml_assets.core.text.id_map import old_to_new_ids
from ml_assets.core.text.tokenizer_folder import SPECIAL_TOKENS_MAP, TOKENIZER_JSON, FolderTokenizer

if TYPE_CHECKING:  # transformers is imported where a tokenizer is built from a source, not here
    from transformers import PreTrainedTokenizerBase

# Keys of tokenizer_config.json that are bound to the source (ids, file paths, hub name) or that
# would re-enable implicit padding/truncation; they are rewritten or dropped in the pruned copy.
_DROPPED_CONFIG_KEYS = (
    "name_or_path",
    "tokenizer_file",
    "vocab_file",
    "max_length",
    "padding",
    "truncation",
    "stride",
    "pad_to_multiple_of",
)
_SHORT_PIECE_MAX_CHARS = 3
# a piece normalized Latin-script text can produce: lowercase letters, the digit 0 (the
# normalizer maps every digit to it) and ASCII punctuation, optionally as a ## continuation
_LATIN_PIECE = re.compile(r"(##)?[a-z0!-/:-@\[-`{-~]+")
_RESERVED_SLOT = re.compile(r"\[unused\d+\]")  # BERT's placeholders; no text produces them


@dataclass(frozen=True)
class PruneReport:
    """What ``prune_vocabulary`` kept. The kept sets overlap, so the counts need not add up."""

    original_vocab_size: int
    pruned_vocab_size: int
    used_tokens: int  # distinct tokens seen on the pruning texts
    kept_single_chars: int  # single-character and ##single-character pieces kept
    kept_short_pieces: (
        int  # extra 1-3 char alphanumeric pieces kept because of the knob (0 when off)
    )
    new_to_old: list[int]  # new id -> original id
    kept_latin_pieces: int = 0  # extra pieces kept because of keep_latin_pieces (0 when off)
    added_char_pieces: int = 0  # pieces added because of add_unknown_chars (0 when off)
    tokenizer_model: str = "WordPiece"  # the original's; only WordPiece is pruned

    @property
    def kept_whole(self) -> bool:
        return self.tokenizer_model != "WordPiece"


@dataclass(frozen=True)
class TokenizationComparison:
    """How a pruned tokenizer differs from its original on a set of texts."""

    n: int
    identical_rate: float  # share of texts whose token strings are identical under both tokenizers
    # the same share among the texts the original tokenizes without [UNK] (1.0 when none)
    identical_rate_known: float
    unk_rate_original: float  # [UNK] tokens / all tokens (no [CLS]/[SEP]) with the original
    unk_rate_pruned: float
    mean_tokens_original: float
    mean_tokens_pruned: float


def load_tokenizer(path: str | Path) -> PreTrainedTokenizerBase:
    """Load a fast tokenizer with ``AutoTokenizer`` and switch off baked-in padding/truncation.

    sentence-transformers checkpoints ship a ``tokenizer.json`` that pads and truncates every
    encoding to 128; disabling both on the backend means no encoding is ever padded implicitly.
    """
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path))
    except (ValueError, ImportError, OSError) as error:
        sentencepiece = _sentencepiece_only(path)
        if sentencepiece is None:
            raise
        raise ValueError(
            f"{path}: its tokenizer is a SentencePiece model ({sentencepiece}) without a "
            "tokenizer.json, and transformers could not convert it here (it needs the "
            f"sentencepiece package and a protobuf it accepts: {error}). Write the fast "
            "tokenizer once where it converts: AutoTokenizer.from_pretrained(folder)"
            ".save_pretrained(folder) adds tokenizer.json beside it."
        ) from error
    if not tokenizer.is_fast:
        raise ValueError(
            f"{path}: need a fast (tokenizers-backed) tokenizer, got {type(tokenizer).__name__}"
        )
    tokenizer.backend_tokenizer.no_padding()
    tokenizer.backend_tokenizer.no_truncation()
    return tokenizer


def _sentencepiece_only(path: str | Path) -> str | None:
    """The SentencePiece model file of a folder that has no tokenizer.json, or None."""
    folder = Path(path)
    if not folder.is_dir() or (folder / "tokenizer.json").is_file():
        return None
    return next((p.name for p in sorted(folder.glob("*.model"))), None)


def pipeline_digest(backend: Tokenizer) -> str:
    """sha256 of a backend's whole serialized pipeline (normalizer to post-processor, vocab)."""
    return hashlib.sha256(backend.to_str().encode("utf-8")).hexdigest()


def read_original(source: str | Path, recorded_digest: str | None) -> FolderTokenizer:
    """The original tokenizer as transformers builds it, for comparisons with the pruned one.

    When ``source`` is a folder whose tokenizer.json, read by ``tokenizers`` alone, serializes
    to the very pipeline transformers built when pruning (``recorded_digest``, kept in
    id_map.json), that file is read directly: the check on every materialization then imports
    no transformers (~4 s). Anything else (a hub id, a folder without tokenizer.json, a
    config that makes transformers change the pipeline) goes through ``load_tokenizer``."""
    folder = Path(source)
    files = (folder / TOKENIZER_JSON, folder / SPECIAL_TOKENS_MAP)
    if recorded_digest and all(path.is_file() for path in files):
        direct = FolderTokenizer.load(folder)
        if pipeline_digest(direct.backend) == recorded_digest:
            return direct
    return FolderTokenizer.of_transformers(load_tokenizer(source))


def prune_vocabulary(
    tokenizer_source: str | Path,
    texts: Sequence[str],
    out_dir: Path,
    *,
    keep_short_pieces: bool = False,
    keep_latin_pieces: bool = False,
    add_unknown_chars: bool = False,
) -> PruneReport:
    """Write a tokenizer to ``out_dir`` whose vocab holds only what ``texts`` need (see module doc).

    Kept: special and added tokens, every token used on ``texts``, every ``c`` and ``##c`` piece,
    and with ``keep_short_pieces`` every alphanumeric piece of 1-3 characters (with or without
    ``##``). New ids follow ascending original id, so ``[PAD]`` stays 0; pieces
    ``add_unknown_chars`` adds come last, in code-point order. ``out_dir`` must exist;
    the caller commits it atomically. Raises ``ValueError`` for empty ``texts`` or a tokenizer that
    with no vocabulary. A tokenizer that is not WordPiece is written whole (``new_to_old`` the
    identity), and ``add_unknown_chars`` adds nothing to it.
    """
    texts = list(texts)
    if not texts:
        raise ValueError(
            "prune_vocabulary: `texts` is empty; pass the corpus the vocabulary must cover"
        )
    out_dir = Path(out_dir)
    _check_out_dir(out_dir)
    tokenizer = load_tokenizer(tokenizer_source)
    spec = json.loads(tokenizer.backend_tokenizer.to_str())
    source_digest = pipeline_digest(tokenizer.backend_tokenizer)  # before any encode call
    model_type = spec["model"].get("type")
    original_vocab_size = tokenizer.backend_tokenizer.get_vocab_size(with_added_tokens=True)
    if model_type != "WordPiece":
        return _write_whole(tokenizer_source, tokenizer, spec, texts, out_dir, source_digest)
    vocab: dict[str, int] = spec["model"]["vocab"]

    used = {token_id for ids in _encode(tokenizer, texts) for token_id in ids}
    single = {i for token, i in vocab.items() if len(_piece_body(token)) == 1}
    structural = _structural_ids(tokenizer, spec)
    kept = used | single | structural
    short: set[int] = set()
    if keep_short_pieces:
        short = {i for token, i in vocab.items() if _is_short_alnum(token)} - kept
        kept |= short
    latin: set[int] = set()
    if keep_latin_pieces:
        latin = {
            i
            for token, i in vocab.items()
            if _LATIN_PIECE.fullmatch(token) and not _RESERVED_SLOT.fullmatch(token)
        } - kept
        kept |= latin

    new_to_old = sorted(kept)
    old_to_new = {old: new for new, old in enumerate(new_to_old)}
    new_spec = _remap_spec(spec, old_to_new)
    added = _unknown_char_pieces(tokenizer, texts, vocab) if add_unknown_chars else []
    for piece in added:
        new_spec["model"]["vocab"][piece] = len(new_to_old)
        new_to_old.append(tokenizer.unk_token_id)
    _write_outputs(
        out_dir,
        tokenizer_source,
        tokenizer,
        new_spec,
        new_to_old,
        original_vocab_size,
        source_digest,
    )
    return PruneReport(
        original_vocab_size=original_vocab_size,
        pruned_vocab_size=len(new_to_old),
        used_tokens=len(used),
        kept_single_chars=len(single),
        kept_short_pieces=len(short),
        kept_latin_pieces=len(latin),
        added_char_pieces=len(added),
        new_to_old=new_to_old,
    )


def _write_whole(
    source: str | Path,
    tokenizer: PreTrainedTokenizerBase,
    spec: dict[str, Any],
    texts: list[str],
    out_dir: Path,
    source_digest: str,
) -> PruneReport:
    """The original vocabulary, every id in place, with padding and truncation off."""
    size = tokenizer.backend_tokenizer.get_vocab_size(with_added_tokens=True)
    if not spec["model"].get("vocab"):
        raise ValueError(
            f"{source}: tokenizer model {spec['model'].get('type')!r} has no vocabulary"
        )
    whole = {**json.loads(json.dumps(spec)), "padding": None, "truncation": None}
    identity = list(range(size))
    _write_outputs(out_dir, source, tokenizer, whole, identity, size, source_digest)
    return PruneReport(
        original_vocab_size=size,
        pruned_vocab_size=size,
        used_tokens=len({token_id for ids in _encode(tokenizer, texts) for token_id in ids}),
        kept_single_chars=0,
        kept_short_pieces=0,
        new_to_old=identity,
        tokenizer_model=str(spec["model"].get("type")),
    )


def compare_tokenization(
    original: FolderTokenizer, pruned: FolderTokenizer, texts: Sequence[str]
) -> TokenizationComparison:
    """Compare token strings (no special tokens) of two tokenizers text by text.

    Pass the original as ``FolderTokenizer.of_transformers(load_tokenizer(source))`` (as
    transformers reads it) and the pruned one as the pipeline reads it, ``FolderTokenizer.load``."""
    texts = list(texts)
    if not texts:
        raise ValueError("compare_tokenization: `texts` is empty")
    tokens_original = original.tokens(texts)
    tokens_pruned = pruned.tokens(texts)
    same = [a == b for a, b in zip(tokens_original, tokens_pruned, strict=True)]
    known = [s for s, a in zip(same, tokens_original, strict=True) if original.unk_token not in a]
    return TokenizationComparison(
        n=len(texts),
        identical_rate=sum(same) / len(texts),
        identical_rate_known=sum(known) / len(known) if known else 1.0,
        unk_rate_original=_unk_rate(tokens_original, original.unk_token),
        unk_rate_pruned=_unk_rate(tokens_pruned, pruned.unk_token),
        mean_tokens_original=sum(map(len, tokens_original)) / len(texts),
        mean_tokens_pruned=sum(map(len, tokens_pruned)) / len(texts),
    )


def _encode(tokenizer: PreTrainedTokenizerBase, texts: list[str]) -> list[list[int]]:
    # One batch call; padding/truncation off explicitly so a tokenizer that was not loaded with
    # load_tokenizer still yields the true token sequences.
    batch = tokenizer(
        texts,
        add_special_tokens=False,
        padding=False,
        truncation=False,
        return_attention_mask=False,
        return_token_type_ids=False,
    )
    return batch["input_ids"]


def _unknown_char_pieces(
    tokenizer: PreTrainedTokenizerBase, texts: list[str], vocab: dict[str, int]
) -> list[str]:
    """``c`` and ``##c`` for every character of the words of ``texts`` (as the tokenizer's
    normalizer and pre-tokenizer make them) that the vocabulary lacks, in code-point order."""
    backend = tokenizer.backend_tokenizer
    chars: set[str] = set()
    for text in texts:
        normalized = backend.normalizer.normalize_str(text) if backend.normalizer else text
        if backend.pre_tokenizer is None:
            chars.update("".join(normalized.split()))
            continue
        for word, _ in backend.pre_tokenizer.pre_tokenize_str(normalized):
            chars.update(word)
    pieces = (piece for c in sorted(chars - {" "}) for piece in (c, f"##{c}"))
    return [piece for piece in pieces if piece not in vocab]


def _unk_rate(token_lists: list[list[str]], unk_token: str) -> float:
    total = sum(map(len, token_lists))
    unk = sum(tokens.count(unk_token) for tokens in token_lists)
    return unk / total if total else 0.0


def _piece_body(token: str) -> str:
    return token[2:] if token.startswith("##") and len(token) > 2 else token


def _is_short_alnum(token: str) -> bool:
    body = _piece_body(token)
    return 1 <= len(body) <= _SHORT_PIECE_MAX_CHARS and body.isalnum()


def _check_out_dir(out_dir: Path) -> None:
    if not out_dir.is_dir():
        raise NotADirectoryError(f"{out_dir}: output folder must exist (the caller commits it)")
    clashes = sorted(name for name in OUTPUT_FILES if (out_dir / name).exists())
    if clashes:
        raise FileExistsError(f"{out_dir}: already holds {clashes}; pass an empty staging folder")


def _structural_ids(tokenizer: PreTrainedTokenizerBase, spec: dict[str, Any]) -> set[int]:
    """Ids the tokenizer needs regardless of the corpus: special, added and post-processor tokens."""
    ids = set(tokenizer.all_special_ids)
    ids |= {token["id"] for token in spec.get("added_tokens", [])}
    ids |= set(_post_processor_ids(spec.get("post_processor")))
    return ids


def _post_processor_ids(processor: dict[str, Any] | None) -> list[int]:
    if processor is None:
        return []
    kind = processor["type"]
    if kind == "TemplateProcessing":
        return [i for special in processor["special_tokens"].values() for i in special["ids"]]
    if kind in ("BertProcessing", "RobertaProcessing"):
        return [processor["cls"][1], processor["sep"][1]]
    if kind == "Sequence":
        return [i for child in processor["processors"] for i in _post_processor_ids(child)]
    return []


def _remap_post_processor(
    processor: dict[str, Any] | None, old_to_new: dict[int, int]
) -> dict | None:
    # Forgetting this leaves [CLS]/[SEP] at their original ids (101/102) in every encoding.
    if processor is None:
        return None
    processor = dict(processor)
    kind = processor["type"]
    if kind == "TemplateProcessing":
        processor["special_tokens"] = {
            name: {**special, "ids": [old_to_new[i] for i in special["ids"]]}
            for name, special in processor["special_tokens"].items()
        }
    elif kind in ("BertProcessing", "RobertaProcessing"):
        for key in ("cls", "sep"):
            token, old_id = processor[key]
            processor[key] = [token, old_to_new[old_id]]
    elif kind == "Sequence":
        processor["processors"] = [
            _remap_post_processor(p, old_to_new) for p in processor["processors"]
        ]
    elif kind != "ByteLevel":
        raise ValueError(
            f"post_processor of type {kind!r} is not supported; its token ids cannot be remapped"
        )
    return processor


def _remap_spec(spec: dict[str, Any], old_to_new: dict[int, int]) -> dict[str, Any]:
    """Return a copy of the tokenizer.json spec with the pruned vocab and every id remapped."""
    new_spec = json.loads(json.dumps(spec))
    old_vocab: dict[str, int] = spec["model"]["vocab"]
    kept_pieces = sorted(
        (old_to_new[i], token) for token, i in old_vocab.items() if i in old_to_new
    )
    new_spec["model"]["vocab"] = {token: new_id for new_id, token in kept_pieces}
    new_spec["added_tokens"] = [
        {**token, "id": old_to_new[token["id"]]} for token in spec.get("added_tokens", [])
    ]
    new_spec["post_processor"] = _remap_post_processor(spec.get("post_processor"), old_to_new)
    new_spec["padding"] = None
    new_spec["truncation"] = None
    return new_spec


def _id_to_token(backend: Tokenizer) -> list[str]:
    size = backend.get_vocab_size(with_added_tokens=True)
    tokens = [backend.id_to_token(i) for i in range(size)]
    if None in tokens:
        raise ValueError("pruned vocabulary ids are not a dense range 0..n-1")
    return tokens


def _original_json(source: str | Path, filename: str) -> dict[str, Any] | None:
    """Read one JSON file of the source tokenizer (a local folder or a hub id); None if absent."""
    from ml_assets.core.text.backbones import backbone_file

    path = backbone_file(str(source), filename)
    if path is None:
        return None
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _tokenizer_config(
    source: str | Path, tokenizer: PreTrainedTokenizerBase, old_to_new: dict[int, int]
) -> dict[str, Any]:
    config = _original_json(source, "tokenizer_config.json")
    if config is None:
        # Without a config AutoTokenizer must take tokenizer.json as is (normalizer included).
        config = {"tokenizer_class": "PreTrainedTokenizerFast", **tokenizer.special_tokens_map}
        config["model_max_length"] = tokenizer.model_max_length
    config = {k: v for k, v in config.items() if k not in _DROPPED_CONFIG_KEYS}
    if "added_tokens_decoder" in config:
        config["added_tokens_decoder"] = {
            str(old_to_new[int(old)]): token
            for old, token in config["added_tokens_decoder"].items()
        }
    return config


def _write_outputs(
    out_dir: Path,
    source: str | Path,
    tokenizer: PreTrainedTokenizerBase,
    spec: dict[str, Any],
    new_to_old: list[int],
    original_vocab_size: int,
    source_digest: str,
) -> None:
    # Plain writes are fine here: out_dir is a staging folder the caller commits atomically.
    tokenizer_json = json.dumps(spec, ensure_ascii=False, indent=2) + "\n"
    backend = Tokenizer.from_str(tokenizer_json)  # fail here, not at load time, if malformed
    (out_dir / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
    (out_dir / "vocab.txt").write_text(
        "".join(t + "\n" for t in _id_to_token(backend)), encoding="utf-8"
    )

    old_to_new = old_to_new_ids(new_to_old)
    special_map = _original_json(source, "special_tokens_map.json") or tokenizer.special_tokens_map
    id_map = {
        "new_to_old": new_to_old,
        "original_vocab_size": original_vocab_size,
        "source": str(source),
        "source_pipeline_sha256": source_digest,
    }
    _write_json(out_dir / "tokenizer_config.json", _tokenizer_config(source, tokenizer, old_to_new))
    _write_json(out_dir / "special_tokens_map.json", special_map)
    _write_json(out_dir / ID_MAP_FILE, id_map)


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    path.write_text(
        json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
