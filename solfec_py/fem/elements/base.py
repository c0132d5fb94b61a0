"""The element contract (layer 1): an element type is class attributes plus one function
that fills shape-function values and reference derivatives at a point.
Reference: Solfec-1.0 fem.c (shape functions, reference boxes), the element layout of
scikit-fem (``skfem/element``) and felupe.

Subclass contract (every concrete element sets all of these):

1. ``name``: the meshio cell name (``"tetra"``, ``"hexahedron20"``, ...), the key in
   :data:`solfec_py.fem.elements.ELEMENTS`.
2. ``code``: a small integer, append-only, used by the numba kernels to dispatch on the
   type (0 TET4, 1 PYR5, 2 WED6, 3 HEX8, 4 TET10, 5 HEX20, 6 WED15).
3. ``nnodes``, ``order`` (1 or 2) and ``ref_nodes`` (nnodes, 3): node ``k`` sits at
   reference point ``ref_nodes[k]``; the first-order elements follow Solfec's node order,
   the quadratic ones meshio's (corners first, then one node per edge, ``edges``).
4. ``domain``: the reference domain (``SIMPLEX``, ``PYRAMID``, ``PRISM``, ``CUBE``) and
   ``box`` (2, 3): its bounding box, into which inverse-mapped points are clamped.
5. ``faces``: tuple of zero-based local node tuples, corners counter-clockwise seen from
   outside (Solfec's face table), followed on quadratic elements by the mid-edge nodes of
   edges (c0, c1), (c1, c2), ... -- the meshio ``triangle6``/``quad8`` order.
6. ``rules``: quadrature rule by use: ``"stiffness"`` (internal force and tangent),
   ``"mass"`` (lumped mass) and ``"load"`` (unit body force).
7. ``lumping``: ``"row-sum"`` (Solfec's ``M_ii = int rho N_i``) or ``"hrz"`` (diagonal
   scaling, for the quadratic elements whose row sums are negative at corners).
8. ``fill(x, y, z, N, dN)``: writes ``N[k]`` and ``dN[k, j] = dN_k / dxi_j``. It uses only
   arithmetic and constant tables, so the same source runs element-wise over numpy arrays
   (``x``, ``y``, ``z`` of shape (p,), ``N`` (n, p), ``dN`` (n, 3, p)) and, compiled by
   numba in :mod:`solfec_py.fem.points`, on scalars.

Quadratic elements subclass :class:`QuadraticElement`, which derives 3-5 from ``linear``
(the first-order element) and ``edges``. The base class derives the vectorised ``shape(xi)`` (p, n) and ``dshape(xi)`` (p, n, 3),
the tables at quadrature points and the face types.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from solfec_py.fem.quadrature import Rule

SIMPLEX, PYRAMID, PRISM, CUBE = range(4)
FACE_TYPES = {3: "triangle", 4: "quad", 6: "triangle6", 8: "quad8"}   # by face node count


class ShapeFunctions:
    """Vectorised evaluation of a ``fill`` function of ``dim`` reference coordinates."""
    name: str = ""
    nnodes: int = 0
    dim: int = 3

    @classmethod
    def shape(cls, xi) -> np.ndarray:
        """Shape-function values (p, nnodes) at reference points ``xi`` (p, dim)."""
        return evaluate(cls.fill, cls.nnodes, xi, cls.dim)[0]

    @classmethod
    def dshape(cls, xi) -> np.ndarray:
        """Reference derivatives (p, nnodes, dim), ``[:, k, j] = dN_k / dxi_j``."""
        return evaluate(cls.fill, cls.nnodes, xi, cls.dim)[1]


class Element(ShapeFunctions):
    """Base class of the element types (see the module docstring for the contract)."""

    code: int = -1
    order: int = 1
    domain: int = -1
    ref_nodes: np.ndarray
    box: np.ndarray
    faces: tuple = ()
    edges: tuple = ()
    rules: dict = {}
    lumping: str = "row-sum"

    @staticmethod
    def fill(x, y, z, N, dN) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ derived
    @classmethod
    def tables(cls, use: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N (nq, n), dN (nq, n, 3), weights (nq,)) at the points of ``rules[use]``."""
        return _tables(cls, use)

    @classmethod
    def face_types(cls) -> tuple[str, ...]:
        """meshio cell name of every face (``triangle``, ``quad``, ``triangle6``, ``quad8``)."""
        return tuple(FACE_TYPES[len(f)] for f in cls.faces)

    @classmethod
    def centroid(cls) -> np.ndarray:
        """Reference point used to start the inverse map (mean of the corner nodes)."""
        corners = cls.nnodes if cls.order == 1 else cls.nnodes - len(cls.edges)
        return cls.ref_nodes[:corners].mean(axis=0)

    @classmethod
    def inside(cls, xi, tol: float = 0.0) -> np.ndarray:
        """Is each reference point (p, 3) inside the reference domain (within ``tol``)?"""
        x, y, z = np.asarray(xi, dtype=float).reshape(-1, 3).T
        if cls.domain == SIMPLEX:
            return (x >= -tol) & (y >= -tol) & (z >= -tol) & (x + y + z <= 1 + tol)
        if cls.domain == PYRAMID:
            return (z >= -tol) & (z <= 1 + tol) & (np.abs(x) <= 1 - z + tol) & (np.abs(y) <= 1 - z + tol)
        if cls.domain == PRISM:
            return (x >= -tol) & (y >= -tol) & (x + y <= 1 + tol) & (np.abs(z) <= 1 + tol)
        return np.all(np.abs(np.column_stack([x, y, z])) <= 1 + tol, axis=1)


