"""Modelica export of bond graphs (``bondgraph.export``): text, names, balance, and rumoca runs.

rumoca (PyPI, the ``modelica`` extra) compiles and simulates the exported text
independently of our code generator; its results are compared with closed-form
solutions from ``tests/reference``.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import sympy as sp

import reference as ref
from bondgraph import (C, I, MSe, BondGraph, Input, ModelStructureError, One, ParameterError, R,
                       Se, build, t)
from bondgraph.export import ModelicaModel, modelica_identifier, simulate_rumoca, to_modelica

needs_rumoca = pytest.mark.skipif(importlib.util.find_spec("rumoca") is None,
                                  reason="needs rumoca (the 'modelica' extra)")


def msd(m=2.0, k=50.0, c=0.8, F0=3.0, x0=0.1, v0=-0.2) -> BondGraph:
    bg = BondGraph("msd")
    bg.add(Se("F", F0), One("v"), I("m", m, initial=v0), C.spring("k", k, initial_force=k * x0),
           R("b", c))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
        bg.connect(a, b)
    return bg


def test_one_block_per_element_balanced_and_named():
    mo = to_modelica(msd(), units={"m": "kg", "k": "m/N", "b": "N.s/m", "F": "N"})
    assert isinstance(mo, ModelicaModel) and mo.name == "msd"
    assert mo.n_variables == mo.n_equations == 8  # four bonds, effort and flow each
    assert mo.n_parameters == 4
    text = mo.text
    for line in ('parameter Real m_m(unit="kg") = 2.0 "m: m";',
                 'parameter Real k_c(unit="m/N") = 0.02 "k: c";',
                 "m_m*der(f_m) = e_m;", "k_c*der(e_k) = f_k;", "e_b = b_r*f_b;",
                 "// v: 1", "// k: C (integral causality)"):
        assert line in text, line
    assert "fixed=true" in text.split("Real f_m")[1].split("\n")[0]
    assert mo.names["msd/m.m"] == "m_m" and mo.names["f[msd/b2]"] == "f_m"


def test_dependent_inertia_is_written_in_its_natural_form():
    bg = BondGraph("pair")
    bg.add(Se("F", 1.0), One("v"), I("m1", 1.0), I("m2", 3.0))
    for a, b in [("F", "v"), ("v", "m1"), ("v", "m2")]:
        bg.connect(a, b)
    text = to_modelica(bg).text
    assert "// m2: I (derivative causality)" in text
    assert "e_m2 = m2_m*der(f_m2);" in text


def test_canonical_two_ports_and_nonlinear_laws():
    from bondgraph import TF

    bg = BondGraph("net")
    bg.add(MSe("p", Input("pressure")), One("j"), TF("area", 0.01), One("k"),
           R("orf", flow=lambda dp: 2 * sp.sign(dp) * sp.sqrt(sp.Abs(dp))), I("m", 1.0))
    for a, b in [("p", "j"), ("j", "area/1"), ("area/2", "k"), ("k", "m"), ("j", "orf")]:
        bg.connect(a, b)
    mo = to_modelica(bg, inputs={"pressure": 1e5 * sp.Min(t, 1)})
    text = mo.text
    assert "e_area_1 = area_n*e_area_2;" in text and "f_area_2 = area_n*f_area_1;" in text
    assert "sqrt(abs(e_orf))" in text and "sign(e_orf)" in text
    assert "pressure = 100000.0*min(1, time);" in text
    assert mo.n_variables == mo.n_equations


def test_errors_name_what_is_wrong():
    with pytest.raises(ParameterError, match="start value for 'msd/q.e': no such state"):
        to_modelica(msd(), start={"msd/q.e": 1.0})
    with pytest.raises(ParameterError, match="input 'valve' given but the model has no such input"):
        to_modelica(msd(), inputs={"valve": 1.0})
    with pytest.raises(ModelStructureError, match="expected a BondGraph"):
        to_modelica("msd")
    bg = BondGraph("free")
    bg.add(Se("F", sp.Symbol("F0")), One("v"), I("m", 1.0))
    bg.connect("F", "v")
    bg.connect("v", "m")
    with pytest.raises(ParameterError, match="symbol 'F0' used by free/F has no value"):
        to_modelica(bg)
    assert "parameter Real F0 = 2.5" in to_modelica(bg, params={"F0": 2.5}).text


def test_identifiers():
    assert modelica_identifier("excavator/boom/w.theta", "excavator") == "boom_w_theta"
    assert modelica_identifier("f[excavator/boom/b3]", "excavator") == "f_boom_b3"
    assert modelica_identifier("time") == "time_"
    assert modelica_identifier("3way") == "v_3way"


def test_built_model_gives_its_current_values(tmp_path):
    model = build(msd())
    model.set_params({"msd/m.m": 5.0})
    mo = to_modelica(model, start={"msd/m.f": 0.7})
    assert "parameter Real m_m = 5.0" in mo.text
    assert "Real f_m(start=0.7, fixed=true)" in mo.text
    path = mo.write(tmp_path)
    assert path.name == "msd.mo" and path.read_text() == mo.text
    from bondgraph.files import current_umask
    assert path.stat().st_mode & 0o777 == 0o666 & ~current_umask()  # a plain file, not 0600
    assert [p.name for p in tmp_path.iterdir()] == ["msd.mo"]  # no temporary left behind


@needs_rumoca
def test_quotes_and_backslashes_in_descriptions_are_escaped():
    """An independent parser (rumoca) reads the text; the description survives verbatim."""
    text = 'spring "k" at C:\\rig, 2nd try'
    mo = to_modelica(msd(), description=text)
    assert mo.text.splitlines()[0] == 'model msd "spring \\"k\\" at C:\\\\rig, 2nd try"'
    out = simulate_rumoca(mo, 0.1, 0.05, names=["msd/m.f"])
    assert out["msd/m.f"][0] == pytest.approx(-0.2)


@needs_rumoca
def test_rumoca_reproduces_the_closed_form():
    mo = to_modelica(msd())
    out = simulate_rumoca(mo, 3.0, 0.01, rtol=1e-10, atol=1e-12, names=["msd/m.f", "msd/k.e"])
    exact = ref.mass_spring_damper(2.0, 50.0, 0.8, 0.1, -0.2, 3.0, out["time"])
    assert np.max(np.abs(out["msd/m.f"] - exact["v"])) < 1e-7
    assert np.max(np.abs(out["msd/k.e"] / 50.0 - exact["x"])) < 1e-8
