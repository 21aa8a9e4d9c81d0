"""Assembly branches: a pose from cylinder lengths is the one the cylinders reach from the
start pose (the file's ``[start]`` branch), checked against the excavator's independent
trigonometry (tests/reference/excavator_trig.py: each triangle and the four-bar closed on
the sign of the start pose); a path that passes a loop's dead centre is a named error."""

import itertools
import math

import numpy as np
import pytest

from bondgraph import AssemblyError
from mechanisms.machine import DATA, Cycle, Machine
from reference.dead_centre_lever import dead_centre_lever
from reference.excavator_trig import load

EXC = DATA / "excavator.toml"


@pytest.fixture(scope="module")
def ex():
    return Machine.from_file(EXC, mode="extensions")


@pytest.fixture(scope="module")
def trig():
    return load(EXC)


def _angles_equal(m, pose, ref):
    for part in ("boom", "arm", "rocker", "bucket"):
        d = math.remainder(pose.angle(part) - float(ref[part]), 2 * math.pi)
        assert abs(d) < 1e-8, (part, d)


def test_far_from_the_start_the_arm_is_on_the_start_branch(ex, trig):
    """At (2.48, 2.26, 2.30) m the least-squares solve from the start angles gave the arm
    at −0.6° to the boom (the arm triangle's mirror image); the trigonometry says −22.3°."""
    s = {"boom": 2.48, "arm": 2.26, "bucket": 2.30}
    pose = ex.pose_at_lengths(s)
    ref = trig.angles(s["boom"], s["arm"], s["bucket"])
    assert math.degrees(pose.angle("arm") - pose.angle("boom")) == pytest.approx(-22.286, abs=1e-3)
    _angles_equal(ex, pose, ref)


def test_every_corner_of_the_stroke_box_equals_the_trigonometry(ex, trig):
    limits = [ex.description.stroke_limits(f) for f in ex.functions]
    for corner in itertools.product(*limits):
        s = dict(zip(ex.functions, corner))
        _angles_equal(ex, ex.pose_at_lengths(s), trig.angles(*corner))


def test_an_extensions_run_far_from_the_start_starts_on_the_right_branch(ex, trig):
    """check_cycle and the run start from pose_at_lengths: the tip at t = 0 is the
    trigonometry's at the cycle's first lengths."""
    s0 = (2.48, 2.26, 2.30)
    cyc = Cycle("extensions", [0, 1], {f: [v, v + 0.05] for f, v in zip(ex.functions, s0)}, ex.functions)
    ex.check_cycle(cyc)
    tab = ex.run(cyc, t_end=0.05, dt=0.05, progress=False).table()
    q = trig.world(*s0)["bucket/Q"]
    assert math.hypot(tab["tip_x"][0] - q[0], tab["tip_y"][0] - q[1]) < 1e-8


def test_dead_centre_measures_keep_their_sign_over_the_stroke_box(ex):
    """The branch measure of every loop has the start pose's sign at every corner."""
    ref = ex.mechanism.dead_centre_measures(ex.start_pose)
    limits = [ex.description.stroke_limits(f) for f in ex.functions]
    for corner in itertools.product(*limits):
        m = ex.mechanism.dead_centre_measures(ex.pose_at_lengths(dict(zip(ex.functions, corner))))
        assert all(m[k] * ref[k] > 0 for k in ref)


def test_a_path_through_a_dead_centre_is_named():
    """Turning the body from +0.5 to −0.5 rad takes the cylinder through the pivot's line:
    the continuation refuses to hand back the other branch and names the loop and the
    inputs on both sides of the dead centre. The sign it watches is the triangle's
    orientation, checked here by hand."""
    mech = dead_centre_lever()
    start = mech.solve_pose({"arm": 0.5}, guess={"arm": 0.5})
    (key, m0), = mech.dead_centre_measures(start).items()
    B = np.array([math.cos(0.5), math.sin(0.5)])
    u, v = B - np.array([2.0, 0.0]), -B           # cylinder line, hinge → pivot
    assert m0 == pytest.approx((u[0] * v[1] - u[1] * v[0]) / (np.hypot(*u) * np.hypot(*v)), rel=1e-12)
    path = {"arm": np.linspace(0.5, -0.5, 11)[1:]}
    poses = mech.track({"arm": np.linspace(0.5, 0.05, 10)}, start)   # up to the dead centre: fine
    assert poses[-1].angle("arm") == pytest.approx(0.05, abs=1e-12)
    with pytest.raises(AssemblyError) as err:
        mech.track(path, start)
    msg = str(err.value)
    assert err.value.dead_centre and err.value.index == 5
    assert "loop cyl – chassis – arm" in msg and "passes its dead centre between arm" in msg
    assert "the line of cyl crosses arm's pivot O" in msg


def test_a_pose_beyond_a_dead_centre_is_refused_by_the_machine(tmp_path):
    """Machine.pose follows the targets from the start pose: a boom angle beyond the boom
    triangle's dead centre (reachable by lengths only on the other branch) is refused with
    the loop named, not returned as the mirror image."""
    m = Machine.from_file(EXC, mode="forces")
    pts = m.start_pose.points()
    C, A, B = (np.array(pts[k]) for k in ("boom/C", "boom_cylinder/A", "boom/B"))
    # the boom angle at which B lies on the line A–C (beyond C: the cylinder at |AC| + |CB|)
    th_B = math.atan2(*(B - C)[::-1]) - m.start_pose.angle("boom")
    dead = math.atan2(*(C - A)[::-1]) - th_B
    start = m.start_pose.angle("boom")
    beyond = dead + 0.2 * math.copysign(1.0, dead - start)
    with pytest.raises(AssemblyError) as err:
        m.pose({"boom": beyond, "arm": -1.0, "bucket": 1.0})
    assert "loop boom_cylinder – chassis – boom" in str(err.value) and "dead centre" in str(err.value)


def test_extensions_poses_equal_the_trigonometry_at_default_tolerances(ex, trig):
    """Every output time of the default cycle, at the default rtol: the tip and the
    angles equal the trigonometry at the prescribed lengths (the spline's values) to
    1e-9 m; the integrated poses drifted by 2e-6 m."""
    cyc = ex.cycle()
    run = ex.run(cyc, progress=False)
    tab = run.table()
    sig = cyc.signals()
    s = [sig[f].values_at(tab["time"]) for f in ex.functions]
    for f, v in zip(ex.functions, s):
        assert np.array_equal(tab[f"{f}_length"], v)
    q = trig.world(*s)["bucket/Q"]
    assert np.max(np.hypot(tab["tip_x"] - q[0], tab["tip_y"] - q[1])) < 1e-9
    ref = trig.angles(*s)
    assert np.max(np.abs(tab["arm_angle"] - (ref["arm"] - ref["boom"]))) < 1e-9
