"""Parsing legacy (Python 2.7) decks with `grammar/python2.lark`: the lark LALR(1) parser,
an Indenter post-lexer that reads tabs as Python 2 did (next multiple of 8 columns) and
tracks brackets, and cheap guards against pathological input. The parse itself, with its
errors in plain words (`messages.py`), is `dialect._parse`.
Reference: docs/legacy.md; Python 2.7 Language Reference §2.1.8 (indentation), §2.3 (tokens).
"""
from __future__ import annotations

import re
import threading
from importlib import resources
from pathlib import Path

from solfec_py.lang.legacy.errors import LegacySyntaxError

MAX_NESTING = 200   # brackets; Python 3 stops at 200 too ("too many nested parentheses")
MAX_INDENT = 100    # indentation levels; Python 2's tokenizer limit (MAXINDENT)
TAB_STOP = 8        # Python 2 expands a tab to the next multiple of 8 columns

PY2_KEYWORDS = frozenset(
    "and as assert break class continue def del elif else except exec finally for from "
    "global if import in is lambda not or pass print raise return try while with yield".split())

OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
BRACKET_WORD = {"(": "parenthesis", "[": "bracket", "{": "brace"}
CLOSER = {"(": ")", "[": "]", "{": "}"}

# the same string syntax as the grammar's STRING terminal, plus comments: used to blank
# them out before counting brackets
_STRING_OR_COMMENT = re.compile(
    r"""(?:[uUbB][rR]?|[rR])?(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\""""
    r"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|\#[^\n]*""", re.S)
MAX_UNARY = 500    # unary operators in a row; Python 2's 1500-entry parser stack took few more
_UNARY_RUN = re.compile(r"(?:[-+~][ \t]*){%d}" % (MAX_UNARY + 1))
_PRINT_FUNCTION = re.compile(
    r"^[ \t]*from[ \t]+__future__[ \t]+import[ \t]*(?:\([^)]*|[^\n;#]*)\bprint_function\b", re.M)


def grammar_text(print_function: bool = False) -> str:
    """The grammar, without the print statement when `print_function` is in force."""
    text = _grammar_path().read_text(encoding="utf-8")
    if print_function:
        text = re.sub(r"// <print-statement>.*?// </print-statement>\n", "", text, flags=re.S)
    return text


def _grammar_path() -> Path:
    packaged = resources.files("solfec_py") / "grammar" / "python2.lark"
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[3] / "grammar" / "python2.lark"  # source tree


def keyword_message(word: str) -> str:
    if word == "else":
        return "'else' does not follow an 'if', 'for', 'while' or 'try' block at this indentation"
    if word == "elif":
        return "'elif' does not follow an 'if' block at this indentation"
    if word in ("except", "finally"):
        return f"'{word}' does not follow a 'try' block at this indentation"
    if word in ("print", "exec"):
        return f"'{word}' is a statement in Python 2 and cannot be used inside an expression"
    return f"invalid syntax: '{word}' is a keyword and cannot be used here"


