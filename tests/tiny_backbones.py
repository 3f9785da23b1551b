"""Tiny random checkpoints of other encoder architectures, written as HF model folders.

DistilBERT, MPNet, ELECTRA and ModernBERT carry the bundled backbone's WordPiece tokenizer;
RoBERTa gets a byte-level BPE trained on the sample descriptions, as a RoBERTa or XLM-RoBERTa
folder brings a vocabulary that is not WordPiece. ELECTRA's embeddings are narrower than its
layers; ModernBERT has three layers, one global and two local (its config lists each).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import torch

ARCHITECTURES = ("distilbert", "mpnet", "roberta", "electra", "modernbert")
WORDPIECE_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "special_tokens_map.json",
)
BPE_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
SIZE = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2}


def write_tiny_backbone(kind: str, folder: Path, bert_folder: Path, texts: list[str]) -> Path:
    """A random ``kind`` masked-LM of two layers 32 wide, with a tokenizer, in ``folder``."""
    from transformers import (
        DistilBertConfig,
        DistilBertForMaskedLM,
        ElectraConfig,
        ElectraForMaskedLM,
        ModernBertConfig,
        ModernBertForMaskedLM,
        MPNetConfig,
        MPNetForMaskedLM,
        RobertaConfig,
        RobertaForMaskedLM,
    )

    folder.mkdir(parents=True)
    torch.manual_seed(0)
    if kind == "roberta":
        size = _write_bpe_tokenizer(folder, texts)
        config = RobertaConfig(
            vocab_size=size,
            intermediate_size=64,
            max_position_embeddings=130,
            pad_token_id=1,
            bos_token_id=0,
            eos_token_id=2,
            **SIZE,
        )
        RobertaForMaskedLM(config).save_pretrained(folder)
        return folder
    for name in WORDPIECE_FILES:
        shutil.copy(bert_folder / name, folder / name)
    if kind == "distilbert":
        config = DistilBertConfig(
            vocab_size=30522, dim=32, n_layers=2, n_heads=2, hidden_dim=64, pad_token_id=0
        )
        DistilBertForMaskedLM(config).save_pretrained(folder)
    elif kind == "mpnet":
        # the BERT tokenizer's [PAD], [CLS] and [SEP]: MPNet derives position ids from the pad id
        config = MPNetConfig(
            vocab_size=30522,
            intermediate_size=64,
            pad_token_id=0,
            bos_token_id=101,
            eos_token_id=102,
            **SIZE,
        )
        MPNetForMaskedLM(config).save_pretrained(folder)
    elif kind == "electra":
        config = ElectraConfig(vocab_size=30522, embedding_size=16, intermediate_size=64, **SIZE)
        ElectraForMaskedLM(config).save_pretrained(folder)
    elif kind == "modernbert":
        config = ModernBertConfig(
            vocab_size=30522,
            hidden_size=32,
            num_hidden_layers=3,
            num_attention_heads=2,
            intermediate_size=64,
            global_attn_every_n_layers=3,
            local_attention=8,
            max_position_embeddings=256,
            pad_token_id=0,
            bos_token_id=101,
            eos_token_id=102,
            cls_token_id=101,
            sep_token_id=102,
        )
        ModernBertForMaskedLM(config).save_pretrained(folder)
    else:
        raise ValueError(f"no tiny {kind!r} backbone; one of {ARCHITECTURES}")
    return folder


def _write_bpe_tokenizer(folder: Path, texts: list[str]) -> int:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=list(BPE_SPECIALS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    backend.train_from_iterator(texts, trainer)
    backend.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
    )
    tokenizer.save_pretrained(folder)
    return len(tokenizer)
