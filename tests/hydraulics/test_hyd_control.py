"""External control of a hydraulic drive: a joystick table, and a sampled PI loop on
the cylinder position (the 'machine control software' of the Toshiba hybrid-simulation patent)."""

import numpy as np
import pytest

from bondgraph import Input, Table, simulate
from bondgraph.hybrid import Controller, HybridModel, simulate_hybrid
from components.hydraulics import Friction
from hyd_rigs import drive_rig

PRE = "rig/hyd/act/cyl/"


def test_joystick_table_drives_the_valve():
    model, cyl = drive_rig(command=Input("joystick"), pressure="100 bar",
                           friction=Friction(viscous=5e3))
    stick = Table([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], [0.0, 0.0, 0.5, 0.5, 0.0, 0.0])
    res = simulate(model, (0.0, 1.0), inputs={"joystick": stick}, method="CVODE", rtol=1e-7,
                   atol=1e-8, progress=False)
    x = res[PRE + "piston.s"]
    assert x[-1] - x[0] > 0.02                      # it moved out while the stick was pushed
    late = res.t > 0.95
    assert np.ptp(x[late]) < 1e-4                   # and stopped when it was released


def test_sampled_pi_loop_on_cylinder_position():
    model, cyl = drive_rig(command=Input("cmd"), pressure="100 bar",
                           friction=Friction(coulomb=100.0, viscous=5e3), x0=0.2)
    hm = HybridModel(model, [], [])
    target, h = 0.3, 0.002
    state = {"i": 0.0}
    sent: list[tuple[float, float]] = []

    def pi(t, y):
        e = target - y[PRE + "piston.s"]
        state["i"] += e * h
        u = float(np.clip(20.0 * e + 60.0 * state["i"], -1.0, 1.0))
        sent.append((t, u))
        return {"cmd": u}

    res = simulate_hybrid(hm, (0.0, 3.0), controller=Controller(pi, ["cmd"], period=h),
                          method="CVODE", rtol=1e-7, atol=1e-8)
    assert res[PRE + "piston.s"][-1] == pytest.approx(target, abs=1e-3)
    assert res.stats["segments"] >= 3.0 / h - 1
    # the valve command seen by the model is the controller's last output, held until the next sample
    ts = np.array([t for t, _ in sent])
    us = np.array([u for _, u in sent])
    assert np.allclose(np.diff(ts), h, rtol=0, atol=1e-12)
    inside = np.min(np.abs(res.t[:, None] - ts[None, :]), axis=1) > 1e-9  # away from sample instants
    k = np.searchsorted(ts, res.t[inside], side="right") - 1
    assert np.array_equal(res["cmd"][inside], us[k])
