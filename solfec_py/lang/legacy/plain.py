"""`solfec-py translate`: a legacy deck as plain, idiomatic Python 3 to keep and edit
(`print(a, b)`, `list(range(n))`, `list(d.keys())`, `exec(...)`, no helper imports), in the
manner of Python's 2to3 fixers.  Unlike the translation the runner executes
(translator.py, exact Python 2 behaviour through `_p2_*` helpers), this one reads like code
a person wrote; what it does not reproduce is listed in docs/legacy.md ("Keeping a
translation"): `/` is Python 3 division, `print a,` ends with a space, not the softspace,
`round` rounds halves to even.  Reference: the lib2to3 fixers (print, dict, xrange, map,
filter, zip, has_key, next, exec, execfile, raise, renames).
"""
from __future__ import annotations

from lark import Token, Tree

from solfec_py.lang.legacy.edits import end, start
from solfec_py.lang.legacy.translator import Translator, _is_tok

# builtins that are a different name in Python 3 (module: an import the header adds)
RENAMED = {"xrange": ("range", None), "raw_input": ("input", None), "unicode": ("str", None),
           "basestring": ("str", None), "long": ("int", None), "unichr": ("chr", None),
           "file": ("open", None), "StandardError": ("Exception", None),
           "intern": ("sys.intern", "sys"), "reduce": ("functools.reduce", "functools"),
           "reload": ("importlib.reload", "importlib"),
           "cmp": ("(lambda a, b: (a > b) - (a < b))", None),
           "apply": ("(lambda f, a=(), k={}: f(*a, **k))", None)}
LISTED = frozenset(("range", "map", "filter", "zip"))   # list-returning in Python 2
DICT_LISTS = frozenset(("keys", "values", "items"))
ITER_RENAMES = {"iteritems": "items", "iterkeys": "keys", "itervalues": "values",
                "viewitems": "items", "viewkeys": "keys", "viewvalues": "values",
                "has_key": "__contains__", "xreadlines": "readlines", "getcwdu": "getcwd"}
# module attributes Python 3 renamed: (module, attribute) -> text, import needed
MODULE_ATTRS = {("sys", "maxint"): ("sys.maxsize", None),
                ("string", "letters"): ("string.ascii_letters", None),
                ("string", "lowercase"): ("string.ascii_lowercase", None),
                ("string", "uppercase"): ("string.ascii_uppercase", None),
                ("itertools", "izip"): ("zip", None), ("itertools", "imap"): ("map", None),
                ("itertools", "ifilter"): ("filter", None),
                ("itertools", "izip_longest"): ("itertools.zip_longest", None),
                ("time", "clock"): ("time.process_time", None),
                ("types", "StringType"): ("str", None), ("types", "IntType"): ("int", None),
                ("types", "FloatType"): ("float", None), ("types", "ListType"): ("list", None),
                ("types", "TupleType"): ("tuple", None), ("types", "DictType"): ("dict", None),
                ("sets", "Set"): ("set", None)}


