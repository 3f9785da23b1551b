"""Python source parsed to an AST, with CPython 3.11's spurious error retried.

CPython 3.11 keeps the AST constructor's recursion counter in interpreter-wide state: when
another thread parses at the same moment (``traceback`` parses a line to place its carets, a
logging thread formats an exception), ``ast.parse`` can raise ``SystemError: AST constructor
recursion depth mismatch`` for source it parses fine a moment later (cpython gh-106905; fixed in
3.12). The code versions parse every first-party module at load, beside the code server's
threads."""

from __future__ import annotations

import ast

# code versions leave this module out: parses source for them; it is part of no asset
AFFECTS_OUTPUTS = False

_TRIES = 5


def parse_python(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(text)``, parsed again where CPython 3.11 reports a recursion-depth mismatch
    (another thread's parse disturbed the count; the source itself parses)."""
    for attempt in range(_TRIES):
        try:
            return ast.parse(text, filename=filename)
        except SystemError as err:
            if "recursion depth mismatch" not in str(err) or attempt == _TRIES - 1:
                raise
    raise AssertionError("unreachable")
