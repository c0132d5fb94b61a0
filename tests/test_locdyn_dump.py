"""LOCDYN_DUMP read back: two rigid balls stacked off-centre on an obstacle, one step. The
diagonal blocks W_ii and the off-diagonal block between the two contacts (both on the lower
ball) equal h base_i^T (I/m - [r_i]x J^-1 [r_j]x) base_j s_i s_j computed from the balls'
analytic mass and inertia (m = rho 4/3 pi a^3, J = 2/5 m a^2) and the contact points and
bases; U, V and R are the CONSTRAINT objects' values. Tolerance: the file's 6 significant
digits (relative 5e-6) plus the motion of the points within the step (h^2 g ~ 1e-5 of a):
1e-4 of the largest entry. The line layout is Solfec-1.0's (ldy.c LOCDYN_Dump).
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

RHO, A, H = 1000.0, 0.5, 1e-3
NUMBER = r"[-+0-9.eE]+|-?nan|-?inf"
GROUP = re.compile(r"[(\[]([^()\[\]]*)[)\]]")


def _groups(text: str) -> list:
    return [np.array([float(v) for v in g.split(",")]) for g in GROUP.findall(text)]


def parse(path) -> list:
    """[(kind, point, (master, slave), base 3x3, W 3x3, B, V, U, R, neighbours)] with
    neighbours [(kind, point, ids, base, W_ij)]; 3x3 read column after column."""
    out = []
    for line in open(path).read().splitlines():
        head, *adj = line.split(" => ")
        kind = head.split(" ", 1)[0]
        p, ids, base, W, B, V, U, R = _groups(head)
        nbrs = []
        for a in adj:
            q, jds, jbase, Wij = _groups(a)
            nbrs.append((a.split(" ", 1)[0], q, tuple(int(v) for v in jds), jbase.reshape(3, 3).T, Wij.reshape(3, 3).T))
        out.append((kind, p, tuple(int(v) for v in ids), base.reshape(3, 3).T, W.reshape(3, 3).T, B, V, U, R, nbrs))
    return out


def _skew(r):
    return np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])


def _stack(api):
    sol = api.SOLFEC("DYNAMIC", H, "out/locdyn")
    sol.verbose = "OFF"
    api.SURFACE_MATERIAL(sol, model="SIGNORINI_COULOMB", friction=0.5)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=RHO)
    api.GRAVITY(sol, (0, 0, -10))
    box = api.HEX([-2, -2, -1, 2, -2, -1, 2, 2, -1, -2, 2, -1, -2, -2, 0, 2, -2, 0, 2, 2, 0, -2, 2, 0],
                  1, 1, 1, 1, [1] * 6)
    api.BODY(sol, "OBSTACLE", box, mat)
    c1 = np.array([0.0, 0.0, A - 1e-6])
    tilt = np.array([math.sin(0.3) * math.cos(0.4), math.sin(0.3) * math.sin(0.4), math.cos(0.3)])
    c2 = c1 + (2 * A - 1e-6) * tilt
    b1 = api.BODY(sol, "RIGID", api.SPHERE(tuple(c1), A, 2, 2), mat)
    b2 = api.BODY(sol, "RIGID", api.SPHERE(tuple(c2), A, 2, 2), mat)
    return sol, b1, b2


def test_dump_reads_back_as_the_independent_local_dynamics(api, tmp_path):
    sol, b1, b2 = _stack(api)
    api.LOCDYN_DUMP(sol, str(tmp_path / "before"))
    assert (tmp_path / "before").read_text() == ""              # nothing solved yet
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), H)
    api.LOCDYN_DUMP(sol, str(tmp_path / "ld"))
    rows = parse(tmp_path / "ld")
    cons = [c for c in sol.constraints if c.kind == "CONTACT"]
    assert len(rows) == len(cons) == 2
    m = RHO * 4.0 / 3.0 * math.pi * A ** 3
    Jinv = np.eye(3) / (0.4 * m * A * A)
    centre = {b1.id: np.array(b1.center), b2.id: np.array(b2.center)}

    def block(body, pi, bi, si, pj, bj, sj):
        ri, rj = pi - centre[body], pj - centre[body]
        return H * si * sj * bi.T @ (np.eye(3) / m - _skew(ri) @ Jinv @ _skew(rj)) @ bj

    def sign(ids, body):
        return 1.0 if ids[0] == body else -1.0

    scale = H / m * 3.5
    for kind, p, ids, base, W, B, V, U, R, nbrs in rows:
        assert kind == "CONTACT"
        ref = sum(block(b, p, base, sign(ids, b), p, base, sign(ids, b)) for b in ids if b in centre)
        np.testing.assert_allclose(W, ref, atol=1e-4 * scale)
        con = min(cons, key=lambda c: np.linalg.norm(np.array(c.point) - p))
        np.testing.assert_allclose(base, np.array(con.base).reshape(3, 3).T, atol=1e-6)
        for mine, theirs in ((U, con.U), (V, con.V), (R, con.R)):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(theirs).max()))
        assert len(nbrs) == 1                       # coupled through the lower ball only
        _, q, jds, jbase, Wij = nbrs[0]
        assert b1.id in ids and b1.id in jds
        ref = block(b1.id, p, base, sign(ids, b1.id), q, jbase, sign(jds, b1.id))
        np.testing.assert_allclose(Wij, ref, atol=1e-4 * scale)
        assert np.abs(Wij).max() > 0.1 * scale      # a block that is not zero
    # the two lines' off-diagonal blocks are each other's transpose (W symmetric)
    assert np.allclose(rows[0][9][0][4], rows[1][9][0][4].T, atol=1e-4 * scale)
    # the upper contact carries the upper ball's weight (R_N ~ m g h / h = m g over the step)
    upper = next(r for r in rows if b2.id in r[2])
    assert upper[8][2] > 0


def test_layout_is_solfecs(api, tmp_path):
    sol, b1, b2 = _stack(api)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), H)
    api.LOCDYN_DUMP(sol, str(tmp_path / "ld"))
    n = rf"(?:{NUMBER})"
    tuple3, tuple9 = rf"\({n}, {n}, {n}\)", r"\[" + ", ".join([n] * 9) + r"\]"
    head = rf"CONTACT {tuple3} \(-?\d+, -?\d+\) {tuple9}"
    line = re.compile(rf"^{head} {tuple9}(?: {tuple3}){{4}}(?: => {head} {tuple9})*$")
    text = (tmp_path / "ld").read_text().splitlines()
    assert text and all(line.match(t) for t in text), text
    box = next(b for b in sol.bodies if b.kind == "OBSTACLE")
    assert sum(f"({b1.id}, {box.id})" in t.split(" => ")[0] or f"({box.id}, {b1.id})" in t.split(" => ")[0]
               for t in text) == 1                                 # the contact of the lower ball and the box


def test_argument_errors(api, tmp_path):
    from solfec_py.errors import InputError, InputTypeError

    sol, _, _ = _stack(api)
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        api.LOCDYN_DUMP(None, str(tmp_path / "x"))
    with pytest.raises(InputTypeError, match="'path'"):
        api.LOCDYN_DUMP(sol, 3)
    with pytest.raises(InputError, match="'path' must name a file"):
        api.LOCDYN_DUMP(sol, str(tmp_path))
    with pytest.raises(InputError, match="cannot write"):
        api.LOCDYN_DUMP(sol, str(tmp_path / "no" / "such" / "dir"))
