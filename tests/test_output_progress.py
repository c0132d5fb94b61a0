"""RUN's progress output: a clean tqdm bar on a terminal (simulated time, steps, ETA,
contacts, solver iterations; final counts, no empty postfix fields), nothing off a terminal
unless the deck set SOLFEC.verbose = 'ON' itself (then Solfec's TIME statistics lines)."""
from __future__ import annotations

import io
import re

from solfec_py.cli import main
from solfec_py.output.progress import Progress

from conftest import write_deck


class Terminal(io.StringIO):
    def isatty(self):
        return True


def ball_on_floor(api, path):
    sol = api.SOLFEC('DYNAMIC', 1e-3, path)
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    api.GRAVITY(sol, (0, 0, -9.81))
    api.BODY(sol, 'OBSTACLE', api.HEX([-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 0, 1, -1, 0, 1, 1, 0,
                                      -1, 1, 0], 1, 1, 1, 1, [1] * 6), mat)
    api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    return sol


def test_terminal_bar_is_clean_and_ends_with_the_final_counts(api):
    sol = ball_on_floor(api, 'out/bar')
    gs = api.GAUSS_SEIDEL_SOLVER(1e-8, 100)
    api.RUN(sol, gs, 0.002)                   # a contact exists from here on
    stream = Terminal()
    progress = Progress("ON", sol.time, sol.time + 0.01, stream=stream, tty=True)
    for _ in range(10):
        sol.domain.time += 0.001
        progress.update(sol.domain)
    progress.close(sol.domain)
    text = stream.getvalue()
    last = [line for line in re.split(r"[\r\n]", text) if line.strip()][-1]
    assert ", ," not in text and ", ]" not in text
    assert "100%" in last and "t=0.01/0.01 s" in last
    assert "steps=10" in last and "contacts=1" in last and f"iters={gs.iters}" in last


def test_quiet_off_a_terminal_unless_the_deck_asked(tmp_path, capsys):
    text = """\
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/quiet%s')
        %s
        BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), BULK_MATERIAL(sol))
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 0.01)
    """
    assert main([write_deck(tmp_path / "a.py", text % ("a", "")), "-i", "0"]) == 0
    assert "TIME:" not in capsys.readouterr().out           # default 'ON', not a terminal
    assert main([write_deck(tmp_path / "b.py", text % ("b", "sol.verbose = 'ON'")), "-i", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("TIME:") >= 10 and "STEPS/s" in out    # asked for: every step with -i 0
    assert main([write_deck(tmp_path / "c.py", text % ("c", "")), "--no-progress"]) == 0
    assert capsys.readouterr().out == ""


def test_bar_shows_on_a_pseudo_terminal_that_reports_no_size():
    """`script` and CI runners give the deck a pseudo-terminal of 0 columns: the bar is
    drawn 80 columns wide (or $COLUMNS) instead of 0 wide, which showed nothing."""
    import os
    import pty
    import types

    def _read_until_newline(fd, seconds=10.0):
        """What the pseudo-terminal passed on, up to the bar's final newline (the kernel
        hands it over asynchronously)."""
        import select
        import time

        data, end = b"", time.monotonic() + seconds
        while b"\n" not in data and time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                data += os.read(fd, 1 << 16)
        return data.decode("utf-8", "replace")

    master, slave = pty.openpty()
    try:
        if os.get_terminal_size(slave).columns != 0:      # pragma: no cover - platform pty default
            import pytest

            pytest.skip("this platform's new pseudo-terminals report a size")
        stream = os.fdopen(slave, "w", closefd=False)
        domain = types.SimpleNamespace(time=0.0, step=1e-3, statistics={}, constraints=[], bodies=[])
        progress = Progress("ON", 0.0, 0.01, stream=stream)    # tty decided by isatty(): True
        for _ in range(10):
            domain.time += 0.001
            progress.update(domain)
        progress.close(domain)
        stream.flush()
        text = _read_until_newline(master)
    finally:
        os.close(slave)
        os.close(master)
    last = [line for line in re.split(r"[\r\n]", text) if line.strip()][-1]
    assert "100%|" in last and "t=0.01/0.01 s" in last and "steps=10" in last
