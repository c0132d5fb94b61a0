"""The example gallery: every deck of inputs/ with its description, the plots it leaves and
its source, on one page (the ``deck-gallery`` directive of docs/gallery.rst).

At the start of a build the decks are run with ``python -m solfec_py`` in
``docs/_build/gallery``, several at once. Results found there from an earlier build, or in
the repository's ``out/`` (e.g. README command 1's projectile), are reused: the deck opens
them in READ mode and only re-checks them, which takes seconds. A deck's own PNG plots are shown; a deck that draws none gets
``solfec-py plot`` of the energies in its stored results.
Decks listed in SLOW are shown without running (and without a plot) to keep the docs build
within a few minutes. A deck that fails is a build warning, so ``sphinx-build -W`` fails.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INPUTS = os.path.join(ROOT, "inputs")

# decks not run during the docs build (more than ~30 s of CPU each; the others take ~150 s of
# CPU together): why, shown on the page. Their plots come from STORED (refresh them with
# ``python docs/_ext/deck_gallery.py NAME ...`` after changing such a deck).
SLOW = {
    "masonry_arch": "it takes about 80 s per thickness ratio; run it with "
                    "``solfec-py inputs/masonry_arch.py`` or sweep the ratio (see the sweeps tutorial)",
    "block_sliding": "its 10 s of stick-slip at a small step take about 100 s of CPU",
    "spring_mass": "its 6500 steps take about a minute of CPU",
    "prescribed_motion": "it takes about 50 s of CPU",
    "pendulum_fix_point": "it takes about 35 s of CPU",
}
STORED = os.path.join(os.path.dirname(HERE), "gallery_images")
# decks that need an optional extra: module -> pip extra
NEEDS = {"gmsh_part": ("gmsh", "mesh")}
# words after the deck (NON_SOLFEC_ARGV): a shorter run where the deck offers one
WORDS = {"heavy_top": ["2.0"]}
ENERGIES = ("KINETIC", "EXTERNAL", "CONTACT", "FRICTION", "INTERNAL")
TIMEOUT = 600  # seconds per deck; a deck taking longer is a build warning


def decks() -> list:
    """Names of the decks in inputs/ (top level; the legacy twins are described in legacy.md)."""
    return sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(INPUTS, "*.py")))


def description(name: str) -> str:
    """The comment block at the top of the deck, as plain text."""
    lines = []
    with open(os.path.join(INPUTS, name + ".py"), encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            lines.append(line[1:].strip())
    return "\n".join(lines).strip()


def readme_line(name: str) -> str:
    """What the README's table says the deck checks ('' if it is not in the table)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 2 and re.search(rf"`{re.escape(name)}\.py`", cells[0]):
                return cells[1]
    return ""


def _env() -> dict:
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_deck(name: str, work: str, images: str) -> dict:
    """Run one deck in `work`; copy its plots to `images`. Returns status, seconds, images, log."""
    if name in SLOW:
        return {"status": "slow", "seconds": 0.0, "images": sorted(glob.glob(os.path.join(STORED, name + "_*.png"))),
                "log": ""}
    if name in NEEDS:
        module, extra = NEEDS[name]
        try:
            __import__(module)
        except ImportError:
            return {"status": "needs", "seconds": 0.0, "images": [], "log": extra}
    stored, mine = os.path.join(ROOT, "out", name), os.path.join(work, "out", name)
    if os.path.isdir(stored) and not os.path.isdir(mine):   # results of an earlier run: re-checked
        shutil.copytree(stored, mine)
    start = time.perf_counter()
    code, cpu, log = _run([sys.executable, "-m", "solfec_py", "--no-progress", os.path.join(INPUTS, name + ".py"),
                           *WORDS.get(name, [])], work)
    status = "ok" if code == 0 else "failed"
    seconds = time.perf_counter() - start
    shown = []
    if status == "ok":
        outdir = os.path.join(work, "out", name)
        own = sorted(glob.glob(os.path.join(outdir, "**", "*.png"), recursive=True))
        for k, png in enumerate(own):
            target = os.path.join(images, f"{name}_{k}.png")
            shutil.copyfile(png, target)
            shown.append(target)
        if not own:
            shown += _plot_results(name, outdir, images)
    return {"status": status, "seconds": seconds, "cpu": cpu, "images": shown, "log": log}


