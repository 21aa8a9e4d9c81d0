"""A body's outline is found once (in its own frame) and kept, and equals the convex hull
of its points found at every pose drawn, as it was computed before (one
:class:`scipy.spatial.ConvexHull` per pose); a warm process draws it without scipy.spatial."""

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import ConvexHull, QhullError

from components import MainBody
from components.outline import hull_file, hull_order, is_hull
from mechanisms.machine import DATA
from mechanisms.machine.assemble import assemble
from mechanisms.machine.description import MachineDescription

ROOT = Path(__file__).resolve().parents[2]


def hull_at_pose(body, pose):
    """The reference: the sketch as it was drawn, a ConvexHull of the points at the pose."""
    pts = list(body.world_points(pose).values())
    if len(pts) < 3:
        return [pts]
    arr = np.array(pts, dtype=float)
    try:
        hull = ConvexHull(arr)
    except QhullError:
        return [pts]
    loop = [tuple(arr[i]) for i in hull.vertices]
    return [loop + [loop[0]]]


def same_loop(a, b) -> bool:
    """Two closed loops equal bit for bit as loops (any start vertex, same direction)."""
    a, b = [tuple(map(float, p)) for p in a[:-1]], [tuple(map(float, p)) for p in b[:-1]]
    if len(a) != len(b) or a[0] not in b:
        return False
    k = b.index(a[0])
    return a == b[k:] + b[:k]


def bodies():
    out = []
    for name in ("excavator", "excavator_mini", "wheel_loader", "knuckle_crane"):
        mech = assemble(MachineDescription.load(DATA / f"{name}.toml"), "forces").mechanism
        out += [(f"{name}/{p}", part) for p, part in mech.parts.items() if isinstance(part, MainBody)]
    return out


@pytest.fixture(scope="module")
def shipped_bodies():
    found = bodies()
    assert len(found) >= 8
    return found


def test_the_outline_at_any_pose_is_the_hull_found_at_that_pose(shipped_bodies):
    rng = np.random.default_rng(7)
    poses = [(0.0, 0.0, 0.0)] + [(float(x), float(y), float(t)) for x, y, t in
                                  zip(rng.uniform(-5, 5, 12), rng.uniform(-5, 5, 12), rng.uniform(-7, 7, 12))]
    poses += [(1.0, 2.0, np.pi / 2), (0.0, 0.0, np.pi), (-3.0, 0.5, -np.pi / 2)]
    checked = 0
    for name, body in shipped_bodies:
        for pose in poses:
            new, ref = body.sketch(pose), hull_at_pose(body, pose)
            assert len(new) == len(ref) == 1, name
            if body.outline() is None:    # a polyline (no hull): the points in order
                assert [tuple(p) for p in new[0]] == [tuple(p) for p in ref[0]], name
            else:
                assert same_loop(new[0], ref[0]), (name, pose, new, ref)
                checked += 1
    assert checked >= 8 * len(poses)


def test_collinear_and_short_bodies_draw_their_points_as_before():
    line = MainBody("bar", mass=1.0, inertia=1.0, cog=(0.5, 0.0), points={
        "C": ("Rt", (0.0, 0.0)), "B": ("Pd", (1.0, 0.0)), "F": ("Li", (2.0, 0.0))})
    two = MainBody("pin", mass=1.0, inertia=1.0, cog=(0.5, 0.0), points={
        "C": ("Rt", (0.0, 0.0)), "B": ("Pd", (1.0, 0.0))})
    for body in (line, two):
        assert body.outline() is None
        for pose in [(0.0, 0.0, 0.0), (1.0, -2.0, 0.7)]:
            assert body.sketch(pose) == hull_at_pose(body, pose)


def test_a_stale_or_foreign_entry_is_found_again(tmp_path, monkeypatch):
    monkeypatch.setenv("BONDGRAPH_CACHE", str(tmp_path))
    pts = np.array([[0.0, 0.0], [3.0, 0.0], [1.0, 0.5], [0.0, 2.0]])
    good = hull_order(pts)
    assert is_hull(pts, good) and set(good) == {0, 1, 3}
    entry = pickle.loads(hull_file(pts).read_bytes())
    for bad in ([0, 3, 1], [0, 1, 2], [0, 1, 7], "x", 7):    # clockwise, not convex, out of range, junk
        hull_file(pts).write_bytes(pickle.dumps({**entry, "value": {"hull": bad}}))
        assert hull_order(pts) == good
    hull_file(pts).write_bytes(pickle.dumps({**entry, "key": "hull 1|00"}))   # written for other points
    assert hull_order(pts) == good
    hull_file(pts).write_bytes(b"not a pickle")
    assert hull_order(pts) == good


def test_a_warm_process_draws_the_outlines_without_scipy_spatial(tmp_path):
    code = ("import sys\n"
            "from mechanisms.machine import DATA\n"
            "from mechanisms.machine.assemble import assemble\n"
            "from mechanisms.machine.description import MachineDescription\n"
            "mech = assemble(MachineDescription.load(DATA / 'excavator.toml'), 'forces').mechanism\n"
            "bodies = [part for part in mech.parts.values() if part.kind == 'body']\n"
            "lines = [body.sketch((0.1, 0.2, 0.3)) for body in bodies]\n"
            "assert sum(len(line[0]) >= 4 for line in lines) >= 3   # three outlines\n"
            "print('scipy.spatial' in sys.modules)\n")
    env = dict(os.environ, BONDGRAPH_CACHE=str(tmp_path), PYTHONPATH=str(ROOT))

    def loads_spatial() -> bool:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.strip().splitlines()[-1] == "True"

    assert loads_spatial()           # an empty cache: the hulls are found (the probe sees it)
    assert not loads_spatial()       # then kept: none found again
