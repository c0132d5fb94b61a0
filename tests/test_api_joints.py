"""JOINT (api/joints.py): the joint kinds and attributes, the tree the joints of a domain
make (links' mass properties, floating bases), and every refusal of the issue — cycles,
a second parent, a zero axis, a non-rigid child — as errors naming the joint, through the
deck runner at the deck line."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from solfec_py.bodies.articulated import JOINT_KINDS, domain_tree
from solfec_py.cli import main
from solfec_py.errors import InputError, InputTypeError, NotAvailableError

HEADER = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/j')
mat = BULK_MATERIAL(sol, density=1.0)
b1 = BODY(sol, 'RIGID', HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], 1, 1, 1, 1, [1]*6), mat)
b2 = BODY(sol, 'RIGID', HEX([1, 0, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0, 1, 0, 1, 2, 0, 1, 2, 1, 1, 1, 1, 1], 1, 1, 1, 1, [1]*6), mat)
b3 = BODY(sol, 'RIGID', SPHERE((3, 0.5, 0.5), 0.5, 1, 1), mat)
"""


@pytest.fixture
def model(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/j')
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol, density=2.0)
    bodies = [api.BODY(sol, 'RIGID', api.SPHERE((k, 0, 0), 0.3, 1, 1), mat) for k in range(4)]
    return sol, mat, bodies


@pytest.mark.parametrize("kind", sorted(JOINT_KINDS))
def test_every_kind_makes_a_joint(api, model, kind):
    sol, mat, (b0, b1, *_) = model
    axis = (0, 0, 2) if JOINT_KINDS[kind].needs_axis else None
    j = api.JOINT(kind, None, b0, (0, 0, 0), *([axis] if axis else []), label='j')
    assert j.kind == kind and j.parent is None and j.child is b0 and j.label == 'j'
    spec = JOINT_KINDS[kind]
    assert len(j.q) == spec.nq and len(j.dq) == spec.nv
    assert j.dq == (0.0,) * spec.nv
    if spec.ball:       # identity rotation after the translations
        assert j.q[spec.translations:] == (1, 0, 0, 0, 1, 0, 0, 0, 1)
    if axis:
        assert j.axis == (0.0, 0.0, 1.0)
    with pytest.raises(InputError, match="read-only"):
        j.q = (0,)
    assert j.reaction == (0.0,) * 6


def test_tree_of_the_domain(api, model):
    sol, mat, (b0, b1, b2, b3) = model
    api.JOINT('REVOLUTE', b0, b1, (0.5, 0, 0), (0, 1, 0))
    api.JOINT('SPHERICAL', b1, b2, (1.5, 0, 0))
    api.JOINT('PRISMATIC', b0, b3, (0, 0, 0), (1, 0, 0), spring=(10.0, 0.1), damper=0.5, limits=(-1, 1))
    joints = sol.domain.joints
    tree, links = domain_tree(joints)
    # b0 is nobody's child: a floating base joined to the ground by a FREE joint
    assert links == [b1, b2, b3, b0]
    assert tree.nv == 1 + 3 + 1 + 6 and tree.count == 4
    assert tree.parent[tree.index[3]] == -1 and tree.parent[tree.index[0]] == tree.index[3]
    np.testing.assert_allclose(tree.mass[tree.index[1]], b2.mass)
    np.testing.assert_allclose(tree.X0[tree.index[2]], b3.center)
    assert joints[2].spring == (10.0, 0.1) and joints[2].damper == 0.5 and joints[2].limits == ((-1.0, 1.0),)
    # the reference configuration puts every link where its body is
    Lam, xc, _, _ = tree.kinematics(tree.zero_q())
    np.testing.assert_allclose(xc[tree.index], [b.center for b in links], atol=1e-15)
    np.testing.assert_allclose(Lam, np.tile(np.eye(3), (4, 1, 1)), atol=1e-15)


