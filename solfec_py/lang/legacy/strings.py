"""Python 2 number and string literals as Python 3 literals with the same value, and
identifiers that became Python 3 keywords (`async` -> `async_`).
Reference: Python 2.7 Language Reference §2.4.1 (string literals), §2.4.4 (integers).

* `0777` -> `0o777`; the long suffix goes (`12L` -> `12`, `0x1fL` -> `0x1f`).
* Plain (byte) strings keep `\\u`, `\\U` and `\\N` as two characters, as Python 2 did.
* `b''` is Python 2's plain string, so it becomes a plain string; `br''` becomes `r''`.
* `ur''` is raw except for `\\u` + 4 hex digits / `\\U` + 8 hex digits after an odd number of backslashes;
  it is re-spelled as a plain literal holding that value, with its newlines kept.
"""
from __future__ import annotations

import re

_OCTAL = re.compile(r"0[0-7]+\Z")
_PREFIX = re.compile(r"[uUbBrR]*")
_PY2_BYTES_ESCAPE = re.compile(r"\\(.)", re.S)
_UR_ESCAPE = re.compile(r"(\\+)(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})?")
PY3_ONLY_KEYWORDS = frozenset(("nonlocal", "async", "await"))


def rename(name: str) -> str:
    """A Python 2 identifier as a Python 3 identifier (`async` -> `async_`)."""
    return name + "_" if name in PY3_ONLY_KEYWORDS else name


def number_literal(text: str) -> str | None:
    """Python 3 spelling of a Python 2 number, or None when it is already valid."""
    new = text[:-1] if text[-1] in "lL" else text
    if _OCTAL.match(new):
        new = "0o" + new[1:]
    return None if new == text else new


def string_literal(text: str) -> str | None:
    """Python 3 spelling of a Python 2 string literal, or None when it is already right."""
    prefix = _PREFIX.match(text).group()
    rest = text[len(prefix):]
    quote = rest[:3] if rest[:3] in ("'''", '"""') else rest[0]
    body = rest[len(quote):-len(quote)]
    kind = prefix.lower()
    if kind in ("", "b"):
        new_body = _PY2_BYTES_ESCAPE.sub(_keep_unicode_escapes, body)
        if kind == "" and new_body == body:
            return None
        return quote + new_body + quote
    if kind == "br":
        return prefix[1:] + rest
    if kind in ("ur", "ru"):
        return _plain_literal(_ur_value(body), quote)
    return None   # u'' and r'' mean the same in Python 3


def _keep_unicode_escapes(m: re.Match) -> str:
    return "\\\\" + m.group(1) if m.group(1) in "uUN" else m.group(0)


def _ur_value(body: str) -> str:
    def escape(m: re.Match) -> str:
        slashes, code = m.group(1), m.group(2)
        if code and len(slashes) % 2 == 1:
            try:
                return slashes[:-1] + chr(int(code[1:], 16))
            except (ValueError, OverflowError):
                return m.group(0)
        return m.group(0)

    return _UR_ESCAPE.sub(escape, body)


def _plain_literal(value: str, quote: str) -> str:
    """A non-raw literal for `value`, one physical newline per newline of the source."""
    triple = len(quote) == 3
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote[0]:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\n" if triple else "\\n\\\n")
        elif ch == "\r":
            out.append("\\r")
        else:
            out.append(ch)
    return quote + "".join(out) + quote
