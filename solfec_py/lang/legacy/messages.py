"""Syntax errors of legacy (Python 2) decks in plain words: what the lark parser's
exception means ("missing closing parenthesis", "missing ':'", "expected an indented
block", ...), where to put the caret, and a catalogue of malformed snippets keyed by the
parser state they stop in (lark's `match_examples` idea).  Reference: docs/legacy.md; Python 2's
own messages where it had one ("EOL while scanning string literal", ...).
"""
from __future__ import annotations

from solfec_py.lang.legacy.errors import LegacySyntaxError
from solfec_py.lang.legacy.parse import (BRACKET_WORD, CLOSER, LOCK, OPEN, keyword_message,
                                         parser, position, unclosed_bracket)


def characters_error(err, source: str, filename: str) -> LegacySyntaxError:
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


def token_error(err, source, filename, open_now, print_function) -> LegacySyntaxError:
    token = getattr(err, "token", None)
    kind = getattr(token, "type", "$END")
    at_end = kind == "$END" or token is None
    if at_end:
        line, col = position(source, len(source.rstrip("\n")))
    else:
        line, col = token.line, token.column
    opener = unclosed_bracket(source, open_now)
    if opener is not None:
        word = BRACKET_WORD[OPEN[opener.type]]
        msg = (f"missing closing {word}: the '{opener}' opened here is never closed "
               f"(expected '{CLOSER[OPEN[opener.type]]}')")
        return LegacySyntaxError.at(msg, filename, source, opener.line, opener.column)
    expected = _expected(err)
    if kind == "_INDENT":
        msg = "unexpected indent"
        line, col = _indent_position(source, line + 1)
    elif token is not None and str(token) in ("else", "elif", "except", "finally") \
            and kind != "NAME":
        msg = keyword_message(str(token))
    elif kind == "NUMBER" and token.start_pos > 0 and source[token.start_pos - 1].isdigit():
        msg = "invalid number: a leading 0 makes an octal number (digits 0-7 only)"
        line, col = position(source, token.start_pos - 1)
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
    with LOCK:
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
