"""ParaView files: the XDMF written during a run and by XDMF_EXPORT parse (meshio's XDMF
reader, ElementTree + h5py, and VTK's XDMF reader, rendering a frame offscreen), reference
existing datasets of the right shapes for every frame, and move the surfaces correctly:
the displacement of a translating body equals the closed-form free fall."""
from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import pytest

from solfec_py.cli import main
from solfec_py.output.store import ResultsStore

from conftest import free_flight_deck, write_deck

# the ball starts 1 m from the cube: they never touch (no contacts, free flight)
DECK = free_flight_deck('out/vis') + f"""\
npts = [sum(len(p.surface_triangles()[0]) for p in b.shape) for b in (ball, box)]
ntri = [sum(len(p.surface_triangles()[1]) for p in b.shape) for b in (ball, box)]
# the live series draws spheres as level-1 icospheres: 10 * 4 + 2 points, 20 * 4 triangles
npts[0], ntri[0] = 42, 80
OUTPUT(sol, 0.02)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2)
json.dump({{'npts': npts, 'ntri': ntri, 'mode': sol.mode}}, open('counts.json', 'w'))
"""


def check_references(xmf: str) -> list:
    """Every HDF DataItem names an existing dataset of the stated dimensions; returns the
    times of the temporal collection."""
    root = ET.parse(xmf).getroot()
    assert root.tag == "Xdmf" and root.get("Version") == "3.0"
    collection = root.find("Domain/Grid")
    assert collection.get("CollectionType") == "Temporal"
    folder = os.path.dirname(xmf)
    times = []
    for grid in collection.findall("Grid"):
        times.append(float(grid.find("Time").get("Value")))
        for item in grid.iter("DataItem"):
            if item.get("Format") != "HDF":
                continue
            file, path = item.text.strip().split(":")
            with h5py.File(os.path.join(folder, file), "r") as f:
                assert path in f, f"{xmf}: {path} missing"
                assert f[path].shape == tuple(int(d) for d in item.get("Dimensions").split())
    return times


@pytest.fixture
def vis(tmp_path):
    deck = write_deck(tmp_path / "vis.py", DECK)
    assert main([deck]) == 0
    counts = json.load(open(tmp_path / "counts.json"))
    return tmp_path, deck, counts


def test_live_xdmf_references_every_frame(vis):
    tmp_path, _, counts = vis
    store = ResultsStore.open_existing(str(tmp_path / "out/vis/vis.results"))
    times = check_references(str(tmp_path / "out/vis/vis_grids.xmf"))
    np.testing.assert_array_equal(times, store.times)
    assert len(times) == 11
    assert not (tmp_path / "out/vis/vis_constraints.xmf").exists()     # no constraints in this model
    grid = ET.parse(str(tmp_path / "out/vis/vis_grids.xmf")).getroot().find("Domain/Grid/Grid")
    assert "STRESS" not in [a.get("Name") for a in grid.findall("Attribute")]   # rigid bodies only


def test_meshio_reads_the_series_and_the_displacement_is_the_free_fall(vis):
    import meshio

    tmp_path, _, counts = vis
    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/vis/vis_grids.xmf")) as reader:
        points, cells = reader.read_points_cells()
        assert reader.num_steps == 11
        assert points.shape == (sum(counts["npts"]), 3)
        assert cells[0].type == "triangle" and cells[0].data.shape == (sum(counts["ntri"]), 3)
        t, pd, cd = reader.read_data(7)
    bid = cd["BID"][0]
    assert sorted(set(bid.tolist())) == [1, 2]
    ball_points = np.unique(cells[0].data[bid == 1])
    assert ball_points.size == counts["npts"][0]
    # the ball translates: every surface point moved by (t, 0, 2t - g t^2/2); float32 data
    expected = np.array([t, 0.0, 2 * t - 0.5 * 9.81 * t * t])
    np.testing.assert_allclose(pd["DISP"][ball_points], np.broadcast_to(expected, (ball_points.size, 3)), atol=1e-6)
    np.testing.assert_allclose(pd["VELO"][ball_points], np.broadcast_to([1, 0, 2 - 9.81 * t], (ball_points.size, 3)),
                               atol=1e-5)
    # the box's rigid motion keeps distances between its surface points (float32: 1e-5)
    box_points = np.unique(cells[0].data[bid == 2])
    X = points[box_points]
    x = X + pd["DISP"][box_points]
    d0 = np.linalg.norm(X[:, None] - X[None], axis=2)
    d1 = np.linalg.norm(x[:, None] - x[None], axis=2)
    np.testing.assert_allclose(d1, d0, atol=1e-5)
    assert np.abs(pd["DISP"][box_points]).max() > 0.05            # and it did move


