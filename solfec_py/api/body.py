"""BODY and the body utilities BODY_CHARS, INITIAL_VELOCITY (layer 7).
Reference: Solfec-1.0 user manual, BODY, BODY_CHARS, INITIAL_VELOCITY (Solfec lng.c BODY type).
"""
from __future__ import annotations

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import elsewhere, here_or_none, readonly, require_body
from solfec_py.api.materials import bulk_material_object, bulk_material_of
from solfec_py.api.shape_utils import checked_meshes, live_shape, shape_mass_properties
from solfec_py.api.shapes import MESH, mesh_views, take_shape
from solfec_py.api.solfec import require_solfec
from solfec_py.api.stored import frame_constraints
from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.base import Body
from solfec_py.bodies.rigid_schemes import LINK_SCHEMES
from solfec_py.errors import InputError, InputTypeError
from solfec_py.geometry.mesh import Mesh

FORMS = ("TL", "BC", "BC-MODAL", "BC-RO")


def linear_shapes(primitives: list, who: str) -> list:
    """Meshes with quadratic cells as their straight-sided corner elements (with a note)."""
    out = []
    for p in primitives:
        if isinstance(p, Mesh) and p.is_quadratic:
            session.inform(f"{who}: quadratic cells {sorted(p.quadratic)} used by their corners (straight-sided"
                         " elements; the mid-edge nodes are dropped)")
            p = p.linear()
        out.append(p)
    return out


def _background_of(shape, mesh):
    """The background mesh of a FINITE_ELEMENT body cut by its CONVEX shape (nothing is
    emptied yet)."""
    from solfec_py.api.shapes import CONVEX
    from solfec_py.bodies.fe_background import CUT_TOL, embed
    from solfec_py.geometry.convex import Convex

    items = shape if isinstance(shape, list) else [shape]
    if not items or not all(isinstance(s, CONVEX) for s in items):
        raise InputTypeError("'shape' must be a non-empty CONVEX object or a list of those when a background"
                             f" 'mesh' is given, got {V.describe(shape)}")
    convexes = live_shape("shape", shape)
    meshes = checked_meshes("BODY: 'mesh'", live_shape("mesh", mesh))
    if len(meshes) != 1 or any(not isinstance(c, Convex) for c in convexes):
        raise InputTypeError("'mesh' must be a single MESH object and 'shape' CONVEX objects")
    if meshes[0].is_quadratic:
        raise InputError("'mesh' has quadratic cells; a background mesh must be of first-order elements"
                         " (TET4, PYR5, WED6, HEX8)")
    bg = embed(meshes[0], convexes)
    volume = shape_mass_properties(convexes, density=1.0, what="'shape'")[0]
    if abs(volume - bg.cut_volume) >= CUT_TOL * abs(volume):
        session.warn(f"BODY: the background 'mesh' holds {bg.cut_volume:.6g} of the shape's volume {volume:.6g}"
                     f" (relative error {abs(volume - bg.cut_volume) / abs(volume):.3g}); the mesh should"
                     " contain the whole shape")
    return bg


