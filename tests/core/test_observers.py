"""Observers: named expressions compiled with a model's outputs — values against hand
computations, the build cache, and hybrid guards on them evaluated in C."""

import numpy as np
import pytest
import sympy as sp

from bondgraph import MSe, BondGraph, I, Input, One, ParameterError, R, build, simulate
from bondgraph.hybrid import Above, Discrete, HybridModel, Transition, simulate_hybrid


def _cart():
    """A 2 kg cart pushed by an input force through a 0.5 N·s/m damper (from rest)."""
    bg = BondGraph("cart")
    bg.add(MSe("F", Input("force")), One("v", displacement="x"), I("m", 2.0), R("b", 0.5))
    for a, b in (("F", "v"), ("v", "m"), ("v", "b")):
        bg.connect(a, b)
    return bg


V, X = sp.Symbol("cart/m.f"), sp.Symbol("cart/v.x")


def test_observers_equal_the_hand_solution():
    """v(t) = (F/b)(1 - exp(-b t / m)) for a constant force: the observers (kinetic
    energy, the damper's power from its bond variables, a parameter-scaled momentum, and
    an expression of t) against the closed form."""
    model = build(_cart())
    bond = next(k for k in model.system.output_names if k.startswith("dissipation["))[len("dissipation["):-1]
    obs = {"kinetic": sp.Rational(1, 2) * 2 * V**2,
           "damper_power": sp.Symbol(f"e[{bond}]") * sp.Symbol(f"f[{bond}]"),
           "momentum": sp.Symbol("cart/m.m") * V,                  # the mass parameter
           "ramp": 3 * sp.Symbol("t") + X}
    observed = build(_cart(), observe=obs)
    res = simulate(observed, (0, 4), inputs={"force": 1.0}, rtol=1e-10, atol=1e-12,
                   t_eval=np.linspace(0, 4, 41))
    t = res.t
    v = 2.0 * (1 - np.exp(-0.25 * t))
    x = 2.0 * t - 8.0 * (1 - np.exp(-0.25 * t))
    assert res["kinetic"] == pytest.approx(v**2, abs=1e-8)
    assert res["damper_power"] == pytest.approx(0.5 * v**2, abs=1e-8)
    assert res["momentum"] == pytest.approx(2.0 * v, abs=1e-8)
    assert res["ramp"] == pytest.approx(3 * t + x, abs=1e-8)
    assert res["damper_power"] == pytest.approx(res[f"dissipation[{bond}]"], rel=1e-12, abs=1e-15)


def test_observers_are_part_of_the_cache_key():
    a = build(_cart(), observe={"ke": V**2})
    b = build(_cart(), observe={"ke": V**2})
    c = build(_cart(), observe={"ke": 2 * V**2})
    plain = build(_cart())
    assert b.build_times.get("cached") == 1.0
    assert "ke" in b.system.output_names and "ke" not in plain.system.output_names
    ia, ic = a.system.output_names.index("ke"), c.system.output_names.index("ke")
    a.system.set_inputs(np.array([0.0]))
    c.system.set_inputs(np.array([0.0]))
    state = np.zeros(len(a.state_names))
    state[a.state_names.index("cart/m.f")] = 3.0
    assert a.system.outputs(0.0, state)[ia] == pytest.approx(9.0)
    assert c.system.outputs(0.0, state)[ic] == pytest.approx(18.0)


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_guard_on_an_observer_runs_in_c(backend):
    """Two unit masses from rest, a pushed by 1 N, b by 3 N while behind and -1 N once
    ahead; the guards read the observer gap = v_b - v_a: switches at 0.25 s and 0.75 s
    (by hand: 3t - t = 0.5; then (1 - t) - t = -0.5)."""
    s = Discrete("lead", {"behind": 0.0, "ahead": 1.0}, initial="behind")
    bg = BondGraph("race")
    bg.add(One("a"), I("ma", 1.0), MSe("Fa", 1.0), One("b"), I("mb", 1.0), MSe("Fb", 3.0 - 4.0 * s.symbol))
    for u, w in (("Fa", "a"), ("a", "ma"), ("Fb", "b"), ("b", "mb")):
        bg.connect(u, w)
    gap = sp.Symbol("race/mb.f") - sp.Symbol("race/ma.f")
    hm = HybridModel.build(bg, [s], [Transition("lead", "behind", "ahead", Above("gap", 0.5)),
                                     Transition("lead", "ahead", "behind", Above("minus_gap", 0.5))],
                           observe={"gap": gap, "minus_gap": -gap})
    res = simulate_hybrid(hm, (0, 1.0), x0={"race/ma.f": 0.0, "race/mb.f": 0.0}, method="CVODE",
                          rtol=1e-10, atol=1e-12, backend=backend)
    assert res.stats["backend"] == backend
    assert [r.time for r in res.transitions] == pytest.approx([0.25, 0.75], abs=1e-9)
    assert res["gap"][-1] == pytest.approx(0.0, abs=1e-8)


@pytest.mark.parametrize("observe,culprits", [
    ({"ke": sp.Symbol("cart/m.q") ** 2}, ["observer 'ke'", "'cart/m.q'", "did you mean", "'cart/m.f'"]),
    ({"cart/m.f": V}, ["observer 'cart/m.f'", "already"]),
    ({"ke": "v**2"}, ["observer 'ke'", "'v**2'", "expected a sympy expression"]),
    ([("ke", V)], ["observe", "list", "expected a dict"]),
    ({"": V}, ["observe: name ''"]),
])
def test_bad_observers_are_named(observe, culprits):
    with pytest.raises(ParameterError) as info:
        build(_cart(), observe=observe)
    for c in culprits:
        assert c in str(info.value)
