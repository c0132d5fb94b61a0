"""An edge of a hexahedral element lying on a face of another (Solfec-1.0's BM24: a block
tilted by 0.00995 rad standing on its edge on a meshed table, the edge on the line x = 0
where two table elements meet). Solfec's convex-convex rule (cvi.c: planes through the
GJK point swollen to GEOMETRIC_EPSILON; goc.c: the normal is the A^2-weighted sum of the
surface planes' normals of the intersection polytope) turns the zero-volume touch into
two eps-thin prisms, one per table element:

* with the element under the block (x >= 0): a wedge 2 eps / tilt wide between the table top
  and the block's base, normal half-way between them;
* with the element beside it (x <= 0): a 2 eps x 2 eps square prism bounded by the table top,
  the block's base and its near-vertical side (all surfaces) and the inner face x = 0 (not
  a surface), normal about 26.5 degrees off the table's (F_x / F_y = 0.4975, whatever
  the tilt), with 2 x tilt of the wedge's area: above CONTACT_SPARSIFY's default
  threshold 0.01 when the tilt exceeds 0.005.

Reference: the cross-section of the swollen planes (all parallel to z but the prisms' ends,
whose equal and opposite faces cancel in the normal) clipped here in 2-D, independently of
the 3-D kernels: normal = sum over surface sides of (side length)^2 x side normal (block +,
table -), area = half the prism's surface. Solfec-1.0's own cvi.c, compiled with
tools/bm24_cvi_edge.c, gives the same two polytopes (normals (-0.445449, -0.895307, 0) and
(0.004962, -0.999988, 0), areas 6.800169e-9 and 3.451829e-7 for the tilt 0.009948).
Tolerance 1e-6 relative: the planes' offsets round to ~1e-17 m on coordinates of 0.1 m,
against sides of 1e-8 m (1e-9), and the prisms' ends may be swollen by eps (1e-7 of L)."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.contact import objects as O
from solfec_py.contact import polyhedra as P

EPS = 1e-8            # BM24's GEOMETRIC_EPSILON
L = 0.17              # the block element's length along the edge (z)


def _brick(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return [x0, y0, z0, x1, y0, z0, x1, y1, z0, x0, y1, z0, x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1]


def _pairs(api, tilt, lift):
    """Contacts of a one-element block (a, owning the normal), tilted by `tilt` about its
    edge x = y = 0 and lifted by `lift`, with the two elements of a table (top y = 0,
    elements x <= 0 and x >= 0): the outputs of the compiled and the Qhull paths."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/edge')
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol)
    api.BODY(sol, 'OBSTACLE', api.HEX(_brick((-0.06, -0.06, -0.05), (0.06, 0, 0.22)), 2, 1, 1, 0, [1] * 6), mat)
    block = api.HEX(_brick((0, 0, 0), (0.06, 0.06, L)), 1, 1, 1, 0, [2] * 6)
    api.ROTATE(block, (0, 0, 0), (0, 0, 1), np.degrees(tilt))
    api.TRANSLATE(block, (0, lift, 0))
    api.BODY(sol, 'OBSTACLE', block, mat)
    table = O.table_for(sol.domain)
    geo = O.current(sol.domain, table, EPS)
    cvx = np.flatnonzero(table.kind == O.CONVEX)
    blk = cvx[table.bid[cvx] == table.bid[cvx].max()]
    tab = cvx[table.bid[cvx] != table.bid[cvx].max()]
    left = tab[np.argsort([geo.lo[o][0] for o in tab])]            # x <= 0 first
    ca, cb = table.part[np.repeat(blk, 2)], table.part[left]
    return P.convex_convex(table, geo, ca, cb, EPS), P.convex_convex_qhull(table, geo, ca, cb, EPS)


def _reference(tilt, inner):
    """Normal (block to table) and area of the eps-swollen cross-section: half-planes
    n . x <= eps through the edge (table top, block base, block side, and the inner face of
    the table element, normal (inner, 0)), clipped from a square of side 2e-4 in 2-D."""
    s, c = np.sin(tilt), np.cos(tilt)
    planes = [((0.0, 1.0), -1.0, True), ((s, -c), 1.0, True), ((-c, -s), 1.0, True),
              ((float(inner), 0.0), -1.0, False)]          # (normal, owner sign, surface)
    poly = [1e-4 * np.array(p, float) for p in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    tags = [None] * 4
    for k, (n, _, _) in enumerate(planes):
        n = np.array(n)
        out, otag = [], []
        for i in range(len(poly)):
            a, b = poly[i], poly[(i + 1) % len(poly)]
            da, db = n @ a - EPS, n @ b - EPS
            if da <= 0:
                out.append(a)
                otag.append(tags[i])
            if da * db < 0:
                out.append(a + da / (da - db) * (b - a))
                otag.append(k if da <= 0 else tags[i])
        poly, tags = out, otag
    normal, perimeter, area2 = np.zeros(2), 0.0, 0.0
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        length = np.linalg.norm(b - a)
        perimeter += length
        area2 += a[0] * b[1] - a[1] * b[0]
        if tags[i] is not None and planes[tags[i]][2]:
            normal += planes[tags[i]][1] * (length * L) ** 2 * np.array(planes[tags[i]][0])
    return np.append(normal / np.linalg.norm(normal), 0.0), 0.5 * (perimeter * L + abs(area2))


@pytest.mark.parametrize("lift", [0.0, 1e-9])
def test_edge_on_two_table_elements_gives_solfecs_two_prisms(api, lift):
    tilt = 0.009948
    for touch, point, normal, gap, area, *_ in _pairs(api, tilt, lift):
        assert touch.tolist() == [True, True]
        for k, inner in ((0, 1), (1, -1)):           # element x <= 0: its inner face is x <= 0
            n, a = _reference(tilt, inner)
            assert normal[k] == pytest.approx(n, abs=1e-6)
            assert area[k] == pytest.approx(a, rel=1e-6)
        assert gap.min() >= -1e-15 and np.abs(point[:, :2]).max() < 1e-6
    # the wedge's normal is half-way between the table's and the block base's; the square
    # prism's leans 26.5 degrees toward the block's side: F_x / F_y = 0.4975 on the block
    # (to 1 % of the half tilt: the wedge's two long sides differ by eps, 0.5 % of them)
    assert normal[1][0] == pytest.approx(np.sin(tilt / 2), rel=0.01)
    assert normal[0][0] / normal[0][1] == pytest.approx(0.4975, abs=1e-4)
    # its area is 2 x tilt of the wedge's: kept by CONTACT_SPARSIFY's default threshold 0.01
    assert area[0] / area[1] == pytest.approx(2 * tilt, rel=0.02)


def test_square_prism_does_not_depend_on_the_tilt(api):
    # the edge's corner prism is the same for a 4e-3 tilt (its area ratio to the wedge, 8e-3,
    # falls below the sparsification threshold 0.01 there)
    (touch, _, normal, _, area, *_), _ = _pairs(api, 0.004, 0.0)
    n, a = _reference(0.004, 1)
    assert touch.all() and normal[0] == pytest.approx(n, abs=1e-6) and area[0] == pytest.approx(a, rel=1e-6)
    assert normal[0][0] / normal[0][1] == pytest.approx(0.4990, abs=1e-4)
    assert area[0] / area[1] < 0.01
