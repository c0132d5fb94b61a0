"""Benchmark: time to translate a generated 5 000-line legacy (Python 2) Solfec deck to
Python 3 (the goal: under 2 s).  Prints one JSON line:
{"lines": ..., "parser_build_s": ..., "translate_s": ..., "target_s": 2.0, "ok": ...}.
The deck repeats a block of typical Solfec-1.0 constructs: print statements with trailing
commas and `>>`, integer division, tabs in indentation, `exec`, `%`-formatting, dict
methods, backticks and `<>`.
"""
from __future__ import annotations

import json
import sys
import time

BLOCK = '''\
# block {i}
n{i} = {i} * 3 / 2
if n{i} <> 0:
\tprint 'block', {i}, n{i} / 7,
\tprint >>sys.stderr, 'side %d' % n{i}
else:
        print '\\b\\b\\b\\bPASSED'
def f{i}(a, b=7/2, *args, **kw):
    """helper {i}"""
    d = {{'a': a, 'b': b}}
    for k, v in d.iteritems():
        a /= 2
    try:
        x = `a` + str(0777) + str(12L)
    except ValueError, e:
        raise ValueError, "bad %s" % e
    return [j / 2 for j in xrange(a) if j % 2], d.keys(), d.has_key('a')
exec "z{i} = {i} / 4"
'''


def generated_deck(lines: int) -> str:
    parts, count, i = ["import sys\n"], 1, 0
    while count < lines:
        block = BLOCK.format(i=i)
        parts.append(block)
        count += block.count("\n")
        i += 1
    return "".join(parts)


def main() -> int:
    from solfec_py.lang import legacy
    from solfec_py.lang.legacy import parse as legacy_parse

    deck = generated_deck(5000)
    t0 = time.perf_counter()
    legacy_parse.parser(False)
    t1 = time.perf_counter()
    out = legacy.translate(deck, "bench_deck.py")
    t2 = time.perf_counter()
    compile(out, "bench_deck.py", "exec", dont_inherit=True)
    from solfec_py import __version__

    record = {"code": "solfec-py", "version": __version__, "scene": "legacy deck translation",
              "lines": deck.count("\n"), "wall_s": round(t2 - t1, 3), "parser_build_s": round(t1 - t0, 3),
              "translate_s": round(t2 - t1, 3), "target_s": 2.0, "ok": (t2 - t1) < 2.0}
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
