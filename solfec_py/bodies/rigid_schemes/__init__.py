"""The rigid time-integration schemes (layer 3): `SCHEMES` maps every BODY.scheme value of a
rigid body to its scheme object; `SCHEME_CODES` are the int8 codes the rigid block stores
per body. Codes are append-only (a new scheme gets the next code; none is ever reused).
Reference: docs/integrators.md.

    RIG_POS, RIG_NEG, RIG_IMP     Solfec's schemes (Koziara & Bicanic 2009)       solfec.py
    LFPC                          leapfrog predictor, trapezoidal corrector        leapfrog.py
    DIRK1 ... DIRK4               diagonally implicit Runge-Kutta                  dirk.py
    LSV_EXPLICIT, LSV_IMPLICIT    Lie-Stormer-Verlet                               lie_verlet.py
    GEN_ALPHA                     Lie-group generalized-alpha                      gen_alpha.py
    PRESCRIBED                    obstacles driven by PRESCRIBED_MOTION (internal)  prescribed.py
    ARTICULATED                   links of JOINT trees, joint coordinates (internal) articulated.py
    ARTICULATED_GEN_ALPHA         the same with GEN_ALPHA (internal; BODY.scheme      articulated.py
                                  of such links reads GEN_ALPHA)
    ARTICULATED_RK4               the same with classical Runge-Kutta (internal;     articulated.py
                                  BODY.scheme of such links reads RK4)
"""
from __future__ import annotations

from solfec_py.bodies.rigid_schemes.base import OneStepScheme, RigidScheme
from solfec_py.bodies.rigid_schemes.articulated import Articulated, ArticulatedGenAlpha, ArticulatedRk4
from solfec_py.bodies.rigid_schemes.dirk import Dirk, Dirk1, Dirk2, Dirk3, Dirk4
from solfec_py.bodies.rigid_schemes.gen_alpha import GenAlpha
from solfec_py.bodies.rigid_schemes.leapfrog import Lfpc
from solfec_py.bodies.rigid_schemes.lie_verlet import LsvExplicit, LsvImplicit
from solfec_py.bodies.rigid_schemes.prescribed import Prescribed
from solfec_py.bodies.rigid_schemes.solfec import RigImp, RigNeg, RigPos, SolfecScheme

# the position in this tuple is the stored code: append only
_BY_CODE = (RigPos, RigNeg, RigImp, Lfpc, Dirk1, Dirk2, Dirk3, Dirk4, LsvExplicit, LsvImplicit, GenAlpha,
            Prescribed, Articulated, ArticulatedGenAlpha, ArticulatedRk4)

SCHEMES = {cls.name: cls() for cls in _BY_CODE}
SCHEME_CODES = {name: code for code, name in enumerate(SCHEMES)}
SCHEME_LIST = list(SCHEMES.values())
# the values BODY.scheme accepts for a RIGID body (PRESCRIBED is set by PRESCRIBED_MOTION,
# ARTICULATED by JOINT)
RIGID_SCHEMES = tuple(name for name in SCHEMES if name not in (Prescribed.name, Articulated.name,
                                                                ArticulatedGenAlpha.name, ArticulatedRk4.name))
# BODY.scheme values of the links of JOINT trees -> their internal scheme
LINK_SCHEMES = {cls.USER: cls.name for cls in (Articulated, ArticulatedGenAlpha, ArticulatedRk4)}
CARRY_WIDTH = max(cls.CARRY for cls in _BY_CODE)


def _fields() -> dict:
    fields: dict = {}
    for cls in _BY_CODE:
        for name, spec in cls.FIELDS.items():
            if fields.setdefault(name, spec) != spec:     # a programming error
                raise ImportError(f"rigid scheme field {name!r} declared twice with different shapes")
    return fields


SCHEME_FIELDS = _fields()

__all__ = ["SCHEMES", "SCHEME_CODES", "SCHEME_LIST", "RIGID_SCHEMES", "LINK_SCHEMES", "CARRY_WIDTH", "SCHEME_FIELDS",
           "RigidScheme", "OneStepScheme", "SolfecScheme", "Dirk", "Dirk1", "Dirk2", "Dirk3", "Dirk4",
           "GenAlpha", "Lfpc", "LsvExplicit", "LsvImplicit", "Prescribed", "RigPos", "RigNeg", "RigImp"]
