"""Finite-element mathematics (layer 1): element types, quadrature rules, the
Saint Venant-Kirchhoff law and numba kernels over groups of elements in flat arrays.
Nothing here knows about bodies, domains or the deck API; docs/fem.md describes the
elements and the array contracts of the kernels.

Modules: ``elements`` (element types as data, ``ELEMENTS``), ``quadrature`` (rules),
``laws`` (``LAWS``), ``kernels`` (reference data, internal force, tangent, mass, critical
step), ``points`` (shape functions at points, inverse map, point location, stress),
``surface`` (face normals and surface loads), ``assembly`` (CSR pattern of the tangent),
``pseudo_rigid`` (homogeneous-deformation helpers), ``blocks`` (structured meshes of every
element type). numba is imported by ``laws`` and the kernel modules only; ``elements`` and
``quadrature`` are plain numpy (geometry/mesh_tables derives its MESH tables from them).
"""
