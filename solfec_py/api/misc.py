"""Global settings, the serial answers of Solfec's parallel helpers and the model-wide
lookups: GEOMETRIC_EPSILON, WARNINGS, VIEWER, RANK, NCPU, HERE, BARRIER, SUBDIR,
NON_SOLFEC_ARGV, IMBALANCE_TOLERANCE, REGISTER_CALLBACK, DISPLAY_POINT, DELETE, BYLABEL
(layer 7). Reference: Solfec-1.0 user manual, REGISTER_CALLBACK, WARNINGS, utilities.
"""
from __future__ import annotations

from solfec_py import session, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.constraints import is_constraint
from solfec_py.api.materials import bulk_material_object, surface_material_object
from solfec_py.api.solfec import require_solfec
from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError


@V.command
def GEOMETRIC_EPSILON(epsilon):
    """Global geometric tolerance (default 1e-6), captured by objects created afterwards."""
    session.current().geometric_epsilon = V.positive("epsilon", epsilon)


@V.command
def WARNINGS(state):
    session.current().warnings = V.on_off("state", state, what="state (only 'ON' or 'OFF' are valid)")


@V.command
def VIEWER():
    """Always False: solfec-py has no OpenGL viewer (results open in ParaView)."""
    return False


@V.command
def RANK():
    return 0


@V.command
def BARRIER():
    return True


@V.command
def NCPU(solfec=V.MISSING):
    if V.given(solfec):
        require_solfec("solfec", solfec)
    return 1


def HERE(*args, **kwargs):
    """Serial build: every object lives here (arguments are not checked, as in Solfec)."""
    return True


@V.command
def SUBDIR():
    return session.current().subdir


@V.command
def NON_SOLFEC_ARGV():
    """Extra command-line words after the deck, or None when there are none."""
    words = session.current().extra_argv
    return list(words) if words else None


@V.command
def IMBALANCE_TOLERANCE(solfec, tolerance, weightfactor=V.MISSING, updatefreq=V.MISSING):
    """MPI load balancing: validated and ignored in serial runs."""
    require_solfec("solfec", solfec)
    V.positive("tolerance", tolerance)
    if V.given(weightfactor):
        w = V.number("weightfactor", weightfactor)
        if not 0 <= w <= 1:
            raise InputTypeError(f"'weightfactor' must be a number >= 0 and <= 1, got {w!r}")
    if V.given(updatefreq):
        if V.integer("updatefreq", updatefreq) < 1:
            raise InputTypeError(f"'updatefreq' must be >= 1, got {updatefreq!r}")
    return True


def REGISTER_CALLBACK(*args, **kwargs):
    """Serial build: nothing to register (Solfec does not even parse the arguments)."""
    return None


@V.command
def DISPLAY_POINT(body, point, label=V.MISSING):
    """Attach a labelled referential point, reported by BODY.display_points."""
    body = require_body("body", body)
    X = V.point("point", point)
    lab = None if not V.given(label) else V.string("label", label)
    if not any(p.contains(X) for p in body.shape):
        raise InputError(f"Point outside of the body: 'point' {point!r} is not inside body {body.id}")
    body.display_points_list.append((lab, X))


@V.command
def DELETE(solfec, object):
    """Remove a BODY (with its constraints and loads) or a CONSTRAINT from the model."""
    domain = require_solfec("solfec", solfec)
    if isinstance(object, Body):
        if object.deleted:
            raise InputTypeError(f"'object' is a recently deleted BODY object (id {object.id})")
        if object.block.domain is not domain:
            raise InputError(f"'object' (body {object.id}) belongs to another SOLFEC object")
        domain.delete(object)
        return None
    if is_constraint(object):
        object.delete()
        return None
    raise InputTypeError(f"'object' must be a BODY or a CONSTRAINT object, got {V.describe(object)}")


@V.command
def BYLABEL(solfec, kind, label):
    """The SURFACE_MATERIAL, BULK_MATERIAL, FIELD or BODY with `label`, or None."""
    domain = require_solfec("solfec", solfec)
    kind = V.choice("kind", kind, ("SURFACE_MATERIAL", "BULK_MATERIAL", "FIELD", "BODY"), what="object kind")
    label = V.string("label", label)
    if kind == "BODY":
        return domain.labels.get(label)
    if kind == "SURFACE_MATERIAL":
        return surface_material_object(domain, label)
    if kind == "BULK_MATERIAL":
        return bulk_material_object(domain, label)
    return domain.fields.get(label)
