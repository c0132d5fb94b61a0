"""The last inputs that escaped as Python errors (OverflowError, ValueError, IndexError,
FileNotFoundError, IsADirectoryError) now end in solfec_py errors naming the argument:
SET_VELOCITY3 with a base of 1e300 entries, XDMF_EXPORT with a NUL or an over-long path,
HULL of points spanning 1e-300 .. 1e300, MODAL_ANALYSIS with the path '' or a directory."""
from __future__ import annotations

import pytest

from solfec_py.errors import GeometryError, InputError, SolfecError

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def model(api, out):
    sol = api.SOLFEC("DYNAMIC", 1e-3, out)
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.25, density=1e3)
    return sol, mat


def test_set_velocity3_base_of_huge_or_tiny_vectors(api):
    """A base of 1e300 vectors is checked for independence on unit vectors (it was an
    OverflowError), a base of 1e-300 ones is independent too (it was refused as dependent),
    a dependent one is refused by name."""
    sol, mat = model(api, "out/edges_velocity3")
    box = api.BODY(sol, "RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    for scale in (1e300, 1e-300):
        base = tuple(scale * v for v in (1, 0, 0, 0, 1, 0, 0, 0, 1))
        assert api.SET_VELOCITY3(box, (0.5, 0.5, 0.5), base, (0.0, 0.0, 0.0)).kind == "VELODIR3"
    with pytest.raises(InputError, match="'base' must hold three independent vectors"):
        api.SET_VELOCITY3(box, (0.5, 0.5, 0.5), (1e300, 0, 0, 2e300, 0, 0, 0, 0, 1), (0.0, 0.0, 0.0))


@pytest.mark.parametrize("path, message", [
    ("out/edges/a\0b", r"'path' holds a NUL character at position 11"),
    ("out/" + "a" * 300, r"'path' is too long for a directory path \(304 bytes, longest name 300; the system"
                         r" takes 4096 bytes, 255 per name\)"),
    ("out/" + "a" * 250, r"'path' is too long for a file path .* longest name 266"),     # NAME_constraints.xmf
    ("out/" + "a/" * 2100, r"'path' is too long for a directory path \(4204 bytes"),
])
def test_xdmf_export_path_the_system_cannot_take(api, path, message):
    sol, mat = model(api, "out/edges_xdmf")
    api.BODY(sol, "RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    with pytest.raises(InputError, match=message):
        api.XDMF_EXPORT(sol, 0.0, path)


def test_xdmf_export_path_that_is_a_file(api, tmp_path):
    sol, mat = model(api, "out/edges_xdmf_file")
    api.BODY(sol, "RIGID", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    (tmp_path / "taken").write_text("x")
    with pytest.raises(InputError, match="'path' must name a directory, got the file"):
        api.XDMF_EXPORT(sol, 0.0, str(tmp_path / "taken"))
    with pytest.raises(InputError, match="cannot write the XDMF files in 'path'.*Not a directory"):
        api.XDMF_EXPORT(sol, 0.0, str(tmp_path / "taken" / "below"))


def test_hull_of_points_spanning_1e300(api):
    """HULL works on the points scaled to a unit box (it was an IndexError from an
    overflowed tolerance): 1e-300 .. 1e300 gives the tetrahedron of the four far points,
    which BODY then refuses, naming why (its volume is not a float)."""
    points = [1e-300, 0, 0, 1e300, 0, 0, 0, 1e300, 0, 0, 0, 1e300, 1e-300, 1e-300, 1e-300]
    hull = api.HULL(points, 1, 1)
    assert hull.nver == 4
    tiny = api.HULL([0, 0, 0, 1e-300, 0, 0, 0, 1e-300, 0, 0, 0, 1e-300], 1, 1)
    assert sorted(tiny.vertex(n) for n in range(4)) == sorted([(0.0, 0.0, 0.0), (1e-300, 0.0, 0.0),
                                                               (0.0, 1e-300, 0.0), (0.0, 0.0, 1e-300)])
    sol, mat = model(api, "out/edges_hull")
    with pytest.raises(InputError, match="cannot be represented"):
        api.BODY(sol, "RIGID", hull, mat)
    with pytest.raises(GeometryError, match="coincident, collinear or coplanar"):
        api.HULL([0, 0, 0, 1e300, 0, 0, 0, 1e300, 0, 1e300, 1e300, 0], 1, 1)


@pytest.mark.parametrize("path, message", [
    ("", "'path' must name a file, got an empty string"),
    (".", "'path' must name a file, got the directory '.'"),
    ("out/modes\0x", "'path' holds a NUL character"),
])
def test_modal_analysis_path_that_is_no_file(api, path, message):
    sol, mat = model(api, "out/edges_modal")
    beam = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 2, 1, 1, 1, [1] * 6), mat)
    with pytest.raises(InputError, match=message):
        api.MODAL_ANALYSIS(beam, 3, path)


def test_modal_analysis_path_below_a_file(api, tmp_path):
    sol, mat = model(api, "out/edges_modal_file")
    beam = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 2, 1, 1, 1, [1] * 6), mat)
    (tmp_path / "taken").write_text("x")
    with pytest.raises(SolfecError, match="MODAL_ANALYSIS: cannot write the modes to 'path'"):
        api.MODAL_ANALYSIS(beam, 3, str(tmp_path / "taken" / "modes"))
