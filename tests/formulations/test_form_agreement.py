"""Boom + cylinder and four-bar: the three formulations against Kane and against each other.

Must hold: angles to 1e-5 rad and cylinder forces to 1e-4 (relative to the
largest force) for the causal and Cartesian formulations; the stiff-joint one
to what its finite stiffness implies — a joint carrying ``λ`` deflects
``δ = λ/k``, which turns the driven part by about ``δ / ℓ`` with ``ℓ`` the
cylinder's moment arm ``ds/dθ`` — so its angle tolerance is ``10·δ_max/ℓ_min``
(``δ_max`` measured in the run, ``ℓ_min`` from the reference), and its force
tolerance 1e-4 at the stiffness given per case.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import reference as ref
from bondgraph import Spline, t as T
from conftest import T_GRID, boom_geometry, four_bar_geometry
from mechanisms.formulations import build_formulation

TIGHT = dict(rtol=1e-10, atol=1e-12, progress=False)
#: Stiff-joint runs: Radau (the most accurate stiff method here) and the stiffness per case.
STIFF_RUN = dict(method="Radau", rtol=1e-7, atol=1e-10, progress=False)
STIFFNESS = {"boom": 1e11, "four-bar": 1e10}

CASES = [("boom", False), ("boom", True), ("four-bar", False), ("four-bar", True)]


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


@pytest.fixture(scope="module")
def inverse_runs(inverse_references):
    out = {}
    for key, r in inverse_references.items():
        case = r["case"]
        mech = case.mechanism("extension")
        for kind in ("causal", "cartesian", "stiff"):
            opts = {"stiffness": STIFFNESS[key[0]]} if kind == "stiff" else {}
            f = build_formulation(mech, kind, **opts)
            res = f.simulate_extensions(case.lengths, (0.0, case.t_end), guess=case.guess,
                                        t_eval=T_GRID, **(STIFF_RUN if kind == "stiff" else TIGHT))
            out[key + (kind,)] = (f, res)
    return out


@pytest.mark.parametrize("machine,massive", CASES)
@pytest.mark.parametrize("kind", ["causal", "cartesian"])
def test_rigid_formulations_match_kane(inverse_runs, inverse_references, machine, massive, kind):
    r = inverse_references[(machine, massive)]
    f, res = inverse_runs[(machine, massive, kind)]
    angles = f.angles(res)
    for part, ref_angle in r["angles"].items():
        assert np.max(np.abs(angles[part] - ref_angle)) <= 1e-5, part
    assert _rel(f.cylinder_force(res, r["cyl"]), r["F"]) <= 1e-4


@pytest.mark.parametrize("machine,massive", CASES)
def test_causal_and_cartesian_agree(inverse_runs, machine, massive):
    fa, ra = inverse_runs[(machine, massive, "causal")]
    fb, rb = inverse_runs[(machine, massive, "cartesian")]
    aa, ab = fa.angles(ra), fb.angles(rb)
    assert set(aa) == set(ab)
    for part in aa:
        assert np.max(np.abs(aa[part] - ab[part])) <= 1e-5, part
    cyl = next(iter(fa.mechanism.drives))
    assert _rel(fa.cylinder_force(ra, cyl), fb.cylinder_force(rb, cyl)) <= 1e-4


@pytest.mark.parametrize("machine,massive", CASES)
def test_stiff_joints_agree_to_their_deflection(inverse_runs, inverse_references, machine, massive):
    r = inverse_references[(machine, massive)]
    f, res = inverse_runs[(machine, massive, "stiff")]
    delta = f.deflection_bound(res)
    assert 0 < delta < 1e-5  # finite joints do deflect, by micrometres at these stiffnesses
    tol = 10 * delta / r["arm"]
    angles = f.angles(res)
    for part, ref_angle in r["angles"].items():
        assert np.max(np.abs(angles[part] - ref_angle)) <= tol, part
    assert _rel(f.cylinder_force(res, r["cyl"]), r["F"]) <= 1e-4


def test_softer_joints_deviate_more(inverse_references):
    """The stiff-joint error is the joints' deflection: a hundred times softer, far worse."""
    r = inverse_references[("boom", False)]
    case = r["case"]
    errs = {}
    for k in (1e9, 1e11):
        f = build_formulation(case.mechanism("extension"), "stiff", stiffness=k)
        res = f.simulate_extensions(case.lengths, (0.0, case.t_end), guess=case.guess,
                                    t_eval=T_GRID, **STIFF_RUN)
        errs[k] = np.max(np.abs(f.angles(res)["boom"] - r["angles"]["boom"]))
    assert errs[1e9] > 1e-5 > errs[1e11]
    assert errs[1e9] > 20 * errs[1e11]


def test_forward_boom_matches_kane():
    """Prescribed force (static holding force plus 5 %): all three against Kane's forward dynamics."""
    from mechanisms.formulations.cases import boom_case

    geom = boom_geometry(True)
    s0 = 3.0
    F0 = float(ref.boom_static_force(geom, ref.boom_theta_from_length(geom, s0)))
    F = F0 * (1 + 0.05 * sp.sin(2 * sp.pi * T))
    R = ref.boom_cylinder_forward(geom, sp.lambdify(T, F), T_GRID, s0)
    case = boom_case(massive=True)
    mech = case.mechanism("force")
    pose = mech.solve_pose({"boom_cyl": s0}, guess=case.guess)
    for kind, opts, run in (("causal", {}, TIGHT), ("cartesian", {}, TIGHT),
                            ("stiff", {"stiffness": 1e11}, STIFF_RUN)):
        f = build_formulation(mech, kind, **opts)
        res = f.simulate_forces({"boom_cyl": F}, (0.0, 2.0), pose, t_eval=T_GRID, **run)
        tol = 1e-5 if kind != "stiff" else max(1e-7, 10 * f.deflection_bound(res) / 0.5)
        err = max(np.max(np.abs(f.angles(res)["boom"] - R["theta"])),
                  np.max(np.abs(f.coordinates(res, "boom_cyl")["s"] - R["length"])))
        assert err <= tol, kind
    assert np.ptp(R["theta"]) > 0.02  # the boom really moves


def test_forward_four_bar_matches_kane(inverse_references):
    """Forces of the inverse run as a spline input; Kane's forward dynamics on the same input."""
    r = inverse_references[("four-bar", False)]
    case = r["case"]
    F = Spline(T_GRID, r["F"], bc_type="not-a-knot", name="F")
    s0 = case.lengths["cyl"].value(0.0)
    R = ref.fourbar_cylinder_forward(four_bar_geometry(False), F.value, T_GRID, s0)
    mech = case.mechanism("force")
    pose = case.pose(mech)
    for kind in ("causal", "cartesian"):
        f = build_formulation(mech, kind)
        res = f.simulate_forces({"cyl": F}, (0.0, 2.0), pose, t_eval=T_GRID, **TIGHT)
        a = f.angles(res)
        for part, key in (("crank", "theta_a"), ("coupler", "theta_b"), ("rocker", "theta_c")):
            assert np.max(np.abs(a[part] - R[key])) <= 1e-5, (kind, part)
