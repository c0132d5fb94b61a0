"""The deck language (layer 7): `NAMES` maps every name Solfec-1.0 pre-imports into a
deck (Solfec-1.0 user manual, the deck namespace) to its solfec-py object. The runner injects NAMES into the deck's
globals; the top-level module `solfec` re-exports them for `from solfec import *`.
"""
from __future__ import annotations

# Solfec's manual order (plus the CONSTRAINT type and solfec-py's MESH_IMPORT; the last line:
# solfec-py's SWEEP_RESULT (docs/sweeps.md), PRESCRIBED_MOTION (docs/integrators.md),
# CONTACT_POINTS (docs/contact.md), JOINT (docs/joints.md) and OVERLAP_CORRECTION (docs/contact.md))
DECK_NAMES = """
CONVEX HULL MESH2CONVEX MESH HEX TETRAHEDRALIZE PIPE ELLIP_MESH ROUGH_HEX SPHERE ELLIP MESH_IMPORT
SOLFEC FIELD SURFACE_MATERIAL BULK_MATERIAL BODY TIME_SERIES GAUSS_SEIDEL_SOLVER
PENALTY_SOLVER NEWTON_SOLVER TEST_SOLVER FIX_POINT FIX_DIRECTION SET_DISPLACEMENT
SET_DISPLACEMENT3 SET_VELOCITY SET_VELOCITY3 SET_ACCELERATION SET_ACCELERATION3
PUT_RIGID_LINK PUT_SPRING GRAVITY FORCE TORQUE PRESSURE SIMPLIFIED_CRACK
IMBALANCE_TOLERANCE RANK BARRIER NCPU HERE VIEWER SUBDIR BODY_CHARS INITIAL_VELOCITY
APPLY_BULKMAT DELETE SCALE TRANSLATE ROTATE SPLIT MESH_SPLIT RT_SPLIT COPY BEND BYLABEL
MASS_CENTER CONTACT_EXCLUDE_BODIES CONTACT_EXCLUDE_SURFACES CONTACT_SPARSIFY RUN OUTPUT
EXTENTS REGISTER_CALLBACK CALLBACK UNPHYSICAL_PENETRATION GEOMETRIC_EPSILON WARNINGS
INITIALIZE_STATE RIGID_TO_FEM LOCDYN_DUMP OVERLAPPING MBFCP_EXPORT NON_SOLFEC_ARGV
MODAL_ANALYSIS BODY_MM_EXPORT DISPLAY_POINT FRACTURE_EXPORT_YAFFEMS DURATION RENDER
XDMF_EXPORT SOLFEC_EXPORT REGISTER_BASE COROTATED_DISPLACEMENTS RIGID_DISPLACEMENTS
FORWARD BACKWARD SEEK DISPLACEMENT VELOCITY STRESS ENERGY TIMING HISTORY CONSTRAINT
SWEEP_RESULT PRESCRIBED_MOTION CONTACT_POINTS JOINT OVERLAP_CORRECTION
""".split()


def _collect() -> dict:
    from solfec_py.api import (body, constraints, contact, exports, joints, loads, materials, mesh_generators, mesh_io,
                               fe_export, fracture, fracture_export, misc, modal, motion, navigation, prescribed, render, results, run, series, shape_ops, shapes,
                               solfec, solvers, sweep, unavailable)

    names = dict(unavailable.NAMES)
    for module in (shapes, mesh_generators, mesh_io, shape_ops, solfec, materials, body, series, solvers, loads,
                   misc, run, navigation, constraints, prescribed, contact, results, render, sweep, motion, joints, modal,
                   fe_export, exports, fracture, fracture_export):
        for name in DECK_NAMES:
            if hasattr(module, name):
                names[name] = getattr(module, name)
    for name in ("SICONOS_SOLVER", "HYBRID_SOLVER"):
        if hasattr(solvers, name):
            names[name] = getattr(solvers, name)
    missing = [n for n in DECK_NAMES if n not in names]
    if missing:  # a programming error, caught by the test suite
        raise ImportError(f"deck names without an implementation: {missing}")
    return names


NAMES = _collect()

from solfec_py import compilation  # noqa: E402,F401  (numba's compile events: the first run's notice)
__all__ = sorted(NAMES)
globals().update(NAMES)
