"""JSONL exports, parsed line by line so a bad line never hides the lines after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ml_assets.core.intake.records import SchemaError, open_binary

_BOM = b"\xef\xbb\xbf"


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict | SchemaError, bytes]]:
    """Parse JSONL line by line: (line number, record or the error, raw bytes) for every
    non-blank line; a bad line never hides the lines after it.

    (polars' NDJSON reader has been reported to drop the rest of a file after some malformed
    lines, so it is not trusted for validation.)"""
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            where = f"{path}:{number}"
            try:  # (a byte-order mark, as Windows tools write, starts the first line)
                text = raw.removeprefix(_BOM) if number == 1 else raw
                record = json.loads(text.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as err:
                yield (
                    number,
                    SchemaError(
                        f"{where}: not valid UTF-8 ({err.reason} at byte {err.start})",
                        "invalid_utf8",
                    ),
                    raw,
                )
                continue
            except json.JSONDecodeError as err:
                truncated = not raw.endswith(b"\n")  # the last line of an interrupted write
                yield (
                    number,
                    SchemaError(
                        f"{where}: {'truncated' if truncated else 'malformed'} JSON "
                        f"({err.msg} at column {err.colno})",
                        "truncated_line" if truncated else "malformed_json",
                    ),
                    raw,
                )
                continue
            if not isinstance(record, dict):
                yield (
                    number,
                    SchemaError(
                        f"{where}: expected a JSON object, got {type(record).__name__}",
                        "not_an_object",
                    ),
                    raw,
                )
                continue
            yield number, record, raw
