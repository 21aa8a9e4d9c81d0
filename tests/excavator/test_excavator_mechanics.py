"""The excavator's mechanics against independent figures (docs/reference/excavator_data.md section E)."""

import numpy as np
import pytest

from mechanisms.excavator import CYLINDERS, Cycle, Excavator
from reference.excavator import excavator_cylinder_lengths, excavator_points, excavator_static_boom_force

SOURCE_MASSES = {"bucket.mass": "50 kg", "bucket.cog": ["0.5 m", "-0.6 m"], "bucket.inertia": "2.19 kg*m^2",
                 "rocker.mass": "0 kg", "rocker.inertia": "0 kg*m^2", "link.mass": "0 kg",
                 "boom_cylinder.rod_mass": "0 kg", "arm_cylinder.rod_mass": "0 kg",
                 "bucket_cylinder.rod_mass": "0 kg"}


def test_start_pose_gives_the_published_cylinder_lengths():
    pose = Excavator(mode="forces").start_pose
    for cyl, expected in zip(CYLINDERS, (3.668, 2.969, 3.066)):
        assert pose.length(cyl) == pytest.approx(expected, abs=1e-3)
    ref = excavator_cylinder_lengths(*np.radians([50, -80, 20]), branch=1)
    ref = [ref[k] for k in ("boom", "arm", "bucket")] if isinstance(ref, dict) else list(ref)
    assert [pose.length(c) for c in CYLINDERS] == pytest.approx([float(x) for x in ref], abs=1e-9)
    ref_pts = excavator_points(*np.radians([50, -80, 20]), branch=1)
    ours = pose.points()
    for mine, theirs in [("bucket/Q", "tip"), ("rocker/J", "rocker_joint"), ("bucket/N", "link_pin"),
                         ("arm/E", "arm_cyl_rod"), ("boom/B", "boom_cyl_rod")]:
        assert ours[mine] == pytest.approx(tuple(map(float, ref_pts[theirs])), abs=1e-9)


def test_static_holding_needs_77_8_kN_and_27_2_bar():
    exc = Excavator(overrides=SOURCE_MASSES, mode="extensions")
    pose = exc.pose()
    hold = Cycle("extensions", [0, 1], {f: [pose.length(c)] * 2 for f, c in zip(("boom", "arm", "bucket"), CYLINDERS)})
    run = exc.run(hold, t_end=0.05, progress=False)
    tab = run.table()
    F = float(tab["boom_force"][0])
    assert F == pytest.approx(77.8e3, rel=0.01)
    assert float(tab["boom_cap_pressure_required"][0]) / 1e5 == pytest.approx(27.2, rel=0.01)
    assert float(tab["boom_rod_pressure_required"][0]) == 0.0
    # and the same to 1e-6 against the independent moment balance
    ref = excavator_static_boom_force(np.radians([50, -80, 20]))
    assert F == pytest.approx(ref["force"], rel=1e-6)


def test_inverse_then_forward_reproduces_the_tip_path():
    inv = Excavator(mode="extensions").run(Cycle.default("extensions"), t_end=3.0, rtol=1e-10, atol=1e-12,
                                           t_eval=np.linspace(0, 3, 1501), progress=False)
    ti = inv.table()
    forces = Cycle("forces", ti["time"], {f: ti[f"{f}_force"] for f in ("boom", "arm", "bucket")})
    exc = Excavator(mode="forces")
    fwd = exc.run(forces, t_end=3.0, rtol=1e-10, atol=1e-12, t_eval=ti["time"], progress=False)
    tf = fwd.table()
    gap = np.hypot(tf["tip_x"] - ti["tip_x"], tf["tip_y"] - ti["tip_y"])
    assert np.max(gap) < 1e-3
    assert fwd.loop_closure() < 1e-6
    assert fwd.contacts == []          # the path stays inside every stroke: no end-stop contact
    assert np.all(tf["boom_stop_force"] == 0.0)


def test_extension_cycle_closes_loops_and_balances_energy():
    run = Excavator(mode="extensions").run(Cycle.default("extensions"), progress=False)   # default tolerances
    assert run.loop_closure() <= 1e-9
    assert run.energy_balance().relative < 1e-4
    tab = run.table()
    assert tab["tip_y"].min() < -1.7  # it digs below ground level
