"""Adapter (a): two bond-graph models of this toolkit co-simulated (B3 split at the piston)."""

import math

import numpy as np
import pytest

import bondgraph as bg
from bondgraph.cosim import Cosimulation, Glue, Relations, TimeManager
from bondgraph.cosim import examples as ex
from bondgraph.cosim.model import ModelSubsystem
from bondgraph.cosim.relations import PowerBond

M, C, G, BETA, V, LEAK, Q0 = 1000.0, 2e4, 9.81, 1.2e9, 2e-3, 1e-12, 1e-3
A = math.pi * 0.05**2
P0 = M * G / A


def mechanical():
    m = bg.BondGraph("mech")
    m.add(bg.MSe("F", bg.Input("F")), bg.Se("g", -M * G), bg.One("v", displacement="x"), bg.I("m", M),
          bg.R("c", C))
    for a, b in [("F", "v"), ("g", "v"), ("v", "m"), ("v", "c")]:
        m.connect(a, b)
    return bg.build(m)


def hydraulic():
    h = bg.BondGraph("hyd")
    h.add(bg.Sf("Q0", Q0), bg.Zero("p"), bg.C("oil", V / BETA, initial=P0), bg.R("leak", 1 / LEAK),
          bg.TF("area", 1 / A), bg.One("rod"), bg.MSf("motion", bg.Input("v")))
    for a, b in [("Q0", "p"), ("p", "oil"), ("p", "leak"), ("p", "area/1"), ("area/2", "rod"), ("motion", "rod")]:
        h.connect(a, b)
    return bg.build(h)


def monolithic():
    w = bg.BondGraph("mono")
    w.add(bg.Sf("Q0", Q0), bg.Zero("p"), bg.C("oil", V / BETA, initial=P0), bg.R("leak", 1 / LEAK),
          bg.TF("area", 1 / A), bg.One("v", displacement="x"), bg.Se("g", -M * G), bg.I("m", M), bg.R("c", C))
    for a, b in [("Q0", "p"), ("p", "oil"), ("p", "leak"), ("p", "area/1"), ("area/2", "v"), ("g", "v"),
                 ("v", "m"), ("v", "c")]:
        w.connect(a, b)
    return bg.build(w)


def test_monolithic_bond_graph_reproduces_the_b3_reference():
    res = bg.simulate(monolithic(), (0, 1), rtol=1e-12, atol=1e-14, t_eval=np.array([0.0, 1.0]))
    x, v, p = ex.B3_QUOTED
    assert res["mono/v.x"][-1] == pytest.approx(x, rel=1e-5)
    assert res["mono/m.f"][-1] == pytest.approx(v, rel=1e-5)
    assert res["mono/oil.e"][-1] == pytest.approx(p, rel=1e-5)


def test_two_toolkit_models_cosimulated_agree_with_the_monolithic_model():
    hyd = hydraulic()
    force_bond = next(k for u, v, k in hyd.graph.edges(keys=True) if u == "hyd/area" and v == "hyd/rod")
    mech = ModelSubsystem(mechanical(), "mech", inputs={"F": ("F", "N")},
                          outputs={"x": ("mech/v.x", "m"), "v": ("mech/m.f", "m/s")})
    side = ModelSubsystem(hyd, "hyd", inputs={"v": ("v", "m/s")},
                          outputs={"F": (f"e[{force_bond}]", "N"), "p": ("hyd/oil.e", "Pa")})
    rel = Relations(["mech.v -> hyd.v", "hyd.F -> mech.F"], bonds=[PowerBond(effort="hyd.F", flow="mech.v")])
    sim = Cosimulation([mech, side], rel, TimeManager(step=1e-3, end=1.0), Glue("quadratic", "reduced"))
    res = sim.run()
    ref = bg.simulate(monolithic(), (0, 1), rtol=1e-12, atol=1e-14, t_eval=res.time)
    v_ref = ref["mono/m.f"]
    err = float(np.max(np.abs(res["mech.v"] - v_ref)) / np.max(np.abs(v_ref)))
    assert err <= 1.2e-2
    assert res["hyd.p"][-1] == pytest.approx(ref["mono/oil.e"][-1], rel=1e-3)


def test_adapter_names_bad_ports():
    with pytest.raises(bg.ParameterError) as exc:
        ModelSubsystem(mechanical(), "mech", inputs={"F": ("force", "N")},
                       outputs={"x": ("mech/v.xx", "m")})
    msg = str(exc.value)
    assert "input 'F': the model has no input 'force' (inputs: F)" in msg
    assert "model input 'F' is not fed" in msg
    assert "output 'x': 'mech/v.xx' is neither a state nor an output" in msg