RENDER = """\
import json, sys
import vtk
from vtk.util.numpy_support import vtk_to_numpy

xmf, png = sys.argv[1:3]
reader = vtk.vtkXdmfReader()
reader.SetFileName(xmf)
reader.UpdateInformation()
steps = reader.GetOutputInformation(0).Get(vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS())
reader.UpdateTimeStep(steps[5])
grid = reader.GetOutputDataObject(0)
surface = vtk.vtkGeometryFilter()
surface.SetInputData(grid)
mapper = vtk.vtkDataSetMapper()
mapper.SetInputConnection(surface.GetOutputPort())
mapper.SetScalarModeToUsePointFieldData()
mapper.SelectColorArray("DISP")
mapper.SetColorModeToMapScalars()
mapper.GetLookupTable().SetVectorModeToMagnitude()
mapper.SetScalarRange(0.0, 0.3)
actor = vtk.vtkActor()
actor.SetMapper(mapper)
renderer = vtk.vtkRenderer()
renderer.AddActor(actor)
renderer.SetBackground(1.0, 1.0, 1.0)
window = vtk.vtkRenderWindow()
window.SetOffScreenRendering(1)
window.AddRenderer(renderer)
window.SetSize(320, 240)
renderer.ResetCamera()
window.Render()
shot = vtk.vtkWindowToImageFilter()
shot.SetInput(window)
shot.Update()
writer = vtk.vtkPNGWriter()
writer.SetFileName(png)
writer.SetInputConnection(shot.GetOutputPort())
writer.Write()
image = vtk.vtkPNGReader()
image.SetFileName(png)
image.Update()
dims = image.GetOutput().GetDimensions()
pixels = vtk_to_numpy(image.GetOutput().GetPointData().GetScalars())
bid = vtk_to_numpy(grid.GetCellData().GetArray("BID"))
cells = vtk_to_numpy(grid.GetCells().GetConnectivityArray()).reshape(-1, 3)
ball = sorted(set(cells[bid == 1].ravel().tolist()))
json.dump({"steps": len(steps), "time": steps[5], "points": grid.GetNumberOfPoints(),
           "cells": grid.GetNumberOfCells(), "dims": list(dims[:2]),
           "drawn": int((pixels[:, :3] < 250).any(axis=1).sum()), "window": window.GetClassName(),
           "ball_disp": vtk_to_numpy(grid.GetPointData().GetArray("DISP"))[ball].tolist()}, sys.stdout)
"""


def test_vtk_reads_and_renders_a_frame_offscreen(vis):
    # ParaView's engine: VTK's XDMF reader loads frame 5, an offscreen render window draws
    # its surfaces into a PNG. Run in a child process: a broken OpenGL driver must fail
    # the test, not crash pytest.
    import subprocess
    import sys

    pytest.importorskip("vtk")
    tmp_path, _, counts = vis
    script = tmp_path / "render.py"
    script.write_text(RENDER)
    png = tmp_path / "frame5.png"
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "out/vis/vis_grids.xmf"), str(png)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["steps"] == 11 and r["time"] == pytest.approx(0.1, abs=1e-12)
    assert r["points"] == sum(counts["npts"]) and r["cells"] == sum(counts["ntri"])
    # every point of the ball moved by the free fall (t, 0, 2t - g t^2/2) at t = 0.1 (float32)
    t = r["time"]
    np.testing.assert_allclose(r["ball_disp"], [[t, 0.0, 2 * t - 0.5 * 9.81 * t * t]] * counts["npts"][0],
                               atol=1e-6)
    # the image exists, has the window's size, and the bodies cover part of the white
    # background (the two bodies fill the reset camera's view: neither none nor all)
    assert png.stat().st_size > 0 and r["dims"] == [320, 240]
    assert 0.01 * 320 * 240 < r["drawn"] < 0.99 * 320 * 240, r


EXPORT = """\
XDMF_EXPORT(sol, (0.05, 0.15), 'exp/range', 'box', ['DISP', 'STRESS'])
XDMF_EXPORT(sol, [0.1, 0.2, 0.1], 'exp/list')
print('TIME', sol.time)
"""


def test_xdmf_export_of_stored_frames(vis, capsys):
    import meshio

    tmp_path, deck, counts = vis
    deck = write_deck(tmp_path / "vis.py", DECK + "SEEK(sol, 0.04)\n" + EXPORT)
    assert main([deck]) == 0
    assert "TIME 0.04" in capsys.readouterr().out                # the model is back at its frame
    times = check_references(str(tmp_path / "exp/range/range_grids.xmf"))
    np.testing.assert_allclose(times, [0.06, 0.08, 0.1, 0.12, 0.14], atol=1e-12)
    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "exp/range/range_grids.xmf")) as reader:
        points, cells = reader.read_points_cells()
        assert points.shape[0] == counts["npts"][1]               # only the box
        t, pd, cd = reader.read_data(0)
        assert set(pd) == {"DISP", "STRESS"} and not pd["STRESS"].any()
        assert set(cd["BID"][0].tolist()) == {2}
    times = check_references(str(tmp_path / "exp/list/list_grids.xmf"))
    np.testing.assert_allclose(times, [0.1, 0.2], atol=1e-12)


