"""The runs of a sweep (solfec_py/sweep/plan.py): parameter and distribution syntax and its
errors, grid / zip / sampled designs, run names and words, and the table types."""
from __future__ import annotations

import pytest

from solfec_py.sweep import plan as P
from solfec_py.sweep.plan import SweepError


def test_parse_param():
    p = P.parse_param("mu=0.1, 0.3,0.5")
    assert p == P.Param("mu", ("0.1", "0.3", "0.5"))
    assert P.make_param("step", [1e-3, 5e-4, 2]).values == ("0.001", "0.0005", "2")


@pytest.mark.parametrize("parse, text, words", [
    (P.parse_param, "mu", "must be NAME=V1,V2"),
    (P.parse_param, "mu:0.1,0.2", "must be NAME=V1,V2"),
    (P.parse_param, "1mu=0.1", "the name '1mu' must be an identifier"),
    (P.parse_param, "=0.1", "the name '' must be an identifier"),
    (P.parse_param, "mu=0.1,,0.2", "every value must be non-empty"),
    (P.parse_param, "mu=", "every value must be non-empty"),
    (P.parse_param, "mu=0.1,0.1", "value '0.1' is given twice"),
    (P.parse_param, "status=1,2", "'status' is a column of the sweep table itself"),
    (P.parse_dist, "mu", "must be NAME=KIND:A:B"),
    (P.parse_dist, "mu=gauss:0:1", "unknown kind 'gauss'; expected one of ['loguniform', 'normal', 'randint', 'uniform']"),
    (P.parse_dist, "mu=uniform:0.1", "uniform takes 2 numbers uniform:A:B, got 1"),
    (P.parse_dist, "mu=uniform:a:b", "are not all numbers"),
    (P.parse_dist, "mu=uniform:0.5:0.1", "needs a < b"),
    (P.parse_dist, "mu=loguniform:0:1", "loguniform needs a > 0"),
    (P.parse_dist, "mu=normal:0:0", "standard deviation must be > 0"),
    (P.parse_dist, "n=randint:1:2.5", "bounds must be integers"),
])
def test_bad_param_and_dist_syntax(parse, text, words):
    with pytest.raises(SweepError) as info:
        parse(text)
    assert words in str(info.value) and repr(text) in str(info.value)


def test_grid_and_zip():
    a, b = P.parse_param("a=1,2"), P.parse_param("b=x,y,z")
    grid = P.design([a, b])
    assert grid == [{"a": "1", "b": "x"}, {"a": "1", "b": "y"}, {"a": "1", "b": "z"},
                    {"a": "2", "b": "x"}, {"a": "2", "b": "y"}, {"a": "2", "b": "z"}]
    assert P.design([a, P.parse_param("b=x,y")], "zip") == [{"a": "1", "b": "x"}, {"a": "2", "b": "y"}]
    with pytest.raises(SweepError, match=r"--zip needs parameter lists of equal length, got \{'a': 2, 'b': 3\}"):
        P.design([a, b], "zip")
    with pytest.raises(SweepError, match="mode must be one of"):
        P.design([a], "random")
    with pytest.raises(SweepError, match="parameter 'a' is given twice"):
        P.design([a, P.parse_param("a=3")])
    with pytest.raises(SweepError, match="nothing to sweep"):
        P.design([])


def test_samples_are_seeded_within_bounds_and_crossed_with_the_lists():
    dists = [P.parse_dist("mu=uniform:0.1:0.5"), P.parse_dist("n=randint:1:3"), P.parse_dist("e=loguniform:1e-3:1")]
    points = P.design([P.parse_param("h=1,2")], samples=50, dists=dists, seed=7)
    assert len(points) == 100 and [p["h"] for p in points[:50]] == ["1"] * 50
    mu = [float(p["mu"]) for p in points[:50]]
    assert all(0.1 <= m < 0.5 for m in mu) and len(set(mu)) == 50
    assert {p["n"] for p in points} == {"1", "2", "3"}
    assert all(1e-3 <= float(p["e"]) <= 1 for p in points)
    assert points[:50] == [dict(p, h="1") for p in P.design([P.parse_param("h=1,2")], samples=50,
                                                           dists=dists, seed=7)[:50]]     # same seed, same draw
    assert P.design([], samples=5, dists=dists[:1], seed=8) != P.design([], samples=5, dists=dists[:1], seed=7)
    with pytest.raises(SweepError, match="need the number of samples"):
        P.design([], dists=dists)
    with pytest.raises(SweepError, match="needs at least one distribution"):
        P.design([P.parse_param("h=1")], samples=3)
    with pytest.raises(SweepError, match="samples must be a whole number >= 1"):
        P.design([], samples=0, dists=dists)


def test_run_names_and_words():
    runs = P.runs([{"mu": "0.1", "tag": "a/b"}, {"mu": "0.1", "tag": "a_b"}, {"mu": "x" * 80, "tag": "c"}],
                  words=("stop=0.2",))
    assert runs[0].words == ("stop=0.2", "mu=0.1", "tag=a/b")
    assert runs[0].name.startswith("run-") and runs[1].name.startswith("run-")   # 'a/b', 'a_b' collide
    assert runs[0].name != runs[1].name
    assert runs[2].name == P.hashed_name({"mu": "x" * 80, "tag": "c"})
    assert P.runs([{"mu": "0.1", "h": "-2"}])[0].name == "mu=0.1_h=-2"


def test_typed_columns():
    assert P.typed(["1", "2"]) == [1, 2]
    assert P.typed(["1", "2.5"]) == [1.0, 2.5]
    assert P.typed(["1", "soft"]) == ["1", "soft"]
