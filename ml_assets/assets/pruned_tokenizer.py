"""pruned_tokenizer: the backbone's WordPiece vocabulary cut down to what transactions use."""

import json
from pathlib import Path

import dagster as dg
import polars as pl

from ml_assets.assets.training_features import STAGE as TRAINING_FEATURES
from ml_assets.core.infra.io import ArtifactRef, by_asset, read_json
from ml_assets.core.infra.layouts import (
    BACKBONE_FILE,
    TOKENIZER_ID_MAP,
    entry_params,
    read_features,
    training_texts,
)
from ml_assets.core.params import PipelineParams, PrunedTokenizerParams, section_name
from ml_assets.core.text.backbones import (
    backbone_digest,
    encoder_backbone,
    resolve_backbone,
    tokenizer_past_embeddings,
)
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import FingerprintContext, Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

CHECK_SAMPLE = 2000


def heldout_texts(features: pl.DataFrame, limit: int, seed: int = 0) -> list[str]:
    texts = features.filter(pl.col("split") != "train")["text"]
    return texts.sample(min(limit, texts.len()), seed=seed).to_list() if texts.len() else []


# per-run overrides of the PrunedTokenizer section: the launchpad's fields
PrunedTokenizerConfig = section_config(PrunedTokenizerParams, "PrunedTokenizerConfig")


def fingerprint(params: PipelineParams, context: FingerprintContext) -> dict:
    """Its section, and what the backbone's files hold: new weights saved over a folder's old
    ones are a new backbone (written to backbone.json, so every asset below sees it change)."""
    section = params.section(section_name(PrunedTokenizerParams))
    return {**section, "backbone_files": backbone_digest(section["backbone"])}


STAGE = Stage(
    key="pruned_tokenizer",
    module=__name__,
    section=PrunedTokenizerParams,
    libraries=("tokenizers", "transformers"),
    fingerprint=fingerprint,
)


@single_run_asset(
    group_name="tokenizer",
    kinds={"huggingface"},
    automation_condition=automation_condition(),
    description=(
        "The backbone's fast tokenizer (AutoTokenizer-loadable). A WordPiece one holds only the "
        "backbone tokens used on training text, plus special tokens and every single-character "
        "piece, so no string gets more [UNK] than with the original, and a piece for each "
        "character of training text the backbone lacks; a BPE or Unigram one is kept whole. "
        "Includes the old->new id map used to slice the embeddings."
    ),
)
def pruned_tokenizer(
    context: dg.AssetExecutionContext,
    config: PrunedTokenizerConfig,
    training_features: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.fingerprinted(STAGE, config.overrides)
    settings = PrunedTokenizerParams.model_validate(
        {k: v for k, v in section.items() if k != "backbone_files"}
    )

    def build(folder: Path, fingerprint: str) -> dict:
        # transformers loads here, not when the definitions load (UI, CLI, plan stay fast)
        from ml_assets.core.text.tokenizer_folder import FolderTokenizer
        from ml_assets.core.text.vocab import compare_tokenization, load_tokenizer, prune_vocabulary

        features = read_features(training_features)
        source = encoder_backbone(settings.backbone)
        report = prune_vocabulary(
            source,
            sorted(set(training_texts(features))),
            folder,
            keep_short_pieces=settings.keep_short_pieces,
            keep_latin_pieces=settings.keep_latin_pieces,
            add_unknown_chars=settings.add_unknown_chars,
        )
        from transformers import AutoConfig

        rows = AutoConfig.from_pretrained(source).vocab_size  # the model's embedding rows
        if max(report.new_to_old) >= rows:
            raise ValueError(tokenizer_past_embeddings(source, max(report.new_to_old), rows))
        if report.kept_whole:
            context.log.info(
                f"{settings.backbone}: a {report.tokenizer_model} tokenizer; its vocabulary is "
                "kept whole (only WordPiece vocabularies are pruned)"
            )
        backbone = {"backbone": settings.backbone, "files_sha256": section["backbone_files"]}
        (folder / BACKBONE_FILE).write_text(json.dumps(backbone, indent=2) + "\n")
        original = FolderTokenizer.of_transformers(load_tokenizer(source))
        pruned = FolderTokenizer.load(folder)  # as every later step reads it
        heldout = compare_tokenization(
            original, pruned, heldout_texts(features, settings.identity_sample)
        )
        return {
            "backbone": settings.backbone,
            "tokenizer_model": report.tokenizer_model,
            "vocab_before": report.original_vocab_size,
            "vocab_after": report.pruned_vocab_size,
            "vocab_kept_share": round(report.pruned_vocab_size / report.original_vocab_size, 4),
            "used_tokens": report.used_tokens,
            "kept_single_char_pieces": report.kept_single_chars,
            "kept_short_pieces": report.kept_short_pieces,
            "kept_latin_pieces": report.kept_latin_pieces,
            "added_char_pieces": report.added_char_pieces,
            "heldout_identity_rate": round(heldout.identical_rate, 4),
            "heldout_identity_rate_known": round(heldout.identical_rate_known, 4),
            "heldout_sample": heldout.n,
            "heldout_unk_rate_original": round(heldout.unk_rate_original, 5),
            "heldout_unk_rate_pruned": round(heldout.unk_rate_pruned, 5),
            "heldout_mean_tokens_original": round(heldout.mean_tokens_original, 2),
            "heldout_mean_tokens_pruned": round(heldout.mean_tokens_pruned, 2),
        }

    return memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=section,
        inputs=by_asset(training_features),
        build=build,
    )


@dg.asset_check(
    asset=pruned_tokenizer,
    additional_ins={TRAINING_FEATURES.key: dg.AssetIn()},
    description=(
        "Re-tokenizes a training sample with original and pruned tokenizers: token strings must "
        "be 100 % identical on every text the original tokenizes without [UNK], and no text may "
        "get more [UNK]."
    ),
)
def pruned_tokenizer_identical_on_training_text(
    pruned_tokenizer: ArtifactRef, training_features: ArtifactRef
) -> dg.AssetCheckResult:
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer
    from ml_assets.core.text.vocab import compare_tokenization, read_original

    texts = pl.Series(training_texts(read_features(training_features)))
    sample = texts.sample(min(CHECK_SAMPLE, texts.len()), seed=1).to_list()
    source = resolve_backbone(entry_params(pruned_tokenizer)["backbone"])
    digest = read_json(pruned_tokenizer.dir / TOKENIZER_ID_MAP).get("source_pipeline_sha256")
    original = read_original(source, digest)
    result = compare_tokenization(original, FolderTokenizer.load(pruned_tokenizer.dir), sample)
    return dg.AssetCheckResult(
        passed=result.identical_rate_known == 1.0
        and result.unk_rate_pruned <= result.unk_rate_original,
        metadata={
            "sample": result.n,
            "identical_rate": result.identical_rate,
            "identical_rate_known": result.identical_rate_known,
            "unk_rate_original": result.unk_rate_original,
            "unk_rate_pruned": result.unk_rate_pruned,
        },
    )
