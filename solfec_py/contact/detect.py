"""Contact detection step (layer 5): re-evaluate the existing contacts, find new ones (box
update, broad phase, narrow phase) and insert them as CONTACT rows of the constraint set
with their surface material. Reference: Solfec-1.0 dom.c, the time step; docs/contact.md; Solfec-1.0 bgs.c, contact laws (Solfec
dom.c update_contact / overlap_create, goc.c).

Contacts are found at the mid-step configuration (after the bodies' first half step). A
contact lives while its two objects overlap or touch within the geometric epsilon; a
cohesive contact survives separation and keeps its referential points.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from solfec_py import constraints as C, session
from solfec_py.contact import broad, ellipsoids as EL, narrow, objects as O, polygon_points as PP, polyhedra, sparsify as SP, tunnel
from solfec_py.errors import SimulationError
from solfec_py.solvers.local_dynamics import body_rows


@dataclass
class Found:
    """Contacts between object pairs: master / slave objects, points, normals, gaps."""

    om: np.ndarray
    os: np.ndarray
    pm: np.ndarray
    ps: np.ndarray
    n: np.ndarray
    gap: np.ndarray
    area: np.ndarray
    sid_m: np.ndarray
    sid_s: np.ndarray

    @staticmethod
    def join(parts: list) -> "Found":
        if not parts:
            z, z3 = np.zeros(0), np.zeros((0, 3))
            zi = np.zeros(0, dtype=np.int64)
            return Found(zi, zi, z3, z3, z3, z, z, zi, zi)
        if len(parts) == 1:                            # its arrays are the pair kernels' own
            return parts[0]
        return Found(*(np.concatenate([getattr(p, f) for p in parts])
                       for f in ("om", "os", "pm", "ps", "n", "gap", "area", "sid_m", "sid_s")))

    def take(self, order: np.ndarray) -> "Found":
        return Found(*(getattr(self, f)[order]
                       for f in ("om", "os", "pm", "ps", "n", "gap", "area", "sid_m", "sid_s")))


def _smooth(table: O.ObjectTable, geo: O.Geometry, obj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centres and matrices A of objects that are ellipsoids or spheres ({c + A u : |u| <= 1})."""
    c, A = np.empty((obj.size, 3)), np.zeros((obj.size, 3, 3))
    sph = table.kind[obj] == O.SPHERE
    i = table.part[obj[sph]]
    c[sph] = geo.s_center[i]
    A[sph] = table.s_radius[i][:, None, None] * np.eye(3)
    j = table.part[obj[~sph]]
    c[~sph], A[~sph] = geo.e_center[j], geo.e_A[j]
    return c, A


def _sid(table: O.ObjectTable, obj: np.ndarray) -> np.ndarray:
    """Surface ids of sphere or ellipsoid objects."""
    out = np.empty(obj.size, dtype=np.int64)
    sph = table.kind[obj] == O.SPHERE
    out[sph] = table.s_sid[table.part[obj[sph]]]
    out[~sph] = table.e_sid[table.part[obj[~sph]]]
    return out


