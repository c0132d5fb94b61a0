"""The runs of a sweep (layer 8): parameter lists (`NAME=V1,V2,...`) combined as a grid or
zipped, random samples from distributions (`NAME=uniform:a:b`), and for every run its deck
words (`NAME=VALUE`, read by the deck with NON_SOLFEC_ARGV()) and its SUBDIR name.
Syntax and semantics: docs/sweeps.md.
"""
from __future__ import annotations

import hashlib
import itertools
import math
import re
from dataclasses import dataclass

from solfec_py.errors import InputError

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MODES = ("grid", "zip")
MAX_NAME = 64                 # longer run names become run-<hash>
_UNSAFE = re.compile(r"[^A-Za-z0-9.=+-]")


class SweepError(InputError):
    """A sweep is set up wrongly: parameter syntax, options, deck, scheduler."""


@dataclass(frozen=True)
class Param:
    """One swept parameter and its values, as the words the deck receives."""

    name: str
    values: tuple


@dataclass(frozen=True)
class Run:
    """One run of the sweep: its parameters (name -> word value) and deck words."""

    index: int
    params: dict
    words: tuple
    name: str                  # the run's SUBDIR and the key of its bookkeeping


def _check_name(name: str, what: str, text: str) -> str:
    if not NAME.match(name):
        raise SweepError(f"{what} {text!r}: the name {name!r} must be an identifier (a letter or '_', then"
                         " letters, digits or '_')")
    from solfec_py.api.sweep import RESERVED

    if name in RESERVED:
        raise SweepError(f"{what} {text!r}: {name!r} is a column of the sweep table itself"
                         f" (reserved: {', '.join(RESERVED)})")
    return name


