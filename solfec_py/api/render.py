"""RENDER (layer 7): an image of the model's current frame written without a display.
Reference: Solfec-1.0 lng.c (RENDER's `solfec` and `object` arguments, the viewer's body
selection) and rnd.c (its result legends); the drawing is output/render.py.
"""
from __future__ import annotations

import os

from solfec_py import session, validate as V
from solfec_py.api.common import elsewhere, require_body
from solfec_py.api.solfec import SOLFEC, require_solfec
from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError

IMAGE_TYPES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
MAX_PIXELS = 8192                     # largest width or height of an image


def _bodies(domain, solfec, obj) -> list:
    """Solfec's selection: the SOLFEC object (every body), a BODY or a list of BODY objects."""
    if not V.given(obj) or obj is None or obj is solfec:
        return list(domain.bodies)
    if isinstance(obj, SOLFEC):
        raise InputError("'object' must be the SOLFEC object passed as 'solfec', got another SOLFEC object")
    if isinstance(obj, Body):
        return [require_body("object", obj)]
    if isinstance(obj, list) and all(isinstance(b, Body) for b in obj):
        chosen = {}
        for k, b in enumerate(obj):
            chosen.setdefault(require_body(f"object[{k}]", b).id, b)
        return list(chosen.values())
    raise InputTypeError(f"'object' must be a SOLFEC a BODY object or a list of BODY objects, got {V.describe(obj)}")


def _size(size) -> tuple[int, int]:
    from solfec_py.output.render import DEFAULT_SIZE

    if not V.given(size):
        return DEFAULT_SIZE
    if not isinstance(size, tuple) or len(size) != 2:
        raise InputTypeError(f"'size' must be a tuple (width, height) of pixels, got {V.describe(size)}")
    return (V.integer("size[0]", size[0], 16, MAX_PIXELS), V.integer("size[1]", size[1], 16, MAX_PIXELS))


def _default_path(solfec, domain) -> str:
    count = getattr(solfec, "_render_count", 0)
    solfec._render_count = count + 1
    base = os.path.basename(os.path.normpath(solfec.outpath))
    return os.path.join(solfec.outpath, "render", f"{base}_{count:04d}.png")