class PlainTranslator(Translator):
    """The Translator with plain Python 3 output; `imports` collects the modules the
    header must import."""

    def __init__(self, source: str, filename: str, tree, true_division: bool = False):
        super().__init__(source, filename, true_division=True)
        self.floor = not true_division
        self.ints = _int_names(tree)
        self.imports: set[str] = set()
        self.iterated: set[int] = set()        # ids of nodes iterated by `for`
        self.bound = _bound_names(tree)         # names the deck itself binds: not renamed

    # ------------------------------------------------------------ statements
    def n_for_stmt(self, node, ctx, depth, edits):
        self.iterated.add(id(node.children[3]))
        return super().n_for_stmt(node, ctx, depth, edits)

    def n_comp_for(self, node, ctx, depth, edits):
        self.iterated.add(id(node.children[3]))
        return Translator.n_for_stmt(self, node, ctx, depth, edits)

    def n_list_for(self, node, ctx, depth, edits):
        self.iterated.add(id(node.children[3]))
        return super().n_list_for(node, ctx, depth, edits)

    def n_print_stmt(self, node, ctx, depth, edits):
        """`print a, b` -> `print(a, b)`; `print a,` -> `print(a, end=' ')`;
        `print >>f, a` -> `print(a, file=f)`."""
        kids = node.children
        kw = kids[0]
        if len(kids) == 1:
            edits.replace(kw.start_pos, kw.end_pos, "print()")
            return []
        if _is_tok(kids[1], ">>"):
            dest, rest = kids[2], kids[3:]
            items = [k for k in rest if not _is_tok(k, ",")]
            dest_text, _ = self.sub_text(dest, "load", depth + 1)
            extra = [f"file={dest_text}"]
            if items:
                edits.replace(kw.start_pos, start(items[0]), "print(")
            else:
                edits.replace(kw.start_pos, end(dest), "print(")
        else:
            rest, extra = kids[1:], []
            items = [k for k in rest if not _is_tok(k, ",")]
            if len(rest) == 1 and _single_paren(items[0]):            # print ('x')
                return [(items[0], "load")]
            edits.replace_token_ws(kw, "print(", until=start(items[0]))
        if rest and _is_tok(rest[-1], ","):
            extra.insert(0, "end=' '")
            edits.replace(rest[-1].start_pos, rest[-1].end_pos, "")
        tail = (", " if items and extra else "") + ", ".join(extra) + ")"
        edits.close(end(items[-1]) if items else end(dest), depth, tail)
        return [(k, "load") for k in items]

    def n_exec_stmt(self, node, ctx, depth, edits):
        kids = node.children
        edits.replace_token_ws(kids[0], "exec(", until=start(kids[1]))
        if len(kids) > 2:
            edits.replace(end(kids[1]), start(kids[3]), ", ")
        edits.close(end(kids[-1]), depth, ")")
        return None

    def n_raise_stmt(self, node, ctx, depth, edits):
        """`raise E, v` -> `raise E(v)`; `raise E, v, tb` -> `raise E(v).with_traceback(tb)`."""
        kids = [k for k in node.children if not _is_tok(k, ",")]
        if len(kids) > 2:
            edits.replace(end(kids[1]), start(kids[2]), "(")
            if len(kids) == 4:
                edits.replace(end(kids[2]), start(kids[3]), ").with_traceback(")
            edits.close(end(kids[-1]), depth, ")")
        return None

    # ------------------------------------------------------------ expressions
    def n_term(self, node, ctx, depth, edits):
        """`a / b` of two integers (literals, names only ever bound to integers, their
        sums and products) is `a // b`, as Python 2 computed it; other divisions stay `/`."""
        kids = node.children
        if self.floor:
            for i in range(1, len(kids), 2):
                if str(kids[i]) == "/" and _is_int(kids[i - 1] if i == 1 else
                                                   Tree("term", kids[:i]), self.ints) \
                        and _is_int(kids[i + 1], self.ints):
                    edits.replace(kids[i].start_pos, kids[i].end_pos, "//")
        return None

    def token(self, tok: Token, edits) -> None:
        if tok.type == "NAME" and tok in RENAMED and tok not in self.bound:
            text, module = RENAMED[tok]
            edits.replace(tok.start_pos, tok.end_pos, text)
            if module:
                self.imports.add(module)
            return
        super().token(tok, edits)

    def n_atom_expr(self, node, ctx, depth, edits):
        kids = node.children
        head = kids[0]
        name = str(head) if isinstance(head, Token) and head.type == "NAME" else None
        call = len(kids) > 1 and kids[1].data == "call"
        if name and call and name not in self.bound:
            if name in LISTED and len(kids) == 2 and id(node) not in self.iterated:
                edits.open(start(node), depth, "list(")
                edits.close(end(node), depth, ")")
            elif name == "input":
                edits.open(start(node), depth, "eval(")
                edits.close(end(node), depth, ")")
            elif name == "execfile" and _call_args(kids[1]):
                first = _call_args(kids[1])[0]
                edits.replace(head.start_pos, head.end_pos, "exec")
                edits.open(start(first), depth, "open(")
                edits.close(end(first), depth, ").read()")
                return [(k, "load") for k in kids[1:]]
        if name and len(kids) > 1 and kids[1].data == "getattr":
            attr = str(kids[1].children[-1])
            hit = MODULE_ATTRS.get((name, attr))
            if hit is not None:
                edits.replace(start(node), end(kids[1]), hit[0])
                if hit[1]:
                    self.imports.add(hit[1])
                return [(k, "load") for k in kids[2:]]
        todo = [(head, "load")]
        last = len(kids) - 1
        for i, trailer in enumerate(kids[1:], start=1):
            if trailer.data == "getattr":
                attr = trailer.children[-1]
                nxt = kids[i + 1] if i < last else None
                called = nxt is not None and nxt.data == "call"
                if attr in DICT_LISTS and called and not (i + 1 == last
                                                          and id(node) in self.iterated):
                    edits.open(start(node), depth, "list(")
                    edits.close(end(nxt), depth, ")")
                elif attr in ITER_RENAMES and not (i == last and ctx == "store"):
                    edits.replace(attr.start_pos, attr.end_pos, ITER_RENAMES[attr])
                elif attr == "next" and called and not _call_args(nxt):
                    edits.replace(attr.start_pos, attr.end_pos, "__next__")
                continue
            todo.append((trailer, "load"))
        return todo

    def n_import_name(self, node, ctx, depth, edits):
        """Renamed modules as the runner's translation; `import commands` becomes
        `import subprocess as commands` (getoutput, getstatusoutput live there now)."""
        for item in node.children:
            if isinstance(item, Tree) and item.data == "dotted_as_name" \
                    and len(item.children) == 1 and "".join(item.children[0].children) == "commands":
                edits.replace(start(item), end(item), "subprocess as commands")
        return super().n_import_name(node, ctx, depth, edits)

    def n_kwarg(self, node, ctx, depth, edits):
        name, value = node.children[0], node.children[-1]
        if str(name) == "cmp":            # sort(cmp=f) / sorted(x, cmp=f)
            edits.replace(name.start_pos, start(value), "key=functools.cmp_to_key(")
            edits.close(end(value), depth, ")")
            self.imports.add("functools")
        return [(value, "load")]

    def n_getattr(self, node, ctx, depth, edits):
        return []

    def n_funcdef(self, node, ctx, depth, edits):
        todo = super().n_funcdef(node, ctx, depth, edits)
        return todo[1:]                     # the function's name is not a builtin use

    def n_classdef(self, node, ctx, depth, edits):
        return [(k, "load") for k in node.children[2:] if k is not None]


