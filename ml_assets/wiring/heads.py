"""The heads a model asset trains: those of its configured heads the data has labels for.

Imported by the four model assets only, so the label checks enter only their code versions.
"""

from typing import Any

import dagster as dg

from ml_assets.core.training_data.labels import HeadLabelsError, trainable_heads


def heads_with_labels(
    context: dg.AssetExecutionContext,
    vocabularies: dict[str, list[str]],
    configured: list[str] | tuple[str, ...],
) -> tuple[list[str], dict[str, Any]]:
    """The configured heads the data has labels for (``core.labels.trainable_heads``) and the
    metadata naming those left out, also logged as a warning. A head that cannot train fails
    the asset here, before any model is fit."""
    try:
        choice = trainable_heads(configured, vocabularies)
    except HeadLabelsError as err:
        raise dg.Failure(str(err)) from err
    if not choice.left_out:
        return list(choice.heads), {}
    context.log.warning(choice.warning())
    return list(choice.heads), {"heads_left_out": choice.warning()}
