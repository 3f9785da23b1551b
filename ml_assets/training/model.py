"""The models: a BERT backbone with a pruned vocabulary, and the multitask classifier.

``MultiTaskModel`` is the one model class: training, evaluation and ONNX export import it
from here. Weights are stored as safetensors plus a JSON config (never pickle).
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import transformers
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import BertConfig, BertForMaskedLM, BertModel
from transformers.utils import logging as hf_logging

from ml_assets.core.text.backbones import bert_backbone
from ml_assets.training.amount_prior import AmountPrior
from ml_assets.training.ngram_bag import GATE_FIELDS, NgramBag

hf_logging.disable_progress_bar()  # weight-loading bars would flood the Dagster run logs
MODEL_CONFIG = "multitask_config.json"
MODEL_WEIGHTS = "model.safetensors"


def pick_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def count_parameters(model: nn.Module) -> int:
    # Tied parameters (the MLM decoder shares the embedding matrix) are counted once.
    return sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())


def load_pruned_mlm(
    source: str, new_to_old: list[int], num_layers: int | None = None, seed: int = 0
) -> tuple[BertForMaskedLM, int]:
    """Load a pretrained BERT as masked-LM with its vocabulary sliced to ``new_to_old``.

    Row i of the new embedding matrix is row ``new_to_old[i]`` of the original (not the first N
    rows, which is what ``resize_token_embeddings`` would keep). The MLM decoder stays tied to
    the embeddings. Returns the model and the original's parameter count.
    """
    torch.manual_seed(seed)  # the checkpoint may lack an MLM head: make its init reproducible
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    try:
        original = BertForMaskedLM.from_pretrained(bert_backbone(source))
    finally:
        transformers.logging.set_verbosity(verbosity)
    params_before = count_parameters(original)
    config = BertConfig.from_dict(original.config.to_dict())
    config.vocab_size = len(new_to_old)
    if num_layers is not None:
        if num_layers > config.num_hidden_layers:
            raise ValueError(f"num_layers={num_layers} > the backbone's {config.num_hidden_layers}")
        config.num_hidden_layers = num_layers
    config._attn_implementation = "sdpa"
    index = torch.tensor(new_to_old, dtype=torch.long)
    state = {}
    for key, value in original.state_dict().items():
        is_layer = key.startswith("bert.encoder.layer.")
        if is_layer and int(key.split(".")[3]) >= config.num_hidden_layers:
            continue  # layers above num_layers are dropped
        state[key] = value
    state["bert.embeddings.word_embeddings.weight"] = state[
        "bert.embeddings.word_embeddings.weight"
    ][index].clone()
    state["cls.predictions.bias"] = state["cls.predictions.bias"][index].clone()
    state["cls.predictions.decoder.weight"] = state["bert.embeddings.word_embeddings.weight"]
    state["cls.predictions.decoder.bias"] = state["cls.predictions.bias"]
    model = BertForMaskedLM(config)
    model.load_state_dict(state, strict=False)
    model.tie_weights()
    decoder = model.cls.predictions.decoder
    if decoder.weight.data_ptr() != model.bert.embeddings.word_embeddings.weight.data_ptr():
        raise AssertionError("MLM decoder is not tied to the pruned embeddings")
    return model, params_before


POOLINGS = ("mean", "cls")


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per sequence: the mean over real tokens, or the [CLS] position."""
    if pooling == "cls":
        return hidden[:, 0]
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)


