"""The segment directory of a results store in every state a killed writer can leave it
(output/segments.py): an unfinished temporary segment, a merge killed before or after its
rename or while removing the merged files. Each reads exactly the frames of the intact
store, and a continuing writer removes the leftovers (and says so for unfinished segments).
Reference: the store before the damage (bit-identical frame tables and states)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from solfec_py import session
from solfec_py.output import recorder, segments, store as S
from solfec_py.output.store_reader import StoreReader


def _model(api, path="out/seg"):
    sol = api.SOLFEC("DYNAMIC", 1e-3, path)
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    for i in range(3):
        b = api.BODY(sol, "RIGID", api.SPHERE((i, 0, 0), 0.1, 1, 1), mat, label=f"b{i}")
        api.INITIAL_VELOCITY(b, (0, 0, i + 1), (1, 0, 0))
    return sol


def _write(sol, n, monkeypatch):
    """n frames, each committed as its own segment (merged by 8 as the writer does)."""
    monkeypatch.setattr(S, "FLUSH_SECONDS", 0.0)
    sol.store.start_writing()
    for k in range(n):
        sol.domain.time = 1e-3 * k
        for body in sol.domain.bodies:
            body.block.conf[body.row, 9:12] += 0.01 * (k + 1)
        recorder.write_frame(sol)
    recorder.finish(sol)


def _content(path):
    r = StoreReader.open_existing(path)
    return r.table.copy(), r.read_all("state/rigid"), r.read_all("ids/rigid")


def _same(path, reference):
    for a, b in zip(_content(path), reference):
        np.testing.assert_array_equal(a, b)


@pytest.fixture
def written(api, tmp_path, monkeypatch):
    sol = _model(api)
    _write(sol, 19, monkeypatch)
    path = sol.store.path
    names = sorted(n for n in os.listdir(path) if n.endswith(".h5"))
    # 19 commits: frames 0-7 and 8-15 merged once each, then 3 of level 0
    assert [n[-5:-3] for n in names] == ["01", "01", "00", "00", "00"]
    return path, _content(path), names


def test_an_unfinished_segment_is_ignored_then_removed_with_a_note(written, api, capsys, monkeypatch):
    path, reference, names = written
    with open(os.path.join(path, segments.segment_name(19, 20, 0) + segments.TMP), "wb") as f:
        f.write(b"\x89HDF\r\n half a segment")          # a writer killed while writing it
    _same(path, reference)
    session.start(progress=False)
    store = S.ResultsStore(path)
    store.start_writing(append=True)
    assert "1 unfinished segment file(s)" in capsys.readouterr().err
    assert not [n for n in os.listdir(path) if n.endswith(segments.TMP)]
    assert store.nframes == 19


@pytest.mark.parametrize("when", ["before rename", "after rename", "one removed"])
def test_a_merge_killed_at_any_point_reads_the_same_frames(written, when, api):
    path, reference, names = written
    tail = [segments.read_segment(os.path.join(path, n)) for n in names[2:]]
    saved = {s.path: open(s.path, "rb").read() for s in tail}
    merged = segments.merge(path, tail)                 # what the writer does, then undo part of it
    for p, data in saved.items():
        if when != "one removed" or p != tail[0].path:
            with open(p, "wb") as f:
                f.write(data)
    if when == "before rename":
        os.replace(merged.path, merged.path + segments.TMP)
    _same(path, reference)
    cover, redundant, unfinished = segments.listing(path)
    assert (merged.name in cover) == (when != "before rename")
    store = S.ResultsStore(path)
    store.start_writing(append=True)                   # -c: the leftovers go
    left = sorted(n for n in os.listdir(path) if n.endswith(".h5") or n.endswith(segments.TMP))
    assert left == segments.listing(path)[0] and not segments.listing(path)[1]
    assert store.nframes == 19
    _same(path, reference)


def test_readers_list_again_when_a_writer_merged_meanwhile(written):
    """A reader opened before a merge (another process, while a run goes on) finds the
    merged segment when the ones it listed are gone."""
    path, reference, names = written
    reader = StoreReader.open_existing(path)
    segments.merge(path, [segments.read_segment(os.path.join(path, n)) for n in names[2:]])
    np.testing.assert_array_equal(reader.read_all("state/rigid"), reference[1])


def test_overwrite_renames_the_directory_aside_first(written, tmp_path):
    path, _, _ = written
    S.remove(path)
    assert not os.path.exists(path) and not [n for n in os.listdir(os.path.dirname(path)) if "removed" in n]


def test_a_paraview_series_damaged_by_a_kill_starts_afresh_on_continue(tmp_path, capsys):
    """The live ParaView heavy file is written in place: a kill can leave it unreadable.
    -c then warns and starts the series afresh at the first continued frame; the results
    are continued as ever. Reference: Solfec's clock (conftest.solfec_clock: frame 0 and one
    frame a step)."""
    from solfec_py.cli import main

    from conftest import solfec_clock, stored, write_deck

    deck = write_deck(tmp_path / "p.py", """\
sol = SOLFEC('DYNAMIC', 0.1, 'out/p')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -10))
BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), BULK_MATERIAL(sol, density=1.0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 1.0)
""")
    os.makedirs(tmp_path / "out/p")
    (tmp_path / "out/p/STOP").write_text("")          # the first run stops after one step
    assert main([deck]) == 0
    os.remove(tmp_path / "out/p/STOP")
    (tmp_path / "out/p/p_xdmf.h5").write_bytes(b"\x89HDF\r\n\x1a\n torn")
    capsys.readouterr()
    assert main(["-c", deck]) == 0
    assert "cannot be continued" in capsys.readouterr().err
    frames = 1 + len(solfec_clock(0.1, 1.0))
    assert stored(tmp_path / "out/p").nframes == frames
    import meshio

    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/p/p_grids.xmf")) as r:
        assert r.num_steps == frames - 2             # frames 2 ..., written by the continued run