def column_of(indent: str) -> int:
    """Indentation column of a run of spaces, tabs and form feeds, read as Python 2 did."""
    col = 0
    for ch in indent:
        if ch == "\t":
            col = (col // TAB_STOP + 1) * TAB_STOP
        elif ch == "\f":
            col = 0
        else:
            col += 1
    return col


def position(source: str, pos: int) -> tuple[int, int]:
    """(line, column), both 1-based, of character index `pos`."""
    line = source.count("\n", 0, pos) + 1
    return line, pos - (source.rfind("\n", 0, pos) + 1) + 1


def _indenter_class():
    from lark.indenter import Indenter

    class Py2Indenter(Indenter):
        """lark's Indenter with Python 2 tab stops, bracket matching and depth limits.

        Besides INDENT/DEDENT it records every newline token (`newlines`, for the
        translator's tab expansion) and the stack of open brackets (`brackets`), which
        stays as it was when the parser stopped, for the error message.
        """
        NL_type = "_NEWLINE"
        OPEN_PAREN_types = list(OPEN)
        CLOSE_PAREN_types = list(CLOSE)
        INDENT_type = "_INDENT"
        DEDENT_type = "_DEDENT"
        tab_len = TAB_STOP
        source = ""
        filename = "<deck>"

        def process(self, stream):
            self.paren_level = 0
            self.indent_level = [0]
            self.brackets = []
            self.newlines = []
            return self._process(stream)

        def _error(self, msg, token):
            return LegacySyntaxError.at(msg, self.filename, self.source, token.line, token.column)

        def handle_NL(self, token):
            self.newlines.append(token)
            if self.brackets:
                return
            yield token
            indent = column_of(token.rsplit("\n", 1)[1])
            if indent > self.indent_level[-1]:
                if len(self.indent_level) > MAX_INDENT:
                    raise self._error("too many levels of indentation", _after(token))
                self.indent_level.append(indent)
                yield type(token).new_borrow_pos(self.INDENT_type, "", token)
                return
            while indent < self.indent_level[-1]:
                self.indent_level.pop()
                yield type(token).new_borrow_pos(self.DEDENT_type, "", token)
            if indent != self.indent_level[-1]:
                raise self._error("unindent does not match any outer indentation level",
                                  _after(token))

        def _process(self, stream):
            token = None
            for token in stream:
                if token.type == self.NL_type:
                    yield from self.handle_NL(token)
                    continue
                kind = token.type
                if kind in CLOSE:
                    if not self.brackets:
                        raise self._error(f"unmatched closing {BRACKET_WORD[CLOSE[kind]]} "
                                          f"'{token}'", token)
                    opener = self.brackets[-1]
                    if OPEN[opener.type] != CLOSE[kind]:
                        raise self._error(
                            f"closing '{token}' does not match the opening '{opener}' "
                            f"on line {opener.line}", token)
                yield token
                if kind in OPEN:
                    if len(self.brackets) >= MAX_NESTING:
                        raise self._error("too many nested parentheses "
                                          f"(more than {MAX_NESTING} levels)", token)
                    self.brackets.append(token)
                elif kind in CLOSE:
                    self.brackets.pop()
            while len(self.indent_level) > 1:
                self.indent_level.pop()
                yield type(token).new_borrow_pos(self.DEDENT_type, "", token)

    return Py2Indenter


class _After:
    """Where the indentation that follows a newline token ends (for indentation errors)."""

    def __init__(self, token):
        text = str(token)
        self.line = token.line + text.count("\n")
        self.column = len(text.rsplit("\n", 1)[1]) + 1


def _after(token):
    return _After(token)


LOCK = threading.RLock()
_PARSERS: dict[bool, object] = {}


def parser(print_function: bool = False):
    """The lark parser (built once per process per variant; ~0.3 s)."""
    with LOCK:
        if print_function not in _PARSERS:
            from lark import Lark

            postlex = _indenter_class()()

            def keyword_as_name(token):
                if token in PY2_KEYWORDS and not (print_function and token == "print"):
                    raise LegacySyntaxError.at(keyword_message(str(token)), postlex.filename,
                                               postlex.source, token.line, token.column)
                return token

            _PARSERS[print_function] = Lark(
                grammar_text(print_function), parser="lalr", lexer="contextual",
                postlex=postlex, keep_all_tokens=True, maybe_placeholders=False,
                lexer_callbacks={"NAME": keyword_as_name})
        return _PARSERS[print_function]


def uses_print_function(source: str) -> bool:
    """Whether a `from __future__ import print_function` line appears (checked on the tree)."""
    return _PRINT_FUNCTION.search(source) is not None


def check_nesting(source: str, filename: str) -> None:
    """Reject more than MAX_NESTING open brackets, or more than MAX_UNARY unary operators
    in a row, quickly (numpy, one regex) before any parsing.

    Brackets inside strings and comments do not count; they are blanked out only when the
    raw count already exceeds the limit, so ordinary decks pay one vectorised pass.
    """
    import numpy as np

    def first_too_deep(text: str) -> int | None:
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        step = (np.isin(codes, (40, 91, 123)).astype(np.int32)
                - np.isin(codes, (41, 93, 125)).astype(np.int32))
        depth = np.cumsum(step)
        deep = np.flatnonzero(depth > MAX_NESTING)
        return int(deep[0]) if deep.size else None

    run = _UNARY_RUN.search(source)
    if run is not None:   # a banner comment of dashes is no expression: look again without
        run = _UNARY_RUN.search(_blank_strings(source))
    if run is not None:
        line, col = position(source, run.start())
        raise LegacySyntaxError.at(f"expression nested too deeply (a run of more than "
                                   f"{MAX_UNARY} unary operators)", filename, source, line, col)
    pos = first_too_deep(source)
    if pos is None:
        return
    if any(c in source for c in "'\"#"):
        pos = first_too_deep(_blank_strings(source))
    if pos is not None:
        line, col = position(source, pos)
        raise LegacySyntaxError.at(f"too many nested parentheses (more than {MAX_NESTING} levels)",
                                   filename, source, line, col)


def _blank_strings(source: str) -> str:
    """`source` with strings and comments turned into spaces (newlines kept)."""
    return _STRING_OR_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)


def unclosed_bracket(source: str, open_tokens) -> object | None:
    """The outermost of `open_tokens` that no later bracket in `source` ever closes."""
    if not open_tokens:
        return None
    import numpy as np

    blank = _blank_strings(source)
    codes = np.frombuffer(blank.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    step = (np.isin(codes, (40, 91, 123)).astype(np.int64)
            - np.isin(codes, (41, 93, 125)).astype(np.int64))
    depth = np.cumsum(step)
    tail_min = np.minimum.accumulate(depth[::-1])[::-1]   # min of depth[i:]
    for token in open_tokens:
        level = depth[token.start_pos]          # depth just after this opener
        if tail_min[token.start_pos] >= level:  # never drops below: never closed
            return token
    return None