def _ellipsoid_pairs(table: O.ObjectTable, geo: O.Geometry, om: np.ndarray, os: np.ndarray, eps: float,
                     fixed: bool, prev: np.ndarray) -> tuple[np.ndarray, list, list]:
    """Pairs with an ellipsoid (`ellipsoids.py`): a convex or a sphere is the slave, of two
    ellipsoids the lexicographically first centre; `prev` (k, 3) earlier normals or zeros.
    Returns the touching mask, the Found parts and their pair indices."""
    touch = np.zeros(om.size, dtype=bool)
    parts, source = [], []
    km, ks = table.kind[om], table.kind[os]
    poly = np.flatnonzero((km == O.CONVEX) | (ks == O.CONVEX))
    if poly.size:
        a, b = om[poly], os[poly]
        cvx, ell = np.where(table.kind[a] == O.CONVEX, a, b), np.where(table.kind[a] == O.CONVEX, b, a)
        hit, pm, ps, n, gap, sid = EL.convex_ellip(
            table.part[cvx], table.part[ell], table.c_vstart, geo.v_cur, table.c_fstart, geo.f_normal,
            geo.f_offset, table.f_surface, table.f_sid, table.c_estart, table.edges, geo.e_center, geo.e_A, eps)
        if fixed:                                      # a convex master cannot arise from detection
            hit &= table.kind[b] == O.CONVEX
        touch[poly] = hit
        parts.append(Found(ell[hit], cvx[hit], pm[hit], ps[hit], n[hit], gap[hit], np.ones(int(hit.sum())),
                           table.e_sid[table.part[ell[hit]]], sid[hit]))
        source.append(poly[hit])
    smooth = np.flatnonzero((km != O.CONVEX) & (ks != O.CONVEX))
    if smooth.size:
        a, b = om[smooth], os[smooth]                  # a master, b slave
        if not fixed:
            ca, cb = _smooth(table, geo, a)[0], _smooth(table, geo, b)[0]
            slave_a = np.where(table.kind[a] == table.kind[b], narrow.sphere_owner(ca, cb),
                               table.kind[a] == O.SPHERE)
            a, b = np.where(slave_a, b, a), np.where(slave_a, a, b)
        (cm, Am), (cs, As) = _smooth(table, geo, a), _smooth(table, geo, b)
        hit, pm, ps, n, gap = EL.ellip_ellip(cs, As, cm, Am, np.ascontiguousarray(prev[smooth]), eps)
        touch[smooth] = hit
        parts.append(Found(a[hit], b[hit], pm[hit], ps[hit], n[hit], gap[hit], np.ones(int(hit.sum())),
                           _sid(table, a[hit]), _sid(table, b[hit])))
        source.append(smooth[hit])
    return touch, parts, source


