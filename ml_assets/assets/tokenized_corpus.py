"""tokenized_corpus: every split tokenized once with the pruned tokenizer, memory-mappable."""

import time
from pathlib import Path

import dagster as dg

from ml_assets.core.infra.io import ArtifactRef, by_asset
from ml_assets.core.infra.layouts import read_features
from ml_assets.core.params import TokenizedCorpusParams
from ml_assets.wiring.artifacts import (
    automation_condition,
    memoized_output,
)
from ml_assets.wiring.daily import single_run_asset
from ml_assets.wiring.run_config import section_config
from ml_assets.wiring.stage import Stage
from resources.artifact_store import ArtifactStore
from resources.params import ParamsResource

# per-run overrides of the TokenizedCorpus section: the launchpad's fields
TokenizedCorpusConfig = section_config(TokenizedCorpusParams, "TokenizedCorpusConfig")


STAGE = Stage(
    key="tokenized_corpus",
    module=__name__,
    section=TokenizedCorpusParams,
    libraries=("tokenizers", "numpy"),
)


@single_run_asset(
    group_name="tokenizer",
    kinds={"numpy"},
    automation_condition=automation_condition(),
    description=(
        "The preprocessing cache: every split tokenized once (fast batch encoding) into memory-mapped "
        "uint16 token ids + offsets, with label ids alongside. Pretraining, finetuning and evaluation all "
        "read it, so changing a training hyperparameter never re-tokenizes."
    ),
)
def tokenized_corpus(
    context: dg.AssetExecutionContext,
    config: TokenizedCorpusConfig,
    training_features: ArtifactRef,
    pruned_tokenizer: ArtifactRef,
    params: ParamsResource,
    artifact_store: ArtifactStore,
) -> dg.Output[ArtifactRef]:
    section = params.fingerprinted(STAGE, config.overrides)
    settings = TokenizedCorpusParams.model_validate(section)

    def build(folder: Path, fingerprint: str) -> dict:
        from ml_assets.core.text.tokenizer_folder import FolderTokenizer
        from ml_assets.core.training_data.corpus import write_corpus

        started = time.perf_counter()
        meta = write_corpus(
            folder,
            FolderTokenizer.load(pruned_tokenizer.dir),
            read_features(training_features),
            settings.max_length,
        )
        seconds = time.perf_counter() - started
        rows = sum(s["rows"] for s in meta["splits"].values())
        tokens = sum(s["tokens"] for s in meta["splits"].values())
        return {
            "rows": rows,
            "tokens": tokens,
            "mean_tokens_per_row": round(tokens / max(rows, 1), 2),
            "truncated_rows": sum(s["truncated"] for s in meta["splits"].values()),
            "token_dtype": meta["dtype"],
            "bytes": sum(p.stat().st_size for p in folder.iterdir()),
            "rows_per_second": round(rows / max(seconds, 1e-9), 1),
            **{f"rows_{split}": s["rows"] for split, s in meta["splits"].items()},
        }

    return memoized_output(
        context,
        artifact_store,
        asset=STAGE.key,
        code=STAGE.code(params.path, params.profile),
        params=section,
        inputs=by_asset(training_features, pruned_tokenizer),
        build=build,
    )
