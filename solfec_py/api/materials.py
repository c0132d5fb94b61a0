"""Materials and fields of a deck (layer 7): the FIELD, SURFACE_MATERIAL and BULK_MATERIAL
types, APPLY_BULKMAT, and the lookups other commands use (`bulk_material_of`, BYLABEL's
`bulk_material_object` / `surface_material_object`). Reference: Solfec-1.0 user manual, materials; Solfec-1.0 lng.c, where it departs from its manual
(Solfec lng.c FIELD / SURFACE_MATERIAL / BULK_MATERIAL types, mat.c, sps.c).

Each deck object is a thin handle over the record the numerical code reads
(`materials.BulkMaterial`, `materials.SurfaceMaterial`); the record points back at its
handle (`record.handle`), so the same label always gives the same Python object.
The three constructors return an existing object when they update one (label or surface
pair already present), which is why they are written as `__new__`.
"""
from __future__ import annotations

from typing import Any

from solfec_py import validate as V
from solfec_py.api.common import readonly, require_body
from solfec_py.api.solfec import require_solfec
from solfec_py.domain import Domain
from solfec_py.errors import InputError, InputTypeError
from solfec_py.materials import (ANY_SURFACE, BULK_MODELS, PARAMETERS, SURFACE_MODELS,
                                 BulkMaterial, SurfaceMaterial)

__all__ = ["FIELD", "SURFACE_MATERIAL", "BULK_MATERIAL", "APPLY_BULKMAT", "bulk_material_of",
           "bulk_material_object", "surface_material_object", "field_of"]


# --------------------------------------------------------------------------- FIELD

class FIELD:
    """A scalar field f(x, y, z, t) given by a Python function.

    ``FIELD(solfec, filed_callback | label, data)`` (``filed_callback`` is Solfec's spelling).
    The function is called as ``filed_callback(*data, x, y, z, t)`` when ``data`` is a tuple
    and as ``filed_callback(x, y, z, t)`` otherwise, and must return a number. A FIELD whose
    label exists already is updated and returned. Fields feed BULK_MATERIAL's ``fields``.

    Parameters
    ----------
    solfec : SOLFEC
    filed_callback : callable
    label : str, optional
        Default ``'FIELD_n'``.
    data : object, optional

    Attributes
    ----------
    label : str, read-only

    Raises
    ------
    InputTypeError
        A callback that is not callable, a label that is not a string.

    Examples
    --------
    >>> def temperature(x, y, z, t):
    ...     return 20.0 + 5.0 * z
    >>> f = FIELD(sol, temperature, 'temperature')
    >>> f.value(0, 0, 1, 0)
    25.0
    """

    __slots__ = ("_label", "callback", "data", "domain")

    @V.command(name="FIELD")
    def __new__(cls, solfec, filed_callback, label=V.MISSING, data=V.MISSING):
        domain = require_solfec("solfec", solfec)
        V.is_callable("filed_callback", filed_callback)
        label = f"FIELD_{len(domain.fields)}" if label is V.MISSING else V.string("label", label)
        obj = domain.fields.get(label)
        if obj is None:
            obj = super().__new__(cls)
            obj._label, obj.domain = label, domain
            domain.fields[label] = obj
        obj.callback = filed_callback
        obj.data = None if data is V.MISSING else data
        return obj

    @readonly
    def label(self):
        return self._label

    def value(self, x: float, y: float, z: float, t: float) -> float:
        """The field at point (x, y, z) and time t, as a float."""
        args = (*self.data, x, y, z, t) if isinstance(self.data, tuple) else (x, y, z, t)
        result = self.callback(*args)
        try:
            return float(result)
        except (TypeError, ValueError):
            raise InputTypeError(f"FIELD {self._label!r}: the callback must return a number,"
                                 f" got {V.describe(result)}") from None

    def __repr__(self) -> str:
        return f"FIELD({self._label!r})"


