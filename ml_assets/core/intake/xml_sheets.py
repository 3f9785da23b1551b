"""Excel's XML Spreadsheet 2003 (SpreadsheetML): one XML document of ``<Worksheet>``s, what
some banks' "Excel" download is (T-Bank's, written with Apache POI), usually named .xls.
Cells keep their types as in an .xlsx: ``DateTime`` data is a date, ``Number`` a number (a
whole one an int), ``Boolean`` a bool, text and errors their text. ``ss:Index`` on a row or a
cell skips rows or columns; ``ss:MergeAcross`` leaves blanks beside a merged cell's value;
``ss:MergeDown`` reads the value in every row the cell covers."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any  # (lxml's element class is private)

from ml_assets.core.intake.records import file_head, open_binary
from ml_assets.core.intake.sheet_values import filled_down, sheet_number, sheets_by_name

_NS = "urn:schemas-microsoft-com:office:spreadsheet"
_SS = f"{{{_NS}}}"
_SIGN = re.compile(rb"^(\xef\xbb\xbf)?\s*<\?xml[^>]*\?>.*?(urn:schemas-microsoft-com:office:"
                   rb"spreadsheet|progid=\"Excel\.Sheet\")", re.DOTALL)  # fmt: skip


def looks_like_spreadsheet_xml(head: bytes) -> bool:
    """Whether a file's first bytes are an XML document in the SpreadsheetML namespace."""
    return _SIGN.match(head) is not None


def is_spreadsheet_xml(path: Path) -> bool:
    return looks_like_spreadsheet_xml(file_head(path))


def _value(data: Any | None) -> object:
    if data is None:
        return None
    text = "".join(data.itertext())  # (formatted text holds HTML tags: <B>, <Font>)
    kind = data.get(f"{_SS}Type", "String")
    if kind == "Number":
        return sheet_number(text.strip())
    if kind == "DateTime":
        try:
            return dt.datetime.fromisoformat(text.strip())
        except ValueError:
            return text
    if kind == "Boolean":
        return text.strip() == "1"
    return text


class XmlBook:
    """A SpreadsheetML workbook as the spreadsheet reader takes a book (as ``LegacyBook``).
    Raises ValueError where the XML does not parse."""

    def __init__(self, path: Path):
        from lxml import etree  # (imported where a workbook is read, not with the graph)

        # no entities, no network: the file is the user's download, not trusted markup
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        try:
            with open_binary(path) as handle:
                root = etree.parse(handle, parser).getroot()
        except etree.XMLSyntaxError as err:
            raise ValueError(f"XML Spreadsheet 2003 that does not parse: {err}") from err
        self._formats = {
            style.get(f"{_SS}ID"): number.get(f"{_SS}Format", "")
            for style in root.iter(f"{_SS}Style")
            if (number := style.find(f"{_SS}NumberFormat")) is not None
        }
        self._sheets = sheets_by_name(
            root.iter(f"{_SS}Worksheet"), f"{_SS}Name", "an XML Spreadsheet 2003"
        )
        self.sheetnames = list(self._sheets)

    def _rows(self, name: str) -> Iterator[list[Any | None]]:
        """Each row's cells by column, numbered as Excel numbers them (empty rows as [])."""
        table = self._sheets[name].find(f"{_SS}Table")
        number = 0
        for row in [] if table is None else table.iter(f"{_SS}Row"):
            index = int(row.get(f"{_SS}Index", number + 1))
            while number + 1 < index:  # rows skipped by ss:Index are empty
                number += 1
                yield []
            number = index
            cells: list[Any | None] = []
            for cell in row.iter(f"{_SS}Cell"):
                column = int(cell.get(f"{_SS}Index", len(cells) + 1))
                cells.extend([None] * (column - 1 - len(cells)))
                cells.append(cell)
                cells.extend([None] * int(cell.get(f"{_SS}MergeAcross", 0)))
            yield cells

    def values(self, name: str) -> Iterator[tuple]:
        yield from filled_down(
            (
                tuple(None if c is None else _value(c.find(f"{_SS}Data")) for c in cells),
                {i: int(c.get(f"{_SS}MergeDown", 0)) for i, c in enumerate(cells) if c is not None},
            )
            for cells in self._rows(name)
        )

    def number_formats(self, name: str, columns: list[int], below: int, limit: int) -> list[str]:
        found = []
        for cells in itertools.islice(self._rows(name), below, below + limit):
            for column in columns:
                cell = cells[column] if column < len(cells) else None
                data = None if cell is None else cell.find(f"{_SS}Data")
                if data is not None and data.get(f"{_SS}Type") == "Number":
                    found.append(self._formats.get(cell.get(f"{_SS}StyleID"), ""))
        return found

    def close(self) -> None:
        pass
