"""Bulk and surface materials (layer 2): the Saint Venant-Kirchhoff parameters of
BULK_MATERIAL, the one check of what a deformable body needs of them, and the per-domain
table of SURFACE_MATERIAL pairs with Solfec's lookup order (Solfec-1.0 user manual,
SURFACE_MATERIAL, BULK_MATERIAL; Solfec mat.c, sps.c).

Bodies point at their BulkMaterial record, as Solfec-1.0's bodies point at theirs
(bod.c BODY_Create: `bod->mat = mat`; lng.c's setters write that record): the elastic
constants a body uses are the record's as they are when its forces are computed; its mass
is computed from the density when it is made (docs of BULK_MATERIAL state the rule).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from solfec_py.errors import InputError

ANY_SURFACE = 2147483647  # INT_MAX: "any surface" in Solfec's pair table
BULK_MODELS = ("KIRCHHOFF", "TSANG_MARSDEN")
SURFACE_MODELS = ("SIGNORINI_COULOMB", "SPRING_DASHPOT")


@dataclass
class BulkMaterial:
    label: str
    model: str = "KIRCHHOFF"
    young: float = 1e9
    poisson: float = 0.25
    density: float = 1e3
    tensile: float = float("inf")
    fracene: float = float("inf")
    fields: tuple = ()
    handle: object = field(default=None, repr=False, compare=False)  # the deck's BULK_MATERIAL

    def lame(self) -> tuple[float, float]:
        """Lamé constants (lambda, mu) of the Saint Venant-Kirchhoff law."""
        E, nu = self.young, self.poisson
        return E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))


DEFORMABLE = {"PSEUDO_RIGID": "a pseudo-rigid body", "FINITE_ELEMENT": "a finite-element body"}
ELASTIC_RULE = "young > 0 and poisson < 0.5"


def elastic_fault(young: float, poisson: float) -> str | None:
    """What keeps a Saint Venant-Kirchhoff body from using (young, poisson), or None: its
    bulk modulus is infinite at poisson 0.5 and negative above, a zero young has no
    stiffness (no vibration, no critical step)."""
    if not poisson < 0.5:
        return f"poisson {poisson!r} (the bulk modulus is infinite at poisson 0.5 and negative above)"
    if not young > 0:
        return f"young {young!r} (no stiffness)"
    return None


def check_for_kind(kind: str, label: str, young: float, poisson: float, who: str) -> None:
    """The one check of a material for a body of `kind`, used by BODY, APPLY_BULKMAT and the
    BULK_MATERIAL setters and constructor (when bodies use the material): deformable kinds
    need ELASTIC_RULE; rigid bodies and obstacles use the density only. `who` starts the
    message (the command and argument, or the body)."""
    if kind not in DEFORMABLE:
        return
    fault = elastic_fault(young, poisson)
    if fault is not None:
        raise InputError(f"{who}: {DEFORMABLE[kind]} needs a material with {ELASTIC_RULE}; BULK_MATERIAL"
                         f" {label!r} has {fault}")


@dataclass
class SurfaceMaterial:
    surf1: int = ANY_SURFACE
    surf2: int = ANY_SURFACE
    label: str = "DEFAULT"
    model: str = "SIGNORINI_COULOMB"
    friction: float = 0.0
    cohesion: float = 0.0
    restitution: float = 0.0
    spring: float = 0.0
    dashpot: float = 0.0
    hpow: float = 1.0
    handle: object = field(default=None, repr=False, compare=False)  # the deck's SURFACE_MATERIAL


PARAMETERS = ("model", "friction", "cohesion", "restitution", "spring", "dashpot", "hpow")


@dataclass
class SurfaceMaterialTable:
    """Unordered surface-id pairs -> SurfaceMaterial; entry 0 is the built-in 'DEFAULT'."""

    entries: list = field(default_factory=lambda: [SurfaceMaterial()])

    @staticmethod
    def _key(a: int, b: int) -> frozenset:
        return frozenset((a, b))

    def find(self, surf1: int, surf2: int) -> SurfaceMaterial | None:
        key = self._key(surf1, surf2)
        for entry in self.entries:
            if self._key(entry.surf1, entry.surf2) == key:
                return entry
        return None

    def insert(self, surf1: int, surf2: int, label: str | None, **params) -> SurfaceMaterial:
        """Insert a pair or overwrite an existing pair's parameters (label kept unless given)."""
        entry = self.find(surf1, surf2)
        if entry is None:
            entry = SurfaceMaterial(surf1, surf2, label or f"SURFACE_MATERIAL_{len(self.entries)}")
            self.entries.append(entry)
        elif label is not None:
            entry.label = label
        base = replace(SurfaceMaterial(), **params)
        for name in PARAMETERS:
            setattr(entry, name, getattr(base, name))
        return entry

    def lookup(self, surf1: int, surf2: int) -> SurfaceMaterial:
        """Material of a contact between surfaces: exact pair, (s1, any), (s2, any), default."""
        for a, b in ((surf1, surf2), (surf1, ANY_SURFACE), (surf2, ANY_SURFACE)):
            entry = self.find(a, b)
            if entry is not None:
                return entry
        return self.find(ANY_SURFACE, ANY_SURFACE)

    def by_label(self, label: str) -> SurfaceMaterial | None:
        for entry in self.entries:
            if entry.label == label:
                return entry
        return None
