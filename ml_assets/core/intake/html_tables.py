"""A web page saved as a spreadsheet: many banks' "Excel" download (.xls, sometimes .xlsx) is
an HTML page holding the statement as a ``<table>``, which Excel opens as a sheet. Each table
of the page is read as a sheet named ``table N`` (in the order the tables open, nested ones
too) whose rows are its ``<tr>`` and cells its ``<td>``/``<th>`` text, whitespace collapsed
(``&nbsp;`` and ``<br>`` included) and character references decoded; a cell spanning columns
reads as its text in the first with blanks beside it, as a merged spreadsheet cell. Cells are
text: dates and amounts are read as in a CSV. The page's encoding is its byte-order mark, else
the charset its ``<meta>`` declares, else what the bytes read as (``text_encoding``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

from ml_assets.core.intake.records import open_binary
from ml_assets.core.intake.text_encoding import detect_encoding
from ml_assets.core.intake.xml_sheets import looks_like_spreadsheet_xml

# how a page begins (after a byte-order mark and blanks), lower-cased
_HTML_STARTS = (b"<!doctype html", b"<html", b"<table", b"<meta", b"<head")
_CHARSET = re.compile(rb"<meta[^>]*charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_MAX_SPAN = 64  # a colspan beyond this is a layout cell's, not a merged column header


def looks_like_html(head: bytes) -> bool:
    """Whether a file's first bytes are a web page's: its usual start, or markup (an XML
    declaration, a comment) before an ``<html>`` or ``<table>`` tag."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # (Excel's "web page" can be UTF-16)
        head = head.decode("utf-16", errors="ignore").encode()
    if looks_like_spreadsheet_xml(head):  # (its rows are <Row>s of a <Table> too)
        return False
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    if start.startswith(_HTML_STARTS):
        return True
    return start.startswith((b"<?xml", b"<!--")) and (b"<html" in start or b"<table" in start)


def _page_text(data: bytes) -> str:
    """The page's text: by its byte-order mark; UTF-8 where every byte reads as UTF-8 (a page
    re-saved as UTF-8 keeps the ``iso-8859-1`` its <meta> declared, and Latin-1 text is
    almost never valid UTF-8); else the charset it declares; else what the bytes read as."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return data.decode(detect_encoding(data[:4])[0], errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    declared = _CHARSET.search(data[:4096])
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii"), errors="replace")
        except LookupError:  # a charset Python does not know: read by the bytes instead
            pass
    return data.decode(detect_encoding(data[: 1 << 16])[0], errors="replace")


class _Tables(HTMLParser):
    """The rows of each table of a page, in the order the tables open."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._open: list[list[list[str]]] = []  # the tables being read, innermost last
        self._cell: list[str] | None = None
        self._span = 1
        self._skip = 0  # inside <script> or <style>

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "table":
            self._close_cell()
            table: list[list[str]] = []
            self.tables.append(table)
            self._open.append(table)
        elif not self._open:
            return
        elif tag == "tr":
            self._close_cell()
            self._open[-1].append([])
        elif tag in ("td", "th"):
            self._close_cell()
            if not self._open[-1]:  # a cell before any <tr>
                self._open[-1].append([])
            self._cell = []
            span = dict(attrs).get("colspan") or "1"
            self._span = min(int(span), _MAX_SPAN) if span.strip().isdigit() else 1
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag in ("td", "th", "tr"):
            self._close_cell()
        elif tag == "table" and self._open:
            self._close_cell()
            self._open.pop()

    def handle_data(self, data):
        if self._cell is not None and not self._skip:
            self._cell.append(data)

    def _close_cell(self):
        if self._cell is None:
            return
        text = " ".join("".join(self._cell).split())
        self._open[-1][-1].extend([text] + [""] * (max(self._span, 1) - 1))
        self._cell = None


class HtmlBook:
    """An HTML page's tables as the spreadsheet reader takes a book: a sheet per table."""

    def __init__(self, path: Path):
        with open_binary(path) as handle:
            data = handle.read()
        parser = _Tables()
        parser.feed(_page_text(data))
        parser.close()
        self._tables = {f"table {i}": rows for i, rows in enumerate(parser.tables, 1) if rows}
        if not self._tables:
            raise ValueError("an HTML page with no table in it")
        self.sheetnames = list(self._tables)

    def values(self, name: str) -> Iterator[tuple]:
        for row in self._tables[name]:
            yield tuple(cell or None for cell in row)

    def number_formats(self, name: str, columns: list[int], below: int, limit: int) -> list[str]:
        return []  # text cells: a currency is written beside the figure, where there is one

    def close(self) -> None:
        pass
