"""What `pip install -e .[dev] && pytest` (the README's command 2) installs and collects: the
[dev] extra holds every optional extra whose features the suite tests, so none of those tests
is skipped there; a test module that needs a [dev]-only package skips itself without it
instead of breaking the collection of the whole suite."""
from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

# extras whose features the test suite exercises (the others, [docs] [peers] [mpi], are
# exercised by the docs build, bench/peers and bench runs)
TESTED_EXTRAS = ("mesh", "sweep")

BLOCK_HYPOTHESIS = """\
import sys

class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "hypothesis" or name.startswith("hypothesis."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Block())
import pytest
raise SystemExit(pytest.main(["-p", "no:cacheprovider", "--collect-only", "-q", "tests/test_fuzz_deck.py"]))
"""


def _extras() -> dict:
    config = configparser.ConfigParser()
    config.read(os.path.join(REPO, "setup.cfg"))
    text = config["options.extras_require"]
    return {name: {re.split(r"[<>=!~\[ ]", line.strip())[0].lower() for line in text[name].splitlines() if line.strip()}
            for name in text}


def test_dev_extra_holds_every_extra_the_suite_tests():
    extras = _extras()
    for name in TESTED_EXTRAS:
        missing = extras[name] - extras["dev"]
        assert not missing, f"[dev] lacks {sorted(missing)} of [{name}]: its tests would be skipped by command 2"


@pytest.mark.slow          # a pytest process: about 2 s
def test_a_module_needing_hypothesis_skips_without_it():
    """Collection with hypothesis unimportable (plain `pip install . && pytest`): the fuzz
    module is skipped (pytest's exit status 5, nothing collected), not a collection error (2)."""
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, "-c", BLOCK_HYPOTHESIS], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "SKIPPED" in done.stdout and "needs hypothesis" in done.stdout
