"""`solfec-py plot` and plot_history: the PNG/PDF is written and the curves drawn (read back
from the matplotlib figure, not from pixels) and the CSV equal the stored history, which is
itself checked against the closed-form free fall."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from matplotlib.figure import Figure

from solfec_py.cli import main
from solfec_py.output import plot

from conftest import write_deck

DECK = """\
import json
sol = SOLFEC('DYNAMIC', 1E-3, 'out/p')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1000.0)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='ball')
INITIAL_VELOCITY(ball, (1, 0, 2), (0, 0, 0))
OUTPUT(sol, 0.01)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.1)
if sol.mode == 'READ':
    h = HISTORY(sol, [(sol, 'KINETIC'), (ball, (0, 0, 0), 'DZ'), 'STEP'], 0, 0.1)
    json.dump(h, open('h.json', 'w'))
    from solfec_py.output.plot import plot_history
    plot_history(h, ['KINETIC', 'DZ', 'STEP'], 'deck_plot.pdf')
"""


@pytest.fixture
def results(tmp_path):
    deck = write_deck(tmp_path / "p.py", DECK)
    assert main([deck]) == 0 and main([deck]) == 0
    return tmp_path, json.load(open(tmp_path / "h.json"))


@pytest.fixture
def figures(monkeypatch):
    """Every Figure saved, so the test can read back what was drawn."""
    saved = []
    original = Figure.savefig

    def spy(self, fname, *args, **kwargs):
        saved.append((self, str(fname)))
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    return saved


def test_plot_command_png_and_csv_equal_the_stored_history(results, figures, capsys):
    tmp_path, h = results
    rc = main(["plot", "out/p", "-e", "KINETIC", "-e", "1,(0,0,0),DZ", "-e", "ball,(0,0,0),DZ",
               "-e", "STEP", "-o", "p.png", "--csv", "p.csv"])
    assert rc == 0
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig, name = figures[-1]
    assert name == "p.png"
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    assert [line.get_label() for line in lines] == ["KINETIC", "1,(0,0,0),DZ", "ball,(0,0,0),DZ", "STEP"]
    t = lines[0].get_xdata()
    # the plot uses every frame (0, 0.01, ..., 0.1); HISTORY(0, 0.1) all but the last
    np.testing.assert_allclose(t, 0.01 * np.arange(11), atol=1e-12)
    n = len(h[0])
    np.testing.assert_array_equal(t[:n], h[0])
    np.testing.assert_array_equal(lines[0].get_ydata()[:n], h[1])
    np.testing.assert_array_equal(lines[1].get_ydata()[:n], h[2])
    np.testing.assert_array_equal(lines[2].get_ydata(), lines[1].get_ydata())   # label = id 1
    np.testing.assert_allclose(lines[1].get_ydata(), 2 * t - 0.5 * 9.81 * t * t, atol=1e-12)
    rows = list(csv.reader(open(tmp_path / "p.csv")))
    assert rows[0] == ["time", "KINETIC", "1,(0,0,0),DZ", "ball,(0,0,0),DZ", "STEP"]
    data = np.array(rows[1:], dtype=float)
    np.testing.assert_array_equal(data[:, 0], t)
    for k, line in enumerate(lines):
        np.testing.assert_array_equal(data[:, k + 1], line.get_ydata())    # CSV keeps full precision


def test_default_plot_and_listing(results, figures, capsys):
    tmp_path, _ = results
    assert main(["plot", "out/p"]) == 0
    assert (tmp_path / "out/p/p_plot.png").is_file()
    fig, _ = figures[-1]
    labels = [line.get_label() for ax in fig.axes for line in ax.get_lines()]
    assert labels == ["KINETIC", "EXTERNAL"]      # no solver statistics; zero energies left out
    assert "left out (zero at every frame): CONTACT, FRICTION, INTERNAL" in capsys.readouterr().err
    assert main(["plot", "out/p", "--list"]) == 0
    out = capsys.readouterr().out
    assert "11 frames" in out and "1 RIGID ball" in out


def test_plot_history_helper_in_a_deck(results, figures):
    tmp_path, h = results
    assert (tmp_path / "deck_plot.pdf").read_bytes()[:4] == b"%PDF"
    fig = plot.plot_history(h, ["KINETIC", "DZ", "STEP"])
    ys = [line.get_ydata() for ax in fig.axes for line in ax.get_lines()]
    for k in range(3):
        np.testing.assert_array_equal(ys[k], h[k + 1])
    with pytest.raises(ValueError, match="3 series but 2 labels"):
        plot.plot_history(h, ["a", "b"])


@pytest.mark.parametrize("args, message", [
    (["out/none"], "no results at 'out/none'"),
    (["out/p", "-e", "FOO"], "unknown entity 'FOO'"),
    (["out/p", "-e", "9,(0,0,0),DZ"], "no body with id 9"),
    (["out/p", "-e", "nolabel,KINETIC"], "no body labelled 'nolabel'"),
    (["out/p", "-e", "1,(0,0),DZ"], "the point must be (X,Y,Z)"),
    (["out/p", "-e", "1,(0,0,0),DQ"], "unknown point entity 'DQ'"),
])
def test_plot_errors(results, capsys, args, message):
    capsys.readouterr()
    assert main(["plot", *args]) == 1
    assert message in capsys.readouterr().err


def test_plot_help_documents_the_entity_syntax(capsys):
    with pytest.raises(SystemExit):
        main(["plot", "--help"])
    out = capsys.readouterr().out
    assert "BODY,(X,Y,Z),ENTITY" in out and "--csv" in out


def test_units_title_svg_and_one_quantity_against_another(results, figures, capsys):
    """--x plots DZ against DX of the ball: the free-flight parabola z = 2 x - 4.905 x^2
    (v0 = (1, 0, 2), g = 9.81); axes carry units, the title is the deck's name."""
    tmp_path, _ = results
    assert main(["plot", "out/p", "-e", "ball,(0,0,0),DZ", "-e", "ball,(0,0,0),VZ", "--x", "ball,(0,0,0),DX",
                 "-o", "xz.svg"]) == 0
    assert b"<svg" in (tmp_path / "xz.svg").read_bytes()[:400]
    fig, _ = figures[-1]
    x = fig.axes[0].get_lines()[0].get_xdata()
    z = fig.axes[0].get_lines()[0].get_ydata()
    np.testing.assert_allclose(z, 2 * x - 0.5 * 9.81 * x * x, atol=1e-12)
    assert x[-1] == pytest.approx(0.1)
    assert fig.axes[0].get_ylabel() == "ball,(0,0,0),DZ [m]"
    assert fig.axes[1].get_ylabel() == "ball,(0,0,0),VZ [m/s]"
    assert fig.axes[-1].get_xlabel() == "ball,(0,0,0),DX [m]"
    assert fig._suptitle.get_text() == "p.py"
    assert main(["plot", "out/p", "-e", "KINETIC", "-e", "GSITERS"]) == 0
    fig, _ = figures[-1]
    assert fig.axes[0].get_ylabel() == "energy [J]" and fig.axes[-1].get_xlabel() == "time [s]"
    assert main(["plot", "out/p", "-o", "p.jpg"]) == 2
    assert ".png, .svg or .pdf" in capsys.readouterr().err
