"""Closed-form inverses of the hydraulic laws, and orifices in the inverted causality.

References: the forward laws themselves (round trips), the roots of the laminar
cubic computed by numpy (an independent solve), and the energy balance.
"""

import math

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from components.hydraulics import OnOffValve, Orifice, nominal_flow, orifice_flow, signed_sqrt
from components.hydraulics.orifice import (nominal_flow_inverse, nominal_law, orifice_flow_inverse,
                                           orifice_law, signed_sqrt_inverse)

x, y, u = sp.symbols("x y u", real=True)
DECADES = np.array([s * 10.0**k for s in (-1, 1) for k in range(-8, 9)])


def numeric(expr, *args):
    fn = sp.lambdify(args, expr, modules="numpy")

    def call(*vals):
        with np.errstate(invalid="ignore"):  # numpy evaluates every branch of a Piecewise
            return fn(*vals)
    return call


def rel_err(a, b):
    return np.max(np.abs(a - b) / np.abs(b))


@pytest.mark.parametrize("p_tr", [1.0, 4.0, 1e4, 2e5])
def test_signed_sqrt_inverse_round_trips_to_1e12(p_tr):
    f = numeric(signed_sqrt(x, p_tr), x)
    g = numeric(signed_sqrt_inverse(y, p_tr), y)
    dp = DECADES * p_tr                       # both signs, 17 decades around the band
    assert rel_err(g(f(dp)), dp) < 1e-12
    s = DECADES * math.sqrt(p_tr)
    assert rel_err(f(g(s)), s) < 1e-12
    edge = np.array([-1.0, 1.0]) * p_tr       # the branches meet: u = ±1
    assert rel_err(g(f(edge)), edge) < 1e-14


def test_laminar_band_inverse_matches_the_cubic_roots():
    """Inside |Δp| < p_tr the inverse is the root in (−1, 1) of u³ − 5u + 4s/√p_tr = 0."""
    p_tr = 2e5
    g = numeric(signed_sqrt_inverse(y, p_tr), y)
    for s in np.linspace(-0.999, 0.999, 37) * math.sqrt(p_tr):
        roots = np.roots([1.0, 0.0, -5.0, 4 * s / math.sqrt(p_tr)])
        (mid,) = [r.real for r in roots if abs(r.imag) < 1e-12 and -1 <= r.real <= 1]
        assert g(s) == pytest.approx(mid * p_tr, rel=1e-10, abs=1e-6)


def test_orifice_and_nominal_inverses_round_trip_over_both_signs():
    area, cd, rho, p_tr = 2e-5, 0.65, 870.0, 2e5
    f = numeric(orifice_flow(x, area, cd, rho, p_tr), x)
    g = numeric(orifice_flow_inverse(y, area, cd, rho, p_tr), y)
    dp = DECADES * 1e3
    assert rel_err(g(f(dp)), dp) < 1e-12
    q = DECADES * 1e-6
    assert rel_err(f(g(q)), q) < 1e-12
    fn = numeric(nominal_flow(x, u, 1e-3, 5e5, 1e5), x, u)   # opening an expression
    gn = numeric(nominal_flow_inverse(y, u, 1e-3, 5e5, 1e5), y, u)
    for opening in (1e-3, 0.37, 1.0):
        assert rel_err(gn(fn(dp, opening), opening), dp) < 1e-12
        assert rel_err(fn(gn(q, opening), opening), q) < 1e-12


def test_the_laws_carry_their_inverses():
    for law in (orifice_law(1e-4, 0.7, 870.0, 1e5), nominal_law(0.5, 1e-3, 3e5, 1e4)):
        assert law.inverse is not None and law.not_invertible is None
        fx, gy = numeric(law(x), x), numeric(law.inverse(y), y)
        assert rel_err(gy(fx(DECADES)), DECADES) < 1e-12


def reference_drop(q, gain, p_tr):
    """Δp with gain·signed_sqrt(Δp) = q, solved independently (numpy roots in the band)."""
    s = q / gain
    if abs(s) >= math.sqrt(p_tr):
        return math.copysign(s * s, s)
    roots = np.roots([1.0, 0.0, -5.0, 4 * s / math.sqrt(p_tr)])
    (mid,) = [r.real for r in roots if abs(r.imag) < 1e-9 and -1 - 1e-12 <= r.real <= 1 + 1e-12]
    return mid * p_tr


def flow_source_into(restriction, q_of_t, name):
    M = bg.BondGraph(name)
    M.add(bg.MSf("Q", q_of_t), restriction, bg.Zero("tank"), bg.Se("p_t", 0.0))
    M.connect("Q", f"{restriction.name}/A")
    M.connect(f"{restriction.name}/B", "tank")
    M.connect("p_t", "tank")
    return M