class BODY(Body):
    """A body: a shape with a material and a kinematic model.

    ``BODY(solfec, kind, shape, material | label, form, mesh, base)``. The shape objects are
    emptied (they become the body's; use COPY to keep one). Mass, centre and inertia follow
    from the shape's volume and the material's density.

    Parameters
    ----------
    solfec : SOLFEC
    kind : str
        ``'RIGID'``, ``'OBSTACLE'`` (rigid and immovable unless driven by PRESCRIBED_MOTION or
        constraints of the SET_* family), ``'PSEUDO_RIGID'`` (homogeneous deformation, see
        docs/pseudo_rigid.md) or ``'FINITE_ELEMENT'`` (a MESH shape, finite elements; see
        docs/fem.md).
    shape : CONVEX, MESH, SPHERE, ELLIP or a list of those
        Faces must be counter-clockwise seen from outside (positive volume).
    material : BULK_MATERIAL or str
        The material or its label.
    label : str, optional
        A name for BYLABEL, HISTORY and the results.
    form : str, optional
        Finite-element formulation: ``'TL'``, ``'BC'``, ``'BC-MODAL'`` or ``'BC-RO'``.
    mesh : MESH, optional
        A background mesh of a finite-element body whose shape is CONVEX pieces: the mesh
        carries the motion, mass and stiffness, the convices move with it (docs/fem.md,
        "Background meshes"). The MESH is emptied. Type-checked and ignored for other kinds.
    base : tuple or str, optional
        The base of a ``'BC-MODAL'`` or ``'BC-RO'`` body: ``(vals, vecs)`` as MODAL_ANALYSIS
        returns it, or a label given to REGISTER_BASE (docs/corotational.md).

    Attributes
    ----------
    id, kind, label, mass, volume, center, tensor, material : read-only
        ``tensor`` is the inertia tensor (rigid) or Euler tensor (pseudo-rigid), column-major.
    constraints, ncon : read-only
        The body's constraints (in READ mode those of the shown frame).
    mesh : read-only
        MESH view(s) of the body's meshes in the current configuration, or None.
    display_points : read-only
        ``(label, current point)`` of the DISPLAY_POINT points.
    conf : tuple
        Configuration: rigid, 9 entries of the rotation (column-major) then the mass centre;
        pseudo-rigid, the deformation gradient (column-major) then the centre.
    velo : tuple
        Velocity: rigid, the referential angular velocity then the linear velocity;
        pseudo-rigid, the rate of the deformation gradient then the centre velocity.
    scheme : str
        Time integrator: rigid ``'RIG_NEG'`` (default), ``'RIG_POS'``, ``'RIG_IMP'``, ``'LFPC'``,
        ``'DIRK1'`` ... ``'DIRK4'``, ``'LSV_EXPLICIT'``, ``'LSV_IMPLICIT'``, ``'GEN_ALPHA'``
        (docs/integrators.md); pseudo-rigid ``'DEF_EXP'`` (default) or ``'DEF_LIM'``;
        ``'DEFAULT'`` resets. Links of JOINT trees: ``'ARTICULATED'`` (default),
        ``'GEN_ALPHA'`` or ``'RK4'`` (docs/joints.md).
    damping : float
        Mass-proportional damping, >= 0.
    disable_rotation : str
        ``'ON'`` keeps a rigid body from rotating.
    selfcontact, fracturecheck : str
        ``'ON'``/``'OFF'``, finite-element bodies only.

    Raises
    ------
    InputTypeError
        A wrong solfec, shape, material or mesh (an emptied shape is refused).
    InputError
        An unknown kind, a shape of non-positive volume, mass or inertia out of range; a
        mesh element the element check refuses (MESH's, run again: nodes may have moved;
        docs/meshes.md); a material the kind cannot use (deformable bodies need young > 0
        and poisson < 0.5, BULK_MATERIAL's rule).
    NotAvailableError
        A kind that is not available yet.

    Examples
    --------
    >>> sol = SOLFEC('DYNAMIC', 1E-3, 'out/box')
    >>> mat = BULK_MATERIAL(sol, density=2000)
    >>> box = BODY(sol, 'RIGID', HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
    ...                               0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],
    ...                              1, 1, 1, 0, [1] * 6), mat, label='box')
    >>> box.mass
    2000.0
    >>> box.velo = (0, 0, 1, 0, 0, 0)      # spin about z
    >>> box.scheme = 'DIRK3'

    A finite-element body of CONVEX pieces carried by a coarse background mesh:

    >>> piece = HULL([2, 0, 0, 3, 0, 0, 3, 1, 0, 2, 1, 0, 2, 0, 1, 3, 0, 1, 3, 1, 1, 2, 1, 1], 1, 1)
    >>> core = BODY(sol, 'FINITE_ELEMENT', piece, mat, form='BC', mesh=ROUGH_HEX(piece, 2, 2, 2))
    >>> len(core.conf) // 3 == core.mesh.nnod
    True
    """

    @V.command
    def __init__(self, solfec, kind, shape, material, label=V.MISSING, form=V.MISSING,
                 mesh=V.MISSING, base=V.MISSING):
        super().__init__()
        domain = require_solfec("solfec", solfec)
        kind = V.choice("kind", kind, BODY_KINDS, what="BODY kind",
                        listed=sorted(k for k, spec in BODY_KINDS.items() if spec.block is not None))
        record = bulk_material_of("material", material, domain)
        label = "" if label is V.MISSING else V.string("label", label)
        if V.given(form):
            V.choice("form", form, FORMS, what="FEM formulation")
        background = None
        if V.given(mesh):
            V.instance("mesh", mesh, MESH, "a MESH object")
            if kind == "FINITE_ELEMENT":
                background = _background_of(shape, mesh)
        block = domain.block_for(kind)          # NotAvailableError for kinds still to come
        self.kind, self.bulk_material, self.label = kind, record, label
        self._background = background
        live = checked_meshes("BODY: 'shape'", live_shape("shape", shape))    # MESH / MESH_IMPORT's check again:
        self.shape, self._form = live, form if V.given(form) else None       # nodes may have moved since
        self._base = reduced_base(domain, kind, self._form, base)     # (vals, vecs) or None
        block.admit(self)                       # e.g. a material or a mesh the kind cannot use
        primitives = take_shape("shape", shape)
        if background is not None:
            take_shape("mesh", mesh)            # emptied, as the shape (Solfec moves both into the body)
        if any(p is not q for p, q in zip(primitives, live)):       # views: copies of a current configuration
            checked_meshes("BODY: 'shape'", primitives)
        if kind in ("RIGID", "OBSTACLE"):     # FE bodies keep quadratic cells (docs/fem.md)
            primitives = linear_shapes(primitives, f"BODY ({kind})")
        elif any(isinstance(p, Mesh) and p.is_quadratic for p in primitives):
            session.inform("BODY (FINITE_ELEMENT): quadratic elements; contact detection sees their corner"
                           " elements and contact points move with the corners (docs/fem.md)")
        self.shape = primitives
        volume, center, euler = shape_mass_properties(primitives, density=record.density,
                                                      what="'shape' with the density of 'material'")
        if not volume > 0:
            raise InputError(
                f"'shape' has volume {volume!r}; faces must be listed counter-clockwise seen from outside")
        self._material_object = material
        # deformable kinds (and obstacles) report DEF_LIM in quasi-statics (Solfec forces it)
        quasi_static = domain.analysis == "QUASI_STATIC" and kind != "RIGID"
        reduced = kind == "FINITE_ELEMENT" and self._form in ("BC-MODAL", "BC-RO")    # always DEF_LIM
        self._scheme = "DEF_LIM" if quasi_static or reduced else BODY_KINDS[kind].default_scheme
        self._damping = 0.0
        self._flags = {"selfcontact": False, "fracturecheck": False}
        self.display_points_list: list = []
        self.mass_properties = (volume, center, euler)     # of creation (a row re-made elsewhere)
        domain.insert(self)
        block.add(self, volume, center, euler)
        if self._scheme != BODY_KINDS[kind].default_scheme:
            block.set_scheme(self.row, self._scheme)

    # ---------------------------------------------------------------- read-only
    @readonly
    def id(self):
        return self._id

    @id.setter  # the domain assigns ids; users cannot
    def id(self, value):
        if getattr(self, "_id", 0):
            raise InputError("Writing to a read-only member 'id'")
        self._id = value

    @readonly
    def kind(self):
        return self._kind

    @kind.setter
    def kind(self, value):
        if getattr(self, "_kind", ""):
            raise InputError("Writing to a read-only member 'kind'")
        self._kind = value

    @readonly
    @here_or_none
    def mass(self):
        return float(self.block.mass[self.row])

    @readonly
    @here_or_none
    def volume(self):
        return float(self.block.volume[self.row])

    @readonly
    @here_or_none
    def center(self):
        return tuple(self.block.center[self.row].tolist())

    @readonly
    @here_or_none
    def tensor(self):
        """Inertia tensor (rigid, obstacle) or Euler tensor (deformable), column-major 9-tuple."""
        return tuple(getattr(self.block, self.block.TENSOR)[self.row].T.reshape(-1).tolist())

    @readonly
    @here_or_none
    def material(self):
        if self._material_object is None:       # a body made on another rank (parallel/decomposition.py)
            self._material_object = bulk_material_object(self.block.domain, self.bulk_material.label)
        return self._material_object

    @readonly
    def constraints(self):
        """The body's constraints, oldest first; in READ mode, once a frame is shown, those
        of the stored frame (contacts included), as SOLFEC.constraints shows them."""
        owner = getattr(self._domain_or_none(), "owner", None)
        if owner is not None and owner._showing_frame():
            return [c for c in reversed(frame_constraints(owner)) if _involves(c, self)]
        return list(self._constraints)

    @constraints.setter
    def constraints(self, value):
        self._constraints = value

    @readonly
    def ncon(self):
        return len(self.constraints)

    def _domain_or_none(self):
        block = getattr(self, "block", None)
        return getattr(block, "domain", None)

    @readonly
    @here_or_none
    def display_points(self):
        return [(lab, tuple(self.cur_point(p).tolist())) for lab, p in self.display_points_list]

    @readonly
    def mesh(self):
        return mesh_views(self)

    # ---------------------------------------------------------------- read-write
    @property
    @here_or_none
    def conf(self):
        return tuple(self.q.tolist())

    @conf.setter
    @here_or_none
    def conf(self, value):
        self.q[:] = _state_tuple("conf", value, self.q.size)
        self.block.state_changed(self.row)

    @property
    @here_or_none
    def velo(self):
        return tuple(self.u.tolist())

    @velo.setter
    @here_or_none
    def velo(self, value):
        self.u[:] = _state_tuple("velo", value, self.u.size)
        self.block.state_changed(self.row)

    @property
    def scheme(self):
        return self._scheme

    @scheme.setter
    @here_or_none
    def scheme(self, value):
        value = V.string("scheme", value)
        if self.block.domain.analysis == "QUASI_STATIC":
            session.runtime_warning("Unable to set integration scheme for quasi-statics")
            return
        if any(self is j.child or self is j.parent for j in self.block.domain.joints):   # a link of a JOINT tree
            if value == "DEFAULT":
                value = "ARTICULATED"
            if value not in LINK_SCHEMES:
                raise InputError(f"body {self.id} is a link of an articulated body (JOINT): its scheme is one of"
                                 f" {['DEFAULT', *sorted(LINK_SCHEMES)]}, got {value!r}")
            self._scheme = value
            self.block.set_scheme(self.row, LINK_SCHEMES[value])
            return
        spec = BODY_KINDS[self.kind]
        if value == "DEFAULT":
            value = spec.default_scheme
        if value not in spec.schemes:
            if self.kind == "RIGID" and value in LINK_SCHEMES:
                raise InputError(f"scheme {value!r} is one of the links of JOINT trees and body {self.id} is not"
                                 " a link (yet): set it after the body's JOINT")
            raise InputError(
                f"Invalid integration scheme {value!r} for a {self.kind} body; expected one of"
                f" {['DEFAULT', *spec.schemes]}")
        self._scheme = value
        self.block.set_scheme(self.row, value)

    @property
    def damping(self):
        return self._damping

    @damping.setter
    @here_or_none
    def damping(self, value):
        self._damping = V.setter_number("damping", value, ge=0.0)
        self.block.set_damping(self.row, self._damping)

    @property
    def selfcontact(self):
        return "ON" if self._flags["selfcontact"] else "OFF"

    @selfcontact.setter
    def selfcontact(self, value):
        on = V.on_off("selfcontact", value, what="self-contact flag")
        if self.kind != "FINITE_ELEMENT":
            raise InputError("Self-contact is only valid for FINITE_ELEMENT bodies")
        self._flags["selfcontact"] = on

    @property
    def fracturecheck(self):
        return "ON" if self._flags["fracturecheck"] else "OFF"

    @fracturecheck.setter
    def fracturecheck(self, value):
        on = V.on_off("fracturecheck", value, what="fracturecheck value (neither 'ON' nor 'OFF')")
        if self.kind != "FINITE_ELEMENT":
            session.runtime_warning("Unable to check fracture criterion for non FEM bodies!")
            return
        self._flags["fracturecheck"] = on

    @property
    def disable_rotation(self):
        return "ON" if self.kind == "RIGID" and self.block.norotation[self.row] else "OFF"

    @disable_rotation.setter
    def disable_rotation(self, value):
        on = V.on_off("disable_rotation", value, what="disable_rotation value (neither 'ON' nor 'OFF')")
        if self.kind != "RIGID":
            session.runtime_warning("disable_rotation applies to RIGID bodies only; ignored")
            return
        self.block.norotation[self.row] = on

    def __repr__(self) -> str:
        label = f" {self.label!r}" if self.label else ""
        return f"<BODY {self.id}{label} {self.kind}>"