def evaluate(table: O.ObjectTable, geo: O.Geometry, om: np.ndarray, os: np.ndarray, eps: float,
             fixed: bool, prev: np.ndarray | None = None) -> tuple[np.ndarray, Found]:
    """Narrow phase of object pairs. With `fixed` the roles (master om, slave os) are kept
    (update of existing contacts; `prev` their normals, a start for the ellipsoid search);
    otherwise they are decided by normal ownership. Returns (touching mask over the input
    pairs, the touching contacts in the order of the input pairs, so that found[j] belongs to
    pair flatnonzero(touch)[j])."""
    if om.size and table.all_convex:   # polyhedra only: the normal owner (first argument) is the slave
        a, b = (os, om) if fixed else (om, os)
        hit, x, n, gap, area, sid_a, sid_b = polyhedra.convex_convex(table, geo, table.part[a], table.part[b], eps)
        if hit.all():                  # (the persisting contacts of a settled scene): no copies
            return hit, Found(b, a, x, x, n, gap, area, sid_b, sid_a)
        return hit, Found(b[hit], a[hit], x[hit], x[hit], n[hit], gap[hit], area[hit], sid_b[hit], sid_a[hit])
    if om.size:                        # only spheres with spheres or convexes: one numba pass
        ok, touch, *fields = narrow.sphere_pairs(
            np.ascontiguousarray(om, dtype=np.int64), np.ascontiguousarray(os, dtype=np.int64), table.kind,
            table.part, O.SPHERE, O.CONVEX, fixed, geo.s_center, table.s_radius, table.s_sid, table.c_tstart,
            table.c_fstart, table.tri, geo.v_cur, geo.f_normal, geo.f_offset, table.f_surface, table.f_sid, eps)
        if ok:
            om_, os_, pm, ps, n, gap, sid_m, sid_s = fields
            return touch, Found(om_, os_, pm, ps, n, gap, np.ones(om_.size), sid_m, sid_s)
    touch = np.zeros(om.size, dtype=bool)
    parts, source = [], []
    km, ks = table.kind[om], table.kind[os]
    curved = np.flatnonzero((km == O.ELLIP) | (ks == O.ELLIP))
    if curved.size:
        hit, p, src = _ellipsoid_pairs(table, geo, om[curved], os[curved], eps, fixed,
                                       np.zeros((curved.size, 3)) if prev is None else prev[curved])
        touch[curved] = hit
        parts += p
        source += [curved[i] for i in src]
        km, ks = km.copy(), ks.copy()
        km[curved] = ks[curved] = -1                   # handled
    both = np.flatnonzero((km == O.SPHERE) & (ks == O.SPHERE))
    if both.size:
        a, b = om[both], os[both]
        ia, ib = table.part[a], table.part[b]
        if not fixed:                                  # the lexicographically first centre is the slave
            swap = narrow.sphere_owner(geo.s_center[ia], geo.s_center[ib])
            a, b = np.where(swap, b, a), np.where(swap, a, b)
            ia, ib = table.part[a], table.part[b]
        hit, pm, ps, n, gap = narrow.sphere_sphere(geo.s_center[ia], table.s_radius[ia],
                                                   geo.s_center[ib], table.s_radius[ib], eps)
        touch[both] = hit
        source.append(both[hit])
        parts.append(Found(a[hit], b[hit], pm[hit], ps[hit], n[hit], gap[hit], np.ones(int(hit.sum())),
                           table.s_sid[ia[hit]], table.s_sid[ib[hit]]))
    mixed = np.flatnonzero((km != ks) & (km >= 0))
    if mixed.size:
        a, b = om[mixed], os[mixed]
        cvx = np.where(table.kind[a] == O.CONVEX, a, b)
        sph = np.where(table.kind[a] == O.CONVEX, b, a)
        hit, pm, ps, n, gap, sid = narrow.convex_sphere(
            table.part[cvx], table.part[sph], table.c_tstart, table.c_fstart, table.tri, geo.v_cur,
            geo.f_normal, geo.f_offset, table.f_surface, table.f_sid, geo.s_center, table.s_radius, eps)
        if fixed:                                      # a convex master cannot arise from detection
            hit &= table.kind[b] == O.CONVEX
        touch[mixed] = hit
        source.append(mixed[hit])
        parts.append(Found(sph[hit], cvx[hit], pm[hit], ps[hit], n[hit], gap[hit], np.ones(int(hit.sum())),
                           table.s_sid[table.part[sph[hit]]], sid[hit]))
    polys = np.flatnonzero((km == O.CONVEX) & (ks == O.CONVEX))
    if polys.size:                                     # the normal owner (first argument) is the slave
        a, b = (os[polys], om[polys]) if fixed else (om[polys], os[polys])
        hit, x, n, gap, area, sid_a, sid_b = polyhedra.convex_convex(table, geo, table.part[a], table.part[b], eps)
        touch[polys] = hit
        source.append(polys[hit])
        parts.append(Found(b[hit], a[hit], x[hit], x[hit], n[hit], gap[hit], area[hit], sid_b[hit], sid_a[hit]))
    found = Found.join(parts)
    if len(parts) > 1:                                 # back to the order of the input pairs
        found = found.take(np.argsort(np.concatenate(source), kind="stable"))
    return touch, found


def _contact_rows(cset) -> np.ndarray:
    return np.flatnonzero(cset.kind[: cset.count] == C.CONTACT)


def _keys(om: np.ndarray, os: np.ndarray, n: int) -> np.ndarray:
    return np.minimum(om, os) * n + np.maximum(om, os)


