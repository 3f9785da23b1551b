"""Before any model is fit: the configured heads against the labels of the training split.

A blocking check on training_features, so a head no model could learn fails the run before
the backbone is pretrained or a reference is fit, with the column and what to set. A head no
training row carries a label for passes here and is left out by every model (with a warning).
"""

import dagster as dg
import polars as pl

from ml_assets.assets.training_features import training_features
from ml_assets.core.infra.io import ArtifactRef
from ml_assets.core.infra.layouts import read_features
from ml_assets.core.params import MultitaskModelParams
from ml_assets.core.training_data.labels import HeadLabelsError, label_vocabularies, trainable_heads
from ml_assets.wiring.check_reasons import logged_check
from resources.params import ParamsResource


@dg.asset_check(
    asset=training_features,
    blocking=True,
    description=(
        "Heads the training split can teach: each of multitask_model.heads has at least 2 "
        "distinct labels on labeled train rows, or none (then every model leaves it out, with a "
        "warning). Blocking: a head of one label stops the run before any model is fit."
    ),
)
def heads_have_labels(
    context: dg.AssetCheckExecutionContext, training_features: ArtifactRef, params: ParamsResource
) -> dg.AssetCheckResult:
    configured = list(params.get(MultitaskModelParams).heads)
    train = read_features(training_features).filter(pl.col("split") == "train")
    vocabularies = label_vocabularies(train, configured)
    metadata = {f"{head}_train_labels": len(names) for head, names in vocabularies.items()}
    try:
        choice = trainable_heads(configured, vocabularies)
    except HeadLabelsError as err:
        result = dg.AssetCheckResult(passed=False, metadata={**metadata, "failures": str(err)})
        return logged_check(context, result)
    metadata["heads"] = ", ".join(choice.heads)
    metadata["heads_left_out"] = choice.warning() or "none"
    return dg.AssetCheckResult(passed=True, metadata=metadata)
