"""Parameters and call arguments of legacy decks: the order rules Python 2 checked, and
tuple parameters (`def f(a, (b, c)):`, `lambda (x, y): ...`), which Python 3 dropped.
Reference: Python 2.7 Language Reference §5.3.4 (calls), §7.6 (function definitions).
"""
from __future__ import annotations

from lark import Token, Tree

from solfec_py.lang.legacy.edits import end, start
from solfec_py.lang.legacy.strings import rename


def _is_tok(node, value: str) -> bool:
    return isinstance(node, Token) and str(node) == value and node.type not in ("STRING", "NAME")


def shape(fpdef, rename):
    """A parameter as a name (str) or a nested list of names; `(a)` is just `a`."""
    if isinstance(fpdef, Token):
        return rename(fpdef)
    fplist = fpdef.children[1]
    subs = [shape(k, rename) for k in fplist.children if not _is_tok(k, ",")]
    if len(subs) == 1 and not any(_is_tok(k, ",") for k in fplist.children):
        return subs[0]
    return subs


def _targets(sh) -> str:
    """The flattened names as an assignment target (`a, b` or `a,`)."""
    names = names_of(sh)
    return names[0] + "," if len(names) == 1 else ", ".join(names)


def shape_spec(sh) -> str:
    """The structure for `_p2_flat`: 0 for a name, a tuple of structures for a tuple."""
    if isinstance(sh, str):
        return "0"
    inner = ", ".join(shape_spec(s) for s in sh)
    return f"({inner},)" if len(sh) == 1 else f"({inner})"


def names_of(sh) -> list[str]:
    return [sh] if isinstance(sh, str) else [n for s in sh for n in names_of(s)]


