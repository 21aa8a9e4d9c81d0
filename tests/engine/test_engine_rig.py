"""The diesel engine on a test rig: governed speed, lugging down the torque curve, fuel, energy.

The rig: an :class:`EngineShaft` drives a fixed pump that blows off through a relief valve
set almost ideally (300.0 … 300.5 bar), so the pump's torque is the hand value
``D·p/(2π)`` at the relief pressure whatever the speed. References are hand solutions of
the engine's published-form data (a linear full-load curve, a linear droop line), not
runs of the model.
"""

import math

import numpy as np
import pytest

from bondgraph import BondGraph, build, power_balance, simulate
from components.hydraulics import (DieselEngine, EngineShaft, FixedPump, Oil, PowerUnit,
                                   ReliefValve)

RPM = math.pi / 30
P_RELIEF = 300e5
ENGINE = DieselEngine(rated_power="110 kW", rated_speed="2000 rpm", high_idle="2150 rpm",
                      torque_curve=[["1000 rpm", "520 N*m"], ["1500 rpm", "650 N*m"],
                                    ["2000 rpm", "525 N*m"]],
                      inertia="1.5 kg*m^2", displacement="6.69 L", fmep="1.6 bar",
                      indicated_efficiency=0.45)


def rig(load_torque: float, w0: float):
    """A pump sized so that it needs ``load_torque`` at the relief pressure."""
    D = 2 * math.pi * load_torque / P_RELIEF                      # m³/rev
    top = BondGraph("rig")
    shaft = top.add(EngineShaft("eng", ENGINE, initial_speed=w0))
    pu = top.add(PowerUnit("pu", oil=Oil(), pump=FixedPump(D, 25.0), volume="1 L",
                           relief=ReliefValve(crack=P_RELIEF, full=P_RELIEF + 0.5e5, q_rated="900 L/min"),
                           initial_pressure=P_RELIEF))
    port = pu.drive_from_shaft()
    top.connect(f"eng/{shaft.drive('pump')}", f"pu/{port}")
    return top


def run(load_torque, w0, t_end=4.0):
    return simulate(build(rig(load_torque, w0)), (0.0, t_end), energy=True, rtol=1e-8, atol=1e-6,
                    progress=False)


def falling_branch_speed(T):
    """Hand: where the line 650 N·m @ 1500 rpm → 525 N·m @ 2000 rpm meets T (rpm)."""
    return 1500 + (650 - T) * (2000 - 1500) / (650 - 525)


def test_a_load_above_the_rated_torque_lugs_the_engine_to_where_the_curve_meets_it():
    T_load = 600.0                                                 # > 525 rated, < 650 peak
    res = run(T_load, 2000 * RPM)
    n_end = res["rig/eng/J.f"][-1] / RPM
    assert n_end == pytest.approx(falling_branch_speed(T_load), abs=2.0)     # 1700 rpm by hand
    # the engine never gives more than its curve (brake torque = indicated − friction)
    w = res["rig/eng/J.f"]
    T_brake = res.effort("rig/eng/engine") - ENGINE.friction_torque * np.tanh(w)
    assert np.all(T_brake <= ENGINE.full_load_value(w) + 1e-6)


def test_a_load_within_the_curve_is_held_on_the_droop_line():
    T_load = 300.0
    res = run(T_load, 2000 * RPM)
    n_end = res["rig/eng/J.f"][-1] / RPM
    hand = 2150 - T_load / (110e3 / (2000 * RPM)) * (2150 - 2000)          # droop line, rpm
    assert n_end == pytest.approx(hand, abs=1.0)


def test_a_load_above_the_whole_curve_stalls_the_engine():
    res = run(700.0, 1600 * RPM, t_end=1.5)                        # 700 > 650 N·m peak
    assert res["rig/eng/J.f"][-1] / RPM < 1000 * 0.9


def test_the_fuel_of_a_steady_point_is_the_willans_line():
    T_load = 400.0
    res = run(T_load, 2000 * RPM)
    w = res["rig/eng/J.f"][-1]
    # Willans by hand: fuel power = (brake + friction power)/η_i, brake = the load
    T_f = 1.6e5 * 6.69e-3 / (4 * math.pi)
    hand = (T_load + T_f) * w / 0.45 / (42.8e6 * 835.0)                    # m³/s
    got = ENGINE.fuel_rate(res.effort("rig/eng/engine")[-1], w)
    assert got == pytest.approx(hand, rel=2e-3)
    assert got * 3.6e6 == pytest.approx(hand * 3.6e6, rel=2e-3)            # L/h, same


def test_the_rig_energy_balance_holds_with_the_engine_and_its_friction():
    res = run(600.0, 2000 * RPM)
    pb = power_balance(res)
    assert pb.relative < 1e-4, str(pb)
