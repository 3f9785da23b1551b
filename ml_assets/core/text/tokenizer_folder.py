"""The pipeline's own tokenizer folders, read with the ``tokenizers`` library alone.

A pruned tokenizer (and each model's copy of it) is a ``tokenizer.json`` that
``prune_vocabulary`` serialized from the backend transformers built for the original, with
padding and truncation off, plus a ``special_tokens_map.json``. Reading that file back with
``tokenizers`` runs the very pipeline transformers would (normalizer, pre-tokenizer, WordPiece,
[CLS]/[SEP] template); ``tests/test_tokenizer_folder.py`` pins the ids against AutoTokenizer.

Why not AutoTokenizer: importing it costs a process ~4 s (transformers pulls its model stack in),
and a serving process, a batch scorer or a tokenizing step needs nothing else of transformers.
``tokenizers`` imports in 0.1 s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from tokenizers import Tokenizer

TOKENIZER_JSON = "tokenizer.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"
_ROLES = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


class FolderTokenizer:
    """Token ids of texts, and the special tokens' ids, from one ``tokenizers`` backend.

    The attribute names (``pad_token_id``, ``all_special_ids``, ``len()``) are transformers'
    own, so code that records them reads the same values either way."""

    def __init__(self, backend: Tokenizer, special_tokens: Mapping, origin: str):
        self.backend = backend
        self.origin = origin
        backend.no_padding()
        backend.no_truncation()
        self._truncation: int | None = None
        self.special_tokens = {
            role: _content(special_tokens[role]) for role in _ROLES if special_tokens.get(role)
        }
        extra = [_content(t) for t in special_tokens.get("additional_special_tokens") or []]
        self.all_special_ids = sorted(
            {self._id(token) for token in [*self.special_tokens.values(), *extra]}
        )

    @classmethod
    def load(cls, folder: str | Path) -> FolderTokenizer:
        """Read ``folder``/tokenizer.json and its special_tokens_map.json; errors name the file."""
        folder = Path(folder)
        for name in (TOKENIZER_JSON, SPECIAL_TOKENS_MAP):
            if not (folder / name).is_file():
                raise FileNotFoundError(
                    f"{folder / name}: missing; a tokenizer folder of this pipeline holds "
                    f"{TOKENIZER_JSON} and {SPECIAL_TOKENS_MAP} (written by pruned_tokenizer)"
                )
        try:
            special = json.loads((folder / SPECIAL_TOKENS_MAP).read_text(encoding="utf-8"))
            backend = Tokenizer.from_file(str(folder / TOKENIZER_JSON))
        except Exception as error:  # tokenizers raises a bare Exception on a malformed file
            raise ValueError(f"{folder}: unreadable tokenizer files ({error})") from error
        return cls(backend, special, str(folder))

    @classmethod
    def of_transformers(cls, tokenizer) -> FolderTokenizer:
        """The same interface over a transformers fast tokenizer's backend (a copy of it)."""
        backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
        return cls(backend, tokenizer.special_tokens_map, str(tokenizer.name_or_path))

    def __len__(self) -> int:
        return self.backend.get_vocab_size(with_added_tokens=True)

    @property
    def pad_token_id(self) -> int | None:
        return self._role_id("pad_token")

    @property
    def mask_token_id(self) -> int | None:
        return self._role_id("mask_token")

    @property
    def sep_token_id(self) -> int | None:
        return self._role_id("sep_token")

    @property
    def unk_token(self) -> str | None:
        return self.special_tokens.get("unk_token")

    @property
    def unk_token_id(self) -> int | None:
        return self._role_id("unk_token")

    def encode(
        self, texts: Sequence[str], max_length: int | None = None, *, special_tokens: bool = True
    ) -> list[list[int]]:
        """Ids of every text in one batch call: [CLS] ... [SEP] when ``special_tokens``, cut
        to ``max_length`` ids (those two included) as transformers' ``truncation=True`` does."""
        texts = list(texts)
        if not texts:  # the backend rejects an empty batch; an empty split is legitimate
            return []
        if max_length != self._truncation:
            if max_length is None:
                self.backend.no_truncation()
            else:
                self.backend.enable_truncation(max_length)
            self._truncation = max_length
        encodings = self.backend.encode_batch(texts, add_special_tokens=special_tokens)
        return [encoding.ids for encoding in encodings]

    def tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """Token strings of every text, without special tokens and untruncated."""
        id_to_token = self.backend.id_to_token
        return [[id_to_token(i) for i in ids] for ids in self.encode(texts, special_tokens=False)]

    def _role_id(self, role: str) -> int | None:
        token = self.special_tokens.get(role)
        return None if token is None else self._id(token)

    def _id(self, token: str) -> int:
        token_id = self.backend.token_to_id(token)
        if token_id is None:
            raise ValueError(f"{self.origin}: special token {token!r} is not in the vocabulary")
        return token_id


def _content(token: str | Mapping) -> str:
    # special_tokens_map.json holds either "[PAD]" or {"content": "[PAD]", "lstrip": ...}
    return token if isinstance(token, str) else token["content"]
