"""Body kinds (layer 3): the registry `BODY_KINDS` maps Solfec's kind names to the block
class that stores and steps them (one module per kind, as bod.c / fem.c split them), with
every per-kind fact the other layers need (family, stored kind code, state sizes, schemes).
Kinds whose block is None are part of the language but not implemented yet.
"""
from __future__ import annotations

from dataclasses import dataclass

from solfec_py.bodies.obstacle import OBSTACLE_SCHEMES
from solfec_py.bodies.finite_element import SCHEMES as FINITE_ELEMENT_SCHEMES, FiniteElementBlock
from solfec_py.bodies.pseudo_rigid import SCHEMES as PSEUDO_RIGID_SCHEMES, PseudoRigidBlock
from solfec_py.bodies.rigid import RigidBlock
from solfec_py.bodies.rigid_schemes import RIGID_SCHEMES


@dataclass(frozen=True)
class KindSpec:
    family: str            # bodies of one family share a block
    block: type | None     # BodyBlock subclass, None = not available yet
    code: int              # kind code stored in results files (1-based, never reused)
    conf_size: int | None  # None: depends on the body (3 per node of a finite-element mesh)
    velo_size: int | None
    default_scheme: str    # what BODY.scheme reads after 'DEFAULT'
    schemes: tuple         # values BODY.scheme accepts for this kind


BODY_KINDS = {
    "OBSTACLE": KindSpec("rigid", RigidBlock, 1, 12, 6, "DEF_EXP", OBSTACLE_SCHEMES),
    "RIGID": KindSpec("rigid", RigidBlock, 2, 12, 6, "RIG_NEG", tuple(RIGID_SCHEMES)),
    "PSEUDO_RIGID": KindSpec("pseudo_rigid", PseudoRigidBlock, 3, 12, 12, "DEF_EXP", tuple(PSEUDO_RIGID_SCHEMES)),
    "FINITE_ELEMENT": KindSpec("finite_element", FiniteElementBlock, 4, None, None, "DEF_EXP", tuple(FINITE_ELEMENT_SCHEMES)),
}

KIND_BY_CODE = {spec.code: name for name, spec in BODY_KINDS.items()}


def families() -> dict:
    """Family name -> (conf size, velo size) of its rows, or None when they differ per body."""
    out: dict = {}
    for spec in BODY_KINDS.values():
        sizes = None if spec.conf_size is None else (spec.conf_size, spec.velo_size)
        out.setdefault(spec.family, sizes)
    return out


def family_of(kind: str) -> str:
    return BODY_KINDS[kind].family