def _state_tuple(name: str, value, n: int) -> np.ndarray:
    if not isinstance(value, tuple):
        raise InputTypeError(f"'{name}' must be a tuple of {n} numbers, got {V.describe(value)}")
    if len(value) != n:
        raise InputError(f"'{name}' must have {n} elements, got {len(value)}")
    return np.array([V.number(f"{name}[{i}]", v) for i, v in enumerate(value)])


@V.command
def BODY_CHARS(body, mass, volume, center, tensor):
    """Overwrite the mass characteristics of a body.

    ``BODY_CHARS(body, mass, volume, center, tensor)``: mass, volume, mass centre and tensor
    (a column-major 9-tuple about the centre: the inertia tensor of a rigid body, the Euler
    tensor of a pseudo-rigid or finite-element one) replace those computed from the shape;
    the body's configuration keeps its current centre (as Solfec does). A finite-element
    body's nodal masses keep coming from its elements.

    Parameters
    ----------
    body : BODY
    mass, volume : float
        [mass] and [volume]. > 0.
    center : tuple of 3 floats
        [length].
    tensor : tuple of 9 floats
        [mass x area].

    Raises
    ------
    InputTypeError, InputError
        Non-positive mass or volume, tuples of the wrong size.
    NotAvailableError
        A body kind that does not take it.

    Examples
    --------
    >>> BODY_CHARS(ball, 1.0, 1E-3, (0, 0, 1), (1E-4, 0, 0, 0, 1E-4, 0, 0, 0, 1E-4))
    """
    body = require_body("body", body)
    m = V.positive("mass", mass)
    vol = V.positive("volume", volume)
    c = V.point("center", center)
    t = V.tuple_of_numbers("tensor", tensor, 9).reshape(3, 3).T
    if elsewhere(body):
        return None
    body.block.set_characteristics(body.row, m, vol, c, t)