def _run(argv: list, cwd: str):
    """(exit code, CPU seconds, output) of a command; killed after TIMEOUT seconds."""
    import tempfile
    import threading

    with tempfile.TemporaryFile(mode="w+") as out:
        proc = subprocess.Popen(argv, cwd=cwd, env=_env(), stdout=out, stderr=subprocess.STDOUT, text=True)
        timer = threading.Timer(TIMEOUT, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        log = out.read()
    if proc.returncode < 0:
        log += f"\n(killed after {TIMEOUT} s)"
    return proc.returncode, usage.ru_utime + usage.ru_stime, log


def _plot_results(name: str, outdir: str, images: str) -> list:
    """`solfec-py plot` of the first stored results of a deck that draws no plot itself."""
    results = sorted(p for p in glob.glob(os.path.join(outdir, "**", "*.h5"), recursive=True)
                     if not p.endswith("_xdmf.h5"))
    if not results:
        return []
    target = os.path.join(images, f"{name}_plot.png")
    energies = [arg for kind in ENERGIES for arg in ("-e", kind)]      # zero ones are left out
    proc = subprocess.run([sys.executable, "-m", "solfec_py", "plot", os.path.dirname(results[0]), *energies,
                           "--title", f"{name}.py", "-o", target],
                          env=_env(), capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0 or not os.path.isfile(target):
        raise RuntimeError(f"solfec-py plot of {name} failed:\n{proc.stdout}{proc.stderr}")
    return [target]


def rst_lines(name: str, result: dict, srcdir: str) -> list:
    """The gallery section of one deck."""
    title = f"{name}.py"
    lines = [title, "-" * len(title), ""]
    what = readme_line(name)
    if what:
        lines += ["**Checks:** " + what.replace("|", "\\|"), ""]
    lines += ["::", ""] + ["    " + line for line in description(name).splitlines()] + [""]
    status = result["status"]
    if status == "slow":
        lines += [f"Not run while building these pages: {SLOW[name]}."
                  + (" The plot is from a full run, kept in ``docs/gallery_images/``." if result["images"] else ""), ""]
    elif status == "needs":
        lines += [f"Not run while building these pages: it needs the ``[{result['log']}]`` extra "
                  f"(``pip install '.[{result['log']}]'``).", ""]
    elif status == "skipped":
        lines += ["Not run while building these pages (``-D deck_gallery_run=0``).", ""]
    else:
        words = " ".join(WORDS.get(name, []))
        lines += [f"Run while building these pages in {result['seconds']:.1f} s "
                  f"(``solfec-py inputs/{name}.py{' ' + words if words else ''}``; a rerun re-checks the"
                  " stored results).", ""]
    for image in result["images"]:
        rel = "/" + os.path.relpath(image, srcdir).replace(os.sep, "/")
        lines += [f".. image:: {rel}", "   :width: 90%", ""]
    lines += [".. rubric:: Source", "",
              f".. literalinclude:: /../inputs/{name}.py", "   :language: python", ""]
    return lines


def _run_all(app) -> None:
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    work = os.path.join(app.srcdir, "_build", "gallery")
    images = os.path.join(work, "images")
    os.makedirs(images, exist_ok=True)
    results, total = {}, time.perf_counter()
    names = decks()
    if not app.config.deck_gallery_run:
        results = {name: {"status": "skipped", "seconds": 0.0, "images": [], "log": ""} for name in names}
    else:  # the decks are independent: as many at once as there are cores (at most 4)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            results = dict(zip(names, pool.map(lambda n: run_deck(n, work, images), names)))
    for name in names:
        result = results[name]
        if result["status"] == "failed":
            log.warning(f"gallery: inputs/{name}.py failed:\n{result['log'][-2000:]}")
        else:
            log.info(f"gallery: {name}: {result['status']} ({result['seconds']:.1f} s,"
                     f" {result.get('cpu', 0.0):.1f} s CPU)")
    log.info(f"gallery: every deck in {time.perf_counter() - total:.1f} s")
    app.env.deck_gallery = results  # read by the directive (same process)
    app.config._deck_gallery = results


def setup(app):
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class DeckGallery(SphinxDirective):
        """``deck-gallery``: one section per deck of inputs/."""

        def run(self):
            results = getattr(self.config, "_deck_gallery", None) or {}
            lines = []
            for name in decks():
                lines += rst_lines(name, results.get(name, {"status": "failed", "seconds": 0.0, "images": [],
                                                           "log": ""}), self.env.srcdir)
                self.env.note_dependency(os.path.join(INPUTS, name + ".py"))
            node = nodes.section()
            nested_parse_with_titles(self.state, StringList(lines, source="deck_gallery"), node,
                                     self.content_offset)
            return node.children

    app.add_directive("deck-gallery", DeckGallery)
    app.add_config_value("deck_gallery_run", True, "env", [bool, int])
    app.connect("builder-inited", _run_all)
    return {"parallel_read_safe": True, "version": "1"}


# words of the stored runs: the masonry arch at its collapsing ratio only
STORE_WORDS = {"masonry_arch": ["0.1094"]}


def store(names: list) -> None:
    """Run decks (slow ones included) in a scratch directory and keep their plots in STORED."""
    import tempfile

    global TIMEOUT
    TIMEOUT = 4 * 3600
    WORDS.update(STORE_WORDS)
    os.makedirs(STORED, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            for old in glob.glob(os.path.join(STORED, name + "_*.png")):
                os.remove(old)
            slow = SLOW.pop(name, None)
            result = run_deck(name, work, STORED)
            if slow is not None:
                SLOW[name] = slow
            print(f"{name}: {result['status']} in {result['seconds']:.0f} s; {result['images']}")
            if result["status"] != "ok":
                print(result["log"][-3000:])


if __name__ == "__main__":
    store(sys.argv[1:] or sorted(SLOW))