def _call_args(call) -> list:
    """The argument nodes of a `call` trailer."""
    inner = [k for k in call.children if k is not None and not _is_tok(k, "(")
             and not _is_tok(k, ")")]
    if len(inner) == 1 and isinstance(inner[0], Tree) and inner[0].data == "arglist":
        return [k for k in inner[0].children if not _is_tok(k, ",")]
    return inner


def _single_paren(node) -> bool:
    """`('x')`: parentheses around one expression (not a tuple)."""
    return isinstance(node, Tree) and node.data == "paren" and not any(
        isinstance(k, Tree) and k.data in ("testlist_comp", "testlist") for k in node.children) \
        and sum(1 for k in node.children if k is not None and not _is_tok(k, "(")
                and not _is_tok(k, ")")) == 1


def _bound_names(tree) -> set[str]:
    """Names the file assigns, defines, imports or takes as parameters (a deck's own
    `file = ...` keeps its name)."""
    bound: set[str] = set()

    def names(node):
        if isinstance(node, Token):
            if node.type == "NAME":
                bound.add(str(node))
            return
        if node.data in ("atom_expr", "call", "getitem", "getattr"):
            return
        for k in node.children:
            if k is not None:
                names(k)

    for node in tree.iter_subtrees():
        kids = node.children
        if node.data in ("assign", "augassign"):
            for k in kids[:-1]:
                if k is not None and not (isinstance(k, Token) and k.type == "AUGOP"):
                    names(k)
        elif node.data in ("for_stmt", "comp_for", "list_for"):
            names(kids[1])
        elif node.data in ("funcdef", "classdef"):
            names(kids[1])
        elif node.data == "param":
            names(kids[0])
        elif node.data == "dotted_as_name":
            first = kids[-1] if len(kids) > 1 else kids[0].children[0]
            bound.add(str(first))
        elif node.data in ("import_as_name", "global_stmt", "with_item", "except_clause"):
            last = [k for k in kids if isinstance(k, Token) and k.type == "NAME"]
            if node.data == "global_stmt":
                bound.update(str(k) for k in last)
            elif last and (node.data == "import_as_name" or len(kids) > 2):
                bound.add(str(last[-1]))
    return bound