def assign_material(surface_materials, cset, rows: np.ndarray) -> np.ndarray:
    """Surface-material fields (material, friction, restitution, model, spring, dashpot,
    hpow) of contact rows from their surface-id pairs `cset.spair` (one table lookup per
    distinct pair); returns the materials' cohesion per unit area of every row."""
    if rows.size == 0:
        return np.zeros(0)
    spair = cset.spair[rows]
    lo = spair.min(axis=0)                         # distinct pairs in lexicographic order, by
    width = int(spair[:, 1].max() - lo[1]) + 1     # one int64 key (np.unique(axis=0) is slow)
    _, first, inverse = np.unique((spair[:, 0] - lo[0]) * width + (spair[:, 1] - lo[1]),
                                  return_index=True, return_inverse=True)
    pairs, inverse = spair[first], inverse.reshape(-1)
    mats = [surface_materials.lookup(int(a), int(b)) for a, b in pairs.tolist()]
    par = np.array([(m.friction, m.restitution, 1.0 if m.model == "SPRING_DASHPOT" else 0.0, m.spring,
                     m.dashpot, m.hpow, m.cohesion) for m in mats], dtype=float)[inverse]
    cset.friction[rows], cset.restitution[rows], cset.model[rows] = par[:, 0], par[:, 1], par[:, 2]
    cset.spring[rows], cset.dashpot[rows], cset.hpow[rows] = par[:, 3], par[:, 4], par[:, 5]
    material = cset.material
    for r, j in zip(rows.tolist(), inverse.tolist()):
        material[r] = mats[j]
    return par[:, 6]


def _assign_material(domain, cset, rows: np.ndarray, area: np.ndarray, initial: bool) -> None:
    """Materials of new or re-paired contacts; only contacts that exist at t = 0 get the
    material cohesion (Solfec-1.0 bgs.c, contact laws)."""
    cohesion = assign_material(domain.surface_materials, cset, rows)
    if rows.size:
        cset.cohesion[rows] = cohesion * area if initial else 0.0


def _store(domain, table: O.ObjectTable, cset, rows, found: Found, eps: float, elem: bool = True) -> None:
    """Geometric fields of contact rows (an index array or a slice) from the narrow-phase
    results; `elem` False keeps the rows' element numbers (found with the rows' own objects)."""
    cset.point[rows] = found.pm
    cset.base[rows] = C.local_base(found.n, eps)
    cset.gap[rows] = found.gap
    cset.area[rows] = found.area
    obj = np.concatenate((found.om, found.os))       # both sides in one call (entry by entry)
    k = found.om.size
    if elem:
        e = table.elem[obj]
        cset.elem[rows, 0], cset.elem[rows, 1] = e[:k], e[k:]
    ref = O.map_points(domain, table, "ref_points", obj, np.concatenate((found.pm, found.ps)))
    cset.mpnt[rows], cset.spnt[rows] = ref[:k], ref[k:]


_ROW_OBJECTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _row_objects(domain, table: O.ObjectTable, cset, rows: np.ndarray) -> np.ndarray:
    """(2 k,) table objects of the masters, then the slaves, of the contact rows `rows`
    (-1 where not in the table). Read-only: kept per constraint set while its `version`
    (rows added, removed or moved), the rows' block rows (`body_rows`, the same array while
    no block's bodies changed) and the table are those it was computed for; a row's `elem`
    changes only with its objects, i.e. when it is inserted."""
    brow = body_rows(domain, cset)
    key = (cset.version, cset.count, rows.size)
    cached = _ROW_OBJECTS.get(cset)
    if cached is not None and cached[0] == key and cached[1] is brow and cached[2] is table:
        return cached[3]
    both = table.objects_of(cset.families, cset.family[rows].T.ravel(), brow[rows].T.ravel(),
                            cset.elem[rows].T.ravel())
    both.flags.writeable = False
    _ROW_OBJECTS[cset] = (key, brow, table, both)
    return both