@V.command
def RENDER(solfec, object=V.MISSING, path=V.MISSING, size=V.MISSING, centre=V.MISSING, eye=V.MISSING,
           up=V.MISSING, fov=V.MISSING, field=V.MISSING, limits=V.MISSING):
    """Render the current frame of the model to an image file (no display needed).

    ``RENDER(solfec | object, path, size, centre, eye, up, fov, field, limits)`` draws the
    current surfaces of the bodies (every kind: obstacle, rigid, pseudo-rigid, finite
    element; every shape: convex, mesh, sphere, ellipsoid) as shaded polygons seen by a
    pinhole camera, each body in its own colour or every point coloured by a result
    ``field`` with a colour bar, the time in the top-left corner. Solfec-1.0's RENDER takes
    ``solfec`` and ``object`` only and selects what its interactive viewer shows; solfec-py
    has no viewer and writes the picture instead, so a deck that calls RENDER in a loop of
    RUN or SEEK makes one image per call. In READ mode the picture is of the frame the
    model shows (the first stored frame until SEEK, FORWARD or BACKWARD moves it). The
    camera defaults frame the selected bodies as they are now, so pass ``centre`` and
    ``eye`` to keep the view fixed from call to call (``solfec-py render OUTDIR`` makes a
    whole run's movie with a fixed camera). On a parallel run RENDER does nothing but
    say so (render the stored results afterwards).

    Parameters
    ----------
    solfec : SOLFEC
    object : SOLFEC, BODY or list of BODY, optional
        What to draw; default every body.
    path : str, optional
        The image file, ``.png`` (also ``.svg``, ``.pdf``, ``.jpg``); missing directories
        are created. Default ``<output>/render/<name>_NNNN.png``, numbered by the calls of
        this SOLFEC object (a note names the file).
    size : tuple, optional
        ``(width, height)`` in pixels, each 16 to 8192; default (800, 600).
    centre : tuple, optional
        [length] The point ``(x, y, z)`` the camera looks at; default the centre of the
        drawn bodies' bounding box.
    eye : tuple, optional
        [length] The camera position ``(x, y, z)``; default from the direction
        (1, -1.6, 0.9) off ``centre``, far enough to see the bounding box whole.
    up : tuple, optional
        The direction ``(x, y, z)`` that points up the image; default +z (+y when looking
        along z).
    fov : float, optional
        The vertical field of view in degrees, 1 to 170; default 30.
    field : str, optional
        Colour the surfaces by ``'DX' 'DY' 'DZ'``, ``'DISP'`` (displacement magnitude),
        ``'VX' 'VY' 'VZ'``, ``'VELO'`` (speed), ``'SX' 'SY' 'SZ' 'SXY' 'SXZ' 'SYZ'`` or
        ``'MISES'`` (stress, zero on rigid bodies), as the viewer's legends of Solfec-1.0.
    limits : tuple, optional
        ``(low, high)`` of the colour scale; default the drawn values' range.

    Returns
    -------
    None

    Raises
    ------
    InputTypeError
        ``solfec`` not a SOLFEC object; ``object`` not a SOLFEC, BODY or list of BODY
        objects; a ``size``, point or vector of the wrong type.
    InputError
        An unknown ``field``, a bad image type, ``eye`` equal to ``centre``, ``limits`` not
        increasing, a ``fov`` out of range, a ``path`` that cannot be written.

    Examples
    --------
    >>> RENDER(sol, path='out/drop/start.png')                            # doctest: +SKIP
    >>> RENDER(sol, ball, 'out/drop/ball.png', size=(640, 480), eye=(3, -3, 2), centre=(0, 0, 0.5),
    ...        field='VELO')                                               # doctest: +SKIP
    """
    domain = require_solfec("solfec", solfec)
    bodies = _bodies(domain, solfec, object)
    size = _size(size)
    centre = V.point("centre", centre) if V.given(centre) else None
    eye = V.point("eye", eye) if V.given(eye) else None
    up = V.vector("up", up) if V.given(up) else None
    fov = V.in_range("fov", fov, 1.0, 170.0) if V.given(fov) else None
    from solfec_py.output import render

    if V.given(field) and field is not None:
        field = V.choice("field", field, render.FIELDS, what="'field' name")
    else:
        field = None
    if V.given(limits):
        if not isinstance(limits, tuple):
            raise InputTypeError(f"'limits' must be a tuple (low, high), got {V.describe(limits)}")
        limits = tuple(V.tuple_of_numbers("limits", limits, 2).tolist())
        if not limits[1] > limits[0]:
            raise InputError(f"'limits' must be increasing (low < high), got {limits}")
    else:
        limits = None
    if V.given(path):
        path = V.file_path("path", path)
    if isinstance(path, str) and os.path.splitext(path)[1].lower() not in IMAGE_TYPES:
        raise InputError(f"'path' must end in one of {list(IMAGE_TYPES)}, got {path!r}")
    if domain.parallel is not None:
        session.note("RENDER does nothing on a parallel run; render the stored results afterwards"
                     " (solfec-py render OUTDIR)")
        return None
    if solfec.mode == "READ":
        from solfec_py.output import replay

        replay.ensure_loaded(solfec)
    defaulted = not V.given(path)
    if defaulted:
        path = _default_path(solfec, domain)
    _draw(domain, [b for b in bodies if not elsewhere(b)], path, size, centre, eye, up, fov, field, limits)
    if defaulted:
        session.note(f"RENDER wrote {path}")
    return None


def _draw(domain, bodies, path, size, centre, eye, up, fov, field, limits) -> None:
    from solfec_py.output import render
    from solfec_py.output.render_live import live_scene

    scene = live_scene(bodies, stress=field is not None and render.FIELD_SOURCE[field] == "STRESS")
    lower, upper = scene.extents()
    if eye is not None and centre is not None and not float(((eye - centre) ** 2).sum()) > 0.0:
        raise InputError(f"'eye' must differ from 'centre', got both {tuple(eye.tolist())}")
    if eye is not None and centre is None and not float(((eye - 0.5 * (lower + upper)) ** 2).sum()) > 0.0:
        raise InputError(f"'eye' must differ from the centre of the drawn bodies {tuple(eye.tolist())}; give 'centre'")
    camera = render.camera_for(lower, upper, size, centre, eye, up, fov if fov is not None else render.DEFAULT_FOV)
    drawer = render.Renderer(size)
    drawer.draw(scene, camera, field, limits, text=f"t = {domain.time:g}")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        drawer.save(path)
    except OSError as exc:
        raise InputError(f"RENDER: cannot write 'path' {path!r}: {exc.strerror or exc}") from None
