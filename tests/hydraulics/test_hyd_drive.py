"""Valve-driven double-acting cylinder: oil balance per chamber, relief at stall, valve laws."""

import math

import numpy as np
import pytest
import sympy as sp

from bondgraph import simulate, t as T
from components.hydraulics import EndStop, FixedPump, Friction, ReliefValve
from hyd_rigs import drive_rig, integral, node_inflow

PRE = "rig/hyd/act/cyl/"


def test_oil_mass_balance_in_both_chambers():
    """Every chamber: Δ(ρ(p)·V(x)) = ∫ρ(p)·Q_ports dt (compressibility included)."""
    model, cyl = drive_rig(command=0.3 * sp.sin(2 * sp.pi * T), pressure="50 bar",
                           leakage_internal=2e-12, leakage_external=(1e-12, 1e-12),
                           friction=Friction(coulomb=200.0, viscous=2e3))
    t = np.linspace(0.0, 1.0, 40001)
    res = simulate(model, (0.0, 1.0), method="LSODA", rtol=1e-11, atol=1e-10, t_eval=t,
                   x0={PRE + "C_A.e": 3e6, PRE + "C_B.e": 3e6}, progress=False)
    beta, rho0 = 1.2e9, 870.0
    x = res[PRE + "piston.s"]
    assert np.ptp(x) > 0.05          # it really moves
    for side, V in (("A", cyl.dead_volumes[0] + cyl.area_A * x),
                    ("B", cyl.dead_volumes[1] + cyl.area_B * (cyl.stroke - x))):
        p = res[PRE + f"C_{side}.e"]
        rho = rho0 * np.exp((p - p[0]) / beta)
        q = node_inflow(res, PRE + f"n{side}", (PRE + f"C_{side}", PRE + f"TF_{side}"))
        inflow = integral(res.t, rho * q)
        mass = rho * V
        dm = mass[-1] - mass[0]
        scale = integral(res.t, np.abs(rho * q))
        assert abs(dm - inflow) / scale < 1e-8, side


def test_relief_valve_caps_pressure_at_stall():
    """A fixed pump extends the cylinder onto its end stop; the relief valve holds the
    pressure inside its regulation band (crack 200 bar … full open 210 bar)."""
    relief = ReliefValve(crack="200 bar", full="210 bar", q_rated="60 L/min")
    pump = FixedPump("20 cm^3/rev", "1500 rpm")           # 30 L/min
    model, cyl = drive_rig(command=1.0, pump=pump, relief=relief, x0=0.4,
                           end_stop=EndStop(stiffness=1e8, damping=2e5),
                           friction=Friction(viscous=5e3))
    res = simulate(model, (0.0, 3.0), method="CVODE", rtol=1e-7, atol=1e-6, progress=False)
    x = res[PRE + "piston.s"]
    p_pump = res["rig/hyd/pu/C_P.e"]
    late = res.t > 2.0
    assert x[-1] > cyl.stroke - 1e-3                      # stalled at the end stop
    assert np.all(p_pump[late] >= 200e5 - 1e3) and np.all(p_pump[late] <= 210e5)
    # all the pump flow now goes through the relief valve
    q_relief = res.flow("rig/hyd/pu/relief")
    assert q_relief[-1] == pytest.approx(pump.flow, rel=1e-3)
    # and the cap pressure equals the pump pressure less the (now tiny) valve drop
    assert res[PRE + "C_A.e"][-1] == pytest.approx(p_pump[-1], rel=1e-3)


def test_valve_closed_centre_holds_the_load():
    model, _ = drive_rig(command=0.0, pressure="100 bar", spool=None)
    res = simulate(model, (0.0, 0.5), method="LSODA", rtol=1e-9, atol=1e-9, progress=False,
                   x0={PRE + "C_A.e": 2e6, PRE + "C_B.e": 2e6 * 0.063**2 / (0.063**2 - 0.036**2)})
    assert np.ptp(res[PRE + "piston.s"]) < 1e-9


def test_valve_nominal_flow_against_hand_calculation():
    """Steady extension against zero load: both edges see the nominal law."""
    model, cyl = drive_rig(command=1.0, pressure="100 bar", spool=None, load_mass=50.0)
    # 0.2 s: steady, and the piston (x0 = 0.3 m, v ≈ 0.84 m/s) still inside its 0.5 m stroke;
    # at 0.27 s the rod chamber's volume V_B(x) crosses zero, which simulate reports
    res = simulate(model, (0.0, 0.2), method="LSODA", rtol=1e-9, atol=1e-9, progress=False)
    assert res[PRE + "piston.s"][-1] < cyl.stroke
    v = res[PRE + "m.f"][-1]
    # hand: Q_A = Qn·√(Δp_PA/Δp_N), Q_B = Qn·√(p_B/Δp_N), Q_A = A_A·v, Q_B = A_B·v,
    # force balance p_A·A_A = p_B·A_B with p_A = p_s − Δp_PA
    Qn, dpn, ps = 40 / 6e4, 5e5, 100e5
    AA, AB = cyl.area_A, cyl.area_B
    # unknown v: Δp_PA = dpn·(AA v/Qn)², p_B = dpn·(AB v/Qn)², (ps − Δp_PA)·AA = p_B·AB
    v_hand = Qn * math.sqrt(ps * AA / (dpn * (AA**3 + AB**3)))
    assert v == pytest.approx(v_hand, rel=1e-6)