def run_deck(tmp_path, capsys, body):
    text = HEADER + textwrap.dedent(body)
    path = tmp_path / "deck.py"
    path.write_text(text)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    line = len(text.rstrip("\n").splitlines())
    assert f"{path}:{line}: " in err, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("lines, words", [
    ("JOINT('REVOLUTE', None, b1, (0, 0, 0), (0, 0, 0), label='hinge')",
     ["JOINT 'hinge'", "'axis' must be a non-zero vector"]),
    ("JOINT('REVOLUTE', None, b1, (0, 0, 0))", ["JOINT REVOLUTE of child body 1", "'axis' is required"]),
    ("JOINT('HINGE', None, b1, (0, 0, 0))", ["Invalid JOINT kind 'HINGE'", "['CYLINDRICAL', 'FIXED', 'FREE'"]),
    ("JOINT('REVOLUTE', None, b1, (0, 0, 0), (1, 0, 0))\nJOINT('SPHERICAL', b2, b1, (1, 0, 0), label='again')",
     ["JOINT 'again'", "child body 1 already has a parent joint", "JOINT REVOLUTE of child body 1"]),
    ("JOINT('REVOLUTE', b1, b2, (1, 0, 0), (1, 0, 0))\n"
     "JOINT('REVOLUTE', b2, b3, (2, 0, 0), (1, 0, 0))\nJOINT('FIXED', b3, b1, (0, 0, 0), label='loop')",
     ["JOINT 'loop'", "cycle (body 1 -> body 2 -> body 3 -> body 1)", "PUT_RIGID_LINK or FIX_POINT"]),
    ("f = BODY(sol, 'FINITE_ELEMENT', HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],"
     " 1, 1, 1, 1, [1]*6), mat)\nJOINT('SPHERICAL', b1, f, (1, 0, 0), label='soft')",
     ["JOINT 'soft'", "'child' must be a RIGID body", "FINITE_ELEMENT"]),
    ("JOINT('SPHERICAL', b1, b1, (1, 0, 0))", ["JOINT SPHERICAL of child body 1", "same body"]),
    ("JOINT('UNIVERSAL', None, b1, (0, 0, 0), (1, 0, 0), (2, 0, 0))", ["'axis2' must not be parallel"]),
    ("JOINT('REVOLUTE', None, b1, (0, 0, 0), (1, 0, 0), limits=(1, -1))", ["'limits' must have lower < upper"]),
    ("JOINT('SPHERICAL', None, b1, (0, 0, 0), drive=1.0)", ["'drive'", "one-freedom"]),
    ("JOINT('REVOLUTE', None, b1, (0, 0, 0), (1, 0, 0), spring=-1.0)", ["'spring'", "non-negative"]),
    ("JOINT('FIXED', None, b1, (0, 0, 0), damper=-1.0)", ["'damper'"]),
    ("JOINT('REVOLUTE', 'b0', b1, (0, 0, 0), (1, 0, 0))", ["'parent' must be a RIGID BODY object or None"]),
    ("JOINT('PLANAR', None, b1, (0, 0, 0), (0, 0, 1), frame='SIDE')",
     ["JOINT PLANAR of child body 1", "Invalid JOINT frame side 'SIDE'", "['PARENT', 'CHILD']"]),
])
def test_bad_joints_name_the_joint_at_the_deck_line(tmp_path, capsys, lines, words):
    err = run_deck(tmp_path, capsys, lines + "\n")
    for word in words:
        assert word in err, (word, err)


def test_error_types(api, model):
    sol, mat, (b0, b1, *_) = model
    with pytest.raises(InputTypeError, match="'child' must be a RIGID BODY object"):
        api.JOINT('SPHERICAL', None, 3, (0, 0, 0))
    with pytest.raises(InputTypeError, match="JOINT: missing a required argument: 'point'"):
        api.JOINT('SPHERICAL', None, b0)
    with pytest.raises(InputError, match="'axis' is required"):
        api.JOINT('PRISMATIC', None, b0, (0, 0, 0))