class ParamsMixin:
    """Handlers for `def`, `lambda` and argument lists (mixed into the Translator)."""

    def params(self, varargslist):
        """[(kind, fpdef, default)] with kind 'plain', 'star' or 'dstar', checked as
        Python 2 did: defaults last, then *args, then **kwargs, no trailing comma after
        those."""
        kids = varargslist.children
        out, seen_default, seen_star, seen_dstar = [], False, False, False
        for p in kids:
            if not isinstance(p, Tree):
                continue
            c = p.children
            if _is_tok(c[0], "*") or _is_tok(c[0], "**"):
                double = _is_tok(c[0], "**")
                if seen_dstar or (seen_star and not double):
                    raise self.error("invalid syntax: parameters after **kwargs or a second "
                                     "*args", c[0])
                seen_star, seen_dstar = seen_star or not double, seen_dstar or double
                out.append(("dstar" if double else "star", c[1], None))
                continue
            if seen_star or seen_dstar:
                raise self.error("invalid syntax: a parameter follows *args or **kwargs "
                                 "(keyword-only parameters are Python 3)", c[0])
            if len(c) == 3:
                seen_default = True
            elif seen_default:
                raise self.error("non-default argument follows default argument", c[0])
            out.append(("plain", c[0], c[2] if len(c) == 3 else None))
        if _is_tok(kids[-1], ",") and (seen_star or seen_dstar):
            raise self.error("invalid syntax: trailing comma after *args or **kwargs", kids[-1])
        return out

    def _rewrite_params(self, varargslist, edits):
        """Replace tuple parameters by fresh names: ([(shape, name)], [children to visit])."""
        tuples, todo = [], []
        if varargslist is None:
            return tuples, todo
        for kind, fp, default in self.params(varargslist):
            if isinstance(fp, Tree):
                sh = shape(fp, rename)
                if isinstance(sh, str):
                    edits.replace(start(fp), end(fp), sh)
                else:
                    tmp = self.fresh("t")
                    edits.replace(start(fp), end(fp), tmp)
                    tuples.append((sh, tmp))
            else:
                todo.append((fp, "load"))
            if default is not None:
                todo.append((default, "load"))
        return tuples, todo

    def n_funcdef(self, node, ctx, depth, edits):
        kids = node.children
        parameters, suite = kids[2], kids[4]
        varargs = parameters.children[1] if len(parameters.children) == 3 else None
        tuples, todo = self._rewrite_params(varargs, edits)
        if tuples:
            self._unpack_in_body(suite, tuples, depth, edits)
        return [(kids[1], "load")] + todo + [(suite, "load")]

    def _unpack_in_body(self, suite, tuples, depth, edits):
        """Unpack tuple parameters at the start of the body, on the `def`'s body line."""
        first = next(k for k in suite.children if isinstance(k, Tree))
        if first.data == "simple_stmt":   # `a, b, c = _p2_flat(t, (0, (0, 0)))`
            text = "; ".join(f"{_targets(sh)} = _p2_flat({tmp}, {shape_spec(sh)})"
                             for sh, tmp in tuples)
            self.used.add("_p2_flat")
            edits.open(start(first), depth, text + "; ")
            return
        # a compound first statement: bind the names with := inside its header expression
        parts = []
        for sh, tmp in tuples:
            flat = self.fresh("u")
            parts.append(f"({flat} := _p2_flat({tmp}, {shape_spec(sh)}))")
            parts += [f"({name} := {flat}[{i}])" for i, name in enumerate(names_of(sh))]
        self.used.add("_p2_flat")
        binds = "[" + ", ".join(parts) + "]"
        if first.data == "if_stmt":
            expr = first.children[1]
            edits.open(start(expr), depth, binds + " and (")
            edits.close(end(expr), depth, ")")
            return
        if first.data in ("for_stmt", "with_stmt"):
            expr = first.children[3] if first.data == "for_stmt" else first.children[1].children[0]
            edits.open(start(expr), depth, f"({binds}, (")
            edits.close(end(expr), depth, "))[1]")
            return
        raise self.error("cannot translate tuple parameters of a function whose body starts "
                         f"with a `{first.data.split('_')[0]}` statement: make the first "
                         "statement of the body a simple one (e.g. `pass`)", first)

    def n_lambdef(self, node, ctx, depth, edits):
        kids = node.children
        varargs = kids[1] if len(kids) == 4 else None
        tuples, todo = self._rewrite_params(varargs, edits)
        body = kids[-1]
        if tuples:
            self.used.add("_p2_flat")
            names = [n for sh, _ in tuples for n in names_of(sh)]
            flats = ", ".join(f"*_p2_flat({tmp}, {shape_spec(sh)})" for sh, tmp in tuples)
            edits.open(start(body), depth, f"(lambda {', '.join(names)}: ")
            edits.close(end(body), depth, f")({flats})")
        return todo + [(body, "load")]

    def n_old_lambdef(self, node, ctx, depth, edits):
        return self.n_lambdef(node, ctx, depth, edits)

    def check_arguments(self, arglist) -> None:
        """Python 2's order of call arguments: positional, keyword, *args, keyword, **kw."""
        kids = arglist.children
        items = [k for k in kids if not _is_tok(k, ",")]
        kinds = [k.data if isinstance(k, Tree) and k.data in
                 ("kwarg", "star_arg", "dstar_arg", "genexp_arg") else "pos" for k in items]
        seen_kw = seen_star = seen_dstar = False
        for item, kind in zip(items, kinds):
            if seen_dstar:
                raise self.error("invalid syntax: an argument follows **kwargs", item)
            if kind in ("pos", "genexp_arg"):
                if seen_star:
                    raise self.error("only named arguments may follow *expression", item)
                if seen_kw:
                    raise self.error("non-keyword arg after keyword arg", item)
            elif kind == "kwarg":
                name = item.children[0]
                if not (isinstance(name, Token) and name.type == "NAME"):
                    raise self.error("keyword can't be an expression", item)
                seen_kw = True
            elif kind == "star_arg":
                if seen_star:
                    raise self.error("invalid syntax: a second *expression", item)
                seen_star = True
            else:
                seen_dstar = True
        if _is_tok(kids[-1], ",") and (seen_star or seen_dstar):
            raise self.error("invalid syntax: trailing comma after *args or **kwargs", kids[-1])
        if "genexp_arg" in kinds and len(items) > 1:
            raise self.error("Generator expression must be parenthesized if not sole argument",
                             items[kinds.index("genexp_arg")])
