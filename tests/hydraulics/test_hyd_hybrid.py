"""Hydraulic hybrid models: an on/off valve switched by a dithering joystick; a relief
valve with closed/relieving modes; the mode table of a hydraulic drive."""

import math

import numpy as np
import pytest

from bondgraph.hybrid import Discrete, HybridModel, hysteresis, simulate_hybrid
from components.hydraulics import EndStop, FixedPump, Friction, ReliefValve
from hyd_rigs import drive_rig

PRE = "rig/hyd/act/cyl/"


def test_dithering_joystick_on_off_valve_does_not_stall():
    """The operator's lever dithers ±5 % at 150 Hz around the 50 % switching point;
    hysteresis (4 %) and a 20 ms dwell bound the switching rate and the run completes."""
    valve = Discrete("valve", {"Closed": 0.0, "Extend": 1.0}, initial="Closed")
    model, cyl = drive_rig(command=valve.symbol, pressure="80 bar", spool=None,
                           friction=Friction(viscous=5e3), params={"valve": 0.0},
                           end_stop=EndStop(stiffness=1e8, damping=2e5))
    tr = hysteresis("valve", "Closed", "Extend", "joystick", 0.5, band=0.04, dwell=0.02)
    hm = HybridModel(model, [valve], tr, signals=["joystick"])

    def joystick(t):
        return 0.25 + 0.5 * t + 0.05 * math.sin(2 * math.pi * 150 * t)

    res = simulate_hybrid(hm, (0.0, 1.0), signals={"joystick": joystick}, method="CVODE",
                          rtol=1e-6, atol=1e-6)
    assert res.t[-1] == pytest.approx(1.0)
    assert len(res.transitions) >= 3                      # it does chatter a little...
    assert res.events_per_second() <= 1 / 0.02 + 1        # ...but at a bounded rate
    assert res.mode("valve")[-1] == "Extend"
    assert res[PRE + "piston.s"][-1] > res[PRE + "piston.s"][0] + 0.01
    # every logged transition has a time and the guard that caused it
    assert all(r.cause.startswith("joystick") for r in res.transitions)


def test_relief_valve_modes_cap_the_pressure():
    relief_mode = Discrete("relief", {"closed": 0.0, "relieving": 1.0})
    relief = ReliefValve(crack="200 bar", full="210 bar", q_rated="60 L/min", mode=relief_mode.symbol)
    model, cyl = drive_rig(command=1.0, pump=FixedPump("20 cm^3/rev", "1500 rpm"), relief=relief,
                           x0=0.45, end_stop=EndStop(stiffness=1e8, damping=2e5),
                           friction=Friction(viscous=5e3), params={"relief": 0.0})
    tr = hysteresis("relief", "closed", "relieving", "rig/hyd/pu/C_P.e", 200e5, band=1e4)
    hm = HybridModel(model, [relief_mode], tr)
    text = str(hm.table())
    assert "mode relief=closed" in text and "mode relief=relieving" in text
    res = simulate_hybrid(hm, (0.0, 2.0), method="CVODE", rtol=1e-7, atol=1e-6)
    p = res["rig/hyd/pu/C_P.e"]
    assert res.transitions and res.transitions[0].target == "relieving"
    late = res.t > 1.5
    assert np.all(p[late] <= 210e5) and np.all(p[late] >= 200e5 - 1e4)
    assert res.mode("relief")[-1] == "relieving"
