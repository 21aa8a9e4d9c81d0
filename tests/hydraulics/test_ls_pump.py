"""Load-sensing pump: pressure = highest load + margin, stand-by, response, limiter, cut-off.

References are computed here, independently of the model: load pressures from
force/area, the stand-by displacement from the leakage, the closed-loop step
response from the controller's documented law solved as a linear ODE
(matrix exponential), the shaft torque from the hydraulic power.
"""

import math

import numpy as np
import pytest
from scipy.linalg import expm

from bondgraph import BondGraph, Input, build, simulate
from components.hydraulics import LSPowerUnit, LSPump, Oil, Orifice
from components.hydraulics.ls_rigs import RIG_PUMP, load_rig

SIM = dict(method="CVODE", rtol=1e-8, atol=1e-6, progress=False)


def _late(res, name, t_from):
    return res[name][res.t >= t_from]


@pytest.mark.parametrize("compensation", ["pre", "post"])
@pytest.mark.parametrize("loads", [(120e3, 60e3), (40e3, 90e3)])
def test_pump_pressure_is_highest_load_plus_margin(compensation, loads):
    forces = {"a": loads[0], "b": loads[1]}
    rig = load_rig(forces, commands={"a": 0.5, "b": 0.5}, compensation=compensation)
    res = simulate(rig.model, (0.0, 0.6), x0=rig.x0, **SIM)
    p_load = {f: forces[f] / rig.area[f] for f in forces}          # force balance, rod side vented
    for f in forces:                                                  # the rig is what we think it is
        assert np.allclose(_late(res, rig.cap_pressure(f), 0.4), p_load[f], rtol=1e-3)
        assert _late(res, rig.velocity(f), 0.4).min() > 0.01          # both functions move
    expected = max(p_load.values()) + RIG_PUMP.margin
    p_pump = _late(res, rig.pump_pressure, 0.4)
    assert np.max(np.abs(p_pump - expected)) / expected <= 0.01


def test_standby_holds_the_margin_and_covers_the_leakage():
    """Valves closed: p_P = Δp_LS (stand-by) and the pump delivers just its leakage."""
    rig = load_rig({"a": 100e3}, commands={"a": 0.0})
    res = simulate(rig.model, (0.0, 0.5), x0=rig.x0, **SIM)
    p = res[rig.pump_pressure][-1]
    assert p == pytest.approx(RIG_PUMP.margin, rel=0.01)
    alpha_ref = RIG_PUMP.leakage * p / RIG_PUMP.max_flow              # Q_pump = G_leak·p
    assert rig.displacement(res)[-1] == pytest.approx(alpha_ref, rel=0.01)
    assert abs(res[rig.velocity("a")][-1]) < 1e-6                     # closed centre holds


def test_closed_loop_step_follows_the_controller_law():
    """Small step of the LS pressure (inside the proportional band) into a laminar
    load: the outlet pressure against the linear ODE of the documented PD law
    (solved by matrix exponential), and its time constant ≈ T_d + T_f."""
    oil = Oil(bulk_modulus=1.4e9)
    pump = LSPump("100 cm^3/rev", "1500 rpm", "20 bar", leakage=0.0)
    V, G = 1e-3, 1.5e-10                                              # outlet volume, load m³/(s·Pa)
    bg = BondGraph("step")
    pu = bg.add(LSPowerUnit("pu", oil=oil, pump=pump, volume=V, load_pressure=Input("p_ls")))
    p_port, t_port = pu.consumer("load")
    bg.add(Orifice("load", conductance=G))                            # Q = G·p into the tank
    bg.connect(f"pu/{p_port}", "load/A")
    bg.connect("load/B", f"pu/{t_port}")
    # equilibrium at p_LS = 50 bar: D·n·(p_ls + m − p)/p_band = G·p
    Dn, pb, m = pump.max_flow, pump.regulation_band, pump.margin
    k = Dn / pb
    p0 = k * (50e5 + m) / (k + G)
    model = build(bg)
    x0 = {"step/pu/C_P.e": p0, "step/pu/rate/x.value": p0}
    t = np.linspace(0.0, 0.05, 501)
    step = 0.2e5
    res = simulate(model, (0.0, 0.05), x0=x0, inputs={"p_ls": 50e5 + step}, t_eval=t,
                   method="CVODE", rtol=1e-10, atol=1e-4, progress=False)
    # reference: C·ṗ = k·(p_ls + m − p − T_d·(p − z)/T_f) − G·p,  ż = (p − z)/T_f
    C, Td, Tf = V / oil.bulk_modulus, pump.time_constant, pump.filter_time_constant
    A = np.array([[(-k * (1 + Td / Tf) - G) / C, k * Td / Tf / C], [1 / Tf, -1 / Tf]])
    b = np.array([k * (50e5 + step + m) / C, 0.0])
    xe = -np.linalg.solve(A, b)
    ref = np.array([(xe + expm(A * ti) @ (np.array([p0, p0]) - xe))[0] for ti in t])
    assert np.all(res.flow("step/pu/pump") < Dn)                      # linear range: α < 1
    assert np.max(np.abs(res["step/pu/C_P.e"] - ref)) <= 1e-4 * step
    # about first order with the derivative time: 63 % of the step after ≈ T_d
    frac = (res["step/pu/C_P.e"] - p0) / (xe[0] - p0)
    t63 = np.interp(1 - math.exp(-1), frac, t)
    assert t63 == pytest.approx(Td + Tf, rel=0.15)


def test_torque_limiter_caps_the_shaft_torque():
    """A demand the shaft cannot drive: the pump torque T = p·Q/(2π·n) sits at T_max."""
    pump = LSPump("100 cm^3/rev", "1500 rpm", "20 bar", torque_limit="250 N*m")
    rig = load_rig({"a": 150e3}, commands={"a": 1.0}, pump=pump, q_nominal="150 L/min")
    res = simulate(rig.model, (0.0, 0.5), x0=rig.x0, **SIM)
    p = res[rig.pump_pressure][-1]
    q = res.flow(rig.pump_source)[-1]
    torque = p * q / (2 * math.pi * pump.speed)                       # hydraulic power / ω
    assert torque == pytest.approx(250.0, rel=0.01)
    assert q < 0.7 * pump.max_flow                                     # it really limits


def test_pressure_cutoff_holds_without_relieving():
    """A stalled load above the cut-off: the pump holds p_cut, nothing crosses the relief."""
    pump = LSPump("100 cm^3/rev", "1500 rpm", "20 bar", cutoff="250 bar")
    load = 280e5
    rig = load_rig({"a": 1.0}, commands={"a": 0.5}, pump=pump)
    area = rig.area["a"]
    rig.model.set_params({"rig/a_load.e": -load * area})
    res = simulate(rig.model, (0.0, 0.5), x0={rig.cap_pressure("a"): load}, **SIM)
    assert res[rig.pump_pressure][-1] == pytest.approx(250e5, rel=0.01)
    assert abs(res.flow("rig/hyd/pu/relief")[-1]) < 1e-9              # relief (300 bar) shut
    # the load-holding check keeps the higher load from flowing back into P
    assert np.all(res.flow("rig/hyd/a/R_PA") >= 0.0)
    assert res[rig.position("a")].min() > 0.1 - 1e-4