def word(value) -> str:
    """The deck word of a value given from Python (a float keeps its shortest repr)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def parse_param(text: str) -> Param:
    """`NAME=V1,V2,...` -> Param; a SweepError says what is wrong with the text."""
    if not isinstance(text, str) or "=" not in text:
        raise SweepError(f"parameter {text!r} must be NAME=V1,V2,... (e.g. friction=0.1,0.3)")
    name, _, rest = text.partition("=")
    name = _check_name(name.strip(), "parameter", text)
    values = tuple(v.strip() for v in rest.split(","))
    return make_param(name, values, text)


def make_param(name: str, values, text: str | None = None) -> Param:
    """A Param from a name and a list of values (strings are passed to the deck verbatim)."""
    text = text if text is not None else f"{name}={values!r}"
    _check_name(name, "parameter", text)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        values = [values]
    words = tuple(word(v).strip() for v in values)
    if not words or any(not w for w in words):
        raise SweepError(f"parameter {text!r}: every value must be non-empty text, got {list(words)!r}")
    bad = [w for w in words if any(c.isspace() for c in w)]
    if bad:
        raise SweepError(f"parameter {text!r}: a value cannot hold white space, got {bad[0]!r}")
    dup = sorted({w for w in words if words.count(w) > 1})
    if dup:
        raise SweepError(f"parameter {text!r}: value {dup[0]!r} is given twice")
    return Param(name, words)


# ------------------------------------------------------------------ sampled parameters
DISTRIBUTIONS = {            # name -> (number of arguments, argument names)
    "uniform": ("a", "b"),            # a <= x < b
    "loguniform": ("a", "b"),         # log x uniform, 0 < a < b
    "normal": ("mean", "std"),
    "randint": ("a", "b"),            # integers a..b inclusive
}


@dataclass(frozen=True)
class Dist:
    name: str
    kind: str
    args: tuple

    def draw(self, rng, n: int) -> list:
        a, b = self.args
        if self.kind == "uniform":
            return [format(float(x), ".8g") for x in rng.uniform(a, b, n)]
        if self.kind == "loguniform":
            import numpy as np

            return [format(float(x), ".8g") for x in np.exp(rng.uniform(np.log(a), np.log(b), n))]
        if self.kind == "normal":
            return [format(float(x), ".8g") for x in rng.normal(a, b, n)]
        return [str(int(x)) for x in rng.integers(int(a), int(b) + 1, n)]


def parse_dist(text: str) -> Dist:
    """`NAME=KIND:ARG1:ARG2` -> Dist, KIND one of DISTRIBUTIONS."""
    if not isinstance(text, str) or "=" not in text:
        raise SweepError(f"distribution {text!r} must be NAME=KIND:A:B, KIND one of {sorted(DISTRIBUTIONS)}"
                         " (e.g. friction=uniform:0.1:0.5)")
    name, _, rest = text.partition("=")
    name = _check_name(name.strip(), "distribution", text)
    kind, *args = rest.split(":")
    if kind not in DISTRIBUTIONS:
        raise SweepError(f"distribution {text!r}: unknown kind {kind!r}; expected one of {sorted(DISTRIBUTIONS)}")
    names = DISTRIBUTIONS[kind]
    if len(args) != len(names):
        raise SweepError(f"distribution {text!r}: {kind} takes {len(names)} numbers"
                         f" {kind}:{':'.join(n.upper() for n in names)}, got {len(args)}")
    try:
        values = tuple(float(a) for a in args)
    except ValueError:
        raise SweepError(f"distribution {text!r}: {':'.join(args)} are not all numbers") from None
    a, b = values
    if kind == "normal" and not b > 0:
        raise SweepError(f"distribution {text!r}: the standard deviation must be > 0, got {b:g}")
    if kind != "normal" and not a < b and not (kind == "randint" and a == b):
        raise SweepError(f"distribution {text!r}: {kind} needs a < b, got a = {a:g}, b = {b:g}")
    if kind == "loguniform" and not a > 0:
        raise SweepError(f"distribution {text!r}: loguniform needs a > 0, got {a:g}")
    if kind == "randint" and (a != int(a) or b != int(b)):
        raise SweepError(f"distribution {text!r}: randint bounds must be integers, got {a:g}, {b:g}")
    return Dist(name, kind, values)


# ------------------------------------------------------------------ the design
def design(params, mode: str = "grid", samples: int | None = None, dists=(), seed: int = 0) -> list:
    """Parameter points (dicts name -> word) of the sweep: the grid (last parameter fastest)
    or the zip of `params`, times `samples` random draws of `dists` (seeded, so a rerun of
    the same sweep draws the same values and resumes)."""
    if mode not in MODES:
        raise SweepError(f"mode must be one of {list(MODES)}, got {mode!r}")
    params, dists = list(params), list(dists)
    names = [p.name for p in params] + [d.name for d in dists]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SweepError(f"parameter {dup[0]!r} is given twice")
    if dists and samples is None:
        raise SweepError("distributions (--dist) need the number of samples (--samples N)")
    if samples is not None:
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise SweepError(f"samples must be a whole number >= 1, got {samples!r}")
        if not dists:
            raise SweepError("--samples needs at least one distribution (--dist NAME=uniform:A:B)")
    if not params and not dists:
        raise SweepError("nothing to sweep: give at least one parameter (--param NAME=V1,V2,...)")
    if mode == "zip" and params:
        lengths = {p.name: len(p.values) for p in params}
        if len(set(lengths.values())) > 1:
            raise SweepError(f"--zip needs parameter lists of equal length, got {lengths}")
        listed = [dict(zip(lengths, vals)) for vals in zip(*(p.values for p in params))]
    else:
        listed = [dict(zip([p.name for p in params], vals)) for vals in itertools.product(*(p.values for p in params))]
    if not dists:
        return listed
    import numpy as np

    rng = np.random.default_rng(seed)
    drawn = {d.name: d.draw(rng, samples) for d in dists}
    sampled = [{name: drawn[name][i] for name in drawn} for i in range(samples)]
    return [{**a, **b} for a in listed for b in sampled]


ASK_ABOVE = 10_000        # a sweep of more runs starts only when confirmed (--yes, run(yes=True))


def size(params, mode: str = "grid", samples: int | None = None) -> int:
    """The number of runs `design` would list, computed without listing them."""
    params = list(params)
    n = (max((len(p.values) for p in params), default=1) if mode == "zip"
         else math.prod(len(p.values) for p in params))
    return n * (samples or 1)


def confirm(n: int, yes: bool) -> None:
    """SweepError for a sweep of more than ASK_ABOVE runs that was not confirmed."""
    if n > ASK_ABOVE and not yes:
        raise SweepError(f"the sweep has {n:,} runs, more than {ASK_ABOVE:,}: each is a process and a directory"
                         " of results; pass --yes (run(..., yes=True)) to start it, or sweep fewer values")


def run_name(point: dict) -> str:
    """SUBDIR of a run: `name=value_name=value` made file-name safe, or `run-<hash>` when too
    long; it depends on the parameter words only, so a rerun finds its runs again."""
    text = "_".join(f"{k}={v}" for k, v in point.items())
    safe = _UNSAFE.sub("_", text)
    return safe if len(safe) <= MAX_NAME else hashed_name(point)


def hashed_name(point: dict) -> str:
    digest = hashlib.sha1("\0".join(f"{k}={v}" for k, v in point.items()).encode()).hexdigest()
    return f"run-{digest[:12]}"


def runs(points: list, words=()) -> list:
    """Run records of the parameter points; `words` are fixed words passed to every run
    before the parameter words."""
    names = [run_name(p) for p in points]
    seen = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    out = []
    for i, (point, name) in enumerate(zip(points, names)):
        if seen[name] > 1:          # two points made the same safe name ('a/b' and 'a_b')
            name = hashed_name(point)
        words_i = tuple(words) + tuple(f"{k}={v}" for k, v in point.items())
        out.append(Run(i, dict(point), words_i, name))
    if len({r.name for r in out}) != len(out):
        raise SweepError("two runs of the sweep have the same parameters")
    return out


def typed(words: list) -> list:
    """Table values of a parameter column: ints if every word is an int, floats if every
    word is a number, else the words themselves."""
    try:
        return [int(w) for w in words]
    except ValueError:
        pass
    try:
        return [float(w) for w in words]
    except ValueError:
        return list(words)
