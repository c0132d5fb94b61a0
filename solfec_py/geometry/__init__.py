"""Geometry primitives and their maths (layer 1): convex polyhedra, first-order meshes,
spheres, ellipsoids, mass properties, the HEX/PIPE generators and convex hulls.
Reference: Solfec-1.0 user manual, geometric objects, shape utilities, docs/integrators.md.

Every primitive class (Convex, Mesh, Sphere, Ellip) offers the same small interface:
`copy()`, `transform(A, b)`, `scale(coefs)`, `set_rigid_motion(R, xc, X0)`,
`bounding_box()`, `surface_triangles()` and `contains(point)`.
"""
from __future__ import annotations

from solfec_py.errors import GeometryError

__all__ = ["GeometryError"]   # defined with the other errors; imported here for old users
