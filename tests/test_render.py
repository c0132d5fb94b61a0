"""RENDER and `solfec-py render`: images have the requested size; a body drawn by an
explicit camera covers the pixels of its corners' convex hull under an independent
pinhole projection (intersection over union >= 0.95); a field colours bodies by the
colour map's ends; decks that render in a loop of RUN write their images (also in READ
mode); a stored run becomes a GIF or PNG frames with one camera for every frame (a
static obstacle's pixels do not change); missing ffmpeg and bad arguments are named."""
from __future__ import annotations

import os

import numpy as np
import pytest
from PIL import Image
from scipy.spatial import Delaunay

from solfec_py.cli import main
from solfec_py.errors import InputError, InputTypeError

from conftest import CUBE, write_deck

W, H = 400, 300


def pinhole(points, eye, centre, up, fov, size):
    """(column, row from the top) of points seen from `eye` looking at `centre`: the
    look-at frame of OpenGL's gluLookAt and the projection of gluPerspective, in pixels."""
    f = np.asarray(centre, float) - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    rel = np.asarray(points, float) - eye
    x, y, z = rel @ s, rel @ u, rel @ f
    scale = size[1] / 2 / np.tan(np.radians(fov) / 2)
    return np.stack([size[0] / 2 + scale * x / z, size[1] / 2 - scale * y / z], axis=1)


def drawn(path, skip_rows=40) -> np.ndarray:
    """Mask of the non-white pixels (the top rows, with the time, left out)."""
    img = np.asarray(Image.open(path).convert("RGB")).astype(int)
    mask = np.any(img < 250, axis=2)
    mask[:skip_rows] = False
    return mask


def cube_model(api, at=(1.0, 0.0, 0.0), velocity=None, output="out/r"):
    sol = api.SOLFEC("DYNAMIC", 1e-3, output)
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    nodes = list(np.array(eval(CUBE), float).reshape(8, 3) + at)
    shape = api.HEX([v for p in nodes for v in p], 1, 1, 1, 1, [1] * 6)
    body = api.BODY(sol, "RIGID", shape, mat)
    if velocity is not None:
        api.INITIAL_VELOCITY(body, velocity, (0, 0, 0))
    return sol, body, np.array(nodes)


@pytest.mark.parametrize("eye, centre, up, fov", [
    ((0, 0, 10), (0, 0, 0), (0, 1, 0), 60.0),                 # looking down z
    ((5, -6, 4), (1.5, 0.5, 0.5), (0, 0, 1), 35.0),           # oblique, perspective
])
def test_outline_matches_the_pinhole_projection(api, eye, centre, up, fov):
    sol, body, corners = cube_model(api)
    api.RENDER(sol, body, "img/cube.png", size=(W, H), eye=eye, centre=centre, up=up, fov=fov)
    assert Image.open("img/cube.png").size == (W, H)
    mask = drawn("img/cube.png")
    hull = Delaunay(pinhole(corners, np.array(eye, float), centre, up, fov, (W, H)))
    rows, cols = np.mgrid[0:H, 0:W]
    centres = np.stack([cols.ravel() + 0.5, rows.ravel() + 0.5], axis=1)
    expected = (hull.find_simplex(centres) >= 0).reshape(H, W)
    expected[:40] = False
    assert expected.sum() > 500                                 # the cube is well inside the image
    iou = (mask & expected).sum() / (mask | expected).sum()
    assert iou >= 0.95, iou
    lo = pinhole(corners, np.array(eye, float), centre, up, fov, (W, H)).min(axis=0)
    ys, xs = np.nonzero(mask)
    assert abs(xs.min() - lo[0]) <= 1.5 and abs(ys.min() - lo[1]) <= 1.5


