"""Modelica export of mechanisms: the bond-graph form and the Cartesian form, run by rumoca.

Must hold: the exported four-bar compiles in rumoca and reproduces our angle
history to 1e-3 rad (it does to about 1e-8); the double-pendulum exports agree
with Kane to the accuracy rumoca reaches (about 4e-9 rad at rtol = 1e-12).
The variable and equation counts are part of the report (the seed compares
298 with 1885 for its spatial double pendulum).
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
import sympy as sp

import reference as ref
from bondgraph import ParameterError, Spline, t as T
from bondgraph.export import simulate_rumoca
from mechanisms.formulations import build_formulation, double_pendulum, export_modelica
from mechanisms.formulations.cases import four_bar_case

needs_rumoca = pytest.mark.skipif(importlib.util.find_spec("rumoca") is None,
                                  reason="needs rumoca (the 'modelica' extra)")

#: Four-bar cylinder length as a formula of time (Modelica needs the formula, not samples).
LENGTH = 0.6 - 0.1 * sp.cos(sp.pi * T)


def expected_size(f, n_inputs: int) -> int:
    """Variables (= equations) an export must have, counted from the structure it came from:
    the bond-graph form has an effort and a flow per bond, the displacement states and the
    inputs; the Cartesian form has q and v per coordinate, a multiplier per constraint row
    and a length per driven cylinder."""
    if f.kind == "cartesian":
        mb = f.multibody
        return 2 * mb.n_coordinates + len(mb.constraints) + n_inputs
    displacements = [s for s in f.model.state_names if not s.endswith((".e", ".f"))]
    return 2 * f.model.graph.number_of_edges() + len(displacements) + n_inputs


@pytest.fixture(scope="module")
def pendulum():
    mech, pose = double_pendulum()
    return mech, pose, {k: build_formulation(mech, k) for k in ("causal", "cartesian")}


@pytest.fixture(scope="module")
def four_bar():
    case = four_bar_case()
    mech = case.mechanism("extension")
    tt = np.linspace(0.0, 2.0, 801)
    spline = Spline(tt, sp.lambdify(T, LENGTH)(tt), name="L")  # zero slope at both ends, like LENGTH
    out = {}
    for kind in ("causal", "cartesian"):
        f = build_formulation(mech, kind)
        res = f.simulate_extensions({"cyl": spline}, (0.0, 2.0), guess=case.guess, rtol=1e-10,
                                    atol=1e-12, t_eval=np.linspace(0, 2, 201), progress=False)
        out[kind] = (f, res)
    pose = mech.solve_pose({"cyl": float(LENGTH.subs(T, 0))}, guess=case.guess)
    return mech, pose, out


def test_counts_and_sections(pendulum, four_bar):
    mech, pose, forms = pendulum
    for kind in ("causal", "cartesian"):
        mo = export_modelica(forms[kind], pose)
        assert mo.n_variables == mo.n_equations == expected_size(forms[kind], 0)
    mech, pose, runs = four_bar
    for kind in ("causal", "cartesian"):
        mo = export_modelica(runs[kind][0], pose, inputs={"cyl": LENGTH})
        assert mo.n_variables == mo.n_equations == expected_size(runs[kind][0], 1)
    text = mo.text
    sections = [text.index(s) for s in ("// ---- 1. coordinates", "// ---- 2. element matrices",
                                        "// ---- 3. system equations")]
    assert sections == sorted(sections)
    assert 'parameter Real coupler_M[3, 3] = [5.0, 0.0, 0.0; 0.0, 5.0, 0.0; 0.0, 0.0, 0.4166' in text
    assert "cyl_length = 0.6 - 0.1*cos(3.14159" in text


def test_bond_graph_form_has_units_and_part_names(four_bar):
    mech, pose, runs = four_bar
    mo = export_modelica(runs["causal"][0], pose, inputs={"cyl": LENGTH})
    assert 'parameter Real crank_J_m(unit="kg.m2") = 0.015' in mo.text
    assert 'parameter Real coupler_m_x_m(unit="kg") = 5.0' in mo.text
    assert "// rocker/J: I (derivative causality)" in mo.text
    assert "cyl_rate = 0.1*3.14159" in mo.text  # the drive is the length's rate, a formula


def test_inputs_are_checked(four_bar):
    mech, pose, runs = four_bar
    with pytest.raises(ParameterError, match="input for 'pump': not a driven cylinder"):
        export_modelica(runs["causal"][0], pose, inputs={"pump": 1.0})
    with pytest.raises(ParameterError, match="cyl: the Cartesian export needs its length"):
        export_modelica(runs["cartesian"][0], pose)
    with pytest.raises(ParameterError, match="index = 2"):
        export_modelica(runs["cartesian"][0], pose, inputs={"cyl": LENGTH}, index=2)


@needs_rumoca
@pytest.mark.parametrize("kind,index", [("causal", 3), ("cartesian", 3), ("cartesian", 1)])
def test_pendulum_exports_match_kane(pendulum, kind, index):
    mech, pose, forms = pendulum
    mo = export_modelica(forms[kind], pose, index=index)
    names = (["rod1.theta", "rod2.theta"] if kind == "cartesian"
             else ["pendulum/rod1/w.theta", "pendulum/rod2/w.theta"])
    out = simulate_rumoca(mo, 2.0, 0.01, rtol=1e-12, atol=1e-14, names=names)
    kane = ref.double_pendulum_kane(out["time"])
    err = max(np.max(np.abs(out[names[0]] + math.pi / 2 - kane["theta1"])),
              np.max(np.abs(out[names[1]] + math.pi / 2 - kane["theta2"])))
    assert err <= 1e-8


@needs_rumoca
@pytest.mark.parametrize("kind", ["causal", "cartesian"])
def test_four_bar_export_reproduces_our_history(four_bar, kind):
    mech, pose, runs = four_bar
    f, res = runs[kind]
    mo = export_modelica(f, pose, inputs={"cyl": LENGTH})
    parts = {"crank": "theta", "coupler": "theta", "rocker": "phi"}
    if kind == "cartesian":
        names = [f"{p}.theta" for p in parts]
        force = "lambda[cyl_drive]"
    else:
        names = [f"four_bar/{p}/w.{c}" for p, c in parts.items()]
        force = f"e[{f.mm.drive_bond('cyl')}]"
    out = simulate_rumoca(mo, 2.0, 0.01, rtol=1e-10, atol=1e-12, names=names + [force])
    ours = f.angles(res)
    for name, part in zip(names, parts):
        err = np.max(np.abs(out[name] - np.interp(out["time"], res.t, ours[part])))
        assert err <= 1e-3, part
        assert err <= 1e-6, part  # what it actually reaches
    F = f.cylinder_force(res, "cyl")
    F_mo = -out[force] if kind == "cartesian" else out[force]
    assert np.max(np.abs(F_mo - np.interp(out["time"], res.t, F))) <= 1e-4 * np.max(np.abs(F))
