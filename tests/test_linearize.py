"""Linearisation: A and B against hand-derived matrices; modes of known systems."""

import math

import numpy as np
import pytest

from bondgraph import BondGraph, C, I, Input, MSe, One, ParameterError, R, build
from bondgraph.linearize import equilibrium, linearize


def msd(m=2.0, k=800.0, b=4.0):
    bg = BondGraph("msd")
    bg.add(MSe("F", Input("F")), One("v"), I("m", m), C.spring("k", k), R("b", b))
    for a, c in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
        bg.connect(a, c)
    return build(bg)


def test_matrices_of_a_mass_spring_damper():
    m, k, b = 2.0, 800.0, 4.0
    lin = linearize(msd(m, k, b), inputs={"F": 3.0})
    # states: v (m.f) and spring force (k.e): m·v̇ = F − e − b·v, ė = k·v
    assert lin.state_names == ("msd/m.f", "msd/k.e")
    assert np.allclose(lin.A, [[-b / m, -1 / m], [k, 0.0]], rtol=1e-12)
    assert np.allclose(lin.B, [[1 / m], [0.0]], rtol=1e-8)
    mode = lin.modes()[0]
    wn = math.sqrt(k / m)
    assert mode.frequency == pytest.approx(wn / (2 * math.pi), rel=1e-12)
    assert mode.damping == pytest.approx(b / (2 * math.sqrt(k * m)), rel=1e-12)
    assert mode.damped_frequency == pytest.approx(
        wn * math.sqrt(1 - (b / (2 * math.sqrt(k * m))) ** 2) / (2 * math.pi), rel=1e-12)


def test_lifted_mass_jacobian_matches_hand_derivation():
    """States (x, v, p): ẋ = v, m·v̇ = p·A − m·g − c·v, ṗ = β/(V0 + A·x)·(Q0 − A·v − G·p)."""
    import sys, os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "hydraulics"))
    from hyd_rigs import lifted_mass

    m, c, beta, V0, Q0, G = 1000.0, 2e4, 1.2e9, 2e-3, 1e-3, 1e-12
    A = math.pi * 0.1**2 / 4
    model = lifted_mass()
    x, v, p = 0.05, 0.1, 1.5e6
    lin = linearize(model, {"lift/cyl/piston.s": x, "lift/cyl/m.f": v, "lift/cyl/C_A.e": p})
    V = V0 + A * x
    net = Q0 - A * v - G * p
    J = np.array([[0, 1, 0],
                  [0, -c / m, A / m],
                  [-beta * A / V**2 * net, -beta * A / V, -beta * G / V]])
    assert np.allclose(lin.A, J, rtol=1e-10, atol=1e-12)
    osc = lin.modes(oscillatory_only=True)
    assert len(osc) == 1
    wn = math.sqrt(beta * A**2 / (V * m))                 # oil-column frequency
    assert osc[0].frequency == pytest.approx(wn / (2 * math.pi), rel=0.02)


def test_table_and_equilibrium():
    model = msd()
    xe = equilibrium(model, free=["msd/k.e"], inputs={"F": 5.0})
    assert xe[1] == pytest.approx(5.0)
    text = linearize(model, xe, inputs={"F": 5.0}).table()
    assert "f_n [Hz]" in text and "msd/m.f" in text


def test_errors():
    with pytest.raises(ParameterError, match="no signal"):
        linearize(msd())
    with pytest.raises(ParameterError, match="no free states"):
        equilibrium(msd(), inputs={"F": 0.0})
