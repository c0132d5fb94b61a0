"""FIELD, SURFACE_MATERIAL, BULK_MATERIAL, APPLY_BULKMAT and bulk_material_of (Solfec-1.0 user manual, materials):
defaults, label numbering, overwrite rules, the surface-pair lookup order, attribute
read/write rules and every argument check (exception type and the argument named)."""
from __future__ import annotations

import pytest

from solfec_py.api.materials import (APPLY_BULKMAT, BULK_MATERIAL, FIELD, SURFACE_MATERIAL,
                                     bulk_material_object, bulk_material_of, field_of,
                                     surface_material_object)
from solfec_py.api.solfec import SOLFEC
from solfec_py.errors import InputError, InputTypeError
from solfec_py.materials import ANY_SURFACE, BulkMaterial

READ_ONLY = "Writing to a read-only member"


@pytest.fixture
def sol():
    return SOLFEC("DYNAMIC", 1e-3, "out")


# --------------------------------------------------------------------------- BULK_MATERIAL

def test_bulk_defaults_and_label_numbering(sol):
    a = BULK_MATERIAL(sol)
    b = BULK_MATERIAL(sol, young=2e11)
    assert (a.label, b.label) == ("BULK_MATERIAL_0", "BULK_MATERIAL_1")
    # defaults of Solfec-1.0 user manual, BULK_MATERIAL
    assert (a.model, a.young, a.poisson, a.density) == ("KIRCHHOFF", 1e9, 0.25, 1e3)
    assert a.record.tensile == float("inf") and a.record.fracene == float("inf")
    assert sol.domain.bulk_materials == {"BULK_MATERIAL_0": a.record, "BULK_MATERIAL_1": b.record}
    assert isinstance(a.record, BulkMaterial) and a.record.handle is a


def test_bulk_same_label_overwrites_and_returns_same_object(sol):
    a = BULK_MATERIAL(sol, label="steel", young=2e11, poisson=0.3, density=7800)
    record = a.record
    b = BULK_MATERIAL(sol, label="steel", density=7000)
    assert b is a and b.record is record
    # every parameter is overwritten: the unspecified ones go back to their defaults
    assert (record.young, record.poisson, record.density) == (1e9, 0.25, 7000.0)
    assert len(sol.domain.bulk_materials) == 1


def test_bulk_lame_constants(sol):
    rec = BULK_MATERIAL(sol, young=210e9, poisson=0.3).record
    lam, mu = rec.lame()
    # hand values: lambda = E nu / ((1 + nu)(1 - 2 nu)) = 63e9 / 0.52, mu = E / 2.6
    assert lam == pytest.approx(63e9 / 0.52, rel=1e-14)
    assert mu == pytest.approx(210e9 / 2.6, rel=1e-14)