def _update(domain, table, geo, cset, eps, rows: np.ndarray) -> np.ndarray:
    """Re-evaluate the existing contacts `rows` (docs/contact.md); returns the keys of the
    survivors."""
    if rows.size == 0:
        return np.zeros(0, dtype=np.int64)
    both = _row_objects(domain, table, cset, rows)               # masters, then slaves
    om, os = both[: rows.size], both[rows.size:]
    every = bool(both.min() >= 0)
    known = np.ones(rows.size, dtype=bool) if every else (om >= 0) & (os >= 0)
    idx = np.arange(rows.size) if every else np.flatnonzero(known)
    found = None
    if idx.size:
        prev = None if table.all_convex else cset.base[rows[idx], :, 2]      # (a start for ellipsoids)
        hit, found = evaluate(table, geo, om if every else om[idx], os if every else os[idx], eps, fixed=True,
                              prev=prev)
        tunnel.check_gaps(domain, table, geo, found.om, found.os, found.n, found.gap, eps)
        if every and hit.all() and not PP.active(domain):   # every contact persists (a settled
            _persisting(domain, table, cset, eps, rows, found)  # scene): no masks
            return _keys(om, os, table.count)
    touch = np.zeros(rows.size, dtype=bool)
    if idx.size:
        touch[idx] = hit
        if PP.active(domain):
            found = PP.track(table, geo, found, cset.point[rows[idx[hit]]], eps)
    cohesive = known & ~touch & (cset.cohesion[rows] > 0)
    if cohesive.any():                 # keeps its material points; the frame follows them
        r = rows[cohesive]
        pm = O.current_points(domain, table, om[cohesive], cset.mpnt[r])
        cset.point[r] = pm
    gone = rows[~touch & ~cohesive]
    live = rows[touch]
    if found is not None and live.size:
        changed = live[(cset.spair[live, 0] != found.sid_m) | (cset.spair[live, 1] != found.sid_s)]
        _store(domain, table, cset, live, found, eps)
        cset.spair[live, 0] = found.sid_m
        cset.spair[live, 1] = found.sid_s
        if changed.size:
            _assign_material(domain, cset, changed, cset.area[changed], initial=False)
    keep = touch | cohesive
    keys = _keys(om[keep], os[keep], table.count)
    cset.remove_rows(gone)
    return keys


def _persisting(domain, table, cset, eps, rows: np.ndarray, found: Found) -> None:
    """`_update`'s stores when every contact row (sorted, distinct) touches again, `found`
    row for row with the rows' own objects (so their `elem` stay); a run of consecutive
    rows is written through a slice."""
    k = rows.size
    at = slice(int(rows[0]), int(rows[0]) + k) if int(rows[-1]) - int(rows[0]) + 1 == k else rows
    changed = (cset.spair[at, 0] != found.sid_m) | (cset.spair[at, 1] != found.sid_s)
    _store(domain, table, cset, at, found, eps, elem=False)
    if changed.any():
        cset.spair[at, 0] = found.sid_m
        cset.spair[at, 1] = found.sid_s
        changed = rows[changed]
        _assign_material(domain, cset, changed, cset.area[changed], initial=False)


