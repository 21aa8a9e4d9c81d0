"""Switches whose conditions are compound (``&``, ``|``, ``~``, a switch inside a condition)
compile: they are rewritten as nested single-relation switches with the same value
everywhere (checked point by point against sympy's own evaluation)."""

import itertools

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from bondgraph import t
from bondgraph.equations import _simple_conditions

x, y = sp.symbols("x y", real=True)

CONDITIONS = [
    (x > 0) & (y > 0),
    (x > 0) | (y < -0.5),
    ~(x > 0.3),
    sp.ITE(x < 0.1, True, y >= 0.2),
    sp.Xor(x > 0, y > 0),
    ((x > 0) & (y > 0)) | ((x < -0.5) & ~(y > 0.5)),
]


@pytest.mark.parametrize("cond", CONDITIONS, ids=[str(c) for c in CONDITIONS])
def test_rewritten_switch_has_the_same_value_everywhere(cond):
    pw = sp.Piecewise((x + 2 * y, cond), (3 - x, y > 0.7), (7.0, True))
    new = _simple_conditions(pw)
    for node in sp.preorder_traversal(new):
        if isinstance(node, sp.Piecewise):
            assert all(isinstance(c, sp.core.relational.Relational) or c == True  # noqa: E712
                       for _, c in node.args), node
    grid = np.linspace(-1, 1, 9)
    for a, b in itertools.product(grid, grid):
        want = float(pw.subs({x: a, y: b}))
        got = float(new.subs({x: a, y: b}))
        assert got == pytest.approx(want, abs=1e-14), (a, b)


def test_switch_inside_a_condition_compiles_and_integrates():
    # a saturated three-step command: sympy turns the saturation's condition into ITE
    cmd = sp.Piecewise((0.0, t < 1), (2.0, t < 2), (-2.0, True))
    sat = sp.Piecewise((-1.0, cmd <= -1), (1.0, cmd >= 1), (cmd, True))
    assert sat.has(sp.ITE)  # what used to reach symengine raw
    m = bg.BondGraph("sat")
    m.add(bg.MSe("F", sat), bg.One("v"), bg.I("m", 1.0))
    m.connect("F", "v")
    m.connect("v", "m")
    res = bg.simulate(bg.build(m), (0.0, 3.0), t_eval=[3.0], rtol=1e-10, atol=1e-12)
    # velocity = ∫ sat dt = 0·1 + 1·1 + (−1)·1
    assert float(res["sat/m.f"][-1]) == pytest.approx(0.0, abs=1e-8)