def test_xdmf_export_in_write_mode_is_the_current_geometry(tmp_path):
    import meshio

    deck = write_deck(tmp_path / "w.py", DECK.replace("RUN(", "XDMF_EXPORT(sol, 1.0, 'exp/t0')\nRUN("))
    assert main([deck]) == 0
    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "exp/t0/t0_grids.xmf")) as reader:
        assert reader.num_steps == 1
        reader.read_points_cells()
        t, pd, _ = reader.read_data(0)
    assert t == 0.0 and not pd["DISP"].any()


@pytest.mark.parametrize("call, message", [
    ("XDMF_EXPORT(sol, (0, 1, 2), 'e')", "The 'time' tuple size should be two: (t0, t1)"),
    ("XDMF_EXPORT(sol, 0.1, 'e', 'box', 'DISP')", "'attributes' should be a list of attributes"),
    ("XDMF_EXPORT(sol, 0.1, 'e', 'box', ['DISP', 'FOO'])", "Invalid attribute name: FOO"),
    ("XDMF_EXPORT(sol, 0.1, 'e', 'box', ['DISP', 5])", "An attribute must be a string"),
    ("XDMF_EXPORT(sol, 0.1, 'e', 'nomatch')", "Invalid subset definition (matching bodies not found)"),
    ("XDMF_EXPORT(sol, 0.1, 'e', 2.5)", "Invalid subset definition"),
    ("XDMF_EXPORT(sol, 0.1, 7)", "'path' must be a string"),
])
def test_xdmf_export_argument_errors(vis, capsys, call, message):
    tmp_path, _, _ = vis
    deck = write_deck(tmp_path / "vis.py", DECK + call + "\n")
    capsys.readouterr()
    assert main([deck]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"{deck}:{DECK.count(chr(10)) + 1}: ") and message in err


def test_live_export_can_be_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLFEC_PY_XDMF", "0")
    deck = write_deck(tmp_path / "vis.py", DECK)
    assert main([deck]) == 0
    assert (tmp_path / "out/vis/vis.results/store.json").is_file()
    assert not (tmp_path / "out/vis/vis_grids.xmf").exists() and not (tmp_path / "out/vis/vis_xdmf.h5").exists()


STRESSED = """\
import numpy as np
sol = SOLFEC('DYNAMIC', 1E-4, 'out/fe')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, young=2.0E9, poisson=0.3, density=1000.0)
cube = BODY(sol, 'FINITE_ELEMENT', HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],
                                       2, 2, 2, 1, [1] * 6), mat)
X = np.array(cube.block.X[:cube.block.N])
U = np.array({U})
cube.conf = tuple((X @ (U - np.eye(3)).T).reshape(-1).tolist())   # a homogeneous stretch at t = 0
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 2E-4)
"""


def test_finite_element_bodies_write_their_stress_by_default(tmp_path):
    """A run with a finite-element body writes STRESS to its ParaView files without being
    asked (a rigid-only run does not: test_live_xdmf_references_every_frame): frame 0 holds
    the deck's homogeneous stretch F = U (symmetric), whose stress at every surface point is
    Solfec's formula F P / det F (tests/stress_reference.py) to float32 rounding (rtol 1e-6)."""
    from stress_reference import solfec_fe_stress

    U = [[1.01, 0.002, 0.0], [0.002, 0.995, 0.001], [0.0, 0.001, 1.003]]
    deck = write_deck(tmp_path / "fe.py", STRESSED.format(U=U))
    assert main([deck]) == 0
    xmf = os.path.join(tmp_path, "out", "fe", "fe_grids.xmf")
    check_references(xmf)
    grid = ET.parse(xmf).getroot().find("Domain/Grid/Grid")
    names = [a.get("Name") for a in grid.findall("Attribute")]
    assert "STRESS" in names
    item = next(a for a in grid.findall("Attribute") if a.get("Name") == "STRESS").find("DataItem")
    file, path = item.text.strip().split(":")
    with h5py.File(os.path.join(tmp_path, "out", "fe", file), "r") as f:
        stress = np.array(f[path])
    ref = solfec_fe_stress(np.array(U), 2.0e9, 0.3)[:6]
    assert stress.shape[1] == 6 and stress.shape[0] > 0
    np.testing.assert_allclose(stress, np.tile(ref, (stress.shape[0], 1)), rtol=1e-6, atol=1e-6 * np.abs(ref).max())
