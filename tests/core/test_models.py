"""Small bond graphs against analytic solutions and hand-derived equations."""

import math

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from reference.linear import dc_motor, lever, mass_spring_damper
from reference.pendulum import pendulum_period_small_angle, rod_pendulum_kane


def msd_graph(m, k, c, F):
    M = bg.BondGraph("msd")
    M.add(bg.Se("F", F), bg.One("v"), bg.I("m", m), bg.C("k", 1.0 / k, state="energy"), bg.R("c", c))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "c")]:
        M.connect(a, b)
    return M


@pytest.mark.parametrize("c", [0.4, 2 * math.sqrt(2 * 50.0), 40.0])  # under, critical, over
def test_mass_spring_damper_matches_closed_form(c):
    m, k, F = 2.0, 50.0, 3.0
    model = bg.build(msd_graph(m, k, c, F))
    t = np.linspace(0, 4, 401)
    res = bg.simulate(model, (0, 4), x0={"msd/k.q": 0.01, "msd/m.f": -0.2}, t_eval=t,
                      rtol=1e-11, atol=1e-13)
    ref = mass_spring_damper(m, k, c, 0.01, -0.2, F, t)
    scale = np.max(np.abs(ref["x"]))
    assert np.max(np.abs(res["msd/k.q"] - ref["x"])) / scale < 1e-7
    assert np.max(np.abs(res["msd/m.f"] - ref["v"])) / np.max(np.abs(ref["v"])) < 1e-7


def test_lever_transformer_matches_hand_derivation():
    m1, k, n, F1, c = 2.0, 300.0, 1.7, -19.62, 3.0
    M = bg.BondGraph("lever")
    M.add(bg.Se("F", F1), bg.One("v1"), bg.I("m1", m1), bg.TF("arm", n), bg.One("v2"),
          bg.C.spring("k", k, state="energy"), bg.R("c", c))
    for a, b in [("F", "v1"), ("v1", "m1"), ("v1", "arm/1"), ("arm/2", "v2"), ("v2", "k"), ("v2", "c")]:
        M.connect(a, b)
    # TF law e1 = n e2, f2 = n f1: the spring end moves n times faster, as in the reference
    t = np.linspace(0, 2, 201)
    res = bg.simulate(bg.build(M), (0, 2), t_eval=t, rtol=1e-11, atol=1e-13)
    ref = lever(m1, k, n, F1, t, c=c)
    assert np.allclose(res["lever/m1.f"], ref["v1"], rtol=0, atol=1e-8 * np.max(np.abs(ref["v1"])))
    assert np.allclose(res["lever/k.q"], ref["x2"], rtol=0, atol=1e-8 * np.max(np.abs(ref["x2"])))


def test_dc_motor_gyrator_matches_hand_derivation():
    V, R, L, K, J, b = 12.0, 1.2, 2e-3, 0.05, 2e-4, 1e-5
    M = bg.BondGraph("motor")
    M.add(bg.Se("V", V), bg.One("i"), bg.R("R", R), bg.I("L", L), bg.GY("K", K), bg.One("w"),
          bg.I("J", J), bg.R("b", b))
    for a, c in [("V", "i"), ("i", "R"), ("i", "L"), ("i", "K/1"), ("K/2", "w"), ("w", "J"), ("w", "b")]:
        M.connect(a, c)
    t = np.linspace(0, 0.5, 501)
    res = bg.simulate(bg.build(M), (0, 0.5), t_eval=t, rtol=1e-11, atol=1e-13, method="Radau")
    ref = dc_motor(V, R, L, K, J, b, t)
    assert np.max(np.abs(res["motor/L.f"] - ref["i"])) < 1e-7 * np.max(np.abs(ref["i"]))
    assert np.max(np.abs(res["motor/J.f"] - ref["omega"])) < 1e-7 * np.max(np.abs(ref["omega"]))


