"""Parsing legacy (Python 2.7) decks with `grammar/python2.lark`: the lark LALR(1) parser,
an Indenter post-lexer that reads tabs as Python 2 did (next multiple of 8 columns) and
tracks brackets, cheap guards against pathological input, and syntax errors in plain words.
Reference: LANGUAGE §18; Python 2.7 Language Reference §2.1.8 (indentation), §2.3 (tokens).
"""
from __future__ import annotations

import re
import threading
from importlib import resources
from pathlib import Path

from solfec_py.lang.legacy_errors import LegacySyntaxError

MAX_NESTING = 200   # brackets; Python 3 stops at 200 too ("too many nested parentheses")
MAX_INDENT = 100    # indentation levels; Python 2's tokenizer limit (MAXINDENT)
TAB_STOP = 8        # Python 2 expands a tab to the next multiple of 8 columns

PY2_KEYWORDS = frozenset(
    "and as assert break class continue def del elif else except exec finally for from "
    "global if import in is lambda not or pass print raise return try while with yield".split())

_OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
_BRACKET_WORD = {"(": "parenthesis", "[": "bracket", "{": "brace"}
_CLOSER = {"(": ")", "[": "]", "{": "}"}

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
    return Path(__file__).resolve().parents[2] / "grammar" / "python2.lark"  # source tree


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


def _position(source: str, pos: int) -> tuple[int, int]:
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
        OPEN_PAREN_types = list(_OPEN)
        CLOSE_PAREN_types = list(_CLOSE)
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
                    raise self._error("too many levels of indentation", token.end_pos and _after(token))
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
                if kind in _CLOSE:
                    if not self.brackets:
                        raise self._error(f"unmatched closing {_BRACKET_WORD[_CLOSE[kind]]} "
                                          f"'{token}'", token)
                    opener = self.brackets[-1]
                    if _OPEN[opener.type] != _CLOSE[kind]:
                        raise self._error(
                            f"closing '{token}' does not match the opening '{opener}' "
                            f"on line {opener.line}", token)
                yield token
                if kind in _OPEN:
                    if len(self.brackets) >= MAX_NESTING:
                        raise self._error("too many nested parentheses "
                                          f"(more than {MAX_NESTING} levels)", token)
                    self.brackets.append(token)
                elif kind in _CLOSE:
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


_LOCK = threading.RLock()
_PARSERS: dict[bool, object] = {}


def parser(print_function: bool = False):
    """The lark parser (built once per process per variant; ~0.3 s)."""
    with _LOCK:
        if print_function not in _PARSERS:
            from lark import Lark

            postlex = _indenter_class()()

            def keyword_as_name(token):
                if token in PY2_KEYWORDS and not (print_function and token == "print"):
                    raise LegacySyntaxError.at(_keyword_message(str(token)), postlex.filename,
                                               postlex.source, token.line, token.column)
                return token

            _PARSERS[print_function] = Lark(
                grammar_text(print_function), parser="lalr", lexer="contextual",
                postlex=postlex, keep_all_tokens=True, maybe_placeholders=False,
                lexer_callbacks={"NAME": keyword_as_name})
        return _PARSERS[print_function]


