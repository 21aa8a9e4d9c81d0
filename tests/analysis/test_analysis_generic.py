"""The analyses know no machine: a wheel loader's Z-bar (a tilt linkage coupled to the lift
through the boom) against the assembly solver, one pose at a time, and virtual work."""

import numpy as np
import pytest

from mechanisms.analysis import Study, tool_forces, working_range
from mechanisms.machine import DATA

@pytest.fixture(scope="module")
def loader():
    return Study(DATA / "wheel_loader.toml")


def _track(study, lengths):
    """The assembly solver's pose at ``lengths`` (cylinder → m), carried from the start pose."""
    mech = study.kinematics.mechanism
    start = study.kinematics.start
    path = {c: np.linspace(start.length(c), lengths[c], 40) for c in lengths}
    return mech.track(path, start)[-1]


def test_blocks_of_a_coupled_linkage(loader):
    kin = loader.kinematics
    blocks = [(b.unknowns, b.base, b.inputs) for b in kin.blocks]
    assert blocks[0] == (["boom", "lift_cylinder"], None, ["lift_cylinder"])
    # the bell crank turns on the boom but its cylinder sits on the chassis: both lengths
    assert blocks[1] == (["bellcrank", "tilt_cylinder"], None, ["lift_cylinder", "tilt_cylinder"])
    assert blocks[2][0] == ["link", "bucket"] and blocks[2][1] == "boom"


def test_grid_equals_the_assembly_solver_pose_by_pose(loader):
    grid = loader.grid(9)
    x, y = grid.point("bucket", "Q")
    assert grid.ok.all()
    for idx in [(0, 0), (8, 8), (4, 2), (1, 7), (7, 1)]:
        L = {c: float(grid.axes[c][i]) for c, i in zip(grid.cylinders, idx)}
        q = _track(loader, L).points()["bucket/Q"]
        assert np.hypot(q[0] - x[idx], q[1] - y[idx]) < 1e-8, idx


def test_working_range_of_the_loader_contains_its_paths(loader):
    wr = working_range(loader, n=30)
    grid = wr.grid
    lift, tilt = grid.cylinders
    # a lift with the tilt cylinder held, pose by pose with the assembly solver
    for s in np.linspace(grid.axes[lift][0], grid.axes[lift][-1], 7):
        q = _track(loader, {lift: s, tilt: 1.1}).points()["bucket/Q"]
        assert wr.contains([q[0]], [q[1]])[0]
    assert wr.dimensions["max_cutting_height"].value > 3.0          # a loader lifts its edge high


def _potential(study, pose):
    desc = study.description
    g = desc.gravity
    V = 0.0
    for name, part in pose.mechanism.parts.items():
        v = pose.values[name]
        spec = desc.parts[name].values
        if desc.parts[name].type in ("body", "lever"):
            V += spec["mass"] * g * part.world_cog(v)[1]
        else:
            rx, ry, phi, s = v
            n = spec["count"]
            V += n * spec["barrel_mass"] * g * (ry + spec["barrel_cog"] * np.sin(phi))
            V += n * spec["rod_mass"] * g * (ry + (s - spec["rod_cog"]) * np.sin(phi))
    for pl in desc.payloads.values():          # the load in the bucket (a point mass on its body)
        ox, oy, th = pose.values[pl["part"]]
        V += pl["mass"] * g * (oy + np.sin(th) * pl["at"][0] + np.cos(th) * pl["at"][1])
    return V


def test_loader_tool_forces_equal_virtual_work_on_the_assembly_solver(loader):
    """Breakout (tilt) and lift forces with the weights, by finite differences of the
    assembly solver's poses: F_tool = (p·A_cap − ∂V/∂s)/|∂Q/∂s|."""
    tf = tool_forces(loader, n=8, relief="250 bar", weights=True, generic=True)
    L = {"lift": 1.6, "tilt": 1.1}
    cyl = loader.description.cylinder_of
    got = tf.at({f: [v] for f, v in L.items()})
    h = 1e-6
    for f in ("lift", "tilt"):
        plus = {cyl[g]: v + (h if g == f else 0.0) for g, v in L.items()}
        minus = {cyl[g]: v - (h if g == f else 0.0) for g, v in L.items()}
        pp, pm = _track(loader, plus), _track(loader, minus)
        v = (np.array(pp.points()["bucket/Q"]) - np.array(pm.points()["bucket/Q"])) / (2 * h)
        hold = (_potential(loader, pp) - _potential(loader, pm)) / (2 * h)
        a_cap, _ = loader.description.areas(f)
        assert got[f]["hydraulic"][0] == pytest.approx((250e5 * a_cap - hold) / np.hypot(*v), rel=1e-6), f