def _member(keys: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Mask of `keys` found in `known` (np.isin by a sort of `known` and a binary search)."""
    known = np.sort(known)
    at = np.searchsorted(known, keys)
    return known[np.minimum(at, known.size - 1)] == keys


def _excluded(a: np.ndarray, b: np.ndarray, pairs: set) -> np.ndarray:
    """Mask of the unordered pairs (a, b) that are in the set of (low, high) pairs (each pair
    as one integer key (lo - m) K + hi - m, m and m + K - 1 the least and largest index of
    all, found by `_member`; surface ids may be negative)."""
    ex = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if not ex.size or not a.size:
        return np.zeros(a.size, dtype=bool)
    m = int(min(a.min(), b.min(), ex.min()))
    K = int(max(a.max(), b.max(), ex.max())) - m + 1
    lo, hi = np.minimum(a, b) - m, np.maximum(a, b) - m
    return _member(lo * K + hi, (ex[:, 0] - m) * K + ex[:, 1] - m)


def detect(domain) -> int:
    """Update the existing contacts and add the new ones for the current (mid-step)
    configuration; returns the number of new contacts."""
    table = O.table_for(domain)
    cset = domain.constraints if isinstance(domain.constraints, C.ConstraintSet) else None
    rows = _contact_rows(cset) if cset is not None else np.zeros(0, dtype=np.int64)
    if table.body_count < 2 and not rows.size:     # no pair of bodies (no self-contact)
        return 0
    eps = session.geometric_epsilon()
    geo = O.current(domain, table, eps)
    new = _detect(domain, table, geo, cset, rows, eps)
    tunnel.check_sweeps(domain, table, geo, lambda: _contact_bodies(domain.constraints))
    return new


def _contact_bodies(cset) -> np.ndarray:
    """(k, 2) body ids of the contacts of the constraint set."""
    if not isinstance(cset, C.ConstraintSet):
        return np.zeros((0, 2), dtype=np.int64)
    return cset.bid[_contact_rows(cset)]


def _detect(domain, table, geo, cset, rows, eps) -> int:
    """`detect` once the geometry is current: update, then find and insert."""
    existing = _update(domain, table, geo, cset, eps, rows) if rows.size else np.zeros(0, dtype=np.int64)
    ranks = domain.parallel.size if domain.parallel is not None else 1
    pairs = broad.overlapping_pairs(geo.lo, geo.hi, group=table.bid, flag=table.inert,
                                    grid_from=broad.GRID_FROM // ranks)
    if pairs.size and existing.size:
        pairs = pairs[~_member(_keys(pairs[:, 0], pairs[:, 1], table.count), existing)]
    if pairs.size and domain.parallel is not None:     # the pairs whose contacts this rank owns
        pairs = pairs[domain.parallel.owns_pairs(table.bid[pairs[:, 0]], table.bid[pairs[:, 1]])]
    if pairs.size and domain.excluded_bodies:
        pairs = pairs[~_excluded(table.bid[pairs[:, 0]], table.bid[pairs[:, 1]], domain.excluded_bodies)]
    if pairs.size == 0:
        return 0
    _, found = evaluate(table, geo, pairs[:, 0], pairs[:, 1], eps, fixed=False)
    if found.om.size and domain.excluded_surfaces:
        found = found.take(np.flatnonzero(~_excluded(found.sid_m, found.sid_s, domain.excluded_surfaces)))
    if found.om.size == 0:
        return 0
    depth = getattr(domain, "penetration_depth", np.inf)
    deep = np.flatnonzero(found.gap <= -depth)
    if deep.size:
        k = int(deep[0])
        raise SimulationError(
            f"unphysical penetration of depth {-found.gap[k]:g} (limit {depth:g}) between bodies"
            f" {table.bid[found.om[k]]} and {table.bid[found.os[k]]} at time {domain.time:g}; reduce the"
            " time step or check the model")
    tunnel.check_gaps(domain, table, geo, found.om, found.os, found.n, found.gap, eps)
    if PP.active(domain):
        found = PP.expand(table, geo, found, eps)
    rows = insert(domain, table, found, eps)
    settings = getattr(domain, "sparsify", None) or SP.Settings(mindist=eps)
    gone = SP.sparsify(domain.constraints, rows, settings, table,
                       lambda r: _objects(domain, table, domain.constraints, r))
    domain.constraints.remove_rows(gone)
    return int(rows.size - gone.size)


def _objects(domain, table, cset, rows: np.ndarray) -> np.ndarray:
    """(k, 2) global object indices of constraint rows (-1 where not in the table)."""
    brow = body_rows(domain, cset)
    return np.column_stack([table.objects_of(cset.families, cset.family[rows, s], brow[rows, s],
                                             cset.elem[rows, s]) for s in (0, 1)])


def insert(domain, table: O.ObjectTable, found: Found, eps: float) -> np.ndarray:
    """New CONTACT rows for `found` (master side 0, slave side 1)."""
    cset = C.constraint_set(domain)
    obj = np.column_stack((found.om, found.os))
    bodies = table.bodies
    rows = cset.add_many(C.CONTACT, [bodies[m] for m in found.om.tolist()],
                         [bodies[s] for s in found.os.tolist()], table.bid[obj], table.family[obj],
                         table.families)
    _store(domain, table, cset, rows, found, eps)
    cset.spair[rows, 0], cset.spair[rows, 1] = found.sid_m, found.sid_s
    _assign_material(domain, cset, rows, found.area, initial=domain.steps_done == 0)
    return rows
