"""The merged ranges of an .xlsx sheet, read from the workbook's own parts (its OOXML zip):
openpyxl's read-only mode, which streams a sheet's rows, leaves them out. The sheet's part is
found as Excel names it: the workbook lists each sheet's name and relationship id, and the
workbook's relationships give the id's part."""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterator

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_PACKAGE_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def xlsx_merges(data: bytes, sheet: str) -> Iterator[tuple[int, int, int]]:
    """The sheet's merged ranges as (first row, last row, first column), 0-based; none where
    the workbook's parts do not name the sheet."""
    from lxml import etree
    from openpyxl.utils.cell import range_boundaries

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        part = _sheet_part(archive, sheet)
        if part is None or part not in archive.namelist():
            return
        with archive.open(part) as xml:
            tag = f"{_MAIN}mergeCell"
            for _, element in etree.iterparse(xml, tag=tag, resolve_entities=False):
                first_column, first_row, _, last_row = range_boundaries(element.get("ref"))
                yield first_row - 1, last_row - 1, first_column - 1


def _sheet_part(archive: zipfile.ZipFile, sheet: str) -> str | None:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False)
    workbook = etree.fromstring(archive.read("xl/workbook.xml"), parser)
    ids = {
        element.get("name"): element.get(_RELATIONSHIP)
        for element in workbook.iter(f"{_MAIN}sheet")
    }
    if sheet not in ids:
        return None
    rels = etree.fromstring(archive.read("xl/_rels/workbook.xml.rels"), parser)
    for rel in rels.iter(f"{_PACKAGE_RELATIONSHIP}Relationship"):
        if rel.get("Id") == ids[sheet]:
            target = rel.get("Target")
            # (relative to xl/, or absolute from the package's root)
            return target.lstrip("/") if target.startswith("/") else posixpath.join("xl", target)
    return None
