"""Text edits on a legacy deck's source: insertions at node boundaries and replacements of
token spans, applied in one pass so every line of the deck keeps its number (the deck
runner's `deck.py:LINE` messages and tracebacks then point at the original lines).
Reference: docs/legacy.md (line preservation).
"""
from __future__ import annotations

import re

from lark import Token

_INLINE_WS = re.compile(r"[ \t\f]*")


def first_token(node) -> Token:
    """Leftmost token of a node (trees are built without position metadata: faster)."""
    while not isinstance(node, Token):
        node = node.children[0]
    return node


def last_token(node) -> Token:
    while not isinstance(node, Token):
        node = node.children[-1]
    return node


def start(node) -> int:
    return first_token(node).start_pos


def end(node) -> int:
    return last_token(node).end_pos


class Edits:
    """Insertions and replacements on `source`, applied by `apply`.

    Ordering at one position: closing texts of inner nodes, closing texts of outer nodes,
    opening texts of outer nodes, opening texts of inner nodes, then a replacement that
    starts there.  So `_p2_div(` of `a / b` wraps an `_p2_attr(` that starts at `a`, and the
    `)` of an inner call lands before the `)` of the outer one.
    """

    def __init__(self, source: str):
        self.source = source
        self.items: list[tuple[tuple, int, str]] = []   # (sort key, end, text)

    def open(self, pos: int, depth: int, text: str) -> None:
        self.items.append(((pos, 1, depth, len(self.items)), pos, text))

    def close(self, pos: int, depth: int, text: str) -> None:
        self.items.append(((pos, 0, -depth, len(self.items)), pos, text))

    def replace(self, lo: int, hi: int, text: str) -> None:
        """Replace source[lo:hi]; a newline inside it is kept as a backslash-newline."""
        newlines = self.source.count("\n", lo, hi)
        if newlines:
            text += "\\\n" * newlines
        self.items.append(((lo, 2, 0, len(self.items)), hi, text))

    def replace_token_ws(self, token: Token, text: str, until: int | None = None) -> None:
        """Replace `token` and the blanks after it on the same line (up to `until`)."""
        hi = token.end_pos
        stop = _INLINE_WS.match(self.source, hi).end()
        if until is not None and stop == until:
            hi = until
        elif until is None:
            hi = stop
        self.replace(token.start_pos, hi, text)

    def extend(self, other: "Edits") -> None:
        for key, hi, text in other.items:
            self.items.append(((*key[:3], len(self.items)), hi, text))

    def apply(self, lo: int = 0, hi: int | None = None) -> str:
        """The edited text of source[lo:hi] (all edits must lie inside that range)."""
        src = self.source
        hi = len(src) if hi is None else hi
        out: list[str] = []
        cur = lo
        for key, stop, text in sorted(self.items, key=lambda item: item[0]):
            pos = key[0]
            if pos < cur:
                raise RuntimeError(f"overlapping legacy translation edits at offset {pos}")
            out.append(src[cur:pos])
            out.append(text)
            cur = stop if key[1] == 2 else pos
        out.append(src[cur:hi])
        return "".join(out)