def field_of(name: str, value: Any, domain: Domain) -> FIELD:
    """A FIELD object of `domain` or the label of one."""
    if isinstance(value, FIELD):
        return value
    if isinstance(value, str) and value in domain.fields:
        return domain.fields[value]
    raise InputTypeError(f"'{name}' must be a FIELD object or a valid field label, got {V.describe(value)}")


# --------------------------------------------------------------------------- material handles

def _rw_record_number(name: str, doc: str, **bounds) -> property:
    """A number parameter of the record behind a material object, read-write; the setter
    raises TypeError on a bad value or one out of `bounds` (Solfec-1.0 user manual, SURFACE_MATERIAL)."""

    def getter(self):
        return getattr(self._record, name)

    def setter(self, value):
        setattr(self._record, name, V.setter_number(name, value, **bounds))

    return property(getter, setter, doc=doc)


class _MaterialHandle:
    """What SURFACE_MATERIAL and BULK_MATERIAL objects share: a thin handle over a record
    (`record`, `domain`), its read-only `label` and its `model`, writable through the
    subclass's `_model_check`."""

    __slots__ = ("_record", "domain")

    @staticmethod
    def _model_check(value: Any) -> str:  # pragma: no cover - each subclass has its own
        raise NotImplementedError

    @readonly
    def label(self):
        return self._record.label

    @property
    def model(self):
        return self._record.model

    @model.setter
    def model(self, value):
        self._record.model = self._model_check(value)


def _handle(cls, record, domain: Domain):
    """The one deck object of a material record (made on first use, kept in `record.handle`)."""
    if record.handle is None:
        obj = object.__new__(cls)
        obj._record, obj.domain = record, domain
        record.handle = obj
    return record.handle


# --------------------------------------------------------------------------- SURFACE_MATERIAL

def _surface_model(name: str, value: Any) -> str:
    text = V.string(name, value)
    if text not in SURFACE_MODELS:
        raise InputError(f"Unknown SURFACE_MATERIAL model {text!r}; expected one of {list(SURFACE_MODELS)}")
    return text


def _surface_id(name: str, value: Any) -> int:
    return ANY_SURFACE if value is V.MISSING else V.integer(name, value)


def _rw_surface_number(name: str, **bounds) -> property:
    """A SURFACE_MATERIAL parameter."""
    return _rw_record_number(name, f"{name} (read-write)", **bounds)


