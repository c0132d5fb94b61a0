"""Python 2 parse tree -> Python 3 source with the same behaviour, by edits on the original
text (comments, layout and line numbers are kept).  What each construct becomes is listed
in docs/legacy.md; the `_p2_*` helpers it calls live in `legacy/runtime.py`.
Reference: docs/legacy.md; Python 2.7 Language Reference chapters 5-7.
"""
from __future__ import annotations

import re

from lark import Token, Tree

from solfec_py.lang.legacy.edits import Edits, end, start
from solfec_py.lang.legacy.errors import LegacySyntaxError
from solfec_py.lang.legacy.params import ParamsMixin
from solfec_py.lang.legacy.parse import column_of
from solfec_py.lang.legacy.shims import MODULE_RENAMES
from solfec_py.lang.legacy.strings import PY3_ONLY_KEYWORDS, number_literal, rename, string_literal

MAX_DEPTH = 1000   # parse-tree depth; Python 2's parser stack held 1500 entries
# attributes whose Python 2 meaning differs on built-in objects: read through _p2_attr
COMPAT_ATTRS = frozenset(
    "keys values items iteritems iterkeys itervalues viewitems viewkeys viewvalues has_key "
    "next sort write getcwdu maxint xreadlines message".split())
_PASS_CONTEXT = frozenset(("testlist", "exprlist", "paren", "list_display", "testlist_comp",
                           "listmaker"))
_SIMPLE_DEST = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*\Z")


