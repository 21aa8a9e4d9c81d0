"""The rigid-body view of a mechanism: bodies, constraint rows, actuators, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import reference as ref
from bondgraph import ParameterError
from components import Cylinder, MainBody
from mechanisms.assembly import Mechanism
from mechanisms.examples import four_bar, single_boom
from mechanisms.formulations import Multibody, build_formulation
from mechanisms.formulations.cases import BOOM_CYLINDER_MASSES, FOUR_BAR


def test_four_bar_rows_vanish_at_an_assembled_pose():
    mech = four_bar(**FOUR_BAR)
    mb = Multibody(mech)
    assert list(mb.bodies) == ["crank", "coupler", "rocker"]
    assert [c.kind for c in mb.constraints].count("revolute x") == 4
    pose = mech.solve_pose({"cyl": 0.6}, guess={"crank": 0.9})
    q = mb.coordinates_from_pose(pose)
    gaps = mb.joint_gaps(q)
    assert max(float(g.max()) for g in gaps.values()) < 1e-12
    assert mb.lengths(q)["cyl"] == pytest.approx(0.6, abs=1e-12)
    # the poses read back are the ones assembled
    back = mb.part_poses(q)
    for part in ("crank", "coupler", "rocker"):
        assert np.allclose(np.array(back[part], dtype=float), pose.values[part], atol=1e-12)


def test_consistent_velocities_meet_joints_and_rates():
    mech = four_bar(**FOUR_BAR)
    mb = Multibody(mech)
    q = mb.coordinates_from_pose(mech.solve_pose({"cyl": 0.6}, guess={"crank": 0.9}))
    v = mb.consistent_velocities(q, {"cyl": 0.2})
    assert np.max(np.abs(mb.constraint_jacobian(q) @ v)) < 1e-12
    assert float(mb.length_gradients(q)[0] @ v) == pytest.approx(0.2, rel=1e-12)


def test_static_drive_multiplier_is_the_virtual_work_force():
    """At rest with a constant length, the drive row carries minus the holding force."""
    geom = ref.OPENHYDRAULICS_BOOM
    mech = single_boom("extension", **BOOM_CYLINDER_MASSES)
    mb = Multibody(mech)
    assert set(mb.bodies) == {"boom", "boom_cyl_barrel", "boom_cyl_rod"}
    assert {c.kind for c in mb.constraints} >= {"prismatic angle", "prismatic offset", "drive"}
    pose = mech.solve_pose({"boom_cyl": 3.1}, guess={"boom": 0.2})
    q = mb.coordinates_from_pose(pose)
    acc, lam = mb.rigid_solution(q, np.zeros_like(q), lengths={"boom_cyl": (3.1, 0.0, 0.0)})
    assert np.max(np.abs(acc)) < 1e-9
    drive = [c.kind for c in mb.constraints].index("drive")
    expected = float(ref.boom_static_force(geom, pose.angle("boom")))
    assert -lam[drive] == pytest.approx(expected, rel=1e-9)


def test_massless_lever_is_a_distance_row_and_agrees():
    mech = four_bar("extension", **{**FOUR_BAR, "masses": (2.0, 5.0, 0.0)},
                    inertias=(0.015, 5 / 12, 0.0))
    mb = Multibody(mech)
    assert "rocker" not in mb.bodies
    assert [c.kind for c in mb.constraints].count("distance") == 1
    lengths = {"cyl": ([0.0, 1.0], [0.55, 0.65])}
    guess = {"crank": 0.7, "coupler": 0.7, "rocker": 1.6}
    runs = {k: build_formulation(mech, k) for k in ("causal", "cartesian")}
    res = {k: f.simulate_extensions(lengths, (0.0, 1.0), guess=guess, rtol=1e-10, atol=1e-12,
                                    t_eval=np.linspace(0, 1, 21), progress=False)
           for k, f in runs.items()}
    a, b = (runs[k].angles(res[k]) for k in ("causal", "cartesian"))
    for part in a:
        assert np.max(np.abs(a[part] - b[part])) < 1e-8, part
    fa, fb = (runs[k].cylinder_force(res[k], "cyl") for k in ("causal", "cartesian"))
    assert np.max(np.abs(fa - fb)) < 1e-6 * np.max(np.abs(fa))


def test_parts_without_a_rigid_body_form_are_named():
    with pytest.raises(ParameterError, match=r"boom_cyl: m_barrel = 60.0, m_rod = 0.0"):
        Multibody(single_boom(m_barrel=60.0, J_barrel=1.0))
    mech = Mechanism("light")
    mech.add(MainBody("arm", mass=0.0, inertia=0.0, cog=(0.5, 0.0),
                      points={"O": ("Rt", (0, 0)), "P": ("Pd", (1.0, 0.0))}))
    mech.add(Cylinder("cyl", retracted=0.8, stroke=0.8))
    mech.fix("arm", "O", at=(0.0, 0.0))
    mech.fix("cyl", "A", at=(0.5, -0.8))
    mech.connect("arm", "P", "cyl", "B")
    mech.drive_force("cyl")
    with pytest.raises(ParameterError, match=r"arm: mass = 0.0, inertia = 0.0"):
        build_formulation(mech, "cartesian")
    build_formulation(mech, "causal")  # massless bodies are fine in the causal form


def test_body_names_must_not_clash():
    mech = single_boom(**BOOM_CYLINDER_MASSES)
    mech.add(MainBody("boom_cyl_rod", mass=1.0, inertia=1.0, cog=(0.0, 0.0),
                      points={"R": ("Rt", (0, 0)), "P": ("Pd", (1.0, 0.0))}))
    mech.add(Cylinder("c2", retracted=1.0, stroke=0.5))
    mech.connect("boom", "D", "boom_cyl_rod", "R")
    mech.fix("c2", "A", at=(4.0, 0.0))
    mech.connect("boom_cyl_rod", "P", "c2", "B")
    mech.drive_force("c2")
    with pytest.raises(ParameterError, match="boom_cyl_rod: its body name 'boom_cyl_rod' clashes with a body of part 'boom_cyl'"):
        Multibody(mech)


def test_options_are_checked():
    mech = single_boom()
    with pytest.raises(ParameterError, match="stiffness = -1"):
        build_formulation(mech, "stiff", stiffness=-1.0)
    with pytest.raises(ParameterError, match="damping"):
        build_formulation(mech, "stiff", damping=-1.0)
    with pytest.raises(ParameterError, match="Baumgarte"):
        build_formulation(mech, "cartesian", alpha=-1.0)
    with pytest.raises(ParameterError, match="unexpected keyword"):
        build_formulation(mech, "causal", stiffness=1e8)
    f = build_formulation(mech, "stiff", stiffness=4e8)
    assert f.damping == pytest.approx(2 * math.sqrt(4e8 * 1307.0))


def test_point_mass_cylinder_matches_kane():
    """Barrel and rod with mass but no inertia of their own: point masses on the axis."""
    from mechanisms.formulations.cases import boom_case

    case = boom_case()
    (cyl, s), = case.lengths.items()
    t = np.linspace(0.0, 2.0, 41)
    vec = lambda fn: (lambda tt: np.array([fn(float(x)) for x in np.atleast_1d(tt)]))  # noqa: E731
    geom = ref.BoomCylinder(m1=60.0, d1=0.6, J1=0.0, m2=40.0, d2=0.6, J2=0.0)
    R = ref.boom_cylinder_inverse(geom, vec(s.value), vec(s.derivative), vec(s.second_derivative), t)
    mech = single_boom("extension", m_barrel=60.0, m_rod=40.0, d_barrel=0.6, d_rod=0.6)
    mb = Multibody(mech)
    assert [b.point for b in mb.bodies.values()] == [False, True, True]
    assert [c.kind for c in mb.constraints].count("on axis x") == 2
    for kind in ("causal", "cartesian"):
        f = build_formulation(mech, kind)
        res = f.simulate_extensions(case.lengths, (0.0, 2.0), guess=case.guess, rtol=1e-10,
                                    atol=1e-12, t_eval=t, progress=False)
        assert np.max(np.abs(f.angles(res)["boom"] - R["theta"])) < 1e-7, kind
        F = f.cylinder_force(res, cyl)
        assert np.max(np.abs(F - R["F"])) < 1e-6 * np.max(np.abs(R["F"])), kind


def test_excavator_cycle_causal_and_cartesian_agree():
    """The excavator front (three cylinders with rod masses, rocker and link) on its cycle."""
    from mechanisms.formulations.cases import excavator_case

    case = excavator_case(t_end=3.0)
    mech = case.mechanism("extension")
    mb = Multibody(mech)
    assert {"boom", "arm", "bucket", "rocker", "link"} <= set(mb.bodies)
    t = np.linspace(0.0, 3.0, 61)
    out = {}
    for kind in ("causal", "cartesian"):
        f = build_formulation(mech, kind)
        res = f.simulate_extensions(case.lengths, (0.0, 3.0), guess=case.guess, rtol=1e-10,
                                    atol=1e-12, t_eval=t, progress=False)
        out[kind] = (f.point(res, case.tip), f.angles(res),
                     {c: f.cylinder_force(res, c) for c in case.lengths})
    (ta, aa, fa), (tb, ab, fb) = out["causal"], out["cartesian"]
    assert np.max(np.abs(ta - tb)) < 1e-6
    assert np.ptp(ta[:, 1]) > 0.5  # the bucket tip really travels
    for part in aa:
        assert np.max(np.abs(aa[part] - ab[part])) < 1e-6, part
    for c in fa:
        assert np.max(np.abs(fa[c] - fb[c])) < 1e-5 * np.max(np.abs(fa[c])), c
