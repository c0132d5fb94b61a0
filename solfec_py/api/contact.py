"""Contact detection settings of a deck (layer 7): CONTACT_EXCLUDE_BODIES,
CONTACT_EXCLUDE_SURFACES, CONTACT_SPARSIFY and solfec-py's CONTACT_POINTS and OVERLAP_CORRECTION. Reference: Solfec-1.0 user manual,
utilities (Solfec lng.c CONTACT_EXCLUDE_*), docs/contact.md (body pairs filtered before the narrow phase,
surface pairs after it; contact points).
"""
from __future__ import annotations

from solfec_py import session, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.solfec import require_solfec
from solfec_py.contact.polygon_points import MODES as POINT_MODES
from solfec_py.contact.sparsify import Settings
from solfec_py.errors import InputError
from solfec_py.solvers import overlap_correction as OC

__all__ = ["CONTACT_EXCLUDE_BODIES", "CONTACT_EXCLUDE_SURFACES", "CONTACT_SPARSIFY", "CONTACT_POINTS",
           "OVERLAP_CORRECTION"]


@V.command
def CONTACT_EXCLUDE_BODIES(body1, body2):
    """No contact between two bodies.

    ``CONTACT_EXCLUDE_BODIES(body1, body2)``: contact detection skips the pair (contacts it
    has now are dropped once the bodies separate).

    Parameters
    ----------
    body1, body2 : BODY
        Of the same SOLFEC object.

    Raises
    ------
    InputTypeError, InputError
        Not live BODY objects, bodies of different SOLFEC objects.

    Examples
    --------
    >>> CONTACT_EXCLUDE_BODIES(wheel, axle)
    """
    b1, b2 = require_body("body1", body1), require_body("body2", body2)
    if b1.block.domain is not b2.block.domain:
        raise InputError(f"Bodies from different domains: bodies {b1.id} and {b2.id} belong to"
                         " different SOLFEC objects")
    b1.block.domain.excluded_bodies.add((min(b1.id, b2.id), max(b1.id, b2.id)))
    return None


@V.command
def CONTACT_EXCLUDE_SURFACES(solfec, surf1, surf2):
    """No contact between two surfaces.

    ``CONTACT_EXCLUDE_SURFACES(solfec, surf1, surf2)``: contacts between faces with ids
    ``surf1`` and ``surf2`` (an unordered pair) are not made.

    Parameters
    ----------
    solfec : SOLFEC
    surf1, surf2 : int

    Raises
    ------
    InputTypeError
        Ids that are not integers.

    Examples
    --------
    >>> CONTACT_EXCLUDE_SURFACES(sol, 3, 4)
    """
    domain = require_solfec("solfec", solfec)
    a, b = V.integer("surf1", surf1), V.integer("surf2", surf2)
    domain.excluded_surfaces.add((min(a, b), max(a, b)))
    return None


@V.command
def CONTACT_SPARSIFY(solfec, threshold=V.MISSING, minarea=V.MISSING, mindist=V.MISSING):
    """Settings of the sparsification of new contacts (on by default).

    ``CONTACT_SPARSIFY(solfec | threshold, minarea, mindist)``: of the contacts new in a step,
    those with an area below ``minarea`` are dropped, as are those much smaller (area ratio
    below ``threshold``) than an adjacent contact between the same two bodies, and those
    closer than ``2 mindist`` to another contact of one of their bodies. Fewer, better-spread
    contacts make the solvers faster (docs/contact.md).

    Parameters
    ----------
    solfec : SOLFEC
    threshold : float, optional
        In [0, 1] (default 0.01; 0 turns the area-ratio rule off).
    minarea : float, optional
        [area]. >= 0 (default 0).
    mindist : float, optional
        [length]. >= 0 (default GEOMETRIC_EPSILON).

    Raises
    ------
    InputTypeError, InputError
        A threshold outside [0, 1], negative areas or distances.

    Examples
    --------
    >>> CONTACT_SPARSIFY(sol, 0.005)
    """
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
    """How many points a contact between two convex objects gets (a solfec-py command).

    ``mode = CONTACT_POINTS(solfec | mode)``: with 'CENTROID' (the default, as Solfec) a pair
    of convex objects touches at one point, the centroid of their intersection; with
    'POLYGON' a flat face-face intersection gets up to four points spanning its polygon, the
    area shared between them, so that a box resting or sliding on a face does not rock about
    a single point (docs/contact.md). The mode applies to contacts created after the call.

    Parameters
    ----------
    solfec : SOLFEC
    mode : str, optional
        'CENTROID' or 'POLYGON'; omitted, the mode in force is only returned.

    Returns
    -------
    str
        The mode in force.

    Raises
    ------
    InputTypeError, InputError
        Not a SOLFEC object; a mode other than the two above (the message lists them).

    Examples
    --------
    >>> CONTACT_POINTS(sol, 'POLYGON')
    'POLYGON'
    """
    domain = require_solfec("solfec", solfec)
    if V.given(mode):
        domain.contact_points = V.choice("mode", mode, POINT_MODES, what="contact points mode")
    return domain.contact_points


