"""OpenDocument spreadsheets (.ods: LibreOffice's, and some banks' "Calc" download): a zip
holding ``content.xml``, whose ``<table:table>``s are the sheets. Cells keep their types as in
an .xlsx: a ``date`` value is a date, ``float``, ``currency`` and ``percentage`` a number (a
whole one an int), ``boolean`` a bool, the rest their text (paragraphs joined by a space). A
run of repeated rows or cells (``number-rows-repeated``, how ODS writes blanks) is read as
that many, up to 1,024 (a sheet may repeat an empty row to its millionth as filler). A merged
cell reads as its value in the first cell with blanks beside it (its covered cells), and in
every row it covers where it spans rows down (``number-rows-spanned``)."""

from __future__ import annotations

import datetime as dt
import itertools
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any  # (lxml's element class is private)

from ml_assets.core.intake.sheet_values import filled_down, sheet_number, sheets_by_name

_MIMETYPE = b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_REPEAT_CAP = 1024  # rows or cells repeated more than this are a sheet's filler


def looks_like_ods(head: bytes) -> bool:
    """A zip whose first entry is the OpenDocument spreadsheet's mimetype (stored first and
    uncompressed, as the standard requires)."""
    return head.startswith(b"PK\x03\x04") and _MIMETYPE in head[:128]


def _text(cell: Any) -> str:
    paragraphs = ["".join(p.itertext()) for p in cell.iter(f"{_TEXT}p")]
    return " ".join(p for p in paragraphs if p)


def _value(cell: Any) -> object:
    kind = cell.get(f"{_OFFICE}value-type")
    if kind in ("float", "currency", "percentage"):
        return sheet_number(cell.get(f"{_OFFICE}value", ""))
    if kind == "date":
        written = cell.get(f"{_OFFICE}date-value", "")
        try:
            return dt.datetime.fromisoformat(written)
        except ValueError:
            return _text(cell) or written
    if kind == "boolean":
        return cell.get(f"{_OFFICE}boolean-value") == "true"
    text = _text(cell)
    return text or None


class OdsBook:
    """An .ods workbook as the spreadsheet reader takes a book (as ``LegacyBook``). Raises
    ValueError where the file is no readable OpenDocument spreadsheet."""

    def __init__(self, path: Path):
        from lxml import etree  # (imported where a workbook is read, not with the graph)

        # no entities, no network: the file is the user's download, not trusted markup
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
        try:
            with zipfile.ZipFile(path) as archive, archive.open("content.xml") as content:
                root = etree.parse(content, parser).getroot()
        except (zipfile.BadZipFile, KeyError, OSError, etree.XMLSyntaxError) as err:
            raise ValueError(f"not an OpenDocument spreadsheet that reads: {err}") from err
        self._sheets = sheets_by_name(
            root.iter(f"{_TABLE}table"), f"{_TABLE}name", "an OpenDocument spreadsheet"
        )
        self.sheetnames = list(self._sheets)

    def _cells(self, row: Any) -> list[tuple[object, str, int]]:
        """A row's (value, currency, rows merged down below it) by column."""
        cells: list[tuple[object, str, int]] = []
        for cell in row:
            if cell.tag not in (f"{_TABLE}table-cell", f"{_TABLE}covered-table-cell"):
                continue
            value = None if cell.tag.endswith("covered-table-cell") else _value(cell)
            below = int(cell.get(f"{_TABLE}number-rows-spanned", 1)) - 1
            times = min(int(cell.get(f"{_TABLE}number-columns-repeated", 1)), _REPEAT_CAP)
            cells.extend([(value, cell.get(f"{_OFFICE}currency", ""), below)] * times)
        while cells and cells[-1][0] is None:
            cells.pop()
        return cells

    def _rows(self, name: str) -> Iterator[list[tuple[object, str, int]]]:
        # (rows may sit in <table:table-header-rows> or <table:table-row-group>)
        for row in self._sheets[name].iter(f"{_TABLE}table-row"):
            cells = self._cells(row)
            times = int(row.get(f"{_TABLE}number-rows-repeated", 1))
            for _ in range(min(times, _REPEAT_CAP)):
                yield cells

    def values(self, name: str) -> Iterator[tuple]:
        yield from filled_down(
            (tuple(c[0] for c in cells), {i: c[2] for i, c in enumerate(cells) if c[2]})
            for cells in self._rows(name)
        )

    def number_formats(self, name: str, columns: list[int], below: int, limit: int) -> list[str]:
        """The currency each number cell is written in (``office:currency``, "EUR"), where
        a sheet's bare figures say theirs."""
        found = []
        for cells in itertools.islice(self._rows(name), below, below + limit):
            for column in columns:
                if column < len(cells) and isinstance(cells[column][0], int | float):
                    found.append(cells[column][1])
        return found

    def close(self) -> None:
        pass
