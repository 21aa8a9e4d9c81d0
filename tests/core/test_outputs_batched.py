"""Results.outputs() evaluates every sample in one batched call of the compiled outputs;
each value equals the compiled model's own one-state call (CompiledSystem.outputs, with
the inputs set from the run's signals at that time) to 1e-12, whatever the inputs are:
tables (inside and held beyond their ends), clamped splines continued along their end
slope, their derivatives (a prescribed velocity drives an inertia in derivative
causality), sympy expressions of t and plain Python callables."""

import math
import warnings

import numpy as np
import pytest
import sympy as sp

from bondgraph import BondGraph, C, I, Input, MSe, MSf, One, R, Spline, Table, build, simulate, t
from bondgraph.batch import evaluate_many
from bondgraph.errors import BondGraphWarning


def _one_by_one(res):
    sysm = res.model.system
    out = np.zeros((len(res.t), len(sysm.output_names)))
    for i, (ti, xi) in enumerate(zip(res.t, res.x)):
        u, du = res.inputs(ti)
        sysm.set_inputs(u, du)
        try:
            out[i] = sysm.outputs(ti, xi)
        except FloatingPointError:
            out[i] = np.nan
    return out


def _batched(res):
    res._out = None
    out = res.outputs()
    return np.column_stack([out[n] for n in res.model.system.output_names])


def _model():
    """A force F(t) on a mass-spring-damper, and a prescribed velocity v(t) driving a
    second mass through a damper (that mass's momentum needs dv/dt)."""
    bg = BondGraph("rig")
    _ = bg.add(MSe("F", Input("F")), One("v1"), I("m1", 2.0), C.spring("k", 50.0), R("b", 3.0),
               MSf("V", Input("V")), One("v2"), I("m2", 0.5), R("d", 7.0))
    for a, b in [("F", "v1"), ("v1", "m1"), ("v1", "k"), ("v1", "b"), ("V", "v2"), ("v2", "m2"), ("v2", "d")]:
        _ = bg.connect(a, b)
    return build(bg)


@pytest.mark.parametrize("inputs", [
    {"F": Table([0.0, 0.3, 0.7, 1.0], [0.0, 5.0, -2.0, 1.0]),
     "V": Spline([0.0, 0.4, 1.0], [0.0, 0.8, -0.3])},
    {"F": 3.0 * sp.sin(7 * t), "V": Spline([0.0, 0.5], [0.2, 1.0])},
    {"F": lambda tt: math.exp(-tt) * math.cos(5 * tt), "V": 0.4},
], ids=["table-spline", "expression-spline", "callable-constant"])
def test_batched_outputs_equal_the_one_by_one_outputs(inputs):
    model = _model()
    t_eval = np.linspace(0.0, 1.5, 301)          # beyond the tables' and splines' ends too
    res = simulate(model, (0.0, 1.5), inputs=inputs, t_eval=t_eval, rtol=1e-8, atol=1e-10,
                   energy=True, progress=False)
    assert "rig/m2" in " ".join(model.system.output_names)
    ref = _one_by_one(res)
    new = _batched(res)
    assert np.max(np.abs(new - ref) / np.maximum(np.abs(ref), 1.0)) <= 1e-12
    # the inertia driven by V in derivative causality stores m2·V²/2: V from the signal itself
    V = np.array([res.inputs(ti)[0][model.input_names.index("V")] for ti in res.t])
    assert np.allclose(res.outputs()["energy[rig/m2]"], 0.5 * 0.5 * V ** 2, rtol=1e-12, atol=1e-15)


def test_per_row_times_reach_the_compiled_code():
    """evaluate_many takes one time per row: a law written in t is evaluated at each."""
    bg = BondGraph("clock")
    _ = bg.add(MSe("F", 2.0 * t), One("v"), I("m", 1.0))
    _ = bg.connect("F", "v")
    _ = bg.connect("v", "m")
    model = build(bg)
    (bond,) = [k for u, v, k in model.graph.out_edges("clock/F", keys=True)]
    times = np.array([0.0, 0.5, 2.0])
    e = evaluate_many(model.system, np.zeros((3, 1)), t=times, select=[f"e[{bond}]"])
    assert np.array_equal(e[:, 0], 2.0 * times)
    assert np.array_equal(evaluate_many(model.system, np.zeros((3, 1)), t=0.5, select=[f"e[{bond}]"])[:, 0],
                          np.full(3, 1.0))


def test_outputs_that_are_not_finite_are_named():
    """A model without states whose source is sqrt(t - 1): its outputs are NaN before
    t = 1 s (the square root of a negative number) and the run itself has nothing to
    integrate, so it ends 'ok'; reading the outputs names them, the first time and the
    share of output times, instead of handing the NaNs on silently."""
    g = BondGraph("z")
    src = g.add(MSe("src", sp.sqrt(sp.Symbol("t") - 1)))
    j = g.add(One("j"))
    r = g.add(R("r", 2.0))
    g.connect(src, j)
    g.connect(j, r)
    res = simulate(build(g), (0, 2), t_eval=[0, 0.5, 1, 1.5, 2])
    with pytest.warns(BondGraphWarning, match=r"not finite at 2 of 5 output times, from t = 0 s") as rec:
        out = res.outputs()
    assert "e[z/b1]" in str(rec[0].message) and "outside its domain" in str(rec[0].message)
    # the finite rows are right: e = sqrt(t - 1), f = e / 2
    assert out["e[z/b1]"][3:] == pytest.approx(np.sqrt([0.5, 1.0]))
    assert out["f[z/b2]"][3:] == pytest.approx(np.sqrt([0.5, 1.0]) / 2)
    with warnings.catch_warnings():                          # once per run: cached
        warnings.simplefilter("error")
        res.outputs()