class SURFACE_MATERIAL(_MaterialHandle):
    """The contact law between two surfaces.

    ``SURFACE_MATERIAL(solfec | surf1, surf2, model, label, friction, cohesion, restitution,
    spring, dashpot, hpow)`` sets the law of contacts between surfaces with ids ``surf1`` and
    ``surf2`` (an unordered pair); a missing id means "any surface". A contact of surfaces a, b
    takes the material of {a, b}, else (a, any), else (b, any), else (any, any): the built-in
    ``'DEFAULT'`` (frictionless, no restitution). Defining a pair again overwrites it and
    returns the same object.

    Parameters
    ----------
    solfec : SOLFEC
    surf1, surf2 : int, optional
        Surface ids (default: any).
    model : str, optional
        ``'SIGNORINI_COULOMB'`` (default; non-penetration and Coulomb friction) or
        ``'SPRING_DASHPOT'`` (a compliant normal law).
    label : str, optional
    friction : float, optional
        [dimensionless]. Coulomb coefficient, >= 0 (default 0).
    cohesion : float, optional
        [stress]. Cohesion stress, >= 0 (default 0).
    restitution : float, optional
        [dimensionless]. Normal restitution coefficient in [0, 1] (default 0).
    spring, dashpot : float, optional
        [force / length] (with hpow 1; [force / length^hpow] in general) and [force x time / length].
        SPRING_DASHPOT stiffness (>= 0) and damping (a negative value asks for critical
        damping); default 0.
    hpow : float, optional
        [dimensionless]. Exponent of the spring law, >= 0 (default 1).

    Attributes
    ----------
    label, surf1, surf2 : read-only
    model, friction, cohesion, restitution, spring, dashpot, hpow
        Writable, with the same checks.

    Raises
    ------
    InputTypeError, InputError
        An unknown model, a negative friction, a restitution outside [0, 1], a non-number.

    Examples
    --------
    >>> SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.5)     # any pair
    >>> mat = SURFACE_MATERIAL(sol, 1, 2, friction=0.3, restitution=0.1)
    >>> mat.friction = 0.4
    """

    __slots__ = ()

    @V.command(name="SURFACE_MATERIAL")
    def __new__(cls, solfec, surf1=V.MISSING, surf2=V.MISSING, model=V.MISSING, label=V.MISSING,
                friction=V.MISSING, cohesion=V.MISSING, restitution=V.MISSING, spring=V.MISSING,
                dashpot=V.MISSING, hpow=V.MISSING):
        domain = require_solfec("solfec", solfec)
        s1, s2 = _surface_id("surf1", surf1), _surface_id("surf2", surf2)
        params: dict = {}
        if V.given(model):
            params["model"] = _surface_model("model", model)
        if V.given(label):
            label = V.string("label", label)
        for name, value in (("friction", friction), ("cohesion", cohesion), ("spring", spring),
                            ("hpow", hpow)):
            if V.given(value):
                params[name] = V.nonnegative(name, value)
        if V.given(restitution):
            params["restitution"] = V.in_range("restitution", restitution, 0.0, 1.0)
        if V.given(dashpot):  # not bounded: a negative dashpot asks for critical damping
            params["dashpot"] = V.number("dashpot", dashpot)
        record = domain.surface_materials.insert(s1, s2, label if V.given(label) else None, **params)
        return _handle(cls, record, domain)

    # read-only
    @readonly
    def surf1(self):
        return self._record.surf1

    @readonly
    def surf2(self):
        return self._record.surf2

    # read-write (and model)
    @staticmethod
    def _model_check(value: Any) -> str:
        return _surface_model("model", value)

    friction = _rw_surface_number("friction", ge=0.0)
    cohesion = _rw_surface_number("cohesion", ge=0.0)
    # Solfec's setter does not enforce restitution <= 1 (a quirk); the intended range is kept.
    restitution = _rw_surface_number("restitution", ge=0.0, le=1.0)
    spring = _rw_surface_number("spring", ge=0.0)
    # Solfec's setter refuses negatives although the constructor allows them (negative =
    # critical damping, Solfec-1.0 user manual, SURFACE_MATERIAL); the constructor's meaning is kept.
    dashpot = _rw_surface_number("dashpot")
    hpow = _rw_surface_number("hpow", ge=0.0)

    @property
    def record(self) -> SurfaceMaterial:
        """The table entry the contact code reads."""
        return self._record

    def __repr__(self) -> str:
        r = self._record
        pair = ", ".join("any" if s == ANY_SURFACE else str(s) for s in (r.surf1, r.surf2))
        params = ", ".join(f"{p}={getattr(r, p)!r}" for p in PARAMETERS)
        return f"SURFACE_MATERIAL({r.label!r}, surfaces ({pair}), {params})"


def surface_material_object(domain: Domain, label: str) -> SURFACE_MATERIAL | None:
    """BYLABEL(solfec, 'SURFACE_MATERIAL', label): the object, or None."""
    record = domain.surface_materials.by_label(label)
    return None if record is None else _handle(SURFACE_MATERIAL, record, domain)


# --------------------------------------------------------------------------- BULK_MATERIAL

def _bulk_model(name: str, value: Any, allowed=BULK_MODELS) -> str:
    text = V.string(name, value)
    if text not in allowed:
        raise InputError(f"Unknown BULK_MATERIAL model {text!r}; expected one of {list(allowed)}")
    return text


