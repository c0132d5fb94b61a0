"""Property-based fuzzing of every deck command (hypothesis): each case builds a tiny model,
calls one command of `solfec_py.api.NAMES` (new commands are covered automatically) with
a mix of valid and bad arguments (tests/fuzz_pool.py), and, when the call was accepted,
runs a few steps of the model. Property: nothing escapes but a solfec_py error, and no
case takes longer than TIMEOUT seconds. RUN, solver iterations and generated meshes are
bounded by the input guards (`validate.limits`, lowered here so that a fuzzed RUN on the
tiny model takes at most 30 steps), not skipped.

The number of cases per command is FUZZ_EXAMPLES (default 55, so > 5 000 in all); the
generated cases are the same in every run (derandomized); set SOLFEC_FUZZ_RANDOM=1 for
new ones. `test_fuzz_statistics` (last) prints and checks the totals."""
from __future__ import annotations

import inspect
import os
import signal
import time
import types
from collections import Counter

import pytest

pytest.importorskip("hypothesis", reason="property-based fuzzing needs hypothesis (pip install -e .[dev])")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from solfec_py import session, validate as V
from solfec_py.api import NAMES
from solfec_py.errors import SolfecError

from fuzz_pool import BAD, Model, valid

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "55"))
TIMEOUT = 20.0                 # seconds per case (a loaded 2-core machine; cases take ~20 ms)
STATS = {"cases": 0, "accepted": 0, "refused": Counter(), "ran": 0, "seconds": 0.0}
COMMANDS = sorted(NAMES)


class CaseTimeout(Exception):
    """A case ran longer than TIMEOUT: a hang."""


def _alarm(signum, frame):
    raise CaseTimeout(f"case ran longer than {TIMEOUT} s")


def _signature(func):
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        return None


def _parameters(command: str):
    """(positional names, optional names) or None for commands taking *args/**kwargs."""
    sig = _signature(NAMES[command])
    if sig is None:
        return None
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    required = [p.name for p in params if p.default is p.empty]
    optional = [p.name for p in params if p.default is not p.empty]
    return required, optional


numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(),
                    st.integers(min_value=-3, max_value=40))
generated = st.one_of(numbers, st.text(max_size=4), st.tuples(numbers, numbers, numbers),
                      st.lists(numbers, max_size=30).map(list),
                      st.lists(numbers, min_size=0, max_size=9).map(tuple))


def _wrong(data, model, name):
    """A pooled bad value, a model object of another kind, or a generated number / string /
    tuple / list."""
    how = data.draw(st.sampled_from(["bad", "bad", "object", "generated"]), label=f"{name} how")
    if how == "bad":
        return data.draw(st.sampled_from(BAD), label=name)
    if how == "object":
        return data.draw(st.sampled_from(model.objects()), label=name)
    return data.draw(generated, label=name)


def _call(data, model, command):
    """Draw the arguments of `command` and call it: all valid, one wrong (the others valid:
    this reaches the checks behind the first one), or each wrong with probability 1/2."""
    params = _parameters(command)
    if params is None:                       # *args/**kwargs: a few positional arguments
        n = data.draw(st.integers(0, 4), label="arity")
        return NAMES[command](*[_wrong(data, model, f"arg{i}") for i in range(n)])
    required, optional = params
    given_optional = [name for name in optional if data.draw(st.booleans(), label=f"give {name}")]
    names = required + given_optional
    style = data.draw(st.sampled_from(["valid", "one wrong", "one wrong", "one wrong", "mixed"]), label="style")
    wrong = set()
    if style == "one wrong" and names:
        wrong = {data.draw(st.sampled_from(names), label="wrong argument")}
    elif style == "mixed":
        wrong = {name for name in names if data.draw(st.booleans(), label=f"wrong {name}")}
    values = {name: _wrong(data, model, name) if name in wrong else valid(model, command, name)
              for name in names}
    args = [values[name] for name in required]
    if data.draw(st.integers(0, 19), label="drop") == 0 and args:
        args.pop()                            # a missing argument
    kwargs = {name: values[name] for name in given_optional}
    if data.draw(st.integers(0, 29), label="typo") == 0:
        kwargs["bogus_keyword"] = 1
    return NAMES[command](*args, **kwargs)


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          derandomize=not os.environ.get("SOLFEC_FUZZ_RANDOM"),
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_command(command, data, tmp_path):
    session.start(progress=False, warnings=False)
    STATS["cases"] += 1
    case = STATS["cases"]
    api = types.SimpleNamespace(**NAMES)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
    start = time.perf_counter()
    try:
        with V.limits(steps=30, iterations=200, elements=2000):
            model = Model(api, str(tmp_path / f"out{case}"))
            try:
                _call(data, model, command)
            except SolfecError as exc:
                STATS["refused"][type(exc).__name__] += 1
                return
            STATS["accepted"] += 1
            if data.draw(st.booleans(), label="run after"):   # the model must still run or refuse
                STATS["ran"] += 1
                try:
                    api.RUN(model.sol, model.gs, 0.01)
                except SolfecError as exc:
                    STATS["refused"]["RUN after: " + type(exc).__name__] += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        STATS["seconds"] += time.perf_counter() - start
        session.start(progress=False)


def test_fuzz_statistics(capsys):
    """At least 5 000 cases ran (when the whole module ran), every command was fuzzed."""
    if STATS["cases"] < len(COMMANDS) * EXAMPLES:
        pytest.skip("only part of the fuzz cases ran (-k selection)")
    with capsys.disabled():
        print(f"\nfuzz: {STATS['cases']} cases over {len(COMMANDS)} deck names in {STATS['seconds']:.1f} s;"
              f" {STATS['accepted']} calls accepted ({STATS['ran']} followed by a RUN),"
              f" refusals by error type: {dict(STATS['refused'].most_common())}")
    assert STATS["cases"] >= 5000
