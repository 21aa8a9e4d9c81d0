"""The common-subexpression search in slices (large models) against the expressions themselves.

Reference: every expression rebuilt from the search's temporaries (substituted back, last
first) equals the original expression symbolically, and numerically at random points; the
temporaries are unique across slices. And a large chain built with slices equals the same
chain built with one search (the generated C of both, integrated, to 1e-12).
"""

import random
import sys
from pathlib import Path

import numpy as np
import symengine as se

import bondgraph as bg
import bondgraph.codegen as cg


def _exprs(n: int, seed: int = 1):
    rng = random.Random(seed)
    xs = [se.Symbol(f"xs[{i}]") for i in range(12)]
    out = []
    for _ in range(n):
        a, b, c = rng.sample(xs, 3)
        out.append(se.sin(a * b) + (a * b + c) ** 2 / (1 + c * c) + se.exp(-a * b))
    return xs, out


def test_sliced_search_rebuilds_every_expression(monkeypatch):
    monkeypatch.setattr(cg, "CSE_SLICE", 50)
    xs, exprs = _exprs(173)
    repl, red = cg._cse(exprs)
    names = [str(s) for s, _ in repl]
    assert len(names) == len(set(names))                       # unique across the 4 slices
    back = {}
    for sym, ex in repl:
        back[sym] = ex.subs(back)
    rng = np.random.default_rng(0)
    for orig, r in zip(exprs, red):
        full = r.subs(back)
        assert se.expand(full - orig) == 0
        pt = {x: float(v) for x, v in zip(xs, rng.uniform(-1, 1, len(xs)))}
        assert abs(float(full.subs(pt)) - float(orig.subs(pt))) < 1e-12


def test_above_the_threshold_the_slices_have_the_piece_size(monkeypatch):
    monkeypatch.setattr(cg, "CSE_SLICE", 100)
    monkeypatch.setattr(cg, "CSE_PIECE", 30)
    searches: list[int] = []
    whole = se.cse
    monkeypatch.setattr(cg.se, "cse", lambda exprs: searches.append(len(exprs)) or whole(exprs))
    xs, exprs = _exprs(100)
    cg._cse(exprs)
    assert searches == [100]                                   # at the threshold: one search
    searches.clear()
    xs, exprs = _exprs(101)
    repl, red = cg._cse(exprs)
    assert searches == [30, 30, 30, 11]                        # above it: slices of CSE_PIECE
    back = {}
    for sym, ex in repl:
        back[sym] = ex.subs(back)
    for orig, r in zip(exprs, red):
        assert se.expand(r.subs(back) - orig) == 0


def test_a_chain_built_with_slices_runs_as_with_one_search(monkeypatch, tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from core_chain import mass_chain

    searches: list[int] = []
    whole = se.cse
    monkeypatch.setattr(cg.se, "cse", lambda exprs: searches.append(len(exprs)) or whole(exprs))
    runs, counts = [], []
    for size in (10**9, 100):                                  # one search; slices of 100
        monkeypatch.setenv("BONDGRAPH_CACHE", str(tmp_path / str(size)))   # no code from the other
        monkeypatch.setattr(cg, "CSE_SLICE", size)
        searches.clear()
        model = bg.build(mass_chain(30))
        counts.append(max(searches))
        runs.append(bg.simulate(model, (0, 2), method="CVODE", rtol=1e-10, atol=1e-12, progress=False))
    assert counts[0] > 100 >= counts[1]                        # the second really was sliced
    assert runs[0].x.shape == runs[1].x.shape and np.ptp(runs[0].x) > 0
    np.testing.assert_allclose(runs[1].x, runs[0].x, rtol=0, atol=1e-12)
