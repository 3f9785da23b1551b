"""The models: an encoder backbone with a pruned vocabulary, and the multitask classifier.

``MultiTaskModel`` is the one model class: training, evaluation and ONNX export import it
from here. Weights are stored as safetensors plus a JSON config (never pickle).
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable
from pathlib import Path

import torch
import transformers
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import (
    CONFIG_MAPPING,
    AutoConfig,
    AutoModel,
    AutoModelForMaskedLM,
    PretrainedConfig,
    PreTrainedModel,
)
from transformers.utils import logging as hf_logging

from ml_assets.core.text.backbones import (
    cut_to_layers,
    encoder_backbone,
    quiet_transformers,
    tokenizer_past_embeddings,
)
from ml_assets.core.text.id_map import old_to_new_ids
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


# Token ids a config names; slicing the vocabulary moves them (MPNet and RoBERTa derive
# position ids from the padding id, so a stale one shifts every position).
TOKEN_ID_FIELDS = ("pad_token_id", "bos_token_id", "eos_token_id", "sep_token_id", "cls_token_id")


def with_fast_attention(build: Callable[..., PreTrainedModel], *args, **kwargs) -> PreTrainedModel:
    """``build(*args, attn_implementation="sdpa", **kwargs)``, or with the architecture's own
    attention where it has no SDPA one (MPNet's relative position bias)."""
    try:
        return build(*args, attn_implementation="sdpa", **kwargs)
    except ValueError as error:
        if "attention" not in str(error).lower():
            raise
        return build(*args, attn_implementation="eager", **kwargs)


def encoder_kwargs(config: PretrainedConfig) -> dict:
    """``add_pooling_layer=False`` where the architecture has a pooler (BERT, RoBERTa, MPNet):
    the heads read the hidden states, and an unused pooler would only be saved and exported."""
    model_class = transformers.MODEL_MAPPING[type(config)]
    if "add_pooling_layer" in inspect.signature(model_class.__init__).parameters:
        return {"add_pooling_layer": False}
    return {}


def config_from_dict(values: dict) -> PretrainedConfig:
    """A config saved with ``to_dict()``, of its own architecture (BERT where it names none)."""
    return CONFIG_MAPPING[values.get("model_type", "bert")].from_dict(values)


def load_pruned_mlm(
    source: str, new_to_old: list[int], num_layers: int | None = None, seed: int = 0
) -> tuple[PreTrainedModel, int]:
    """Load a pretrained encoder as masked-LM with its vocabulary sliced to ``new_to_old``.

    Row i of the new embedding matrix (and of the MLM decoder and its bias) is row
    ``new_to_old[i]`` of the original (not the first N rows, which is what
    ``resize_token_embeddings`` would keep); the config's token ids follow. The decoder stays
    tied to the embeddings where the original's was. Layers above ``num_layers`` are dropped.
    Returns the model and the original's parameter count.
    """
    torch.manual_seed(seed)  # the checkpoint may lack an MLM head: make its init reproducible
    with quiet_transformers():
        original = AutoModelForMaskedLM.from_pretrained(encoder_backbone(source))
    params_before = count_parameters(original)
    config = copy.deepcopy(original.config)
    old_rows = original.get_input_embeddings().weight.shape[0]
    if max(new_to_old) >= old_rows:
        raise ValueError(tokenizer_past_embeddings(source, max(new_to_old), old_rows))
    config.vocab_size = len(new_to_old)
    if num_layers is not None:
        cut_to_layers(config, num_layers)
    old_to_new = old_to_new_ids(new_to_old)
    for field in TOKEN_ID_FIELDS:
        old = getattr(config, field, None)
        if isinstance(old, int):
            setattr(config, field, old_to_new.get(old))
    index = torch.tensor(new_to_old, dtype=torch.long)
    decoder = original.get_output_embeddings()
    model = with_fast_attention(AutoModelForMaskedLM.from_config, config)
    shapes = {key: value.shape for key, value in model.state_dict().items()}
    identity = new_to_old == list(range(old_rows))  # a vocabulary kept whole
    state = {
        key: value[index].clone()
        if not identity and _is_vocab_rows(value, shapes.get(key), old_rows, len(new_to_old))
        else value
        for key, value in original.state_dict().items()
    }
    loaded = model.load_state_dict(state, strict=False)
    tied = original.get_input_embeddings().weight is getattr(decoder, "weight", None)
    if tied:
        model.tie_weights()
    missing = [key for key in loaded.missing_keys if not (tied and key in _decoder_keys(model))]
    if missing:
        raise ValueError(f"{source}: the sliced model lacks weights the original holds: {missing}")
    if tied and (
        model.get_output_embeddings().weight.data_ptr()
        != model.get_input_embeddings().weight.data_ptr()
    ):
        raise AssertionError("MLM decoder is not tied to the pruned embeddings")
    return model, params_before


def _is_vocab_rows(value: torch.Tensor, sliced: torch.Size | None, rows: int, new: int) -> bool:
    """Whether a state tensor has one row per vocabulary id: the original's ``rows`` where the
    sliced model's (``sliced``, built from the new config) has ``new``, and otherwise alike.
    The embeddings, the decoder and every bias of the MLM head, tied or not."""
    return (
        sliced is not None
        and value.ndim >= 1
        and (value.shape[0], sliced[0]) == (rows, new)
        and tuple(sliced[1:]) == tuple(value.shape[1:])
    )


def _decoder_keys(model: PreTrainedModel) -> set[str]:
    decoder = model.get_output_embeddings()
    return {
        name for name, p in model.named_parameters(remove_duplicate=False) if p is decoder.weight
    }


POOLINGS = ("mean", "cls")


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per sequence: the mean over real tokens, or the [CLS] position."""
    if pooling == "cls":
        return hidden[:, 0]
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)


class MultiTaskModel(nn.Module):
    """Shared encoder, one linear head per label on the pooled sequence; optionally a bag
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
        encoder_config: PretrainedConfig,
        heads: dict[str, list[str]],
        dropout: float = 0.1,
        pooling: str = "cls",
    ):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}; got {pooling!r}")
        self.pooling = pooling
        self.encoder = with_fast_attention(
            AutoModel.from_config, encoder_config, **encoder_kwargs(encoder_config)
        )
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
        config = AutoConfig.from_pretrained(backbone_dir)
        model = cls(config, heads, dropout, pooling)
        with quiet_transformers():
            encoder = AutoModel.from_pretrained(backbone_dir, **encoder_kwargs(config))
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
            config_from_dict(config["encoder"]),
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
