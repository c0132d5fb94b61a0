"""Element types as data (layer 1), keyed by meshio cell names.
Reference: Solfec-1.0 fem.c / msh.c (first-order elements and face tables); docs/fem.md.

``ELEMENTS`` maps the meshio cell name to the element class; ``BY_CODE`` lists them by
their kernel code; ``FIRST_ORDER`` maps Solfec's node counts 4/5/6/8 to the linear types.
"""
from __future__ import annotations

from solfec_py.errors import InputError
from solfec_py.fem.elements.base import CUBE, FACE_TYPES, PRISM, PYRAMID, SIMPLEX, Element, QuadraticElement
from solfec_py.fem.elements.faces import FACE_ELEMENTS, FaceElement, Quad4, Quad8, Tri3, Tri6
from solfec_py.fem.elements.hex import Hex8, Hex20
from solfec_py.fem.elements.pyramid import Pyr5
from solfec_py.fem.elements.tet import Tet4, Tet10
from solfec_py.fem.elements.wedge import Wed6, Wed15

ELEMENTS = {c.name: c for c in (Tet4, Pyr5, Wed6, Hex8, Tet10, Hex20, Wed15)}
BY_CODE = tuple(sorted(ELEMENTS.values(), key=lambda c: c.code))
FIRST_ORDER = {c.nnodes: c for c in (Tet4, Pyr5, Wed6, Hex8)}

assert [c.code for c in BY_CODE] == list(range(len(BY_CODE)))


def element(name: str) -> type[Element]:
    """The element class of a meshio cell name; unknown names list the known ones."""
    try:
        return ELEMENTS[name]
    except (KeyError, TypeError):
        raise InputError(f"Invalid element type {name!r}; expected one of {sorted(ELEMENTS)}") from None


__all__ = ["ELEMENTS", "BY_CODE", "FIRST_ORDER", "FACE_ELEMENTS", "FACE_TYPES", "element", "Element",
           "QuadraticElement", "FaceElement", "Tet4", "Pyr5", "Wed6", "Hex8", "Tet10", "Hex20", "Wed15", "Tri3", "Quad4",
           "Tri6", "Quad8", "SIMPLEX", "PYRAMID", "PRISM", "CUBE"]
