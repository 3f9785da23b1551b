"""How one export file is read: the reading keys of raw_transactions (preset, column map, date
format, encoding, delimiter, decimal mark, header line, sign convention, sheet, currency, amount unit), and the
per-file entries of ``raw_transactions.exports`` that replace them for the files whose names
match, so one folder can hold the downloads of several banks."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

READING_KEYS = (
    "csv_preset",
    "column_map",
    "date_format",
    "encoding",
    "delimiter",
    "decimal",
    "header_line",
    "spending",
    "sheet",
    "currency",
    "amount_unit",
)


@dataclass(frozen=True)
class ExportSettings:
    """The reading keys for one file (None / "auto": decided per file, see core.tables)."""

    csv_preset: str | None = None
    column_map: dict[str, str] = field(default_factory=dict)
    date_format: str | None = None
    encoding: str | None = None
    delimiter: str = "auto"
    decimal: str = "auto"
    header_line: int | None = None
    spending: str | None = None
    sheet: str | None = None
    currency: str | None = None
    amount_unit: str = "major"

    def for_file(self, file: Path, exports: dict[str, dict] | None) -> ExportSettings:
        """These settings with the keys of the first ``exports`` entry whose pattern the
        file's name matches (keys it leaves out stay as they are)."""
        for pattern, keys in (exports or {}).items():
            if matches(file, pattern):
                return dataclasses.replace(self, **{k: v for k, v in keys.items() if v is not None})
        return self


def matches(file: Path | str, pattern: str) -> bool:
    """A glob on the file name ("Chase*_Activity_*.CSV"), or on the end of its path when the
    pattern has a "/" ("bank_a/*.csv"); case-insensitive, as banks vary ".CSV" and ".csv"."""
    return PurePosixPath(Path(file).as_posix().lower()).match(pattern.lower())