def test_flow_source_into_an_orifice_gives_the_closed_form_drop():
    area, cd, rho, p_tr = 1e-5, 0.7, 870.0, 1e5
    q0 = 1e-3
    M = flow_source_into(Orifice("or", area=area, cd=cd, density=rho, p_tr=p_tr),
                         q0 * sp.sin(2 * sp.pi * bg.t), "fo")
    t = np.linspace(0, 1, 201)
    res = bg.simulate(bg.build(M), (0, 1), t_eval=t)
    Q, dp = res.flow("fo/or/R"), res.effort("fo/or/R")
    assert np.allclose(Q, q0 * np.sin(2 * np.pi * t), rtol=1e-12, atol=1e-18)
    gain = cd * area * math.sqrt(2 / rho)
    ref = np.array([reference_drop(qi, gain, p_tr) for qi in Q])
    assert np.allclose(dp, ref, rtol=1e-9, atol=1e-6)
    assert dp.min() < -1e6 and dp.max() > 1e6       # both signs, far outside the band
    assert np.all(dp * Q >= 0)                      # dissipation


def test_flow_source_through_an_on_off_valve():
    """The nominal-flow law with an opening from a command, in the inverted causality."""
    qn, dpn, p_tr = 1e-3, 5e5, 1e5
    valve = OnOffValve("v", q_nominal=qn, dp_nominal=dpn, command=bg.Input("open"), p_tr=p_tr)
    M = flow_source_into(valve, 4e-4 * sp.cos(3 * bg.t), "fv")
    t = np.linspace(0, 2, 81)
    res = bg.simulate(bg.build(M), (0, 2), t_eval=t, inputs={"open": 0.6})
    Q, dp = res.flow("fv/v/R"), res.effort("fv/v/R")
    ref = np.array([reference_drop(qi, qn * 0.6 / math.sqrt(dpn), p_tr) for qi in Q])
    assert np.allclose(dp, ref, rtol=1e-9, atol=1e-6)
    assert np.all(dp * Q >= 0)


def test_line_inertia_into_an_orifice_balances_energy():
    """A supply p(t) = 50 bar·sin(2πt) drives an oil column (inertance) into an orifice."""
    from components.hydraulics import Line, Oil

    oil = Oil()
    line = Line("line", oil, length="5 m", diameter="10 mm", inertance=True)
    orifice = Orifice("or", q_nominal=2e-3, dp_nominal=10e5, p_tr=1e5)
    M = bg.BondGraph("col")
    M.add(bg.MSe("p", 50e5 * sp.sin(2 * sp.pi * bg.t)), line, orifice, bg.Zero("tank"),
          bg.Se("p_t", 0.0), bg.Zero("n"))
    for a, b in [("p", "n"), ("n", "line/A"), ("line/B", "or/A"), ("or/B", "tank"), ("p_t", "tank")]:
        M.connect(a, b)
    model = bg.build(M)
    assert "col/line/I.f" in model.state_names
    res = bg.simulate(model, (0, 2), energy=True, rtol=1e-10, atol=1e-14,
                      t_eval=np.linspace(0, 2, 401))
    Q, dp = res["col/line/I.f"], res.effort("col/or/R")
    assert Q.min() < 0 < Q.max()
    ref = np.array([reference_drop(qi, 2e-3 / math.sqrt(10e5), 1e5) for qi in Q])
    assert np.allclose(dp, ref, rtol=1e-9, atol=1e-3)
    assert np.all(dp * Q >= 0)
    assert bg.power_balance(res).relative < 1e-7


def test_forcing_flow_through_a_closing_valve_stops_with_a_named_error():
    """Closed, the edge has no finite pressure drop for a forced flow: NaN, then a named stop."""
    from components.hydraulics import Line, Oil

    valve = OnOffValve("v", q_nominal=1e-3, dp_nominal=5e5, command=bg.Input("open"), p_tr=1e5)
    line = Line("line", Oil(), length="5 m", diameter="10 mm", inertance=True)
    M = bg.BondGraph("shut")
    M.add(bg.MSe("p", 10e5 * sp.sin(bg.t)), bg.Zero("n"), line, valve, bg.Zero("tank"),
          bg.Se("p_t", 0.0))
    for a, b in [("p", "n"), ("n", "line/A"), ("line/B", "v/A"), ("v/B", "tank"), ("p_t", "tank")]:
        M.connect(a, b)
    closing = bg.Table([0.0, 0.5, 0.5001, 2.0], [1.0, 1.0, 0.0, 0.0])
    with pytest.raises(bg.SimulationError) as err:
        bg.simulate(bg.build(M), (0, 2), inputs={"open": closing})
    assert 0.5 <= err.value.time <= 0.51
