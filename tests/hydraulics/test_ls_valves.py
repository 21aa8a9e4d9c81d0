"""Pressure-compensated valve sections: load-independent flow, flow sharing, compensator drops.

References computed here: the nominal-flow orifice law at the compensator's
set drop (pre: ``Δp_c``; post: the pump margin), load pressures from
force/area, the command ratio, the pump's delivered flow.
"""

import math

import numpy as np
import pytest

from bondgraph import simulate
from components.hydraulics import LSPump
from components.hydraulics.ls_rigs import RIG_PUMP, load_rig

SIM = dict(method="CVODE", rtol=1e-8, atol=1e-6, progress=False)
QN, DPN = 60 / 6e4, 10e5                    # the rig's valves: 60 L/min at 10 bar per edge
PRE_SETTING = 12e5                          # the rig's pre-compensator setting


def _orifice(x, dp):
    return QN * x * math.sqrt(dp / DPN)


@pytest.fixture(scope="module", params=["pre", "post"])
def one_function(request):
    return request.param, load_rig({"lift": 1.0}, commands={"lift": 0.6}, compensation=request.param)


def test_compensated_flow_is_independent_of_the_load(one_function):
    """50–250 bar of load: the flow stays at the orifice law at the set drop (≤ 2 %)."""
    kind, rig = one_function
    area = rig.area["lift"]
    dp_set = PRE_SETTING if kind == "pre" else RIG_PUMP.margin
    ref = _orifice(0.6, dp_set)
    flows = []
    for p_load in (50e5, 100e5, 150e5, 200e5, 250e5):
        rig.model.set_params({"rig/lift_load.e": -p_load * area})
        res = simulate(rig.model, (0.0, 0.5), x0={rig.cap_pressure("lift"): p_load}, **SIM)
        assert res[rig.cap_pressure("lift")][-1] == pytest.approx(p_load, rel=1e-3)
        flows.append(res[rig.velocity("lift")][-1] * area)
    flows = np.array(flows)
    assert np.max(np.abs(flows - ref)) / ref <= 0.02, flows / ref


def test_uncompensated_valve_fails_the_same_criterion():
    """Negative control: a plain valve on the fixed pump (relief at 300 bar) passes
    √(p_P − p_load) and its flow changes with the load far beyond 2 %."""
    rig = load_rig({"lift": 1.0}, commands={"lift": 0.1}, circuit="fixed")
    area = rig.area["lift"]
    flows = []
    for p_load in (50e5, 250e5):
        rig.model.set_params({"rig/lift_load.e": -p_load * area})
        res = simulate(rig.model, (0.0, 0.5), x0={rig.cap_pressure("lift"): p_load,
                                                  rig.pump_pressure: 300e5}, **SIM)
        flows.append(res[rig.velocity("lift")][-1] * area)
    assert flows[0] / flows[1] > 1.2


def test_post_compensated_flow_sharing_follows_the_command_ratio():
    """Pump saturated (demand 127 L/min, pump 75 L/min): flows in the command ratio."""
    pump = LSPump("50 cm^3/rev", "1500 rpm", "20 bar")
    rig = load_rig({"a": 75e3, "b": 30e3}, commands={"a": 1.0, "b": 0.4}, compensation="post",
                   pump=pump)
    res = simulate(rig.model, (0.0, 0.6), x0=rig.x0, **SIM)
    q = {f: res[rig.velocity(f)][-1] * rig.area[f] for f in "ab"}
    demand = _orifice(1.0, pump.margin) + _orifice(0.4, pump.margin)
    assert demand > 1.2 * pump.max_flow                               # really saturated
    assert rig.displacement(res)[-1] == pytest.approx(1.0, abs=1e-9)
    assert q["a"] / q["b"] == pytest.approx(1.0 / 0.4, rel=0.01)
    leak = pump.leakage * res[rig.pump_pressure][-1]
    assert q["a"] + q["b"] == pytest.approx(pump.max_flow - leak, rel=0.005)


def test_pre_compensated_saturation_starves_the_highest_load():
    """Classic LS under saturation: the lighter function keeps its compensated flow,
    the heavier one gets what is left (no flow sharing)."""
    pump = LSPump("50 cm^3/rev", "1500 rpm", "20 bar")
    rig = load_rig({"a": 75e3, "b": 30e3}, commands={"a": 1.0, "b": 0.4}, compensation="pre",
                   pump=pump)
    res = simulate(rig.model, (0.0, 0.6), x0=rig.x0, **SIM)
    q = {f: res[rig.velocity(f)][-1] * rig.area[f] for f in "ab"}
    assert q["b"] == pytest.approx(_orifice(0.4, PRE_SETTING), rel=0.02)
    leak = pump.leakage * res[rig.pump_pressure][-1]
    assert q["a"] == pytest.approx(pump.max_flow - leak - q["b"], rel=0.01)
    assert q["a"] < 0.9 * _orifice(1.0, PRE_SETTING)


@pytest.mark.parametrize("lag", [None, "5 ms"], ids=["quasi-static", "lag"])
@pytest.mark.parametrize("kind", ["pre", "post"])
def test_compensator_drops(kind, lag):
    """The compensator drop y = p_P − p_A − (metering drop by the orifice law from the flow).
    Post: the highest load's compensator is open (at its stop), the other throttles the load
    difference. Pre: each throttles p_P − p_load − Δp_c."""
    forces = {"a": 120e3, "b": 50e3}
    rig = load_rig(forces, commands={"a": 0.5, "b": 0.5}, compensation=kind, compensator_lag=lag)
    res = simulate(rig.model, (0.0, 0.6), x0=rig.x0, **SIM)
    p_load = {f: forces[f] / rig.area[f] for f in forces}
    p_pump = res[rig.pump_pressure][-1]
    y = {f: p_pump - res[rig.cap_pressure(f)][-1] - rig.metering_drop(res, f)[-1] for f in forces}
    if kind == "post":
        assert abs(y["a"]) < 1e-3 * p_load["a"]
        assert y["b"] == pytest.approx(p_load["a"] - p_load["b"], rel=0.01)
    else:
        for f in forces:
            assert y[f] == pytest.approx(p_pump - p_load[f] - PRE_SETTING, rel=0.01)
