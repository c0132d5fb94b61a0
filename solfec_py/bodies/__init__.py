"""Body kinds (layer 3): the registry `BODY_KINDS` maps Solfec's kind names to the block
class that stores and steps them (one module per kind, as bod.c / fem.c split them).
Kinds whose block is None are part of the language but not implemented yet.
"""
from __future__ import annotations

from dataclasses import dataclass

from solfec_py.bodies.obstacle import OBSTACLE_SCHEMES
from solfec_py.bodies.pseudo_rigid import SCHEMES as PSEUDO_RIGID_SCHEMES, PseudoRigidBlock
from solfec_py.bodies.rigid import RigidBlock
from solfec_py.bodies.rigid_schemes import RIGID_SCHEMES


@dataclass(frozen=True)
class KindSpec:
    family: str            # bodies of one family share a block
    block: type | None     # BodyBlock subclass, None = not available yet
    conf_size: int
    velo_size: int
    default_scheme: str    # what BODY.scheme reads after 'DEFAULT'
    schemes: tuple         # values BODY.scheme accepts for this kind


BODY_KINDS = {
    "OBSTACLE": KindSpec("rigid", RigidBlock, 12, 6, "DEF_EXP", OBSTACLE_SCHEMES),
    "RIGID": KindSpec("rigid", RigidBlock, 12, 6, "RIG_NEG", tuple(RIGID_SCHEMES)),
    "PSEUDO_RIGID": KindSpec("pseudo_rigid", PseudoRigidBlock, 12, 12, "DEF_EXP", tuple(PSEUDO_RIGID_SCHEMES)),
    "FINITE_ELEMENT": KindSpec("finite_element", None, 0, 0, "DEF_EXP", ("DEF_EXP", "DEF_LIM")),
}