@V.command
def INITIAL_VELOCITY(body, linear, angular):
    """Set the initial velocity of a body.

    ``INITIAL_VELOCITY(body, linear, angular)``: the mass centre moves with ``linear`` and the
    body spins with ``angular`` (rad/s; for a rigid body in its own axes, which are the
    global axes until it has rotated). For a pseudo-rigid body the rate of the deformation
    gradient becomes the spin tensor of ``angular``; a finite-element body's nodes get
    ``linear + angular x (X - X0)``.

    Parameters
    ----------
    body : BODY
    linear, angular : tuple of 3 floats
        [velocity] and [angle / time] (radians).

    Raises
    ------
    InputTypeError, InputError
        Not a live BODY, tuples that are not 3 finite numbers.

    Examples
    --------
    >>> INITIAL_VELOCITY(ball, (1, 0, 0), (0, 0, 10))
    """
    body = require_body("body", body)
    v = V.point("linear", linear)
    w = V.point("angular", angular)
    if elsewhere(body):
        return None
    body.block.initial_velocity(body.row, v, w)
    body.block.state_changed(body.row)


def _involves(constraint, body) -> bool:
    """Is `body` one of the bodies of `constraint` (its `adjbod`)?"""
    adj = constraint.adjbod
    return any(b is body for b in adj) if isinstance(adj, tuple) else adj is body


def reduced_base(domain, kind, form, base):
    """The (vals, vecs (m, k)) base of a BC-MODAL / BC-RO body: `base` as MODAL_ANALYSIS
    returns it or a REGISTER_BASE label (Solfec-1.0 user manual, BODY)."""
    from solfec_py.api.modal import base_arrays, registered_bases

    if kind != "FINITE_ELEMENT" or form not in ("BC-MODAL", "BC-RO"):
        return None
    if not V.given(base):
        raise InputError("Modal base data must be passed for the BC-MODAL formulation" if form == "BC-MODAL"
                         else "Reduced base must be passed for BC-RO formulation")
    if isinstance(base, str):
        bases = registered_bases(domain)
        if base not in bases:
            raise InputError(f"BODY 'base': registered base with label {base!r} has not been found; registered:"
                             f" {sorted(bases)}")
        return bases[base]
    return base_arrays(base)