def test_field_colours_by_the_colour_map_ends(api):
    sol, fast, _ = cube_model(api, at=(1.0, 0.0, 0.0), velocity=(2, 0, 0))
    mat = api.BULK_MATERIAL(sol, density=1000.0, label="m2")
    slow = api.BODY(sol, "RIGID", api.HEX([v - 2 if k % 3 == 0 else v for k, v in enumerate(eval(CUBE))],
                                          1, 1, 1, 1, [1] * 6), mat)
    api.RENDER(sol, [fast, slow], "img/velo.png", size=(W, H), eye=(0, 0, 10), centre=(0, 0, 0),
               up=(0, 1, 0), fov=60.0, field="VELO", limits=(0.0, 2.0))
    img = np.asarray(Image.open("img/velo.png").convert("RGB")).astype(float)
    mask = drawn("img/velo.png")
    mask[:, int(0.75 * W):] = False                              # the colour bar
    right, left = mask.copy(), mask.copy()
    right[:, : W // 2] = False                                   # x > 0: the fast cube (jet's red end)
    left[:, W // 2:] = False                                     # x < 0: the still one (jet's blue end)
    r, b = img[right].mean(axis=0), img[left].mean(axis=0)
    assert right.sum() > 300 and left.sum() > 300
    assert r[0] > 3 * r[2] and r[0] > 3 * r[1], r
    assert b[2] > 3 * b[0] and b[2] > 3 * b[1], b


def test_argument_errors_name_the_argument(api):
    sol, body, _ = cube_model(api)
    with pytest.raises(InputTypeError, match="'object' must be a SOLFEC a BODY object or a list of BODY objects"):
        api.RENDER(sol, "cube")
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        api.RENDER(None)
    with pytest.raises(InputError, match=r"Invalid 'field' name 'MISSES'.*did you mean 'MISES'"):
        api.RENDER(sol, path="a.png", field="MISSES")
    with pytest.raises(InputError, match=r"'path' must end in one of"):
        api.RENDER(sol, path="a.txt")
    with pytest.raises(InputError, match=r"'size\[0\]'"):
        api.RENDER(sol, path="a.png", size=(4, 100))
    with pytest.raises(InputTypeError, match="'size' must be a tuple"):
        api.RENDER(sol, path="a.png", size=[100, 100])
    with pytest.raises(InputError, match="'eye' must differ from 'centre'"):
        api.RENDER(sol, path="a.png", eye=(1, 1, 1), centre=(1, 1, 1))
    with pytest.raises(InputError, match="'limits' must be increasing"):
        api.RENDER(sol, path="a.png", field="DX", limits=(1.0, 0.0))
    with pytest.raises(InputError, match="'fov'"):
        api.RENDER(sol, path="a.png", fov=0.0)


DECK = f"""\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/fall')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1000.0)
post = HEX({CUBE}, 1, 1, 1, 1, [1]*6)
TRANSLATE(post, (-3, 0, 0))
BODY(sol, 'OBSTACLE', post, mat)
cube = HEX({CUBE}, 1, 1, 1, 1, [1]*6)
TRANSLATE(cube, (2, 0, 0))
BODY(sol, 'RIGID', cube, mat, label='cube')
OUTPUT(sol, 0.01)
for k in range(3):
    RENDER(sol, path='out/loop/frame%d.png' % k, size=(160, 120))
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-4, 50), 0.02)
RENDER(sol, size=(160, 120), field='VZ')
"""


def test_deck_renders_in_a_loop_and_in_read_mode(tmp_path, capsys):
    deck = write_deck(tmp_path / "fall.py", DECK)
    assert main(["--no-progress", deck]) == 0
    for k in range(3):
        assert Image.open(f"out/loop/frame{k}.png").size == (160, 120)
    assert Image.open("out/fall/render/fall_0000.png").size == (160, 120)
    assert "RENDER wrote out/fall/render/fall_0000.png" in capsys.readouterr().err
    os.remove("out/loop/frame2.png")
    assert main(["--no-progress", deck]) == 0                    # READ mode: frame 0 drawn
    assert Image.open("out/loop/frame2.png").size == (160, 120)


def test_stored_run_movie_and_frames_with_a_fixed_camera(tmp_path, capsys):
    deck = write_deck(tmp_path / "fall.py", DECK.replace("out/loop", "out/loop1"))
    assert main(["--no-progress", deck]) == 0
    assert main(["render", "out/fall", "-o", "movie.gif", "--size", "160x120", "--quiet"]) == 0
    gif = Image.open("movie.gif")
    assert gif.size == (160, 120) and gif.n_frames == 7           # frames at t = 0, 0.01, ..., 0.06
    assert main(["render", "out/fall", "-o", "every2.gif", "--size", "160x120", "--frames", "::2", "--quiet"]) == 0
    assert Image.open("every2.gif").n_frames == 4
    assert main(["render", "out/fall", "-o", "frames/", "--size", "200x150", "--field", "VZ"]) == 0
    err = capsys.readouterr().err
    assert "render: frame 7/7" in err
    names = sorted(os.listdir("frames"))
    assert names == [f"fall_{k:05d}.png" for k in range(7)]
    first = np.asarray(Image.open("frames/" + names[0]).convert("RGB"))
    last = np.asarray(Image.open("frames/" + names[-1]).convert("RGB"))
    assert first.shape == (150, 200, 3)
    # the falling cube moves, the obstacle (left, x < 0) stays put: fixed camera
    assert not np.array_equal(first, last)
    assert main(["render", "out/fall", "-o", "post/", "--size", "200x150", "--frames", "0,-1", "--quiet"]) == 0
    a, b = (np.asarray(Image.open(f"post/fall_{k:05d}.png").convert("RGB")) for k in (0, 1))
    left = np.any(a[20:, :80] < 250, axis=2)
    assert left.sum() > 100                                      # the obstacle is drawn there
    assert np.array_equal(a[20:, :80], b[20:, :80])


def test_render_command_errors(tmp_path, capsys, monkeypatch):
    from solfec_py.output import render_movie

    os.makedirs("empty")
    assert main(["render", "empty"]) == 1
    assert "no results in 'empty'" in capsys.readouterr().err
    deck = write_deck(tmp_path / "fall.py", DECK.replace("range(3)", "range(1)"))
    assert main(["--no-progress", deck]) == 0
    monkeypatch.setattr(render_movie, "ffmpeg_available", lambda: False)
    assert main(["render", "out/fall", "-o", "movie.mp4"]) == 1
    assert "needs the ffmpeg program, which is not on PATH" in capsys.readouterr().err
    assert main(["render", "out/fall", "--frames", "1:x"]) == 1
    assert "--frames '1:x'" in capsys.readouterr().err
    assert main(["render", "out/fall", "--frames", "99"]) == 1
    assert "frame 99 is out of range" in capsys.readouterr().err
    assert main(["render", "out/fall", "--field", "MISES"]) == 1   # rigid bodies only: no STRESS stored
    assert "not STRESS" in capsys.readouterr().err
    assert main(["render", "out/fall", "-o", "movie.avi"]) == 1
    assert "expected a .gif or .mp4 file" in capsys.readouterr().err


def test_select_frames():
    from solfec_py.output.render_movie import select_frames

    frames = [(k, 0.1 * k, 0) for k in range(10)]
    assert select_frames(frames, None) == list(range(10))
    assert select_frames(frames, "::3") == [0, 3, 6, 9]
    assert select_frames(frames, "-1") == [9]
    assert select_frames(frames, "2,4") == [2, 4]
    assert select_frames(frames, "all", t0=0.25, t1=0.55) == [3, 4, 5]


@pytest.mark.skipif(not __import__("shutil").which("ffmpeg"), reason="no ffmpeg program on PATH")
def test_mp4_with_ffmpeg(tmp_path):
    deck = write_deck(tmp_path / "fall.py", DECK.replace("range(3)", "range(1)"))
    assert main(["--no-progress", deck]) == 0
    assert main(["render", "out/fall", "-o", "movie.mp4", "--size", "161x121", "--quiet"]) == 0
    assert os.path.getsize("movie.mp4") > 0


def test_replay_draws_from_the_rebuilt_model(tmp_path, capsys, monkeypatch):
    """Without stored surfaces (SOLFEC_PY_XDMF=0) the stored deck rebuilds the model in READ
    mode and every frame is drawn from it; --replay asks for that (stress of any body)."""
    monkeypatch.setenv("SOLFEC_PY_XDMF", "0")
    deck = write_deck(tmp_path / "fall.py", DECK.replace("range(3)", "range(1)"))
    assert main(["--no-progress", deck]) == 0
    assert not os.path.exists("out/fall/fall_xdmf.h5")
    assert main(["render", "out/fall", "-o", "replayed/", "--size", "200x150", "--quiet"]) == 0
    assert len(os.listdir("replayed")) == 3                       # t = 0, 0.01, 0.02
    assert main(["render", "out/fall", "-o", "mises.gif", "--size", "200x150", "--replay", "--field", "MISES",
                 "--frames", "-1", "--quiet"]) == 0
    assert Image.open("mises.gif").size == (200, 150)
    os.remove("out/fall/fall.py")
    assert main(["render", "out/fall"]) == 1
    assert "no stored surfaces and no stored deck" in capsys.readouterr().err