def test_rigidly_joined_inertias_move_as_one_body():
    """Two inertias on one 1-junction: one is dependent (derivative causality)."""
    M = bg.BondGraph("two")
    M.add(bg.Se("F", 6.0), bg.One("v"), bg.I("m1", 1.0), bg.I("m2", 2.0), bg.R("b", 0.5))
    for a, b in [("F", "v"), ("v", "m1"), ("v", "m2"), ("v", "b")]:
        M.connect(a, b)
    model = bg.build(M)
    assert [d.element for d in model.report.derivative] == ["two/m2"]
    t = np.linspace(0, 3, 31)
    res = bg.simulate(model, (0, 3), t_eval=t, rtol=1e-11, atol=1e-13, energy=True)
    v_exact = 6.0 / 0.5 * (1 - np.exp(-0.5 * t / 3.0))  # one body of mass 3: v = F/b (1 − e^{−bt/m})
    assert np.max(np.abs(res["two/m1.f"] - v_exact)) < 1e-8 * 12
    # both bodies carry kinetic energy: the balance closes only with the dependent one counted
    assert bg.power_balance(res).relative < 1e-8


def test_two_resistors_in_an_algebraic_loop():
    """V → R1 in series with (R2 ∥ (R3 + R4)): a zero-order causal path."""
    M = bg.BondGraph("ladder")
    M.add(bg.Se("V", 10.0), bg.One("a"), bg.R("R1", 1.0), bg.Zero("b"), bg.R("R2", 2.0),
          bg.One("c"), bg.R("R3", 3.0), bg.R("R4", 4.0))
    for x, y in [("V", "a"), ("a", "R1"), ("a", "b"), ("b", "R2"), ("b", "c"), ("c", "R3"), ("c", "R4")]:
        M.connect(x, y)
    model = bg.build(M)
    assert len(model.report.loops) == 1
    assert "ladder/R1" in model.report.loops[0].elements
    res = bg.simulate(model, (0, 1))
    r_total = 1.0 + 1.0 / (1.0 / 2.0 + 1.0 / 7.0)
    assert res.flow("R1")[-1] == pytest.approx(10.0 / r_total, rel=1e-12)
    assert res.effort("R2")[-1] == pytest.approx(10.0 * (r_total - 1.0) / r_total, rel=1e-12)


def test_nonlinear_loop_is_solved_by_newton():
    """Two square-law orifices in series between two pressures (no volume between)."""
    M = bg.BondGraph("orifices")
    k1, k2 = 2.0, 3.0
    M.add(bg.Se("p", 9.0), bg.One("q"), bg.R("o1", flow=lambda dp: k1 * sp.sign(dp) * sp.sqrt(sp.Abs(dp))),
          bg.R("o2", flow=lambda dp: k2 * sp.sign(dp) * sp.sqrt(sp.Abs(dp))))
    for a, b in [("p", "q"), ("q", "o1"), ("q", "o2")]:
        M.connect(a, b)
    res = bg.simulate(bg.build(M), (0, 1))
    # q = k1 sqrt(dp1) = k2 sqrt(dp2), dp1 + dp2 = 9 → q² (1/k1² + 1/k2²) = 9
    q = math.sqrt(9.0 / (1 / k1**2 + 1 / k2**2))
    assert res.flow("o1")[-1] == pytest.approx(q, rel=1e-10)


def pendulum(L, m, g, theta0, J_first=True):
    """Uniform rod pinned at one end: MTFs with moduli of the displacement θ."""
    l, J = L / 2, m * L**2 / 12
    P = bg.BondGraph("pend")
    w = bg.One("w", displacement="theta", initial=theta0)
    th = w.displacement
    parts = [bg.I("J", J), w] if J_first else [w, bg.I("J", J)]
    P.add(*parts, bg.One("vx"), bg.One("vy"), bg.I("mx", m), bg.I("my", m), bg.Se("grav", -m * g),
          bg.Zero("px"), bg.Zero("py"), bg.Sf("fx", 0.0), bg.Sf("fy", 0.0),
          bg.MTF("tx", -l * sp.cos(th)), bg.MTF("ty", -l * sp.sin(th)))
    for a, b in [("w", "J"), ("vx", "mx"), ("vy", "my"), ("grav", "vy"), ("vx", "px"), ("vy", "py"),
                 ("w", "tx/1"), ("tx/2", "px"), ("w", "ty/1"), ("ty/2", "py"), ("fx", "px"), ("fy", "py")]:
        P.connect(a, b)
    return P


