"""What a first run says and does while numba compiles (solfec_py/compilation.py): the
`solfec-py` command names each group of kernels once, on stderr, when numba compiles one of
them (numba's "numba:compile" event, which a cache hit does not fire); library use says
nothing; the cyclic garbage collector is off during the outermost compilation and back on
after it. Kernels compile with the shared options; numba's flag dictionaries are what
numba's own method gives; a cached kernel is compiled again when a module it imports
changes (numba alone would load its stale machine code) and loaded when an unrelated one
changes."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import types

import pytest

from solfec_py import compilation, session


def _event(module: str):
    func = types.SimpleNamespace(__module__=module)
    return types.SimpleNamespace(data={"dispatcher": types.SimpleNamespace(py_func=func)})


@pytest.fixture
def listener():
    saved = session.current()
    yield compilation._Listener()
    session._current = saved


def test_the_cli_names_each_group_once_and_library_use_is_silent(listener, capsys):
    session.start(notices=True)
    for module in ("solfec_py.contact.gjk", "solfec_py.contact.clipping", "solfec_py.solvers.gauss_seidel"):
        listener.on_start(_event(module))
        listener.on_end(_event(module))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("solfec-py: compiling kernels for contact detection, once per machine (")
    assert lines[1] == "solfec-py: compiling kernels for the constraint solvers, once per machine"
    session.start()                                         # library use: notices off
    quiet = compilation._Listener()
    quiet.on_start(_event("solfec_py.bodies.rigid"))
    quiet.on_end(_event("solfec_py.bodies.rigid"))
    assert capsys.readouterr().err == ""


def test_the_collector_is_off_while_compiling_and_nested_compiles_do_not_restart_it(listener):
    session.start()
    assert gc.isenabled()
    listener.on_start(_event("solfec_py.contact.gjk"))
    listener.on_start(_event("numba.np.arrayobj"))          # a numba overload compiled inside
    listener.on_end(_event("numba.np.arrayobj"))
    assert not gc.isenabled()
    listener.on_end(_event("solfec_py.contact.gjk"))
    assert gc.isenabled()


def test_user_kernels_outside_solfec_py_are_not_named(listener, capsys):
    session.start(notices=True)
    listener.on_start(_event("my_deck_helpers"))
    listener.on_end(_event("my_deck_helpers"))
    assert capsys.readouterr().err == ""
    assert compilation.group_of("solfec_py.bodies.fe_points") == "finite-element bodies"
    assert compilation.group_of("solfec_py.bodies.rigid_schemes.solfec_kernels") == "rigid bodies"


def test_kernels_share_the_cache_and_no_cfunc_wrapper_options():
    from solfec_py.contact import gjk

    assert gjk.gjk_into.targetoptions["no_cfunc_wrapper"] is True
    assert gjk.gjk_into.targetoptions["error_model"] == "numpy"      # the kernel's own option kept
    assert gjk.gjk_into._cache.__class__.__name__ == "FunctionCache"  # cached on disk
    plain = compilation.njit(lambda x: x + 1)
    assert plain(1) == 2 and plain.targetoptions["no_cfunc_wrapper"] is True


def test_flag_values_equal_numbas_definition():
    from numba.core.compiler import Flags

    flags = Flags()
    flags.error_model = "numpy"
    flags.boundscheck = True
    expected = {name: getattr(flags, name) for name in Flags.options}   # numba's definition
    assert flags.values() == expected
    assert Flags() != flags and Flags().values() == {n: o.default for n, o in Flags.options.items()}


def test_the_operator_shortcut_types_as_numbas_template_does():
    """The NumPy operator template with the shortcut gives numba's own answer (None for
    scalars, the ufunc signature where an operand is an array, Optional stripped), and
    typing a scalar operator does not search a ufunc loop."""
    import operator

    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.core.typing import npydecl

    patched = npydecl.NumpyRulesArrayOperator.generic
    assert getattr(patched, "_solfec_scalar_shortcut", False)
    original = patched._solfec_original
    ctx = cpu_target.typing_context
    ctx.refresh()
    f64, i64 = types.float64, types.int64
    arr, arr_i = types.Array(f64, 1, "C"), types.Array(i64, 2, "C")
    cases = [(f64, f64), (i64, f64), (types.boolean, i64), (types.Optional(f64), f64), (arr, f64), (f64, arr),
             (arr, arr), (arr_i, f64), (types.Optional(arr), i64), (types.UniTuple(f64, 3), f64)]
    for op in (operator.mul, operator.add, operator.lt, operator.truediv):
        cls = next(t for t in npydecl.NumpyRulesArrayOperator.__subclasses__() if getattr(t, "key", None) is op)
        template = cls(ctx)
        for args in cases:
            assert patched(template, args, {}) == original(template, args, {}), (op, args)
        assert original(template, (arr, f64), {}) is not None          # the cases reach both answers
    searches = []
    real = npydecl.ufunc_find_matching_loop
    npydecl.ufunc_find_matching_loop = lambda *a: searches.append(a) or real(*a)
    try:
        assert patched(template, (f64, f64), {}) is None and not searches
        assert patched(template, (arr, f64), {}) is not None and searches
    finally:
        npydecl.ufunc_find_matching_loop = real


_DRIVER = """
import sys
from solfec_py import compilation
compilation.CLOSURE_PACKAGES.add("closurepkg")
from closurepkg.user import g
print(g(), sum(g.stats.cache_hits.values()), sum(g.stats.cache_misses.values()))
"""


def _drive(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.path.dirname(os.path.dirname(compilation.__file__))]))
    out = subprocess.run([sys.executable, "-c", _DRIVER], env=env, capture_output=True, text=True, check=True)
    value, hits, misses = out.stdout.split()
    return int(value), int(hits), int(misses)


def test_a_cached_kernel_follows_a_change_in_a_module_it_imports(tmp_path):
    pkg = tmp_path / "closurepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "unrelated.py").write_text("X = 1\n")
    (pkg / "dep.py").write_text(textwrap.dedent("""
        from solfec_py.compilation import njit
        SCALE = 10

        @njit
        def f():
            return 1
        """))
    (pkg / "user.py").write_text(textwrap.dedent("""
        from solfec_py.compilation import njit
        from closurepkg.dep import SCALE, f

        @njit
        def g():
            return f() * SCALE
        """))
    assert _drive(tmp_path) == (10, 0, 1)              # compiled
    assert _drive(tmp_path) == (10, 1, 0)              # loaded from the cache
    (pkg / "unrelated.py").write_text("X = 2\n")
    assert _drive(tmp_path) == (10, 1, 0)              # a module g does not import: still loaded
    (pkg / "dep.py").write_text((pkg / "dep.py").read_text().replace("return 1", "return 2"))
    assert _drive(tmp_path) == (20, 0, 1)              # the callee changed: compiled again
    (pkg / "dep.py").write_text((pkg / "dep.py").read_text().replace("SCALE = 10", "SCALE = 100"))
    assert _drive(tmp_path) == (200, 0, 1)             # an imported constant changed
    assert _drive(tmp_path) == (200, 1, 0)


def test_a_deck_runs_the_same_with_numbas_compilation_switched_off(tmp_path):
    """NUMBA_DISABLE_JIT=1 (numba's switch for debugging kernels as plain Python) runs a
    contact deck: every kernel, the recompiled inlined ones of the Gauss-Seidel sweep too,
    is then the Python function it is compiled from, so the block slides to the same
    position and velocity, bit for bit, as with the compiled kernels."""
    deck = tmp_path / "slide.py"
    deck.write_text(textwrap.dedent("""
        sol = SOLFEC('DYNAMIC', 1E-3, 'out')
        mat = BULK_MATERIAL(sol, density=2000)
        SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.5)
        GRAVITY(sol, (0, 0, -9.81))
        floor = HEX([-2, -2, -0.2, 2, -2, -0.2, 2, 2, -0.2, -2, 2, -0.2,
                     -2, -2, 0, 2, -2, 0, 2, 2, 0, -2, 2, 0], 1, 1, 1, 0, [2] * 6)
        BODY(sol, 'OBSTACLE', floor, mat)
        block = BODY(sol, 'RIGID', HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
                                        0, 0, 0.5, 1, 0, 0.5, 1, 1, 0.5, 0, 1, 0.5], 1, 1, 1, 1, [1] * 6), mat)
        INITIAL_VELOCITY(block, (2, 0, 0), (0, 0, 0))
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.01)
        print('state', repr(block.conf[9]), repr(block.velo[3]))
        """))
    lines = []
    for off in ("1", "0"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=off)
        proc = subprocess.run([sys.executable, "-m", "solfec_py", "-w", "--no-progress", str(deck)], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        lines.append([ln for ln in proc.stdout.splitlines() if ln.startswith("state")])
    assert lines[0] == lines[1] and len(lines[0]) == 1
    x, v = map(float, lines[0][0].split()[1:])
    assert 0.0 < x - 0.5 < 0.02 and 0.0 < v < 2.0          # it slid forward and slowed down