@V.command
def OVERLAP_CORRECTION(solfec, fraction=V.MISSING, slop=V.MISSING):
    """Remove contact overlaps by moving bodies, without changing velocities (a solfec-py command).

    ``OVERLAP_CORRECTION(solfec | fraction, slop)``: after every dynamic step, a frictionless
    normal-only complementarity problem on the step's local dynamics W finds pseudo-reactions
    R' >= 0 with (W R')_N >= fraction max(-g - slop, 0) / h at every contact (g the gap at the
    end of the step), and the bodies' configurations move by h M^-1 H^T R' (positions and
    rotations; the velocities, the kinetic energy and the momentum are not changed). Each step
    thus removes about ``fraction`` of every overlap deeper than ``slop``: an overlap decays
    as (1 - fraction)^k. Solfec's velocity-level contact law stops the approach of
    overlapping bodies but never removes their overlap, so stacks settle lower than they
    should by the overlaps of their landings (docs/contact.md, "Overlap correction"). This is
    not Solfec's method and is off by default; ``fraction = 0`` switches it off again.
    RIGID and PSEUDO_RIGID bodies are corrected; a step with FINITE_ELEMENT bodies or links
    of JOINT trees in overlapping contact raises NotAvailableError. Quasi-static runs ignore
    it (it is built for the dynamic step only).

    Parameters
    ----------
    solfec : SOLFEC
    fraction : float, optional
        [dimensionless]. Share of the overlap removed per step, in [0, 1] (default 0.5,
        measured on S2's cube stacks; 1.0 overshoots). 0 switches it off.
    slop : float, optional
        [length]. Overlap left alone, >= 0 (default 0.0: the whole overlap is corrected).
        Bodies resting on single contact points (CONTACT_POINTS 'CENTROID', e.g. HEX 1x1x1
        boxes) carry rocking moments through their overlap; without a slop the correction
        feeds their rocking, so give them a slop of the order of that overlap (3e-5 m for
        0.1 m cubes; docs/contact.md).

    Returns
    -------
    None

    Raises
    ------
    InputTypeError, InputError
        Not a SOLFEC object; ``fraction`` not a number in [0, 1]; ``slop`` negative or not a
        number.
    NotAvailableError
        FINITE_ELEMENT bodies (or JOINT trees) already in the domain.

    Examples
    --------
    >>> OVERLAP_CORRECTION(sol)                      # fraction 0.5, slop 0
    >>> OVERLAP_CORRECTION(sol, fraction=0.5, slop=3e-5)     # stacks of 0.1 m boxes
    >>> OVERLAP_CORRECTION(sol, 0.0)                 # off (Solfec's behaviour)
    """
    domain = require_solfec("solfec", solfec)
    default = OC.Settings()
    value = V.number("fraction", fraction) if V.given(fraction) else default.fraction
    if not 0.0 <= value <= 1.0:
        raise InputError(f"'fraction' must be a number in [0, 1] (the share of an overlap removed per step),"
                         f" got {value!r}")
    gap = V.nonnegative("slop", slop) if V.given(slop) else default.slop
    if value == 0.0:
        domain.overlap_correction = None
        return None
    OC.check_kinds(domain)
    domain.overlap_correction = OC.Settings(fraction=value, slop=gap)
    return None
