"""The common interface: one mechanism, three formulations, the same read-outs and errors."""

from __future__ import annotations

import numpy as np
import pytest

from bondgraph import ParameterError
from mechanisms.formulations import (FORMULATIONS, CartesianFormulation, Formulation,
                                     build_formulation)
from mechanisms.formulations.cases import four_bar_case
from mechanisms.formulations.metrics import spline_bundle, stiffness_ratio, tip_error


@pytest.fixture(scope="module")
def runs():
    case = four_bar_case()
    mech = case.mechanism("extension")
    out = {}
    for kind in FORMULATIONS:
        f = build_formulation(mech, kind, **({"stiffness": 1e9} if kind == "stiff" else {}))
        res = f.simulate_extensions(case.lengths, (0.0, 0.5), guess=case.guess, rtol=1e-8,
                                    atol=1e-10, t_eval=np.linspace(0, 0.5, 26), progress=False,
                                    **({"method": "Radau"} if kind == "stiff" else {}))
        out[kind] = (f, res)
    return case, out


def test_same_read_outs(runs):
    case, out = runs
    keys = None
    for kind, (f, res) in out.items():
        assert isinstance(f, Formulation) and f.kind == kind
        pos = f.positions(res)
        keys = keys or set(pos)
        assert set(pos) == keys, kind
        assert set(f.angles(res)) == {"crank", "coupler", "rocker", "cyl"}
        assert set(f.coordinates(res, "cyl")) == {"phi", "s"}
        assert set(f.coordinates(res, "rocker")) == {"phi"}
        assert f.point(res, case.tip).shape == (26, 2)
        assert f.cylinder_force(res, "cyl").shape == (26,)
        assert all(g.shape == (26,) for g in f.loop_closure(res).values())
    ref = out["causal"]
    for kind, (f, res) in out.items():
        err = tip_error(res.t, f.point(res, case.tip), ref[1].t, ref[0].point(ref[1], case.tip))
        assert err < (1e-6 if kind != "stiff" else 1e-4), kind


def test_cylinder_length_read_back_is_the_prescribed_one(runs):
    case, out = runs
    s = np.array([case.lengths["cyl"].value(t) for t in np.linspace(0, 0.5, 26)])
    for kind, (f, res) in out.items():
        tol = 1e-7 if kind != "stiff" else 1e-5
        assert np.max(np.abs(f.coordinates(res, "cyl")["s"] - s)) < tol, kind


def test_cylinder_rate_read_back_is_the_prescribed_one(runs):
    """Every formulation's extension rate equals the spline's derivative (the causal one
    reads a bond flow, the absolute-coordinate ones compute ∂s/∂q · v)."""
    case, out = runs
    tt = np.linspace(0, 0.5, 26)
    sdot = np.array([case.lengths["cyl"].derivative(t) for t in tt])
    for kind, (f, res) in out.items():
        tol = 1e-7 if kind != "stiff" else 1e-4
        assert np.max(np.abs(f.cylinder_rate(res, "cyl") - sdot)) < tol * max(1.0, np.max(np.abs(sdot))), kind


def test_errors_name_the_culprit(runs):
    case, out = runs
    f, res = out["cartesian"]
    with pytest.raises(ParameterError, match="'pump': no such part"):
        f.cylinder_force(res, "pump")
    with pytest.raises(ParameterError, match="'coupler/Z': no such hinge point"):
        f.point(res, "coupler/Z")
    with pytest.raises(ParameterError, match=r"forces given for \['cyl'\], expected exactly the "
                                             r"force-driven cylinders \[\]"):
        f.simulate_forces({"cyl": 1.0}, (0.0, 1.0), case.pose(f.mechanism))
    with pytest.raises(ParameterError, match="extension-driven cylinders"):
        out["stiff"][0].simulate_extensions({}, (0.0, 1.0))


def test_cartesian_has_one_multiplier_block(runs):
    _, out = runs
    f: CartesianFormulation = out["cartesian"][0]
    sizes = sorted(len(b.unknowns) for b in f.model.equations.blocks)
    assert sizes[-1] == len(f.multibody.constraints) == 9  # 4 pins x 2 + the drive
    assert sizes[:-1] == [1] * (len(sizes) - 1)


def test_baumgarte_holds_the_constraints():
    from mechanisms.formulations import double_pendulum

    mech, pose = double_pendulum()
    drift = {}
    for gains in ((10.0, 10.0), (0.0, 0.0)):
        f = build_formulation(mech, "cartesian", alpha=gains[0], beta=gains[1])
        res = f.simulate_forces({}, (0.0, 2.0), pose, rtol=1e-8, atol=1e-10, progress=False)
        drift[gains] = max(float(np.max(g)) for g in f.loop_closure(res).values())
    assert drift[(0.0, 0.0)] > 5 * drift[(10.0, 10.0)]


def test_stiff_form_is_stiff_and_the_causal_is_not(runs):
    _, out = runs
    ratio = {k: stiffness_ratio(f.model, res) for k, (f, res) in out.items()}
    assert ratio["stiff"][1] > 1e4
    assert ratio["causal"][1] < 1e3 and ratio["cartesian"][1] < 1e3
    assert not out["stiff"][0].model.report.derivative


def test_spline_bundle_evaluates_all_channels():
    t = np.linspace(0, 1, 11)
    sig = spline_bundle(t, {"a": np.sin(t), "b": np.cos(t)})
    assert sig["a"].value(0.35) == pytest.approx(np.sin(0.35), abs=1e-5)
    assert sig["b"].value(0.35) == pytest.approx(np.cos(0.35), abs=1e-5)