def _is_int(node, ints: set) -> bool:
    """Whether the expression `node` is surely an int in Python 2."""
    if isinstance(node, Token):
        if node.type == "NUMBER":
            text = str(node).lower().rstrip("l")
            return text.startswith("0x") or not any(c in text for c in ".ej")
        return node.type == "NAME" and str(node) in ints
    if node.data == "paren":
        inner = [k for k in node.children if not (_is_tok(k, "(") or _is_tok(k, ")"))]
        return len(inner) == 1 and _is_int(inner[0], ints)
    if node.data in ("term", "arith_expr"):
        ops = [str(k) for k in node.children[1::2]]
        return all(op in ("+", "-", "*", "/", "//", "%") for op in ops) and \
            all(_is_int(k, ints) for k in node.children[0::2])
    if node.data == "factor":
        return _is_int(node.children[-1], ints)
    if node.data == "atom_expr" and len(node.children) == 2 and node.children[1].data == "call":
        head = node.children[0]
        return isinstance(head, Token) and str(head) in ("int", "len", "long")
    return False


def _int_names(tree) -> set[str]:
    """Names whose every binding in the file is an integer: `n = 7`, `m = n / 2`, loop
    variables over `range`/`xrange` (a fixed point over the file's simple assignments)."""
    sources: dict[str, list] = {}
    spoiled: set[str] = set()
    for node in tree.iter_subtrees():
        kids = node.children
        if node.data == "assign":
            targets, value = kids[:-1:2], kids[-1]
            for t in targets:
                if isinstance(t, Token) and t.type == "NAME":
                    sources.setdefault(str(t), []).append(value)
                else:
                    spoiled.update(str(v) for v in (t.scan_values(lambda v: isinstance(v, Token))
                                                    if isinstance(t, Tree) else [t]))
        elif node.data == "augassign":
            t = kids[0]
            if isinstance(t, Token) and t.type == "NAME":
                sources.setdefault(str(t), []).append(kids[2])
        elif node.data in ("for_stmt", "comp_for", "list_for"):
            t, it = kids[1], kids[3]
            ranged = isinstance(it, Tree) and it.data == "atom_expr" and \
                isinstance(it.children[0], Token) and str(it.children[0]) in ("range", "xrange")
            if isinstance(t, Token) and t.type == "NAME" and ranged:
                sources.setdefault(str(t), []).append(Token("NUMBER", "0"))
            else:
                spoiled.update(str(v) for v in (t.scan_values(lambda v: isinstance(v, Token))
                                                if isinstance(t, Tree) else [t]))
        elif node.data in ("funcdef", "param", "with_item", "except_clause", "global_stmt",
                           "import_as_name", "dotted_as_name"):
            spoiled.update(str(v) for v in node.scan_values(
                lambda v: isinstance(v, Token) and v.type == "NAME"))
    ints = {n for n in sources if n not in spoiled}
    changed = True
    while changed:
        changed = False
        for name in list(ints):
            if not all(_is_int(v, ints) for v in sources[name]):
                ints.discard(name)
                changed = True
    return ints