def test_pendulum_small_angle_period():
    L, m, g = 1.0, 1.0, 9.81
    model = bg.build(pendulum(L, m, g, 1e-4))
    T = pendulum_period_small_angle(L, g, kind="rod")
    res = bg.simulate(model, (0, 3 * T), rtol=1e-11, atol=1e-15, t_eval=np.linspace(0, 3 * T, 3001))
    th = res["pend/w.theta"]
    ups = [res.t[i] - th[i] * (res.t[i + 1] - res.t[i]) / (th[i + 1] - th[i])
           for i in range(len(th) - 1) if th[i] < 0 <= th[i + 1]]
    period = np.diff(ups).mean()
    assert period == pytest.approx(T, rel=1e-6)


def test_pendulum_large_angle_matches_kane():
    L, m, g = 1.0, 1.0, 9.81
    t = np.linspace(0, 2, 201)
    res = bg.simulate(bg.build(pendulum(L, m, g, 2.5)), (0, 2), t_eval=t, rtol=1e-11, atol=1e-13,
                      energy=True)
    ref = rod_pendulum_kane(t, L=L, m=m, g=g, theta0=2.5)
    assert np.max(np.abs(res["pend/w.theta"] - ref["theta"])) < 1e-7
    assert bg.power_balance(res).relative < 1e-8


def test_modulated_source_and_time_input():
    M = bg.BondGraph("drive")
    u = bg.Input("u")
    M.add(bg.MSe("F", 2 * u), bg.One("v"), bg.I("m", 1.0))
    M.connect("F", "v"); M.connect("v", "m")
    model = bg.build(M)
    res = bg.simulate(model, (0, 1), inputs={"u": sp.sin(bg.t)}, rtol=1e-11, atol=1e-13,
                      t_eval=np.array([0.0, 1.0]))
    assert res["drive/m.f"][-1] == pytest.approx(2 * (1 - math.cos(1.0)), rel=1e-9)


def test_nonsmooth_laws_compile_and_differentiate():
    """Min, Max, Abs, sign and Heaviside in laws: values and the analytic Jacobian."""
    x = sp.Symbol("x")
    M = bg.BondGraph("ns")
    law = lambda e: sp.Max(e, 0) + sp.Min(e, -1) + sp.Abs(e) * sp.sign(e) + sp.Heaviside(e)  # noqa: E731
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1.0), bg.C("k", 1.0), bg.Zero("p"),
          bg.R("r", flow=law))
    for a, b in [("F", "v"), ("v", "m"), ("v", "p"), ("p", "k"), ("p", "r")]:
        M.connect(a, b)
    model = bg.build(M)
    sysm = model.system
    for state in ([0.3, 2.0], [0.3, -2.0], [0.3, 0.5]):
        xv = np.array(state)
        e = xv[1]
        expected_flow = max(e, 0) + min(e, -1) + abs(e) * np.sign(e) + (1.0 if e > 0 else 0.0)
        rhs = sysm.rhs(0.0, xv)
        assert rhs[1] == pytest.approx(xv[0] - expected_flow)  # c ė = v − f_r
        J = sysm.jac(0.0, xv)
        h = 1e-7
        fd = (sysm.rhs(0.0, xv + [0, h]) - sysm.rhs(0.0, xv - [0, h])) / (2 * h)
        assert J[:, 1] == pytest.approx(fd, abs=1e-5)
    del x
