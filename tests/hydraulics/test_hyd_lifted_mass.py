"""Lifted mass on a single-chamber cylinder vs the independent reference ODE; oil balance."""

import math

import numpy as np
import pytest

from bondgraph import simulate
from hyd_rigs import integral, lifted_mass, node_inflow
from reference.hydraulic import lifted_mass_cylinder

X, V, P = "lift/cyl/piston.s", "lift/cyl/m.f", "lift/cyl/C_A.e"


@pytest.fixture(scope="module")
def model():
    return lifted_mass()


@pytest.mark.parametrize("method", ["LSODA", "CVODE"])
def test_state_at_one_second(model, method):
    res = simulate(model, (0.0, 1.0), method=method, rtol=1e-10, atol=1e-10,
                   t_eval=np.array([0.0, 1.0]), progress=False)
    ref = lifted_mass_cylinder(np.array([0.0, 1.0]))
    # the figures, from the reference
    assert ref["x"][-1] == pytest.approx(0.1270547, rel=1e-6)
    assert ref["v"][-1] == pytest.approx(0.1271287, rel=1e-6)
    assert ref["p"][-1] == pytest.approx(1.572784e6, rel=1e-6)
    for name, key in ((X, "x"), (V, "v"), (P, "p")):
        assert res[name][-1] == pytest.approx(ref[key][-1], rel=1e-5), name
        assert abs(res[name][-1] / ref[key][-1] - 1) < 1e-7   # in fact much closer


def test_oil_mass_balance(model):
    """Δ(ρ(p)·V) equals ∫ρ(p)·Q_in dt, with ρ = ρ0·exp((p − p0)/β)."""
    t = np.linspace(0.0, 1.0, 40001)
    res = simulate(model, (0.0, 1.0), method="LSODA", rtol=1e-12, atol=1e-12, t_eval=t,
                   progress=False)
    beta, rho0, V0, A = 1.2e9, 870.0, 2e-3, math.pi * 0.1**2 / 4
    p = res[P]
    rho = rho0 * np.exp((p - p[0]) / beta)
    mass = rho * (V0 + A * res[X])
    q_in = node_inflow(res, "lift/cyl/nA", ("lift/cyl/C_A", "lift/cyl/TF_A"))
    assert np.allclose(q_in, 1e-3 - 1e-12 * p, rtol=1e-12)
    inflow = integral(res.t, rho * q_in)
    dm = mass[-1] - mass[0]
    assert abs(dm - inflow) / abs(dm) < 1e-8


def test_power_balance_closes_with_the_chamber_parametric_work():
    """ΔE = W_sources − W_dissipated + W_parametric, to integration accuracy; the
    parametric part (ċ·p²/2 of the lumped chamber law) is small but not zero."""
    import bondgraph as bg

    res = bg.simulate(lifted_mass(), (0, 1.0), rtol=1e-11, atol=1e-13, energy=True)
    pb = bg.power_balance(res)
    assert pb.relative < 1e-8
    assert 0 < abs(pb.parametric) < 1e-2 * abs(pb.source_work)
