"""tfidf_reference: TF-IDF + logistic regression per head, the first notebook baseline."""

from pathlib import Path

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.layouts import read_features
from ml_assets.core.params import MultitaskModelParams, PipelineParams, ReferenceModelsParams
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.heads import heads_with_labels
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import FingerprintContext, Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource


def fingerprint(params: PipelineParams, context: FingerprintContext) -> dict:
    """The grid it searches, and the heads the finetuned models predict."""
    section = params.get(ReferenceModelsParams)
    return {
        "c_grid": list(section.c_grid),
        "max_iter": section.max_iter,
        "tfidf_min_df": section.tfidf_min_df,
        "heads": list(params.get(MultitaskModelParams).heads),
    }


# per-run overrides of the ReferenceModels section: the launchpad's fields
TfidfReferenceConfig = section_config(ReferenceModelsParams, "TfidfReferenceConfig")


STAGE = Stage(
    key="tfidf_reference",
    module=__name__,
    libraries=("scikit-learn", "scipy", "polars"),
    section=ReferenceModelsParams,
    reads=(MultitaskModelParams,),
    fingerprint=fingerprint,
)


@single_run_asset(
    group_name="references",
    kinds={"scikitlearn", "parquet"},
    automation_condition=automation_condition(),
    description=(
        "What an ML engineer tries first: character (2-5, within words) and word (1-2) TF-IDF "
        "with one logistic regression per head, fit on the same labeled train rows as the "
        "finetuned models (C picked on valid). Stores its probabilities on every test row; "
        "model_evaluation sets it beside the candidate and the promotion gate requires a margin "
        "over it."
    ),
)
def tfidf_reference(
    context: dg.AssetExecutionContext,
    config: TfidfReferenceConfig,
    training_features: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    settings = params.fingerprinted(STAGE, config.overrides)

    def build(folder: Path, fingerprint: str) -> dict:
        from ml_assets.core.training_data.labels import label_vocabularies
        from ml_assets.training.references import fit_per_head, tfidf_matrices, write_reference

        def fit(features):
            train, valid, test, width = tfidf_matrices(features, settings["tfidf_min_df"])
            result = fit_per_head(
                train, valid, test, features, heads, settings["c_grid"],
                settings["max_iter"],
            )  # fmt: skip
            return result, {"tfidf_features": width}

        features = read_features(training_features)
        vocabularies = label_vocabularies(features, settings["heads"])
        heads, notes = heads_with_labels(context, vocabularies, settings["heads"])
        return {**write_reference(features, heads, folder, fit), **notes}

    return memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=settings,
        inputs=by_asset(training_features),
        build=build,
    )
