"""Contact detection settings of a deck (layer 7): CONTACT_EXCLUDE_BODIES,
CONTACT_EXCLUDE_SURFACES, CONTACT_SPARSIFY and solfec-py's CONTACT_POINTS (docs/contact.md). Reference: LANGUAGE §14 (Solfec lng.c CONTACT_EXCLUDE_*),
NUMERICS §5.2 (body pairs filtered before the narrow phase, surface pairs after it).
"""
from __future__ import annotations

from solfec_py import session, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.solfec import require_solfec
from solfec_py.contact.polygon_points import MODES as POINT_MODES
from solfec_py.contact.sparsify import Settings
from solfec_py.errors import InputError

__all__ = ["CONTACT_EXCLUDE_BODIES", "CONTACT_EXCLUDE_SURFACES", "CONTACT_SPARSIFY", "CONTACT_POINTS"]


@V.command
def CONTACT_EXCLUDE_BODIES(body1, body2):
    """No contact detection between the two bodies (contacts they have now go at the next
    step's update only if the objects separate)."""
    b1, b2 = require_body("body1", body1), require_body("body2", body2)
    if b1.block.domain is not b2.block.domain:
        raise InputError(f"Bodies from different domains: bodies {b1.id} and {b2.id} belong to"
                         " different SOLFEC objects")
    b1.block.domain.excluded_bodies.add((min(b1.id, b2.id), max(b1.id, b2.id)))
    return None


@V.command
def CONTACT_EXCLUDE_SURFACES(solfec, surf1, surf2):
    """No contacts between surfaces `surf1` and `surf2` (an unordered pair of surface ids)."""
    domain = require_solfec("solfec", solfec)
    a, b = V.integer("surf1", surf1), V.integer("surf2", surf2)
    domain.excluded_surfaces.add((min(a, b), max(a, b)))
    return None


@V.command
def CONTACT_SPARSIFY(solfec, threshold=V.MISSING, minarea=V.MISSING, mindist=V.MISSING):
    """Sparsification of new contacts (NUMERICS §5.4): defaults 0.01, 0, GEOMETRIC_EPSILON."""
    domain = require_solfec("solfec", solfec)
    threshold = V.number("threshold", threshold) if V.given(threshold) else 0.01
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"'threshold' outside of [0, 1] bounds: got {threshold:g}")
    minarea = V.nonnegative("minarea", minarea) if V.given(minarea) else 0.0
    mindist = V.nonnegative("mindist", mindist) if V.given(mindist) else session.geometric_epsilon()
    domain.sparsify = Settings(threshold, minarea, mindist)
    return None


@V.command
def CONTACT_POINTS(solfec, mode=V.MISSING):
    """Contact points of convex object pairs: 'CENTROID' (default; Solfec's one point at the
    centroid of the intersection) or 'POLYGON' (a flat face-face intersection gets up to
    four points spanning its polygon, the area shared between them). Applies to contacts
    created after the call. Returns the mode in force (the current one when `mode` is
    omitted)."""
    domain = require_solfec("solfec", solfec)
    if V.given(mode):
        domain.contact_points = V.choice("mode", mode, POINT_MODES, what="contact points mode")
    return domain.contact_points