class Translator(ParamsMixin):
    """Walks the tree (iteratively: deep input must not exhaust the C stack) and records
    edits.  Handlers `n_<rule>` emit edits for one node and return the children to visit
    as (child, context) pairs, context being 'load' or 'store'; None visits all children
    in the 'load' context (or the parent's context for tuple/list displays)."""

    def __init__(self, source: str, filename: str, true_division: bool):
        self.source = source
        self.filename = filename
        self.true_division = true_division
        self.edits = Edits(source)
        self.used: set[str] = set()
        self.counter = 0

    # ------------------------------------------------------------ driver
    def error(self, msg: str, node) -> LegacySyntaxError:
        tok = node if isinstance(node, Token) else next(node.scan_values(
            lambda v: isinstance(v, Token) and not v.type.startswith("_")), None)
        line, col = (tok.line, tok.column) if tok is not None else (None, None)
        return LegacySyntaxError.at(msg, self.filename, self.source, line, col)

    def translate(self, tree, newlines) -> str:
        self.expand_tabs(newlines)
        self.walk(tree, "load", 0, self.edits)
        return self.edits.apply()

    def walk(self, root, ctx: str, depth: int, edits: Edits) -> None:
        stack = [(root, ctx, depth)]
        while stack:
            node, ctx, depth = stack.pop()
            if isinstance(node, Token):
                self.token(node, edits)
                continue
            if depth > MAX_DEPTH:
                raise self.error(f"expression or block nested too deeply (more than "
                                 f"{MAX_DEPTH} levels)", node)
            handler = getattr(self, "n_" + node.data, None)
            todo = handler(node, ctx, depth, edits) if handler else None
            if todo is None:
                inner = ctx if node.data in _PASS_CONTEXT else "load"
                todo = [(child, inner) for child in node.children]
            stack.extend((child, c, depth + 1) for child, c in reversed(todo))

    def expand_tabs(self, newlines) -> None:
        """Indentation after each newline as spaces, tabs read with stops of 8 columns
        (Python 3 rejects the mixed tabs and spaces Python 2 accepted)."""
        for tok in newlines:
            for m in re.finditer(r"\n([ \t\f]*)", str(tok)):
                indent = m.group(1)
                if "\t" in indent or "\f" in indent:
                    lo = tok.start_pos + m.start(1)
                    self.edits.replace(lo, lo + len(indent), " " * column_of(indent))

    def token(self, tok: Token, edits: Edits) -> None:
        kind = tok.type
        if kind == "NAME":
            if tok in PY3_ONLY_KEYWORDS:
                edits.replace(tok.start_pos, tok.end_pos, rename(tok))
        elif kind == "NUMBER":
            text = number_literal(str(tok))
            if text is not None:
                edits.replace(tok.start_pos, tok.end_pos, text)
        elif kind == "STRING":
            text = string_literal(str(tok))
            if text is not None:
                edits.replace(tok.start_pos, tok.end_pos, text)

    def sub_text(self, node, ctx: str, depth: int) -> tuple[str, Edits]:
        """Translated text of one node (walked into a separate edit list)."""
        sub = Edits(self.source)
        self.walk(node, ctx, depth, sub)
        return sub.apply(start(node), end(node)), sub

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"_p2_{stem}{self.counter}"

    def gap(self, a, b) -> tuple[int, int]:
        """The span from the end of `a` to the start of `b`."""
        return end(a), start(b)

    # ------------------------------------------------------------ statements
    def n_assign(self, node, ctx, depth, edits):
        kids = node.children
        return [(k, "store" if i < len(kids) - 1 and not _is_tok(k, "=") else "load")
                for i, k in enumerate(kids)]

    def n_del_stmt(self, node, ctx, depth, edits):
        return [(k, "store") for k in node.children]

    def n_for_stmt(self, node, ctx, depth, edits):
        return [(k, "store" if i == 1 else "load") for i, k in enumerate(node.children)]

    def n_comp_for(self, node, ctx, depth, edits):
        return self.n_for_stmt(node, ctx, depth, edits)

    def n_list_for(self, node, ctx, depth, edits):
        source = node.children[3]
        if isinstance(source, Tree) and source.data == "testlist_safe":
            edits.open(start(source), depth, "(")   # `[x for x in 1, 2]` needs (1, 2) in Py3
            edits.close(end(source), depth, ")")
        return self.n_for_stmt(node, ctx, depth, edits)

    def n_with_item(self, node, ctx, depth, edits):
        return [(k, "store" if i == 2 else "load") for i, k in enumerate(node.children)]

    def n_except_clause(self, node, ctx, depth, edits):
        kids = node.children
        if len(kids) == 4 and _is_tok(kids[2], ","):
            if not (isinstance(kids[3], Token) and kids[3].type == "NAME"):
                raise self.error("cannot translate `except E, target` with a target that is "
                                 "not a plain name: write `except E as name:`", kids[3])
            edits.replace(end(kids[1]), start(kids[3]), " as ")
        return [(k, "store" if i == 3 else "load") for i, k in enumerate(kids)]

    def n_augassign(self, node, ctx, depth, edits):
        target, op, value = node.children
        if str(op) != "/=" or self.true_division:
            return [(target, "store"), (value, "load")]
        self.used.add("_p2_idiv")
        if isinstance(target, Token) and target.type == "NAME":
            name = rename(target)
            edits.replace(end(target), start(value), f" = _p2_idiv({name}, ")
            edits.close(end(value), depth, ")")
            return [(target, "load"), (value, "load")]
        if isinstance(target, Tree) and target.data == "atom_expr":
            head, last = target.children[:-1], target.children[-1]
            if last.data == "getattr":
                self.used.add("_p2_iattr")
                edits.open(start(target), depth, "_p2_iattr(")
                edits.replace(start(last), start(value), f", '{rename(last.children[1])}', ")
                edits.close(end(value), depth, ")")
                return self._attr_chain(target, head, "load", depth + 1, edits) + [(value, "load")]
            if last.data == "getitem" and not _has_slice(last.children[1]):
                self.used.add("_p2_iitem")
                lsqb, key, rsqb = last.children
                edits.open(start(target), depth, "_p2_iitem(")
                edits.replace(lsqb.start_pos, lsqb.end_pos, ", (")
                edits.replace(rsqb.start_pos, start(value), "), ")
                edits.close(end(value), depth, ")")
                chain = self._attr_chain(target, head, "load", depth + 1, edits)
                return chain + [(key, "load"), (value, "load")]
        text, sub = self.sub_text(target, "store", depth + 1)
        if "\n" in text:
            raise self.error("cannot translate an in-place division `/=` whose target spans "
                             "several lines: put the target on one line", target)
        edits.extend(sub)
        edits.replace(end(target), start(value), f" = _p2_idiv({text}, ")
        edits.close(end(value), depth, ")")
        return [(value, "load")]

    def n_print_stmt(self, node, ctx, depth, edits):
        """`print a, b,` -> `_p2_print(a); _p2_print(b)`: one call per item, so items are
        evaluated and written in turn as Python 2 did (softspace included)."""
        kids = node.children
        kw = kids[0]
        if len(kids) == 1:
            edits.replace(kw.start_pos, kw.end_pos, "_p2_print()")
            self.used.add("_p2_print")
            return []
        if _is_tok(kids[1], ">>"):
            dest, rest = kids[2], kids[3:]
            dest_text = self.source[start(dest):end(dest)]
            simple = _SIMPLE_DEST.match(dest_text) is not None and "\n" not in dest_text
            func = "_p2_print_to"
            if simple:
                dest_ref = re.sub(r"\s+", "", dest_text)
                edits.replace(kw.start_pos, start(dest), f"{func}(")
            else:
                dest_ref = self.fresh("f")
                edits.replace(kw.start_pos, start(dest), f"{func}(({dest_ref} := ")
                edits.close(end(dest), depth, ")")   # after the closers inside `dest`
            items = [k for k in rest if not _is_tok(k, ",")]
            head = f"{func}({dest_ref}, "
            if not items:
                edits.close(end(dest), depth, ")")
            else:
                first_comma = rest[0]
                edits.replace_token_ws(first_comma, ", ", until=start(items[0]))
        else:
            func, rest, head = "_p2_print", kids[1:], "_p2_print("
            items = [k for k in rest if not _is_tok(k, ",")]
            edits.replace_token_ws(kw, "_p2_print(", until=start(items[0]))
        self.used.add(func)
        trailing = bool(rest) and _is_tok(rest[-1], ",")
        for a, b in zip(items, items[1:]):
            comma = next(k for k in rest if _is_tok(k, ",") and start(k) >= end(a))
            edits.replace_token_ws(comma, f"); {head}", until=start(b))
        if items:
            if trailing:
                edits.replace(rest[-1].start_pos, rest[-1].end_pos, ")")
            else:
                tail = "_p2_print()" if func == "_p2_print" else f"{func}({dest_ref})"
                edits.close(end(items[-1]), depth, f"); {tail}")
        return [(k, "load") for k in kids if isinstance(k, Tree) or k.type in
                ("NAME", "NUMBER", "STRING")]

    def n_exec_stmt(self, node, ctx, depth, edits):
        kids = node.children
        self.used.add("_p2_exec")
        edits.replace_token_ws(kids[0], "_p2_exec(", until=start(kids[1]))
        if len(kids) > 2:
            edits.replace(end(kids[1]), start(kids[3]), ", ")
        edits.close(end(kids[-1]), depth, ")")
        return None

    def n_raise_stmt(self, node, ctx, depth, edits):
        kids = node.children
        if len(kids) > 2:
            self.used.add("_p2_raise")
            edits.open(start(kids[1]), depth, "_p2_raise(")
            edits.close(end(kids[-1]), depth, ")")
        return None

    def n_import_name(self, node, ctx, depth, edits):
        for item in node.children:
            if isinstance(item, Tree) and item.data == "dotted_as_name":
                dotted = item.children[0]
                module = "".join(dotted.children)
                new = MODULE_RENAMES.get(module)
                if new is None:
                    continue
                if len(item.children) > 1:
                    edits.replace(start(dotted), end(dotted), new)
                elif "." not in module:
                    edits.replace(start(dotted), end(dotted), f"{new} as {module}")
        return []

    def n_import_from(self, node, ctx, depth, edits):
        kids = node.children
        if isinstance(kids[1], Tree) and kids[1].data == "dotted_name":
            module = "".join(kids[1].children)
            new = MODULE_RENAMES.get(module)
            if new is not None:
                edits.replace(start(kids[1]), end(kids[1]), new)
        return []

    # ------------------------------------------------------------ expressions
    def n_term(self, node, ctx, depth, edits):
        kids = node.children
        if self.true_division:
            return None
        for i in range(1, len(kids), 2):
            if str(kids[i]) == "/":
                self.used.add("_p2_div")
                op = kids[i]
                edits.open(start(kids[0]), depth, "_p2_div(")
                lo = end(kids[i - 1])
                if self.source[lo:op.start_pos].strip(" \t"):
                    lo = op.start_pos
                spaced = self.source[op.end_pos:op.end_pos + 1] in (" ", "\t", "\n", "\\")
                edits.replace(lo, op.end_pos, "," if spaced else ", ")
                edits.close(end(kids[i + 1]), depth, ")")
        return None

    def n_comp_op(self, node, ctx, depth, edits):
        tok = node.children[0]
        if str(tok) == "<>":
            edits.replace(tok.start_pos, tok.end_pos, "!=")
        return []

    def n_backquote(self, node, ctx, depth, edits):
        left, body, right = node.children
        many = len(body.children) > 1
        edits.replace(left.start_pos, left.end_pos, "repr((" if many else "repr(")
        edits.replace(right.start_pos, right.end_pos, "))" if many else ")")
        return [(body, "load")]

    def n_ellipsis(self, node, ctx, depth, edits):
        edits.replace(start(node), end(node), "...")
        return []

    def n_atom_expr(self, node, ctx, depth, edits):
        return self._attr_chain(node, node.children, ctx, depth, edits)

    def _attr_chain(self, node, kids, ctx, depth, edits):
        """Children of `atom trailer*`; `.keys`, `.has_key`, ... read through _p2_attr
        unless the attribute is the one being assigned to."""
        todo = [(kids[0], "load")]
        last = len(node.children) - 1
        for i, trailer in enumerate(kids[1:], start=1):
            if trailer.data == "getattr":
                name = trailer.children[1]
                if name in COMPAT_ATTRS and not (i == last and ctx == "store"):
                    self.used.add("_p2_attr")
                    edits.open(start(node), depth, "_p2_attr(")
                    edits.replace(start(trailer), end(trailer), f", '{name}')")
                    continue
            todo.append((trailer, "load"))
        return todo

    def n_arglist(self, node, ctx, depth, edits):
        self.check_arguments(node)
        return None


def _is_tok(node, value: str) -> bool:
    return isinstance(node, Token) and str(node) == value and node.type not in ("STRING", "NAME")


def _has_slice(node) -> bool:
    if isinstance(node, Token):
        return False
    if node.data in ("slice", "ellipsis"):
        return True
    return node.data == "subscriptlist" and any(_has_slice(k) for k in node.children)
