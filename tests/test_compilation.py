"""What a first run says and does while numba compiles (solfec_py/compilation.py): the
`solfec-py` command names each group of kernels once, on stderr, when numba compiles one of
them (numba's "numba:compile" event, which a cache hit does not fire); library use says
nothing; the cyclic garbage collector is off during the outermost compilation and back on
after it."""
from __future__ import annotations

import gc
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