class MultiTaskModel(nn.Module):
    """Shared BERT encoder, one linear head per label on the pooled sequence; optionally a bag
    of token n-grams beside it (``ngram_bag.py``), mixed into each head's output, which is then
    log-probabilities (logits as far as softmax and argmax are concerned); optionally what the
    transaction's amount says of each label (``amount_prior.py``), where ``forward`` is given
    the amounts: added to the encoder's side of the bag's mix, or to each head's output
    without a bag.

    ``pooling`` reads the sequence the way the backbone was trained to be read:
    sentence-transformers checkpoints such as all-MiniLM-L6-v2 were trained on the mean over
    tokens (their [CLS] vector was never trained to summarize), plain BERT on [CLS]."""

    def __init__(
        self,
        encoder_config: BertConfig,
        heads: dict[str, list[str]],
        dropout: float = 0.1,
        pooling: str = "cls",
    ):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}; got {pooling!r}")
        self.pooling = pooling
        encoder_config._attn_implementation = "sdpa"
        self.encoder = BertModel(encoder_config, add_pooling_layer=False)
        self.head_labels = {name: list(labels) for name, labels in heads.items()}
        self.dropout = nn.Dropout(dropout)
        hidden = encoder_config.hidden_size
        self.heads = nn.ModuleDict(
            {name: nn.Linear(hidden, len(labels)) for name, labels in heads.items()}
        )
        self.dropout_p = dropout
        self.bag: NgramBag | None = None  # attached after finetuning, when configured
        self.use_bag = True  # False: the encoder's logits alone (to report what the bag adds)
        self.amount_prior: AmountPrior | None = None  # attached after the bag, when it pays

    @property
    def head_names(self) -> list[str]:
        return list(self.head_labels)

    @property
    def reads_amount(self) -> bool:
        """Whether the model's output depends on the amount (an input of its ONNX graph)."""
        return self.amount_prior is not None

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        amount: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        pooled = self.dropout(pool(hidden, attention_mask, self.pooling))
        logits = tuple(self.heads[name](pooled) for name in self.head_names)
        terms = None
        if self.amount_prior is not None and amount is not None:
            terms = self.amount_prior(amount)
        if self.bag is not None and self.use_bag:
            return self.bag.mix(logits, input_ids, attention_mask, terms)
        if terms is not None:
            logits = tuple(part + term for part, term in zip(logits, terms, strict=True))
        return logits

    @classmethod
    def from_backbone(
        cls, backbone_dir: Path, heads: dict[str, list[str]], dropout: float, pooling: str = "cls"
    ) -> MultiTaskModel:
        config = BertConfig.from_pretrained(backbone_dir)
        model = cls(config, heads, dropout, pooling)
        verbosity = transformers.logging.get_verbosity()
        transformers.logging.set_verbosity_error()
        try:
            encoder = BertModel.from_pretrained(backbone_dir, add_pooling_layer=False)
        finally:
            transformers.logging.set_verbosity(verbosity)
        model.encoder.load_state_dict(encoder.state_dict())
        return model

    def save(self, out_dir: Path) -> None:
        config = {
            "encoder": self.encoder.config.to_dict(),
            "heads": self.head_labels,
            "dropout": self.dropout_p,
            "pooling": self.pooling,
            **({"ngram_bag": self.bag.config()} if self.bag is not None else {}),
            **({"amount_prior": self.amount_prior.config()} if self.reads_amount else {}),
        }
        (out_dir / MODEL_CONFIG).write_text(
            json.dumps(config, indent=2, sort_keys=True, default=str)
        )
        state = {k: v.detach().cpu().contiguous() for k, v in self.state_dict().items()}
        save_file(state, str(out_dir / MODEL_WEIGHTS))

    @classmethod
    def load(cls, model_dir: Path, device: str | torch.device = "cpu") -> MultiTaskModel:
        config = json.loads((model_dir / MODEL_CONFIG).read_text())
        model = cls(
            BertConfig.from_dict(config["encoder"]),
            config["heads"],
            config["dropout"],
            config.get("pooling", "cls"),  # artifacts written before pooling was a choice
        )
        if "ngram_bag" in config:
            model.bag = NgramBag(**config["ngram_bag"])
        if "amount_prior" in config:
            if "placement" not in config["amount_prior"]:
                raise ValueError(
                    f"{model_dir}: saved when the amount prior was added after the n-gram bag's "
                    "mix, with a weight chosen for that; materialize multitask_model again"
                )
            model.amount_prior = AmountPrior(**config["amount_prior"])
        state = load_file(str(model_dir / MODEL_WEIGHTS), device=str(device))
        gate = state.get("bag.gate")
        if gate is not None and gate.shape[1] < GATE_FIELDS:  # saved before the token share
            state["bag.gate"] = torch.nn.functional.pad(gate, (0, GATE_FIELDS - gate.shape[1]))
        model.load_state_dict(state)
        return model.to(device).eval()