def _rw_bulk_number(name: str) -> property:
    """young / poisson / density: read-write, a number >= 0 (TypeError otherwise, as Solfec's
    setters), that every body made of the material can take (Domain.update_bulk_material,
    the check BODY makes)."""

    def getter(self):
        return getattr(self._record, name)

    def setter(self, value):
        value = V.setter_number(name, value, ge=0.0)
        self.domain.update_bulk_material(self._record, f"BULK_MATERIAL {self._record.label!r}: {name} = {value!r}",
                                         **{name: value})

    return property(getter, setter, doc=f"{name} (read-write, >= 0; the rule of BULK_MATERIAL's docstring)")


class BULK_MATERIAL(_MaterialHandle):
    """A bulk (volume) material: density and elastic constants.

    ``BULK_MATERIAL(solfec | model, label, young, poisson, density, tensile, fields, fracene)``.
    Rigid bodies use the density only; pseudo-rigid and finite-element bodies also the
    elastic constants. Re-using a label overwrites every parameter of that material
    (unspecified ones take their defaults) and returns the same object.

    One rule for every body kind, Solfec-1.0's (its bodies point at their material, whose
    stress routines read young and poisson each time, and compute the mass when the body is
    made): a body keeps pointing at its material, so **young and poisson** set later (by
    the setters or by redefining the label) act on every pseudo-rigid and finite-element
    body made of it, including the parts given it by APPLY_BULKMAT, from the next step on
    (stiffness, stresses, critical step); the **density** counts when a body (or an
    APPLY_BULKMAT part) is made: mass, centre and inertia of existing bodies stay, for rigid,
    pseudo-rigid and finite-element bodies alike, and a warning names them. A new value that
    a body made of the material cannot take is refused before anything changes, with the
    check BODY makes (young > 0 and poisson < 0.5 for deformable bodies), naming the body.

    Parameters
    ----------
    solfec : SOLFEC
    model : str, optional
        ``'KIRCHHOFF'`` (default; Saint Venant-Kirchhoff) or ``'TSANG_MARSDEN'`` (needs four fields).
    label : str, optional
        Default ``'BULK_MATERIAL_n'``.
    young : float, optional
        [stress]. Young's modulus, >= 0 (default 1e9).
    poisson : float, optional
        [dimensionless]. Poisson's ratio, >= 0 (default 0.25).
    density : float, optional
        [density]. >= 0 (default 1e3).
    tensile, fracene : float, optional
        [stress] and [energy / area]. Tensile strength and fracture energy, >= 0 (default
        infinite); stored, used by
        fracture (not available yet).
    fields : list of FIELD or labels, optional

    Attributes
    ----------
    label : read-only
    model : str
        Writable (to ``'KIRCHHOFF'`` only).
    young, poisson, density : float
        Writable, >= 0 (the rule above).

    Raises
    ------
    InputTypeError, InputError
        An unknown model, a negative parameter, a malformed ``fields`` list; a value that a
        body made of the material cannot take (InputError naming the body).

    Examples
    --------
    >>> steel = BULK_MATERIAL(sol, model='KIRCHHOFF', young=200E9, poisson=0.3, density=7800)
    >>> steel.density
    7800.0
    """

    __slots__ = ()

    @V.command(name="BULK_MATERIAL")
    def __new__(cls, solfec, model=V.MISSING, label=V.MISSING, young=V.MISSING, poisson=V.MISSING,
                density=V.MISSING, tensile=V.MISSING, fields=V.MISSING, fracene=V.MISSING):
        domain = require_solfec("solfec", solfec)
        defaults = BulkMaterial(label="")
        model = defaults.model if model is V.MISSING else _bulk_model("model", model)
        label = (f"BULK_MATERIAL_{len(domain.bulk_materials)}" if label is V.MISSING
                 else V.string("label", label))
        values = {}
        for name, value in (("young", young), ("poisson", poisson), ("density", density),
                            ("tensile", tensile), ("fracene", fracene)):
            values[name] = getattr(defaults, name) if value is V.MISSING else V.nonnegative(name, value)
        values["fields"] = _fields(fields, model, domain)
        record = domain.bulk_materials.get(label)
        if record is None:
            record = domain.bulk_materials[label] = BulkMaterial(label=label, model=model, **values)
        else:                   # the bodies made of it see the new values (BULK_MATERIAL's rule)
            domain.update_bulk_material(record, f"BULK_MATERIAL {label!r} redefined", model=model, **values)
        return _handle(cls, record, domain)

    @staticmethod
    def _model_check(value: Any) -> str:
        return _bulk_model("model", value, allowed=("KIRCHHOFF",))

    young = _rw_bulk_number("young")
    poisson = _rw_bulk_number("poisson")
    density = _rw_bulk_number("density")

    @property
    def record(self) -> BulkMaterial:
        """The record bodies read (`density`, `young`, `poisson`, `lame()`)."""
        return self._record

    def __repr__(self) -> str:
        r = self._record
        return (f"BULK_MATERIAL({r.label!r}, model={r.model!r}, young={r.young!r},"
                f" poisson={r.poisson!r}, density={r.density!r})")