@pytest.mark.parametrize("kwargs, exc, fragment", [
    ({"model": "HOOKE"}, InputError, "Unknown BULK_MATERIAL model 'HOOKE'"),
    ({"model": 1}, InputTypeError, "'model' must be a string"),
    ({"label": 7}, InputTypeError, "'label' must be a string"),
    ({"young": -1.0}, InputError, "'young' must be non-negative, got -1.0"),
    ({"poisson": -0.1}, InputError, "'poisson' must be non-negative"),
    ({"density": "heavy"}, InputTypeError, "'density' must be a number"),
    ({"tensile": -5}, InputError, "'tensile' must be non-negative"),
    ({"fracene": -5}, InputError, "'fracene' must be non-negative"),
    ({"fields": "F"}, InputTypeError, "'fields' must be a list"),
    ({"fields": []}, InputError, "'fields' must have at least 1 element"),
    ({"fields": ["nope"]}, InputTypeError, "'fields\\[0\\]' must be a FIELD object or a valid field label, got 'nope'"),
    ({"model": "TSANG_MARSDEN"}, InputError, "4 fields must be given"),
    ({"youngs": 1.0}, InputTypeError, "BULK_MATERIAL: .*youngs"),
])
def test_bulk_argument_errors(sol, kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        BULK_MATERIAL(sol, **kwargs)
    assert sol.domain.bulk_materials == {}          # nothing registered by a failed call


def test_bulk_failed_overwrite_keeps_old_values(sol):
    a = BULK_MATERIAL(sol, label="m", young=5.0)
    with pytest.raises(InputError):
        BULK_MATERIAL(sol, label="m", young=6.0, poisson=-1)
    assert a.young == 5.0


def test_bulk_requires_solfec():
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object, got 'x'"):
        BULK_MATERIAL("x")


def test_bulk_fields(sol):
    fields = [FIELD(sol, lambda x, y, z, t: 1.0) for _ in range(4)]
    m = BULK_MATERIAL(sol, model="TSANG_MARSDEN", fields=[fields[0], "FIELD_1", fields[2], "FIELD_3"])
    assert m.record.fields == tuple(fields)
    with pytest.raises(InputError, match="4 fields must be given.*got 3"):
        BULK_MATERIAL(sol, model="TSANG_MARSDEN", fields=fields[:3])
    assert BULK_MATERIAL(sol, fields=["FIELD_2"]).record.fields == (fields[2],)


def test_bulk_attributes(sol):
    m = BULK_MATERIAL(sol, label="m")
    m.young, m.poisson, m.density = 3e9, 0.2, 2500
    assert (m.record.young, m.record.poisson, m.record.density) == (3e9, 0.2, 2500.0)
    for name in ("young", "poisson", "density"):
        with pytest.raises(InputTypeError, match=f"'{name}' must be a number >= 0, got -1"):
            setattr(m, name, -1)
        with pytest.raises(InputTypeError, match=f"'{name}' must be a number >= 0, got 'a'"):
            setattr(m, name, "a")
    m.model = "KIRCHHOFF"
    with pytest.raises(InputError, match="Unknown BULK_MATERIAL model 'TSANG_MARSDEN'"):
        m.model = "TSANG_MARSDEN"          # the setter accepts KIRCHHOFF only (as Solfec lng.c does)
    with pytest.raises(ValueError, match=READ_ONLY):
        m.label = "other"
    for hidden in ("tensile", "fracene", "fields"):
        with pytest.raises(AttributeError):
            getattr(m, hidden)


def test_bulk_material_of(sol):
    m = BULK_MATERIAL(sol, label="rock", density=2600)
    assert bulk_material_of("material", m, sol.domain) is m.record
    assert bulk_material_of("material", "rock", sol.domain) is m.record
    assert bulk_material_of("material", "rock", sol.domain).density == 2600.0
    with pytest.raises(InputTypeError,
                       match="'material' must be a BULK_MATERIAL object or a valid material label, got 'sand'"):
        bulk_material_of("material", "sand", sol.domain)
    with pytest.raises(InputTypeError, match="'mat' must be a BULK_MATERIAL object .*got 3"):
        bulk_material_of("mat", 3, sol.domain)


def test_bylabel_helpers(sol):
    m = BULK_MATERIAL(sol, label="rock")
    assert bulk_material_object(sol.domain, "rock") is m
    assert bulk_material_object(sol.domain, "sand") is None
    s = SURFACE_MATERIAL(sol, surf1=1, label="grip")
    assert surface_material_object(sol.domain, "grip") is s
    default = surface_material_object(sol.domain, "DEFAULT")
    assert default is SURFACE_MATERIAL(sol)             # the built-in entry's object
    assert surface_material_object(sol.domain, "none") is None


# --------------------------------------------------------------------------- SURFACE_MATERIAL

def test_surface_default_entry_is_modified_in_place(sol):
    s = SURFACE_MATERIAL(sol, friction=0.5)
    assert s.label == "DEFAULT" and s.surf1 == ANY_SURFACE == s.surf2 == 2147483647
    assert s.friction == 0.5 and s.model == "SIGNORINI_COULOMB" and s.hpow == 1.0
    assert len(sol.domain.surface_materials.entries) == 1
    assert sol.domain.surface_materials.lookup(4, 9).friction == 0.5


def test_surface_label_numbering_and_unordered_pairs(sol):
    a = SURFACE_MATERIAL(sol, surf1=1, surf2=2, friction=0.1)
    b = SURFACE_MATERIAL(sol, surf1=3, friction=0.2)
    assert (a.label, b.label) == ("SURFACE_MATERIAL_1", "SURFACE_MATERIAL_2")
    assert (b.surf1, b.surf2) == (3, ANY_SURFACE)
    c = SURFACE_MATERIAL(sol, surf1=2, surf2=1, restitution=0.5)     # same pair, reversed
    assert c is a and a.label == "SURFACE_MATERIAL_1"
    # all parameters overwritten: friction back to its default 0
    assert (a.friction, a.restitution) == (0.0, 0.5)
    d = SURFACE_MATERIAL(sol, surf1=1, surf2=2, label="rubber", model="SPRING_DASHPOT", spring=1e6)
    assert d is a and a.label == "rubber" and a.model == "SPRING_DASHPOT" and a.spring == 1e6
    assert SURFACE_MATERIAL(sol, surf2=3) is b                       # (any, 3) == (3, any)
    e = SURFACE_MATERIAL(sol, surf1=5, surf2=5, label="own")
    assert e.label == "own" and len(sol.domain.surface_materials.entries) == 4


def test_surface_lookup_order(sol):
    table = sol.domain.surface_materials
    exact = SURFACE_MATERIAL(sol, surf1=1, surf2=2, label="exact").record
    one_any = SURFACE_MATERIAL(sol, surf1=1, label="1-any").record
    three_any = SURFACE_MATERIAL(sol, surf1=3, label="3-any").record
    default = table.lookup(ANY_SURFACE, ANY_SURFACE)
    assert default.label == "DEFAULT"
    assert table.lookup(1, 2) is exact and table.lookup(2, 1) is exact
    assert table.lookup(1, 5) is one_any and table.lookup(5, 1) is one_any
    assert table.lookup(1, 3) is one_any          # (s1, any) is tried before (s2, any)
    assert table.lookup(3, 1) is three_any        # ... and s1 is the first argument
    assert table.lookup(5, 3) is three_any
    assert table.lookup(5, 6) is default and table.lookup(2, 2) is default


@pytest.mark.parametrize("kwargs, exc, fragment", [
    ({"surf1": 1.0}, InputTypeError, "'surf1' must be an integer"),
    ({"surf2": "a"}, InputTypeError, "'surf2' must be an integer"),
    ({"model": "HERTZ"}, InputError, "Unknown SURFACE_MATERIAL model 'HERTZ'"),
    ({"model": 0}, InputTypeError, "'model' must be a string"),
    ({"label": 1}, InputTypeError, "'label' must be a string"),
    ({"friction": -0.1}, InputError, "'friction' must be non-negative"),
    ({"cohesion": -1}, InputError, "'cohesion' must be non-negative"),
    ({"restitution": 1.5}, InputError, "'restitution' must be in range \\[0.00, 1.00\\]"),
    ({"restitution": -0.5}, InputError, "'restitution' must be in range"),
    ({"spring": -1}, InputError, "'spring' must be non-negative"),
    ({"hpow": -1}, InputError, "'hpow' must be non-negative"),
    ({"dashpot": "x"}, InputTypeError, "'dashpot' must be a number"),
    ({"frction": 0.3}, InputTypeError, "SURFACE_MATERIAL: .*frction"),
])
def test_surface_argument_errors(sol, kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        SURFACE_MATERIAL(sol, **{"surf1": 1, **kwargs})
    assert len(sol.domain.surface_materials.entries) == 1   # nothing inserted


def test_surface_negative_dashpot_allowed(sol):
    s = SURFACE_MATERIAL(sol, surf1=1, dashpot=-1.0)   # negative = critical damping
    assert s.dashpot == -1.0
    s.dashpot = -2.0
    assert s.record.dashpot == -2.0


def test_surface_attributes(sol):
    s = SURFACE_MATERIAL(sol, surf1=1, surf2=2)
    for name in ("surf1", "surf2", "label"):
        with pytest.raises(ValueError, match=READ_ONLY):
            setattr(s, name, 3)
    s.model = "SPRING_DASHPOT"
    s.friction, s.cohesion, s.restitution, s.spring, s.hpow = 0.4, 10, 1, 1e5, 1.5
    rec = sol.domain.surface_materials.lookup(2, 1)
    assert (rec.model, rec.friction, rec.cohesion, rec.restitution, rec.spring, rec.hpow) == (
        "SPRING_DASHPOT", 0.4, 10.0, 1.0, 1e5, 1.5)
    with pytest.raises(InputError, match="Unknown SURFACE_MATERIAL model 'X'"):
        s.model = "X"
    for name in ("friction", "cohesion", "spring", "hpow"):
        with pytest.raises(InputTypeError, match=f"'{name}' must be a number >= 0, got -1"):
            setattr(s, name, -1)
        with pytest.raises(InputTypeError, match=f"'{name}' must be a number"):
            setattr(s, name, None)
    with pytest.raises(InputTypeError, match="'restitution' must be a number >= 0 and <= 1"):
        s.restitution = 1.2
    with pytest.raises(InputTypeError, match="'dashpot' must be a number"):
        s.dashpot = "x"
    assert rec.friction == 0.4                     # failed writes changed nothing


# --------------------------------------------------------------------------- FIELD

def test_field_evaluation_with_tuple_data(sol):
    f = FIELD(sol, lambda a, b, x, y, z, t: a * x + b * y * t + z, data=(2.0, 3.0))
    assert f.label == "FIELD_0" and sol.domain.fields == {"FIELD_0": f}
    # hand value: 2*1 + 3*2*4 + 3 = 29
    assert f.value(1.0, 2.0, 3.0, 4.0) == 29.0


def test_field_non_tuple_data_is_not_passed(sol):
    f = FIELD(sol, lambda x, y, z, t: x - t, data=[9, 9])      # Solfec-1.0 lng.c, where it departs from its manual
    assert f.value(5.0, 0.0, 0.0, 1.5) == 3.5
    g = FIELD(sol, lambda x, y, z, t: 1)
    assert g.label == "FIELD_1" and g.value(0, 0, 0, 0) == 1.0 and isinstance(g.value(0, 0, 0, 0), float)


def test_field_same_label_updates(sol):
    f = FIELD(sol, lambda x, y, z, t: 1.0, label="temp")
    g = FIELD(sol, lambda k, x, y, z, t: k * t, label="temp", data=(2,))
    assert g is f and f.value(0, 0, 0, 3.0) == 6.0 and len(sol.domain.fields) == 1
    assert field_of("fields[0]", "temp", sol.domain) is f


def test_field_errors(sol):
    with pytest.raises(InputTypeError, match="'filed_callback' must be callable, got 3"):
        FIELD(sol, 3)
    with pytest.raises(InputTypeError, match="FIELD: .*'filed_callback'"):
        FIELD(sol, field_callback=lambda x, y, z, t: 0)           # the manual's spelling
    with pytest.raises(InputTypeError, match="FIELD: missing a required argument: 'filed_callback'"):
        FIELD(sol)
    with pytest.raises(InputTypeError, match="'label' must be a string"):
        FIELD(sol, lambda x, y, z, t: 0, label=2)
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        FIELD(None, lambda x, y, z, t: 0)
    f = FIELD(sol, lambda x, y, z, t: "hot")
    with pytest.raises(InputTypeError, match="FIELD 'FIELD_0': the callback must return a number, got 'hot'"):
        f.value(0, 0, 0, 0)
    with pytest.raises(ValueError, match=READ_ONLY):
        f.label = "x"
    assert sol.domain.fields == {"FIELD_0": f}


# --------------------------------------------------------------------------- APPLY_BULKMAT

def test_apply_bulkmat_checks(sol):
    m = BULK_MATERIAL(sol, label="m")
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        APPLY_BULKMAT(1, None, 1, m)
    with pytest.raises(InputTypeError, match="'body' must be a BODY object"):
        APPLY_BULKMAT(sol, "body", 1, m)
    with pytest.raises(InputTypeError, match="APPLY_BULKMAT: missing a required argument: 'material'"):
        APPLY_BULKMAT(sol, None, 1)


def test_apply_bulkmat_argument_errors_on_a_rigid_body(sol):
    from solfec_py.api.mesh_generators import HEX
    from solfec_py.api.body import BODY

    m = BULK_MATERIAL(sol, label="m")
    body = BODY(sol, "RIGID", HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],
                                          1, 1, 1, 0, [0] * 6), m)
    with pytest.raises(InputTypeError, match="'volid' must be an integer"):
        APPLY_BULKMAT(sol, body, 1.0, m)
    with pytest.raises(InputTypeError, match="'material' must be a BULK_MATERIAL object .*'x'"):
        APPLY_BULKMAT(sol, body, 1, "x")
    with pytest.raises(InputError, match="APPLY_BULKMAT: body 1 has no part with volume id 1"):
        APPLY_BULKMAT(sol, body, 1, "m")