def evaluate(fill, nnodes: int, points, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Run an element's ``fill`` over points (p, dim): (N (p, n), dN (p, n, dim))."""
    pts = np.asarray(points, dtype=float).reshape(-1, dim)
    N = np.empty((nnodes, pts.shape[0]))
    dN = np.empty((nnodes, dim, pts.shape[0]))
    fill(*pts.T, N, dN)
    return N.T.copy(), np.ascontiguousarray(dN.transpose(2, 0, 1))


@lru_cache(maxsize=None)
def _tables(cls, use: str):
    rule: Rule = cls.rules[use]
    N, dN = evaluate(cls.fill, cls.nnodes, rule.points, 3)
    for a in (N, dN):
        a.setflags(write=False)
    return N, dN, rule.weights


def quadratic_faces(linear_faces, edges) -> tuple:
    """Faces of a quadratic element: the corner cycle of each linear face followed by the
    mid-edge node of each consecutive corner pair (meshio triangle6 / quad8 order)."""
    where = {frozenset(e): k for k, e in edges}
    out = []
    for face in linear_faces:
        mids = [where[frozenset((face[i], face[(i + 1) % len(face)]))] for i in range(len(face))]
        out.append(tuple(face) + tuple(mids))
    return tuple(out)


def mid_nodes(corners: np.ndarray, edges) -> np.ndarray:
    """Reference nodes of a quadratic element: corners then the midpoints of ``edges``."""
    return np.vstack([corners] + [0.5 * (corners[a] + corners[b]) for _, (a, b) in edges])


class QuadraticElement(Element):
    """A second-order element derived from its linear one: subclasses set ``linear``,
    ``edges`` ((node, (corner a, corner b)), ...), ``name``, ``code``, ``rules`` and
    ``fill``; nodes, faces, domain and box follow from ``linear`` and ``edges``."""
    order = 2
    lumping = "hrz"
    linear: type[Element]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.domain, cls.box = cls.linear.domain, cls.linear.box
        cls.ref_nodes = mid_nodes(cls.linear.ref_nodes, cls.edges)
        cls.nnodes = cls.ref_nodes.shape[0]
        cls.faces = quadratic_faces(cls.linear.faces, cls.edges)
