"""frozen_encoder_reference: the pretrained backbone, frozen, with a linear head per label."""

from pathlib import Path

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.layouts import read_features
from ml_assets.core.params import (
    MultitaskModelParams,
    PipelineParams,
    PrunedTokenizerParams,
    ReferenceModelsParams,
)
from ml_assets.core.text.backbones import backbone_digest
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
    """The grid it searches, the heads, and the backbone it embeds with (the configured one, what
    its files hold, and how many of its layers)."""
    section, finetune = params.get(ReferenceModelsParams), params.get(MultitaskModelParams)
    return {
        "c_grid": list(section.c_grid),
        "max_iter": section.max_iter,
        "heads": list(finetune.heads),
        "max_length": finetune.max_length,
        "backbone": params.get(PrunedTokenizerParams).backbone,
        "backbone_files": backbone_digest(params.get(PrunedTokenizerParams).backbone),
        "frozen_layers": section.frozen_layers,
    }


# per-run overrides of the ReferenceModels section: the launchpad's fields
FrozenEncoderReferenceConfig = section_config(ReferenceModelsParams, "FrozenEncoderReferenceConfig")


STAGE = Stage(
    key="frozen_encoder_reference",
    module=__name__,
    libraries=("scikit-learn", "torch", "transformers", "tokenizers"),
    section=ReferenceModelsParams,
    reads=(MultitaskModelParams, PrunedTokenizerParams),
    fingerprint=fingerprint,
)


@single_run_asset(
    group_name="references",
    kinds={"pytorch", "scikitlearn"},
    automation_condition=automation_condition(),
    description=(
        "The configured pretrained backbone (every layer unless `reference_models.frozen_layers` "
        "says fewer; its own tokenizer; not finetuned), "
        "pooled the way it was trained (all-MiniLM-L6-v2: mean over tokens, L2-normalized), with "
        "one logistic regression per head on the same labeled train rows (C picked on valid). "
        "Stores its probabilities on every test row for model_evaluation and the promotion gate."
    ),
)
def frozen_encoder_reference(
    context: dg.AssetExecutionContext,
    config: FrozenEncoderReferenceConfig,
    training_features: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    settings = params.fingerprinted(STAGE, config.overrides)

    def build(folder: Path, fingerprint: str) -> dict:
        from ml_assets.core.training_data.labels import label_vocabularies
        from ml_assets.training.references import fit_per_head, frozen_matrices, write_reference

        def fit(features):
            train, valid, test, pooling = frozen_matrices(
                features, settings["backbone"], settings["max_length"], settings["frozen_layers"]
            )
            result = fit_per_head(
                train, valid, test, features, heads, settings["c_grid"],
                settings["max_iter"],
            )  # fmt: skip
            layers = settings["frozen_layers"] or "all"
            return result, {"backbone": settings["backbone"], "pooling": pooling, "layers": layers}

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
