"""The syntax error of the legacy (Python 2) deck front end, with the offending source line
and a caret under the offending token.  Reference: docs/legacy.md (Python-2-only constructs in
Solfec-1.0 decks); the message style follows Python's own SyntaxError.
"""
from __future__ import annotations

from solfec_py.errors import SolfecError


class LegacySyntaxError(SolfecError, SyntaxError):
    """A deck that is not valid Python 2 (or Python 3, when that dialect was asked for).

    Attributes are those of SyntaxError: ``filename``, ``lineno`` (1-based), ``offset``
    (1-based column of the offending token), ``text`` (the source line) and ``msg``.
    ``str(error)`` is the message followed by the source line and a caret line; the deck
    runner prefixes it with ``path:line:column``.
    """

    def __init__(self, msg: str, filename: str = "<deck>", lineno: int | None = None,
                 offset: int | None = None, text: str | None = None):
        SyntaxError.__init__(self, msg, (filename, lineno, offset, text))

    @classmethod
    def at(cls, msg: str, filename: str, source: str, lineno: int | None,
           offset: int | None) -> "LegacySyntaxError":
        """Error at (lineno, offset) of `source`; fills `text` with that source line."""
        text = None
        if lineno is not None and lineno >= 1:
            lines = source.split("\n")
            if lineno <= len(lines):
                text = lines[lineno - 1]
        return cls(msg, filename, lineno, offset, text)

    @classmethod
    def from_syntax_error(cls, err: SyntaxError, filename: str, source: str,
                          prefix: str = "") -> "LegacySyntaxError":
        """Wrap Python 3's SyntaxError (message, line, column) in our error type."""
        msg = prefix + (err.msg or "invalid syntax")
        return cls.at(msg, filename, source, err.lineno, err.offset)

    def caret_lines(self) -> str:
        """The source line and a caret under column `offset` (tabs kept so they line up)."""
        if not self.text:
            return ""
        line = self.text.rstrip("\r\n")
        col = max(1, min(self.offset or 1, len(line) + 1))
        pad = "".join("\t" if ch == "\t" else " " for ch in line[: col - 1])
        return f"\n    {line}\n    {pad}^"

    def __str__(self) -> str:
        return f"{self.msg}{self.caret_lines()}"

    def describe(self) -> str:
        """`file, line L, column C: message` and the caret lines (for standalone use)."""
        where = self.filename or "<deck>"
        if self.lineno:
            where += f", line {self.lineno}"
            if self.offset:
                where += f", column {self.offset}"
        return f"{where}: {self}"