def _fields(value: Any, model: str, domain: Domain) -> tuple:
    """The `fields` argument: a list of >= 1 FIELD objects or labels; exactly 4 for TSANG_MARSDEN."""
    if value is V.MISSING:
        if model == "TSANG_MARSDEN":
            raise InputError("'fields': 4 fields must be given for the TSANG_MARSDEN model, got none")
        return ()
    if not isinstance(value, list):
        raise InputTypeError(f"'fields' must be a list, got {V.describe(value)}")
    if not value:
        raise InputError("'fields' must have at least 1 element, got 0")
    if model == "TSANG_MARSDEN" and len(value) != 4:
        raise InputError(f"'fields': 4 fields must be given for the TSANG_MARSDEN model, got {len(value)}")
    return tuple(field_of(f"fields[{i}]", v, domain) for i, v in enumerate(value))


def bulk_material_object(domain: Domain, label: str) -> BULK_MATERIAL | None:
    """BYLABEL(solfec, 'BULK_MATERIAL', label): the object, or None."""
    record = domain.bulk_materials.get(label)
    return None if record is None else _handle(BULK_MATERIAL, record, domain)


def bulk_material_of(name: str, value: Any, domain: Domain) -> BulkMaterial:
    """The record of a BULK_MATERIAL object of `domain`, or of the material labelled `value`."""
    if isinstance(value, BULK_MATERIAL):  # (one of another SOLFEC object is accepted, as in Solfec)
        return value._record
    if isinstance(value, str) and value in domain.bulk_materials:
        return domain.bulk_materials[value]
    raise InputTypeError(
        f"'{name}' must be a BULK_MATERIAL object or a valid material label, got {V.describe(value)}")


# --------------------------------------------------------------------------- APPLY_BULKMAT

@V.command
def APPLY_BULKMAT(solfec, body, volid, material):
    """Assign a material to the parts of a body with a given volume id.

    ``APPLY_BULKMAT(solfec, body, volid, material)``: the elements of a finite-element body,
    the parts (mesh elements, convexes, spheres) of a pseudo-rigid or rigid one; the mass,
    centre and inertia of a pseudo-rigid or rigid body then follow its parts' densities.

    Parameters
    ----------
    solfec : SOLFEC
    body : BODY
    volid : int
        A volume id of the body's shape.
    material : BULK_MATERIAL or str
        The material or its label.

    Raises
    ------
    InputTypeError
        A wrong body or material.
    InputError
        The body has no part with ``volid``.

    Examples
    --------
    >>> soft = BULK_MATERIAL(sol, young=1E6, poisson=0.3, density=1E3, label='soft')
    >>> APPLY_BULKMAT(sol, block, 2, 'soft')
    """
    domain = require_solfec("solfec", solfec)
    body = require_body("body", body)
    volid = V.integer("volid", volid)
    record = bulk_material_of("material", material, domain)
    if not body.block.apply_material(body, volid, record):
        raise InputError(f"APPLY_BULKMAT: body {body.id} has no part with volume id {volid}")
    return None
