"""One rule for a BULK_MATERIAL changed after BODY, for every body kind (materials.py,
BULK_MATERIAL's docstring): bodies point at their material, so young and poisson set later
act on every pseudo-rigid and finite-element body made of it (Solfec-1.0's stress routines
read them through the body's pointer each time); the density counts when a body is made
(Solfec-1.0 computes the mass in BODY_Create); a value a body made of the material cannot
take is refused by the check BODY makes, naming the body. References: the scaling of the
critical step with young (2 / omega_max, omega_max^2 proportional to young at the reference
configuration: exact), mass = density x volume."""
from __future__ import annotations

import math

import pytest

from solfec_py import session
from solfec_py.errors import InputError

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
TWO = [{0: 0.0, 1: 0.5, 2: 0.8}[x] if i % 3 == 0 else x for i, x in enumerate(   # elements 0.5 and 0.3 wide
    [0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0, 0, 0, 1, 1, 0, 1, 2, 0, 1, 0, 1, 1, 1, 1, 1, 2, 1, 1])]


def model(api, out, fe=True, split=True):
    """Materials 'm' and 'soft'; a finite-element cube of 'm' (if `fe`), a two-element
    finite-element body of 'm' whose element of volume id 2 is 'soft' (if `split`; body ids
    follow), a pseudo-rigid and a rigid cube of 'm'."""
    sol = api.SOLFEC("DYNAMIC", 1e-4, out)
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.25, density=1000.0, label="m")
    soft = api.BULK_MATERIAL(sol, young=1e6, poisson=0.25, density=1000.0, label="soft")
    cube = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 2, 2, 2, 1, [1] * 6), mat) if fe else None
    if split:
        split = api.BODY(sol, "FINITE_ELEMENT", api.MESH(TWO, [8, 0, 1, 4, 3, 6, 7, 10, 9, 1,
                                                               8, 1, 2, 5, 4, 7, 8, 11, 10, 2], 1), mat)
        api.APPLY_BULKMAT(sol, split, 2, soft)
    prb = api.BODY(sol, "PSEUDO_RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    rig = api.BODY(sol, "RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    return sol, mat, soft, cube, split, prb, rig


def critical_steps(sol, *bodies):
    """The critical step of each body's block (the pseudo-rigid block needs its run set-up)."""
    out = []
    for body in bodies:
        if body.kind == "PSEUDO_RIGID":
            body.block.dynamic_init()
        out.append(body.block.critical_step())
    return out


def test_young_set_after_body_acts_on_every_deformable_body(api):
    """young x 4 after BODY halves the critical step of the finite-element and the
    pseudo-rigid body (omega_max ~ sqrt(young / density): exact scaling, so 1e-12 relative),
    and of a finite-element body whose only element of another material (APPLY_BULKMAT) is
    the one that changed; the rigid body's mass does not move. (Before, the finite-element
    block kept the young it copied at BODY.)"""
    sol, mat, soft, fe, _, prb, rig = model(api, "out/rule_young", split=False)
    before = critical_steps(sol, fe, prb)
    mat.young = 4e6
    after = critical_steps(sol, fe, prb)
    for b, a in zip(before, after):
        assert math.isfinite(b) and a == pytest.approx(b / 2, rel=1e-12)
    api.BULK_MATERIAL(sol, young=16e6, poisson=0.25, density=1000.0, label="m")   # a redefinition too
    assert critical_steps(sol, fe)[0] == pytest.approx(before[0] / 4, rel=1e-12)
    assert rig.mass == 1000.0
    # the two-element body alone: both of its materials reach it
    sol, mat, soft, _, split, prb, rig = model(api, "out/rule_young_split", fe=False)
    before = split.block.critical_step()
    soft.young = 4e6          # the smaller element, of 'soft' (APPLY_BULKMAT), gives the step (Solfec's estimate)
    assert split.block.critical_step() == pytest.approx(before / 2, rel=1e-12)


def test_density_counts_when_a_body_is_made(api, capsys):
    """A new density leaves the mass of the rigid, pseudo-rigid and finite-element bodies
    already made (density x volume at BODY, 1000 kg) with a warning naming them; a body made
    afterwards has the new one (2000 kg)."""
    session.start(progress=False)
    sol, mat, soft, fe, split, prb, rig = model(api, "out/rule_density")
    mat.density = 2000.0
    err = capsys.readouterr().err
    assert "density = 2000.0: the 4 bodies already made of it (1, 2, 3, 4) keep the mass" in err
    assert [fe.mass, prb.mass, rig.mass] == [1000.0, 1000.0, 1000.0]
    later = api.BODY(sol, "RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    assert later.mass == 2000.0
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 3e-4)            # and the model runs
    assert fe.mass == 1000.0


@pytest.mark.parametrize("name, value", [("poisson", 0.5), ("poisson", 2.0), ("young", 0.0)])
def test_setter_refuses_what_body_refuses(api, name, value):
    """A setter (or a redefinition of the label) makes BODY's own check on every body made of
    the material: poisson 0.5 or 2 and young 0 are refused, naming the body, and nothing
    changes; a material only rigid bodies use takes them (rigid bodies use the density only),
    and BODY then refuses to make a deformable body of it with the same words."""
    sol, mat, soft, fe, split, prb, rig = model(api, f"out/rule_set_{name}{value}")
    with pytest.raises(InputError, match=f"{name} = {value!r}: body {fe.id}: a finite-element body needs a material"
                                         f" with young > 0 and poisson < 0.5; BULK_MATERIAL 'm' has {name} {value!r}"):
        setattr(mat, name, value)
    assert (mat.young, mat.poisson) == (1e6, 0.25)
    api.DELETE(sol, fe)                                        # deleted bodies do not count
    with pytest.raises(InputError, match=f"body {split.id}: a finite-element body"):
        setattr(soft, name, value)                             # 'soft' reaches body 2 through a part
    with pytest.raises(InputError, match=f"redefined: body {split.id}: a finite-element body"):
        api.BULK_MATERIAL(sol, label="soft", **{name: value})
    rigid_only = api.BULK_MATERIAL(sol, label="rigid_only")
    api.BODY(sol, "RIGID", api.HEX([x + 3 for x in CUBE], 1, 1, 1, 1, [1] * 6), rigid_only)
    setattr(rigid_only, name, value)
    assert getattr(rigid_only, name) == value
    with pytest.raises(InputError) as at_body:
        api.BODY(sol, "PSEUDO_RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), rigid_only)
    assert f"a pseudo-rigid body needs a material with young > 0 and poisson < 0.5; BULK_MATERIAL 'rigid_only' has" \
           f" {name} {value!r}" in str(at_body.value)