def _keyword_message(word: str) -> str:
    if word == "else":
        return "'else' does not follow an 'if', 'for', 'while' or 'try' block at this indentation"
    if word == "elif":
        return "'elif' does not follow an 'if' block at this indentation"
    if word in ("except", "finally"):
        return f"'{word}' does not follow a 'try' block at this indentation"
    if word in ("print", "exec"):
        return f"'{word}' is a statement in Python 2 and cannot be used inside an expression"
    return f"invalid syntax: '{word}' is a keyword and cannot be used here"


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
        line, col = _position(source, run.start())
        raise LegacySyntaxError.at(f"expression nested too deeply (a run of more than "
                                   f"{MAX_UNARY} unary operators)", filename, source, line, col)
    pos = first_too_deep(source)
    if pos is None:
        return
    if any(c in source for c in "'\"#"):
        pos = first_too_deep(_blank_strings(source))
    if pos is not None:
        line, col = _position(source, pos)
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

    codes = np.frombuffer(_blank_strings(source).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    step = (np.isin(codes, (40, 91, 123)).astype(np.int64)
            - np.isin(codes, (41, 93, 125)).astype(np.int64))
    depth = np.cumsum(step)
    tail_min = np.minimum.accumulate(depth[::-1])[::-1]   # min of depth[i:]
    for token in open_tokens:
        level = depth[token.start_pos]          # depth just after this opener
        if tail_min[token.start_pos] >= level:  # never drops below: never closed
            return token
    return None


def parse(source: str, filename: str, print_function: bool):
    """Parse tree and newline tokens of `source` (which ends with a newline)."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput

    with _LOCK:
        lark_parser = parser(print_function)
        post = lark_parser.options.postlex
        post.source, post.filename = source, filename
        try:
            tree = lark_parser.parse(source)
        except UnexpectedCharacters as err:
            raise _characters_error(err, source, filename) from None
        except UnexpectedInput as err:
            open_now = list(getattr(post, "brackets", []))
            raise _token_error(err, source, filename, open_now, print_function) from None
        return tree, list(post.newlines)


def _characters_error(err, source: str, filename: str) -> LegacySyntaxError:
    pos = err.pos_in_stream
    ch = source[pos] if pos < len(source) else ""
    if ch in "'\"" and (source[pos:pos + 3] == ch * 3 or source[max(0, pos - 2):pos + 1] == ch * 3):
        msg = "EOF while scanning triple-quoted string literal"
        if source[pos:pos + 3] != ch * 3:   # the lexer took the first two quotes as ''
            return LegacySyntaxError.at(msg, filename, source, err.line, err.column - 2)
    elif ch in "'\"":
        msg = "EOL while scanning string literal"
    elif ch == "\\":
        msg = "unexpected character after line continuation character"
    elif ch.isprintable() and ch.isascii():
        msg = f"invalid character '{ch}' in Python 2 source"
    else:
        msg = f"invalid character {ch!r} (U+{ord(ch):04X}) in Python 2 source" if ch else \
            "unexpected end of file"
    return LegacySyntaxError.at(msg, filename, source, err.line, err.column)


def _token_error(err, source, filename, open_now, print_function) -> LegacySyntaxError:
    token = getattr(err, "token", None)
    kind = getattr(token, "type", "$END")
    at_end = kind == "$END" or token is None
    if at_end:
        line, col = _position(source, len(source.rstrip("\n")))
    else:
        line, col = token.line, token.column
    opener = unclosed_bracket(source, open_now)
    if opener is not None:
        word = _BRACKET_WORD[_OPEN[opener.type]]
        msg = (f"missing closing {word}: the '{opener}' opened here is never closed "
               f"(expected '{_CLOSER[_OPEN[opener.type]]}')")
        return LegacySyntaxError.at(msg, filename, source, opener.line, opener.column)
    expected = _expected(err)
    if kind == "_INDENT":
        msg = "unexpected indent"
        line, col = _indent_position(source, line + 1)
    elif token is not None and str(token) in ("else", "elif", "except", "finally") \
            and kind != "NAME":
        msg = _keyword_message(str(token))
    elif kind == "NUMBER" and token.start_pos > 0 and source[token.start_pos - 1].isdigit():
        msg = "invalid number: a leading 0 makes an octal number (digits 0-7 only)"
        line, col = _position(source, token.start_pos - 1)
    elif "_INDENT" in expected:
        msg = "expected an indented block"
        line, col = _indent_position(source, line + (1 if kind == "_NEWLINE" else 0))
    else:
        msg = _catalogue_message(err, print_function, bool(open_now)) or "invalid syntax"
        if at_end:
            msg = "unexpected end of file: " + msg if msg == "invalid syntax" else msg
    return LegacySyntaxError.at(msg, filename, source, line, col)


def _expected(err) -> set:
    """Terminals the parser could take where it stopped (from the parse table when the
    contextual lexer raised the error, since its `expected` lists lexer terminals only)."""
    state = getattr(err, "state", None)
    if hasattr(state, "parse_conf"):
        return set(state.parse_conf.states[state.position])
    return set(getattr(err, "expected", ()) or ())


def _indent_position(source: str, line: int) -> tuple[int, int]:
    """First line from `line` on that holds code, and its first non-blank column."""
    lines = source.split("\n")
    n = max(1, line)
    while n <= len(lines) and (not lines[n - 1].strip() or lines[n - 1].lstrip().startswith("#")):
        n += 1
    n = min(n, len(lines))
    text = lines[n - 1]
    return n, len(text) - len(text.lstrip()) + 1


# ------------------------------------------------------------------ error catalogue
# Malformed Python 2 snippets and what is wrong with them.  On a parse error the parser
# state and the offending token are looked up among the states these snippets stop in
# (lark's `match_examples` idea, keyed here by (state, token type) so a label never spills
# over onto unrelated tokens).  Labels ending in '*' apply to any token in that state.
_CATALOGUE = {
    "missing ':' at the end of the statement header*": [
        "if x\n    pass\n", "if x == 1\n    pass\n", "if f(x)\n    pass\n",
        "while x\n    pass\n", "for x in y\n    pass\n", "for x in f(y)\n    pass\n",
        "def f()\n    pass\n", "def f(x)\n    pass\n", "class A\n    pass\n",
        "class A(B)\n    pass\n", "try\n    pass\n", "with a\n    pass\n",
        "with a as b\n    pass\n", "if x:\n    pass\nelse\n    pass\n",
        "if x:\n    pass\nelif y\n    pass\n", "try:\n    pass\nexcept\n    pass\n",
        "try:\n    pass\nexcept E\n    pass\n", "try:\n    pass\nexcept E, e\n    pass\n",
        "try:\n    pass\nfinally\n    pass\n", "lambda x x\n",
    ],
    "'=' is assignment; did you mean '=='?": [
        "if x = 1:\n    pass\n", "while x = 1:\n    pass\n", "if x.y = 1:\n    pass\n",
        "if x:\n    pass\nelif x = 1:\n    pass\n",
    ],
    "missing comma between items|": [
        "f(a b)\n", "f(1 2)\n", "f('a' b)\n", "[a b]\n", "[1 2]\n", "(a b)\n", "(1 2)\n",
        "{1: 2 3: 4}\n", "{a: b c: d}\n", "f(a.b c)\n", "f(a() b)\n", "f(a[1] b)\n",
        "f('a' 'b' c)\n", "[a() b]\n", "[a.b c]\n",
    ],
    "incomplete expression: an operand is missing after the operator": [
        "x = 1 +\n", "x = 1 *\n", "x = 1 -\n", "x = 1 /\n", "x = 1 %\n", "x = 1 **\n",
        "x = 1 <\n", "x = 1 ==\n", "x = a and\n", "x = a or\n", "x = not\n", "x = 1 |\n",
        "x = 1 &\n", "x = 1 ^\n", "x = 1 <<\n", "x = 1 //\n", "x =\n", "x +=\n",
    ],
    "keyword argument inside parentheses: is this a Python 3 print() call in a Python 2 deck?":
        ["print('a', end='')\n", "print('a', sep='')\n", "print(a, file=f)\n",
         "print(end='')\n"],
    "an attribute name must follow '.'*": ["x = a.\n", "x = a.1\n", "a.(b)\n"],
    "a 'try' block needs an 'except' or 'finally' clause*": ["try:\n    pass\nx = 1\n",
                                                             "try:\n    pass\n"],
}
_INDEX: dict | None = None


def _state(err):
    state = getattr(err, "state", None)
    return getattr(state, "position", state)


def _catalogue_index():
    """{(state, token type or None): label}, built on the first syntax error."""
    from lark.exceptions import UnexpectedInput

    global _INDEX
    if _INDEX is None:
        index = {}
        lark_parser = parser(False)
        post = lark_parser.options.postlex
        for label, snippets in _CATALOGUE.items():
            for snippet in snippets:
                post.source, post.filename = snippet, "<example>"
                try:
                    lark_parser.parse(snippet)
                except UnexpectedInput as err:
                    kind = getattr(getattr(err, "token", None), "type", "$END")
                    index.setdefault((_state(err), kind), label)
                    if label.endswith("*"):
                        index.setdefault((_state(err), None), label)
                except LegacySyntaxError:
                    pass
        _INDEX = index
    return _INDEX


def _catalogue_message(err, print_function: bool, in_brackets: bool) -> str | None:
    if print_function:
        return None   # the catalogue's parser states belong to the other grammar variant
    with _LOCK:
        saved = parser(False).options.postlex.source, parser(False).options.postlex.filename
        try:
            index = _catalogue_index()
        finally:
            parser(False).options.postlex.source, parser(False).options.postlex.filename = saved
    kind = getattr(getattr(err, "token", None), "type", "$END")
    label = index.get((_state(err), kind)) or index.get((_state(err), None))
    if label is None:
        return None
    if label.endswith("|"):   # only meaningful inside brackets
        return label[:-1] if in_brackets else None
    return label.rstrip("*")
